#!/usr/bin/env bash
# Installs a maintained JUnit XML parser (junitparser, PyPI) into a virtual
# environment, for the test that reads `rea run-suite --junit` with it
# (tests/integration/suites/junit.rs finds the interpreter at
# $REA_JUNIT_PYTHON, by default target/junit-venv/bin/python).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${REA_JUNIT_VENV:-target/junit-venv}"
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  apt-get update
  apt-get install -y --no-install-recommends python3 python3-venv
fi
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'junitparser==4.0.2'
"$venv/bin/python" -c 'import junitparser, importlib.metadata as m; print("junitparser", m.version("junitparser"))'
