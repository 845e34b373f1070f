#!/usr/bin/env bash
# Installs what the screen lens's real pair needs
# (tests/integration/screen_lens.rs): Python's curses module and the
# xterm-256color terminfo entry (the TERM rea sets), so a curses program can
# be compared with a hand-written escape-sequence program.
set -euo pipefail
check='import curses; curses.setupterm("xterm-256color", 1)'
if python3 -c "$check" >/dev/null 2>&1; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends python3 libncursesw6 ncurses-base
python3 -c "$check"
