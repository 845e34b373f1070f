#!/usr/bin/env bash
# What the live-session tests and benchmark need (tests/integration/
# mcp_sessions.rs, ci/bench-mcp-session.sh): bc and python3 for the agent to
# explore, and pexpect in the MCP venv for the benchmark's peer. Run after
# ci/setup-mcp.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v bc >/dev/null 2>&1 || ! [ -x /usr/bin/python3 ]; then
  apt-get update
  apt-get install -y --no-install-recommends bc python3
fi
venv="${REA_MCP_VENV:-target/mcp-venv}"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'pexpect==4.9.0'
bc --version | head -n 1
"$venv/bin/python" -c 'import pexpect; print("pexpect", pexpect.__version__)'
