#!/usr/bin/env bash
# Installs the coreutils implementations the comparison corpus test runs
# (tests/integration/compare_corpus.rs): uutils (Debian `rust-coreutils`) and
# BusyBox, beside the GNU coreutils every Debian system has.
set -euo pipefail
if command -v busybox >/dev/null 2>&1 && command -v coreutils >/dev/null 2>&1; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends rust-coreutils busybox python3
command -v busybox
command -v coreutils
