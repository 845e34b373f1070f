#!/usr/bin/env bash
# Rendered-terminal benchmarks (issue "Rendered terminal states"), in one run:
#  1. the emulator candidates (avt, avt behind rea's zero-width wrapper, vt100,
#     alacritty_terminal) against tmux on the fixture table of
#     rea-engine/src/capture/render/fixtures.rs: rows, cursor and cells;
#  2. their parse throughput and rea's renderer pipeline on a ~10 MB TUI-like
#     stream (scratch project ci/bench-render, built in target/bench-render);
#  3. the raw PTY drain rate on the same stream: `script` and rea capturing
#     `cat STREAM` at limits that admit, and so render, all of it.
# The 256 MiB capture and peak RSS with rendering on: ci/bench-capture.sh.
# The renderer before/after a change, in one run: ci/bench-render-ab.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "bench-render: tmux is required (ci/setup-tmux.sh)" >&2; exit 1; }
command -v script >/dev/null || { echo "bench-render: util-linux 'script' is required" >&2; exit 1; }
cargo build --release --quiet
export CARGO_TARGET_DIR="$PWD/target/bench-render"
cargo build --release --quiet --manifest-path ci/bench-render/Cargo.toml
work="$(mktemp -d "${TMPDIR:-/tmp}/rea-bench-render-XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$CARGO_TARGET_DIR/release/rea-bench-render" "$work/stream.txt"
exec python3 ci/bench_render.py "$(pwd)/target/release/rea" "$work"
