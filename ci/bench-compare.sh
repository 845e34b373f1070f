#!/usr/bin/env bash
# Comparison benchmark (issue 9, "Fast and small"): two captures at the
# maximum output budget compared with `rea compare-process-captures`, median
# wall time and peak RSS, printed beside the targets (<= 100 ms, <= 2x the
# two files' combined size) and beside a peer measured in the same run:
# Python's json.load of the same two files.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
[ -x /usr/bin/time ] || { echo "bench-compare: GNU time (/usr/bin/time) is required" >&2; exit 1; }
exec python3 ci/bench_compare.py "$(pwd)/target/release/rea" "${@}"
