#!/usr/bin/env bash
# Filesystem snapshot benchmark (see docs/benchmarks.md, "Filesystem snapshots").
#
# Builds the `fs-snapshot` example in release mode, generates under a private
# temporary directory (removed on exit) a tree of 10,000 files totalling
# 1 GiB and a tree of 100,000 empty files, and prints:
#   - snapshot + hash throughput on the 1 GiB tree, in GB/s (10^9 bytes/s);
#   - the ratio of `find TREE -type f -exec sha256sum {} +` time to ours;
#   - entries per second on the 100,000 empty-file tree.
# Every measurement runs once to warm the page cache, then RUNS times (default
# 3); the median is reported. Needs about 1.1 GiB of free space and RAM for
# the page cache. Linux only.
set -euo pipefail

runs="${RUNS:-3}"
cd "$(dirname "$0")/.."

cargo build --quiet --release -p rea-backend-linux --example fs-snapshot
bin="$(pwd)/target/release/examples/fs-snapshot"

work="$(mktemp -d "${TMPDIR:-/tmp}/rea-bench-fs.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "== machine"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "kernel:   $(uname -sr)"
echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) online"
echo "sha_ni:   $(grep -qw sha_ni /proc/cpuinfo && echo yes || echo no)"
echo "tmp fs:   $(stat -f -c %T "$work")"
echo "rustc:    $(rustc --version)"
echo "sha256sum: $(sha256sum --version | head -1)"

echo "== generating trees in $work"
# 1 GiB of random bytes split into 10,000 files (100 directories of 100).
head -c $((1 << 30)) /dev/urandom >"$work/blob"
mkdir "$work/big"
(cd "$work/big" && split -n 10000 -a 4 -d ../blob f)
rm "$work/blob"
for d in $(seq -w 0 99); do
    mkdir "$work/big/d$d"
    mv "$work/big/f$d"?? "$work/big/d$d/"
done
# 100,000 empty files (100 directories of 1,000).
mkdir "$work/empty"
for d in $(seq -w 0 99); do
    mkdir "$work/empty/d$d"
    (cd "$work/empty/d$d" && seq -f 'f%04g' 0 999 | xargs touch)
done
echo "big:   $(find "$work/big" -type f | wc -l) files, $(find "$work/big" -type f -printf '%s\n' | awk '{s+=$1} END {print s}') bytes"
echo "empty: $(find "$work/empty" -type f | wc -l) files"

now_ns() { date +%s%N; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }

# Runs the example RUNS times after one warm-up; prints "<median elapsed_s>
# <median wall_s> <last output line>".
measure_rea() {
    local out start end elapsed=() wall=()
    "$bin" "$@" >/dev/null
    for _ in $(seq "$runs"); do
        start=$(now_ns)
        out=$("$bin" "$@")
        end=$(now_ns)
        elapsed+=("$(field elapsed_s <<<"$out")")
        wall+=("$(awk -v a="$start" -v b="$end" 'BEGIN {print (b-a)/1e9}')")
    done
    echo "$(printf '%s\n' "${elapsed[@]}" | median) $(printf '%s\n' "${wall[@]}" | median) $out"
}

measure_find() {
    local start end wall=()
    find "$1" -type f -exec sha256sum {} + >/dev/null
    for _ in $(seq "$runs"); do
        start=$(now_ns)
        find "$1" -type f -exec sha256sum {} + >/dev/null
        end=$(now_ns)
        wall+=("$(awk -v a="$start" -v b="$end" 'BEGIN {print (b-a)/1e9}')")
    done
    printf '%s\n' "${wall[@]}" | median
}

limits=(--files 1000000 --file-bytes $((4 << 30)) --depth 16)

echo "== cpu pressure before measuring: $(head -1 /proc/pressure/cpu 2>/dev/null || echo unavailable)"
read -r big_elapsed big_wall big_out < <(measure_rea "${limits[@]}" "$work/big")
read -r one_elapsed one_wall one_out < <(measure_rea "${limits[@]}" --threads 1 "$work/big")
find_wall=$(measure_find "$work/big")
read -r empty_elapsed empty_wall empty_out < <(measure_rea "${limits[@]}" "$work/empty")
echo "== cpu pressure after measuring:  $(head -1 /proc/pressure/cpu 2>/dev/null || echo unavailable)"
# How much CPU the default-thread run obtained (n cores fully used = n*100%):
# on a shared host this shows whether the second thread could run at all.
if [ -x /usr/bin/time ]; then
    cpu_used=$(/usr/bin/time -f '%P' "$bin" "${limits[@]}" "$work/big" 2>&1 >/dev/null | tail -1)
else
    cpu_used="unmeasured (no /usr/bin/time)"
fi

big_bytes=$(field bytes_hashed <<<"$big_out")
empty_entries=$(field entries <<<"$empty_out")
echo "== results (median of $runs runs, warm cache)"
echo "1 GiB tree, default threads: $big_out"
echo "1 GiB tree, one thread:      $one_out"
echo "100k empty-file tree:        $empty_out"
echo "CPU obtained by one default-thread run on the 1 GiB tree: $cpu_used of $(nproc)00%"
awk -v bytes="$big_bytes" -v e="$big_elapsed" -v w="$big_wall" -v one="$one_elapsed" -v fw="$find_wall" \
    -v entries="$empty_entries" -v ee="$empty_elapsed" -v ew="$empty_wall" 'BEGIN {
    gbps = bytes / e / 1e9
    ratio = fw / w
    eps = entries / ee
    printf "throughput:        %.3f GB/s (%.3f GiB/s) snapshot+hash, %.3f s for %d bytes\n", gbps, bytes / e / 2^30, e, bytes
    printf "one thread:        %.3f GB/s (second thread speedup %.2fx)\n", bytes / one / 1e9, one / e
    printf "find|sha256sum:    %.3f s wall vs rea %.3f s wall: ratio %.2fx\n", fw, w, ratio
    printf "empty-file tree:   %.0f entries/s (%d entries in %.3f s, %.3f s wall)\n", eps, entries, ee, ew
    printf "target >= 1.5 GB/s:        %s\n", (gbps >= 1.5) ? "met" : "NOT met"
    printf "target >= 9x find|sha256sum: %s\n", (ratio >= 9) ? "met" : "NOT met"
    printf "target >= 100000 entries/s: %s\n", (eps >= 100000) ? "met" : "NOT met"
}'
