#!/usr/bin/env bash
# Renderer before/after, in one run: rea's renderer pipeline alone
# (ci/bench-render/src/bin/render-profile.rs) built from BASE (a git
# revision, default `main`) and from the work tree, run alternately on the
# bench-render stream (~10 MB, 120x40, 4 KiB chunks, limits 10 MB / 100,000
# frames). Prints medians of throughput and process CPU time, the ratio, and
# whether both produced the same kept frames and accounting (a digest of the
# frames' JSON). `BENCH_RUNS` sets the runs per side (7 by default).
# Needs the stream from ci/bench-render.sh: pass its path, or it is made here
# (which needs tmux, as bench-render does).
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:-main}"
stream="${2:-}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/bench-render"
work="$(mktemp -d "${TMPDIR:-/tmp}/rea-bench-render-ab-XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/base"
git archive "$base" | tar -x -C "$work/base"
# The base tree gets this tree's benchmark crate (its render-profile may not exist there).
rm -rf "$work/base/ci/bench-render"
cp -r ci/bench-render "$work/base/ci/bench-render"
cargo build --release --quiet --manifest-path "$work/base/ci/bench-render/Cargo.toml" --bin render-profile
cp "$CARGO_TARGET_DIR/release/render-profile" "$work/render-profile-base"
cargo build --release --quiet --manifest-path ci/bench-render/Cargo.toml --bin render-profile
cp "$CARGO_TARGET_DIR/release/render-profile" "$work/render-profile-new"
if [ -z "$stream" ]; then
  cargo build --release --quiet --manifest-path ci/bench-render/Cargo.toml --bin rea-bench-render
  "$CARGO_TARGET_DIR/release/rea-bench-render" "$work/stream.txt" >/dev/null
  stream="$work/stream.txt"
fi
python3 - "$work/render-profile-base" "$work/render-profile-new" "$stream" "$base" <<'PY'
import os, resource, statistics, subprocess, sys
base, new, stream, rev = sys.argv[1:5]
runs = int(os.environ.get("BENCH_RUNS", "7"))
rate, cpu, tail = {"base": [], "new": []}, {"base": [], "new": []}, {}
for _ in range(runs):
    for side, exe in (("base", base), ("new", new)):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([exe, stream], capture_output=True, text=True, check=True).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        rate[side].append(float(out.split()[0]))
        cpu[side].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        tail[side] = out.split("; ", 1)[1].strip()
b, n = statistics.median(rate["base"]), statistics.median(rate["new"])
print(f"renderer pipeline on {os.path.getsize(stream)} bytes ({runs} alternating runs each, medians):")
print(f"  base ({rev}): {b:.1f} MB/s, process CPU {statistics.median(cpu['base']):.3f} s")
print(f"  work tree:    {n:.1f} MB/s, process CPU {statistics.median(cpu['new']):.3f} s")
print(f"  ratio {n / b:.2f}x; same kept frames and accounting: {tail['base'] == tail['new']}")
print(f"  {tail['new']}")
PY
