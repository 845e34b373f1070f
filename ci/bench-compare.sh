#!/usr/bin/env bash
# Comparison benchmark (issue 18 item 9): two captures at the maximum
# budget (`limits.output_bytes` 10,000,000, `limits.frames` 100,000) compared
# with `rea compare-process-captures` at its default settings (release
# build), beside Python's json.load of the same two files in the same run,
# interleaved. Prints the wall-time ratio (target <= 0.5) over
# BENCH_ROUNDS rounds (default 3) of BENCH_RUNS runs (default 15), the CPU
# ratio, and the peak RSS (GNU time) against the files' combined size
# (target <= 2x).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
[ -x /usr/bin/time ] || { echo "bench-compare: GNU time (/usr/bin/time) is required" >&2; exit 1; }
exec python3 ci/bench_compare.py "${CARGO_TARGET_DIR:-$(pwd)/target}/release/rea" "${@}"
