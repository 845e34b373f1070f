#!/usr/bin/env bash
# Installs tmux, the independent oracle of the terminal-emulator fixture test
# (rea-engine/src/capture/render/tests.rs): with CI=true that test fails when
# tmux is missing instead of skipping.
set -euo pipefail
if command -v tmux >/dev/null 2>&1; then
  tmux -V
  exit 0
fi
if [[ "$(id -u)" -ne 0 ]]; then
  echo "setup-tmux: tmux is missing and installing it needs root (apt-get install tmux)" >&2
  exit 1
fi
apt-get update
apt-get install -y --no-install-recommends tmux
tmux -V
