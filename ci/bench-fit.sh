#!/usr/bin/env bash
# Document-bound benchmark (issue "Evidence model", item 2): the cost of
# measuring a capture's --json size (paid by every capture) and of fitting an
# over-bound capture, beside the cost of sealing and writing the same
# document (paid anyway), as ratios in one run. The capture is the one of
# ci/bench-evidence-memory.sh: the maximum output budget, both `data` and
# `raw_data` retained (about 22 MB of JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
cargo build --release --quiet -p rea-engine --example bench_fit
rea="$(pwd)/target/release/rea"
bench="$(pwd)/target/release/examples/bench_fit"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cat > scenario.json <<JSON
{
  "executable": "sh",
  "arguments": ["-c", "i=0; while [ \$i -lt 400000 ]; do printf '%s line %s\\\\n' \"\$PWD\" \$i; i=\$((i+1)); done | head -c 40000000"],
  "timeout_ms": 600000,
  "idle_timeout_ms": 600000,
  "limits": {"output_bytes": 10000000, "frames": 100000},
  "normalization": {"patterns": [{"pattern": "line", "replacement": "LINE"}]}
}
JSON
"$rea" capture-process scenario.json --json > capture.json 2>/dev/null
"$bench" capture.json "${BENCH_RUNS:-5}"
# Peak RSS of a capture over the bound (ten million control characters, six
# JSON bytes each, kept as both `data` and `raw_data`: about 122 MB of JSON
# before fitting) beside the capture above (under the bound), with --json.
cat > over.json <<'JSON'
{"executable": "sh", "arguments": ["-c", "head -c 10000000 /dev/zero | tr '\\000' '\\001'"],
 "limits": {"output_bytes": 10000000, "frames": 100000}, "timeout_ms": 600000,
 "normalization": {"patterns": [{"pattern": "\u0001", "replacement": "\u0002"}]}}
JSON
if [[ -x /usr/bin/time ]]; then
  /usr/bin/time -f %M -o under.rss "$rea" capture-process scenario.json --json > /dev/null 2>&1
  /usr/bin/time -f %M -o over.rss "$rea" capture-process over.json --json > over-capture.json 2>/dev/null
  under=$(tail -n 1 under.rss); over=$(tail -n 1 over.rss)
  python3 - "$under" "$over" <<'PY'
import json, os, sys
under, over = int(sys.argv[1]), int(sys.argv[2])
d = json.load(open("over-capture.json"))["normalized_result"]["truncation_details"]["document"]
print(f"over-bound capture: {os.path.getsize('over-capture.json')} bytes written, {d['observed_bytes']} before fitting; "
      f"left out {d['omitted_rendered_frames']} rendered states, {d['omitted_process_samples']} samples, "
      f"{d['omitted_paths']} paths, {d['omitted_frames']} chunks")
print(f"peak RSS --json: over the bound {over/1024:.1f} MiB, under it {under/1024:.1f} MiB, ratio {over/under:.2f}")
PY
else
  echo "bench-fit: GNU time (/usr/bin/time) not found; peak RSS not measured" >&2
fi
