#!/usr/bin/env bash
# `rea mcp` figures (issue 13): start-up to the initialize reply, and one
# compare_process_captures round trip on default-size captures, each printed
# beside its CLI peer (`rea --version`; `rea compare-process-captures` on the
# same files) measured interleaved in the same run. Not run by CI.
#
# Usage: ci/bench-mcp.sh [debug|release]   (default release; BENCH_RUNS=50)
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${1:-release}"
case "$profile" in
  release) cargo build --quiet --release --bin rea ;;
  debug) cargo build --quiet --bin rea ;;
  *) echo "usage: $0 [debug|release]" >&2; exit 2 ;;
esac
echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "machine: $(nproc)-core $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //' || uname -m), $(uname -sr)"
echo "build:   $profile, rea at commit $(git rev-parse --short HEAD)"
python3 ci/bench_mcp.py "$PWD/target/$profile/rea"
