#!/usr/bin/env bash
# Screen lens benchmark (issue 21): two captures at the maximum budget
# (`limits.output_bytes` 10,000,000, `limits.frames` 100,000) compared with
# `rea compare-process-captures` under the stream lens (the default) and
# under `--terminal-lens screen`, interleaved run by run in one run
# (release build). Prints each lens's median wall and CPU time and the ratio
# screen / stream (target <= 1.5) over BENCH_ROUNDS rounds (default 3) of
# BENCH_RUNS runs (default 7).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
[ -x /usr/bin/time ] || { echo "bench-screen-lens: GNU time (/usr/bin/time) is required" >&2; exit 1; }
exec python3 ci/bench_screen_lens.py "${CARGO_TARGET_DIR:-$(pwd)/target}/release/rea" "${@}"
