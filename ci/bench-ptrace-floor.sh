#!/usr/bin/env bash
# The floor of exact process observation (issue 22): the fork-heavy workload
# (1,000 x /bin/true) untraced and under the minimal ptrace tracer
# ci/ptrace_floor.c (the same event stops rea's keeper needs, nothing else;
# once more with a CPU kept awake as the keeper keeps one),
# beside rea's exact and sampled captures of it, interleaved run by run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
target="${CARGO_TARGET_DIR:-$(pwd)/target}"
cc -O2 -Wall -pthread -o "$target/ptrace_floor" ci/ptrace_floor.c
exec python3 ci/bench_ptrace_floor.py "$target/release/rea" "$target/ptrace_floor" "${@}"
