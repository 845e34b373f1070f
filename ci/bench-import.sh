#!/usr/bin/env bash
# Capture import benchmark (issue 9 item 6, "Fast and small"): two captures
# at the maximum output budget (limits.output_bytes 10,000,000, frames
# 100,000; every chunk normalized, so `data` and `raw_data` are both kept)
# are loaded as `rea compare-process-captures` loads them (read, parse,
# import with every identity and commitment check), by this tree and by a
# baseline commit (BASE, default: the merge base with main) in the same run.
# Prints the median wall time and the peak RSS of each, their ratio, and the
# peak RSS as a multiple of the two files' combined size.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
base="${BASE:-$(git merge-base HEAD main)}"
runs="${BENCH_RUNS:-5}"
work="$(mktemp -d)"
base_tree="$root/target/tmp/bench-import-base"
cleanup() { git -C "$root" worktree remove --force "$base_tree" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# The two binaries: this tree's, and the baseline's with the same example
# (its load body is the CLI's at the baseline: bytes held, full import).
cargo build --release --quiet -p rea-engine --example bench_import
cp target/release/examples/bench_import "$work/after"
git worktree add --force --detach "$base_tree" "$base" >/dev/null 2>&1
python3 - "$root/rea-engine/examples/bench_import.rs" "$base_tree/rea-engine/examples/bench_import.rs" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
old = '''fn load(path: &Path) -> (Evidence, CaptureRecord) {
    let bytes = read_capped("capture", path).expect("read the capture");
    let value = parse_json_bytes("capture", path, &bytes).expect("parse the capture");
    rea_engine::evidence::import_capture(&path.display().to_string(), value).expect("import the capture")
}
'''
out, n = re.subn(r"(// BEGIN load[^\n]*\n).*?(// END load)", lambda m: m.group(1) + old + m.group(2), src, flags=re.S)
assert n == 1, "load markers not found"
import os; os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
open(sys.argv[2], "w").write(out)
PY
cargo build --release --quiet --manifest-path "$base_tree/Cargo.toml" --target-dir "$root/target" -p rea-engine --example bench_import
cp target/release/examples/bench_import "$work/before"

# Two maximum-budget captures, made by this tree's rea.
cargo build --quiet --bin rea
cd "$work"
cat > scenario.json <<'JSON'
{
  "executable": "sh",
  "arguments": ["-c", "yes 'listening on localhost:8080 ok' | head -c 40000000"],
  "timeout_ms": 600000,
  "idle_timeout_ms": 600000,
  "limits": {"output_bytes": 10000000, "frames": 100000},
  "normalization": {"patterns": [{"pattern": "listening", "replacement": "LISTENING"}]}
}
JSON
"$root/target/debug/rea" capture-process scenario.json --json > a.json 2>/dev/null
"$root/target/debug/rea" capture-process scenario.json --json > b.json 2>/dev/null
size=$(( $(stat -c %s a.json) + $(stat -c %s b.json) ))

python3 - "$runs" "$size" <<'PY'
import statistics, subprocess, sys
runs, size = int(sys.argv[1]), int(sys.argv[2])
res = {}
for _ in range(runs):  # interleaved, so both see the same machine load
    for name in ("before", "after"):
        out = subprocess.run(["./" + name, "a.json", "b.json"], capture_output=True, text=True, check=True).stdout.split()
        res.setdefault(name, []).append((float(out[0]), int(out[1]) * 1024, int(out[2])))
assert res["before"][0][2] == res["after"][0][2], "both must import the same frames"
print(f"Capture import: two captures, {size / 1e6:.1f} MB combined, {res['after'][0][2]} frames, median of {runs} runs")
med = {}
for name, rows in res.items():
    ms = statistics.median(r[0] for r in rows)
    rss = statistics.median(r[1] for r in rows)
    med[name] = (ms, rss)
    print(f"  {name:6}: {ms:7.1f} ms, peak RSS {rss / 1e6:6.1f} MB = {rss / size:.2f}x the combined size")
print(f"  after/before: time {med['after'][0] / med['before'][0]:.2f}, peak RSS {med['after'][1] / med['before'][1]:.2f}")
print(f"  targets: <= 100 ms ({med['after'][0] / 100:.2f}x of it), <= 2x the combined size")
PY
