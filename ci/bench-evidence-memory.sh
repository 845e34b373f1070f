#!/usr/bin/env bash
# Evidence output memory (issue "Evidence model"): peak RSS of a capture at
# the maximum output budget (limits.output_bytes 10,000,000, frames 100,000),
# printed as TOON (rea's default) beside the same capture printed with
# --json, both streamed from the typed record, as a ratio, in one run; plus
# the size of each document and the retained terminal text. Peak RSS comes
# from GNU time (`/usr/bin/time -f %M`). Goal (issue 18 item 9): TOON at
# most 64 MiB, as --json.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p rea
[[ -x /usr/bin/time ]] || { echo "bench-evidence-memory: GNU time (/usr/bin/time) is required" >&2; exit 1; }
rea="${CARGO_TARGET_DIR:-$(pwd)/target}/release/rea"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cd "$dir"
# A custom pattern changes every chunk, so both `data` and `raw_data` are
# retained up to the budget (the most terminal text a capture can hold).
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
runs="${BENCH_RUNS:-3}"
measure() { # $1 = output file, rest = rea arguments; prints peak RSS in KiB
  local out="$1"; shift
  /usr/bin/time -f %M -o rss.txt "$rea" "$@" > "$out" 2>/dev/null
  tail -n 1 rss.txt
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
paired() { # $1, $2 = commands printing a peak RSS; prints both medians, interleaved runs
  local first=() second=()
  for _ in $(seq "$runs"); do
    first+=("$($1)")
    second+=("$($2)")
  done
  echo "$(printf '%s\n' "${first[@]}" | median) $(printf '%s\n' "${second[@]}" | median)"
}
as_json() { measure capture.json capture-process scenario.json --json; }
as_toon() { measure capture.toon capture-process scenario.json; }
read -r j t < <(paired as_json as_toon)
retained=$(python3 -c 'import json,sys; d=json.load(open("capture.json"))["normalized_result"]["truncation_details"]; print(d["raw_terminal"]["retained_bytes"], d["normalized_terminal"]["retained_bytes"], d["raw_terminal"]["retained_chunks"])')
"$rea" compare-process-captures capture.json capture.json --json > comparison.json
echo "runs per format: $runs (median)"
echo "retained terminal text (raw bytes, normalized bytes, frames): $retained"
echo "capture size: JSON $(stat -c %s capture.json) bytes, TOON $(stat -c %s capture.toon) bytes"
awk -v j="$j" -v t="$t" 'BEGIN {printf "peak RSS TOON: %.1f MiB (%.1f MB); --json: %.1f MiB; ratio toon/json %.2f; TOON goal <= 64 MiB: %s\n", t/1024, t*1024/1e6, j/1024, t/j, (t <= 65536 ? "met" : "NOT met")}'

# Rendered rows cost memory beside their text: a tall terminal (1000 rows)
# whose program writes 5000 one-byte chunks retains thousands of mostly
# empty screens at the maximum budget. Peer: the same program on the
# default 24 rows. (Before rows were kept compactly, the tall case peaked
# at 122 MB: 24 bytes of string header per empty row.)
tall() { # $1 = rows
  cat > "tall-$1.json" <<JSON
{
  "executable": "python3",
  "arguments": ["-c", "import sys,time\nfor i in range(5000):\n    sys.stdout.write('x'); sys.stdout.flush(); time.sleep(0.0003)"],
  "terminal": {"columns": 80, "rows": $1, "scrollback": 0},
  "timeout_ms": 600000,
  "limits": {"output_bytes": 10000000, "frames": 100000}
}
JSON
  measure "tall-$1.out" capture-process "tall-$1.json" --json
}
tall_rows() { tall 1000; }
short_rows() { tall 24; }
read -r tr sr < <(paired tall_rows short_rows)
frames=$(python3 -c 'import json; d=json.load(open("tall-1000.out"))["normalized_result"]; print(len(d["rendered_frames"]))')
awk -v a="$tr" -v b="$sr" -v f="$frames" 'BEGIN {printf "peak RSS --json, 1000-row terminal, %d rendered states kept: %.1f MiB (%.1f MB); 24 rows: %.1f MiB; ratio %.2f\n", f, a/1024, a*1024/1e6, b/1024, a/b}'
