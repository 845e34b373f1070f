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
pinned=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
if ! rustup toolchain install; then
  # Offline machines reach crates.io but not the Rust release server. Accept
  # an installed toolchain of exactly the pinned release under another name
  # (e.g. "stable"), and say so; anything else stops CI here.
  have=$(rustc +stable --version 2>/dev/null | awk '{print $2}')
  if [ "$have" = "$pinned" ]; then
    echo "ci/setup.sh: linking the installed stable toolchain ($have) as $pinned" >&2
    rustup toolchain link "$pinned" "$(rustc +stable --print sysroot)"
  else
    echo "ci/setup.sh: Rust $pinned is not installed and cannot be downloaded (stable is '${have:-absent}')" >&2
    exit 1
  fi
fi
cargo --version
rustc --version
cargo fmt --version
cargo clippy --version

ci/setup-tmux.sh
ci/setup-asciinema.sh
ci/setup-mcp.sh
ci/setup-sessions.sh
ci/setup-coreutils.sh
ci/setup-curses.sh
ci/setup-junit.sh
ci/setup-chromium.sh
ci/setup-terminal-programs.sh
