"""Measures rea capture against `script` in one run (see bench-capture.sh)."""

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REA = sys.argv[1]
RUNS = int(os.environ.get("BENCH_RUNS", "30"))


def run(cmd, cwd):
    """Runs cmd, returns (wall seconds, peak RSS of that child in KiB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"command failed: {cmd}")
    return wall, usage.ru_maxrss


def median_of(cmd, cwd, runs):
    walls, rss = [], []
    run(cmd, cwd)  # warm-up
    for _ in range(runs):
        w, r = run(cmd, cwd)
        walls.append(w)
        rss.append(r)
    return statistics.median(walls), max(rss)


def scenario(cwd, name, body):
    path = os.path.join(cwd, name)
    with open(path, "w") as f:
        json.dump(body, f)
    return name


def main():
    with tempfile.TemporaryDirectory(prefix="rea-bench-") as cwd:
        trivial = scenario(cwd, "trivial.json", {"executable": "true", "settle_ms": 0, "timeout_ms": 10000})
        rea_wall, rea_rss = median_of([REA, "capture-process", trivial, "--json"], cwd, RUNS)
        script_wall, script_rss = median_of(["script", "-qec", "true", "/dev/null"], cwd, RUNS)
        print(f"trivial capture: rea {rea_wall*1000:.2f} ms, script {script_wall*1000:.2f} ms, "
              f"ratio {rea_wall/script_wall:.2f} (target <= 1.5); rea peak RSS {rea_rss/1024:.1f} MiB (target <= 16)")

        def stream(n):
            return f"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c {n}"

        results = {}
        for mib in (64, 256):
            n = mib * 1024 * 1024
            body = {"executable": "sh", "arguments": ["-c", stream(n)], "settle_ms": 0,
                    "timeout_ms": 600000, "idle_timeout_ms": 600000}
            name = scenario(cwd, f"stream{mib}.json", body)
            runs = 3 if mib == 256 else 3
            rw, rr = median_of([REA, "capture-process", name, "--json"], cwd, runs)
            sw, _ = median_of(["script", "-qec", stream(n), "/dev/null"], cwd, runs)
            results[mib] = (rw, rr, sw)
            print(f"{mib} MiB through the PTY: rea {n/rw/1e6:.0f} MB/s, script {n/sw/1e6:.0f} MB/s, "
                  f"throughput ratio {sw/rw:.2f} (target >= 0.9); rea peak RSS {rr/1024:.1f} MiB")
        growth = results[256][1] / results[64][1]
        print(f"peak RSS 256 MiB / 64 MiB: {growth:.2f} (independent of output size when ~1.0; target <= 32 MiB)")


main()
