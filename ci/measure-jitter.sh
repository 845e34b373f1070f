#!/usr/bin/env bash
# Measures the timing jitter of identical reruns, to choose the comparison's
# default timing tolerance (docs/decisions.md, "Comparison timing tolerance").
# Captures two deterministic scenarios PAIRS times each while another
# process keeps one core busy, and prints the distribution of
# |left - right| over every timing value the comparison checks.
# Usage: ci/measure-jitter.sh [PAIRS] (default 100); needs python3.
set -euo pipefail
pairs=${1:-100}
root=$(cd "$(dirname "$0")/.." && pwd)
rea=${REA:-$root/target/debug/rea}
work=$(mktemp -d)
trap 'kill "$load" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
cat > prompt.json <<'J'
{"executable": "/bin/sh",
 "arguments": ["-c", "printf 'name? '; read n; echo \"hello $n\""],
 "events": [{"type": "input", "at_ms": 100, "data": "ada\r"}],
 "timeout_ms": 10000, "settle_ms": 100}
J
cat > trap.json <<'J'
{"executable": "/bin/sh",
 "arguments": ["-c", "trap 'echo bye; exit 7' TERM; echo up; while :; do sleep 0.05; done"],
 "timeout_ms": 300, "finalization_ms": 2000, "settle_ms": 100}
J
( while :; do :; done ) & load=$!
for i in $(seq 1 "$pairs"); do
  for s in prompt trap; do
    "$rea" capture-process "$s.json" --json > "$s-$i.json" 2>/dev/null
  done
done
python3 - "$pairs" <<'PY'
import json, sys
pairs = int(sys.argv[1])
def timings(path):
    r = json.load(open(path))["normalized_result"]
    out = {"settlement.elapsed_ms": r["settlement"]["elapsed_ms"]}
    for i, e in enumerate(r["interaction_events"]):
        out[f"interaction_events[{i}].dispatched_at_ms"] = e["dispatched_at_ms"]
    fin = r["exit"].get("finalization")
    if fin:
        if fin.get("elapsed_ms") is not None:
            out["exit.finalization.elapsed_ms"] = fin["elapsed_ms"]
        for i, s in enumerate(fin["signals"]):
            out[f"exit.finalization.signals[{i}].sent_at_ms"] = s["sent_at_ms"]
    return out
deltas, by_path = [], {}
for s in ("prompt", "trap"):
    for i in range(1, pairs + 1, 2):
        a, b = timings(f"{s}-{i}.json"), timings(f"{s}-{i+1}.json") if i + 1 <= pairs else None
        if b is None:
            continue
        for k in a.keys() & b.keys():
            d = abs(a[k] - b[k]); deltas.append(d); by_path.setdefault(k, []).append(d)
    # also every capture against the first
    first = timings(f"{s}-1.json")
    for i in range(2, pairs + 1):
        b = timings(f"{s}-{i}.json")
        for k in first.keys() & b.keys():
            d = abs(first[k] - b[k]); deltas.append(d); by_path.setdefault(k, []).append(d)
deltas.sort()
def pct(p): return deltas[min(len(deltas) - 1, int(p * len(deltas)))]
print(f"timing deltas: {len(deltas)} (from {pairs} captures of each scenario, one core busy)")
print(f"p50={pct(0.5)} ms p99={pct(0.99)} ms p99.9={pct(0.999)} ms max={deltas[-1]} ms")
for k, v in sorted(by_path.items()):
    v.sort(); print(f"  {k}: n={len(v)} max={v[-1]} ms")
PY
