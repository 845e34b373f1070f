#!/usr/bin/env bash
# Exact process observation benchmarks (issue 22), in one run:
#  - a fork-heavy workload (1,000 short processes: a shell loop running
#    /bin/true) captured with exact observation (ptrace event stops) beside
#    the same capture with process_observation "sampled": median wall time
#    and the ratio (target <= 1.3), and the CPU time of the whole tree;
#  - a trivial capture (settle_ms 0, exact observation) beside
#    `script -qec true /dev/null`: median wall time and the ratio (target <= 1.5).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
command -v script >/dev/null || { echo "bench-ptrace: util-linux 'script' is required" >&2; exit 1; }
exec python3 ci/bench_ptrace.py "${CARGO_TARGET_DIR:-$(pwd)/target}/release/rea" "${@}"
