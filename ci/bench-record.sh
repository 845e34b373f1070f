#!/usr/bin/env bash
# Keystroke-to-screen latency through `rea record-scenario` beside the same
# through `script` (util-linux), both driven by tmux in one run: a key is
# sent to the pane with `tmux send-keys` and the pane is polled until it
# shows it; the program is `cat` (the terminal echoes the key). Prints the
# medians and their ratio (target: rea <= 1.2x script).
#   BENCH_KEYS=N   keys per side (default 40)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
for tool in tmux script python3; do
  command -v "$tool" >/dev/null || { echo "bench-record: $tool is required" >&2; exit 1; }
done
exec python3 ci/bench_record.py "${CARGO_TARGET_DIR:-$(pwd)/target}/release/rea" "${@}"
