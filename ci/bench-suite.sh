#!/usr/bin/env bash
# Suite benchmark (issue 34): in one run, side by side, a suite of
# BENCH_CASES (default 200) trivial scenarios run by `rea run-suite` with
# --jobs 2 against --jobs 1 (target <= 0.55) and against the glue a user
# would write (two `rea capture-process` and one `rea compare-process-captures`
# per case, `xargs -P2`; target <= 0.8); checking against goldens against a
# full run (target <= 0.55); and the peak RSS of a BENCH_RSS_CASES (default
# 1000) case run (target <= 64 MiB). Release build, default settings.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
[ -x /usr/bin/time ] || { echo "bench-suite: GNU time (/usr/bin/time) is required" >&2; exit 1; }
exec python3 ci/bench_suite.py "${CARGO_TARGET_DIR:-$(pwd)/target}/release/rea" "${@}"
