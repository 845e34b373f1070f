#!/usr/bin/env bash
# The lag from a satisfied wait to its input (issue 32), in one run: the
# same prompts answered by rea (wait_for.output_contains) and by pexpect
# (expect_exact), measured by the program itself from the end of each
# prompt to the arrival of its answer; median and p99 of each, and rea's as
# ratios of pexpect's. Prompts written in one write and one byte per write
# (2 ms pauses). Default settings. BENCH_PROMPTS (default 40) sets the
# prompts per session, BENCH_RUNS (default 3) the sessions of each.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${REA_PEXPECT_VENV:-target/pexpect-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import pexpect' 2>/dev/null; then
  REA_PEXPECT_VENV="$venv" ci/setup-terminal-programs.sh >&2
fi
cargo build --release --quiet
exec "$venv/bin/python" ci/bench_wait_lag.py "${CARGO_TARGET_DIR:-$(pwd)/target}/release/rea" "${@}"
