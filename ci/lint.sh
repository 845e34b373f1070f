#!/usr/bin/env bash
# Formatting and lints, for the native build and the unsupported-host stub.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy --all-targets --features force-stub -- -D warnings
