#!/usr/bin/env bash
# Installs the official MCP Python SDK into a virtual environment, for the
# end-to-end test of `rea mcp` (tests/integration/mcp.rs drives the real
# binary with it). The test finds the interpreter at $REA_MCP_PYTHON, by
# default target/mcp-venv/bin/python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${REA_MCP_VENV:-target/mcp-venv}"
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  apt-get update
  apt-get install -y --no-install-recommends python3 python3-venv
fi
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'mcp==2.3.0'
"$venv/bin/python" -c 'import mcp, importlib.metadata as m; print("mcp python SDK", m.version("mcp"))'
