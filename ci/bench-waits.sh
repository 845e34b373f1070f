#!/usr/bin/env bash
# Waiting on output (issue 20), in one run: a 10-prompt interactive session
# captured with wait_for on each prompt, beside the program's own run time
# (target <= 1.1x) and beside the fixed-delay scenario that works on the
# same machine. Default settings. BENCH_RUNS (default 10) sets the runs.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 ci/bench_waits.py "${CARGO_TARGET_DIR:-$(pwd)/target}/release/rea" "${@}"
