#!/usr/bin/env bash
# Capture benchmarks (issue "Linux capture core"), printed as ratios beside
# their peer `script` measured in the same run:
#  - a trivial command (settle_ms 0): median wall time and peak RSS;
#  - 256 MiB through the PTY (default output_bytes): throughput and peak RSS,
#    with a 64 MiB run to show RSS does not grow with output size;
#  - ownership: a trivial command with DEFAULT settings beside `script -qec
#    true /dev/null`, rea's own CPU while it captures `sleep 10`, and the
#    cost of cleaning up a 200-process tree (BENCH_ONLY=ownership runs just
#    these);
#  - the keeper (issue 23): a trivial capture with settle_ms 0 beside
#    `script`, the keeper's own start-up, and a PID namespace's for contrast.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
command -v script >/dev/null || { echo "bench-capture: util-linux 'script' is required" >&2; exit 1; }
exec python3 ci/bench_capture.py "${CARGO_TARGET_DIR:-$(pwd)/target}/release/rea" "${@}"
