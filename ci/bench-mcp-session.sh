#!/usr/bin/env bash
# Live-session round trip (issue 36): send_input + wait_for on a program that
# answers at once (`cat`), through `rea mcp` with the official Python MCP SDK
# as the client, printed beside its peer, the same round trip through pexpect
# on a bare PTY, measured interleaved in the same run (medians). Target: the
# MCP round trip's median <= 5 ms. Not run by CI.
#
# Usage: ci/bench-mcp-session.sh [debug|release]   (default release;
# BENCH_RUNS=200; REA_MCP_PYTHON: the venv's python with mcp and pexpect,
# installed by ci/setup-mcp.sh and ci/setup-sessions.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${1:-release}"
case "$profile" in
  release) cargo build --quiet --release --bin rea ;;
  debug) cargo build --quiet --bin rea ;;
  *) echo "usage: $0 [debug|release]" >&2; exit 2 ;;
esac
python="${REA_MCP_PYTHON:-target/mcp-venv/bin/python}"
target_dir="${CARGO_TARGET_DIR:-target}"
echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "machine: $(nproc)-core $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //' || uname -m), $(uname -sr)"
echo "build:   $profile, rea at commit $(git rev-parse --short HEAD)"
"$python" ci/bench_mcp_session.py "$target_dir/$profile/rea"
