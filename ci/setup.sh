#!/usr/bin/env bash
# Installs what CI needs. Every step fails loudly: a missing tool stops CI
# here, not in a later step with a less useful message.
set -euo pipefail
cd "$(dirname "$0")/.."

# rust-toolchain.toml pins the toolchain and its components (rustfmt, clippy);
# `rustup toolchain install` with no argument installs exactly that.
if ! command -v rustup >/dev/null 2>&1; then
  echo "ci/setup.sh: rustup is not installed; install it from https://rustup.rs, then rerun" >&2
  exit 1
fi
rustup toolchain install
cargo --version
rustc --version
cargo fmt --version
cargo clippy --version

ci/setup-asciinema.sh
