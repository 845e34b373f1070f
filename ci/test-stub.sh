#!/usr/bin/env bash
# Black-box tests of the "capture unavailable, comparison works" path, built
# with the unsupported-host stub on this (Linux) host.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --features force-stub --test integration
