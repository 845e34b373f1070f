#!/usr/bin/env bash
# Installs what the asciicast export test needs: the asciinema command-line
# player (from PyPI, in a virtual environment under target/) and tmux (to
# read the screen the player leaves behind). Fails loudly.
#
# The test looks for target/ci-tools/asciinema/bin/asciinema.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  apt-get update
  apt-get install -y --no-install-recommends tmux
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  apt-get update
  apt-get install -y --no-install-recommends python3-venv
fi

venv=target/ci-tools/asciinema
if [[ ! -x "$venv/bin/asciinema" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'asciinema==2.4.0'
fi
"$venv/bin/asciinema" --version
tmux -V
