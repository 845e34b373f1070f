#!/usr/bin/env bash
# Start-up time of `rea --version`, measured next to `/bin/true` in the same
# run so the two medians share the machine's conditions.
#
# Usage: ci/bench-startup.sh [--runs N] [--enforce] [PROFILE...]
#   PROFILE   debug and/or release (default: debug release); each is built
#             with cargo first and run a few times to warm the page cache.
#   --runs N  timed runs per command (default 200).
#   --enforce exit 1 when the debug median is not below the 5 ms target.
#
# Uses hyperfine when it is installed, otherwise a small Python timer that
# alternates the two commands. Prints each median, and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=200
enforce=0
profiles=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --enforce) enforce=1; shift ;;
    debug|release) profiles+=("$1"); shift ;;
    *) echo "usage: $0 [--runs N] [--enforce] [debug|release]..." >&2; exit 2 ;;
  esac
done
[[ ${#profiles[@]} -gt 0 ]] || profiles=(debug release)

target_ms=5
baseline=/bin/true

# Prints "REA_MEDIAN_MS TRUE_MEDIAN_MS" for the binary $1.
measure() {
  local rea="$1"
  if command -v hyperfine >/dev/null 2>&1; then
    local json
    json="$(mktemp)"
    hyperfine --shell=none --warmup 20 --runs "$runs" --style none \
      --export-json "$json" "$rea --version" "$baseline" >/dev/null 2>"$json.log" \
      || { cat "$json.log" >&2; return 1; }
    python3 - "$json" <<'EOF'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
print(" ".join(f"{r['median'] * 1000:.3f}" for r in results))
EOF
    rm -f "$json" "$json.log"
  else
    python3 - "$rea" "$baseline" "$runs" <<'EOF'
import statistics, subprocess, sys, time

rea, baseline, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
commands = [[rea, "--version"], [baseline]]
samples = [[], []]

def once(command):
    start = time.perf_counter_ns()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter_ns() - start

for _ in range(20):
    for command in commands:
        once(command)
# Alternate the two commands so drift affects both alike.
for _ in range(runs):
    for i, command in enumerate(commands):
        samples[i].append(once(command))
print(" ".join(f"{statistics.median(s) / 1e6:.3f}" for s in samples))
EOF
  fi
}

timer="python3 timer"
command -v hyperfine >/dev/null 2>&1 && timer="hyperfine $(hyperfine --version | awk '{print $2}')"
echo "date:    $(date -u +%Y-%m-%d)"
echo "machine: $(nproc)-core $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //' || uname -m), $(uname -sr)"
echo "timer:   $timer, $runs runs per command"

status=0
for profile in "${profiles[@]}"; do
  if [[ "$profile" == release ]]; then
    cargo build --quiet --release --bin rea
  else
    cargo build --quiet --bin rea
  fi
  rea="target/$profile/rea"
  "$rea" --version >/dev/null
  medians="$(measure "$rea")"
  read -r rea_ms true_ms <<<"$medians"
  ratio="$(python3 -c "print(f'{$rea_ms / $true_ms:.1f}')")"
  printf '%-28s median %7s ms\n' "$rea --version" "$rea_ms" "$baseline" "$true_ms"
  printf '%-28s %s x /bin/true\n' "ratio" "$ratio"
  if python3 -c "import sys; sys.exit(0 if $rea_ms < $target_ms else 1)"; then
    echo "target ($profile): median below $target_ms ms: met"
  else
    echo "target ($profile): median below $target_ms ms: NOT met"
    [[ "$profile" == debug && $enforce == 1 ]] && status=1
  fi
done
exit $status
