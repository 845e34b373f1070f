#!/usr/bin/env bash
# Installs the terminal programs of issue 32's tests and benchmark: GNU bc
# (beside BusyBox bc, which asks for the cursor before each prompt;
# tests/integration/replies.rs) and pexpect (PyPI) in a virtual environment
# for ci/bench-wait-lag.sh (target/pexpect-venv, or $REA_PEXPECT_VENV).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v bc >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  apt-get update
  apt-get install -y --no-install-recommends bc busybox python3 python3-venv
fi
venv="${REA_PEXPECT_VENV:-target/pexpect-venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'pexpect==4.9.0'
"$venv/bin/python" -c 'import pexpect; print("pexpect", pexpect.__version__)'
bc --version | head -n 1
