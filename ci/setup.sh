#!/usr/bin/env bash
# Installs what CI needs beyond the Rust toolchain.
set -euo pipefail
if command -v rustup >/dev/null 2>&1; then
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi
cargo --version
rustc --version
bash "$(dirname "$0")/setup-coreutils.sh"
