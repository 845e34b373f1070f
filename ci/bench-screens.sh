#!/usr/bin/env bash
# Issue 19 and 33 benchmarks in one run (ci/bench_screens.py): 32 MiB of
# each redraw shape (ci/bench_shapes.py: full clear; home + overwrite +
# ESC[K; scroll region with IL/DL; 256/true-colour SGR; wide characters) and
# of a recorded vim session (ci/streams/vim-scroll.bin) beside `script`, each
# with a true final screen, the renderer's rate beside the PTY drain rate,
# 256 MiB of plain output beside `script`, and peak RSS across output sizes.
# BENCH_RUNS sets the runs (5). tmux is needed for the session's true screen.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v script >/dev/null || { echo "bench-screens: util-linux 'script' is required" >&2; exit 1; }
command -v tmux >/dev/null || { echo "bench-screens: tmux is required (ci/setup-tmux.sh)" >&2; exit 1; }
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --quiet
CARGO_TARGET_DIR="$target/bench-render" cargo build --release --quiet \
  --manifest-path ci/bench-render/Cargo.toml --bin screens-render
exec python3 ci/bench_screens.py "$target/release/rea" "$target/bench-render/release/screens-render"
