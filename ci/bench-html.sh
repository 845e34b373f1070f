#!/usr/bin/env bash
# HTML view benchmark (issue 37): the page of a maximum-budget comparison
# (`rea show --html`) beside its text view (`rea show`) of the same file, in
# one run, interleaved, release build, default settings. Two comparisons: the
# default stream lens, and the screen lens (whose first divergence carries
# the two screens the page draws). Prints each median and the ratio (target
# <= 2.0) over BENCH_ROUNDS rounds (default 3) of BENCH_RUNS runs (default 9).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 ci/bench_html.py "${CARGO_TARGET_DIR:-$(pwd)/target}/release/rea" "${@}"
