"""Measures rea capture against `script` in one run (see bench-capture.sh).

Each comparison interleaves the two commands run by run, so drift on a busy
machine affects both alike, and reports medians. Peak RSS comes from GNU
time (`/usr/bin/time -f %M`): a child forked by Python would report
Python's own resident size as its high-water mark.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REA = sys.argv[1]
RUNS = int(os.environ.get("BENCH_RUNS", "30"))
STREAM_RUNS = int(os.environ.get("BENCH_STREAM_RUNS", "5"))
GNU_TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None


def wall(cmd, cwd):
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def peak_rss_mib(cmd, cwd):
    if GNU_TIME is None:
        return None
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run([GNU_TIME, "-f", "%M", "-o", out.name] + cmd, cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return int(out.read().strip().splitlines()[-1]) / 1024


def interleaved(a, b, cwd, runs):
    wall(a, cwd)
    wall(b, cwd)
    wa, wb = [], []
    for _ in range(runs):
        wa.append(wall(a, cwd))
        wb.append(wall(b, cwd))
    return statistics.median(wa), statistics.median(wb)


def scenario(cwd, name, body):
    with open(os.path.join(cwd, name), "w") as f:
        json.dump(body, f)
    return name


def fmt_rss(v):
    return "n/a (install GNU time)" if v is None else f"{v:.1f} MiB"


def main():
    with tempfile.TemporaryDirectory(prefix="rea-bench-") as cwd:
        trivial = scenario(cwd, "trivial.json", {"executable": "true", "settle_ms": 0, "timeout_ms": 10000})
        rea_cmd = [REA, "capture-process", trivial, "--json"]
        rw, sw = interleaved(rea_cmd, ["script", "-qec", "true", "/dev/null"], cwd, RUNS)
        print(f"trivial capture ({RUNS} runs): rea {rw*1000:.2f} ms, script {sw*1000:.2f} ms, "
              f"wall ratio {rw/sw:.2f} (target <= 1.5); rea peak RSS {fmt_rss(peak_rss_mib(rea_cmd, cwd))} (target <= 16 MB)")

        def stream(n):
            return f"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c {n}"

        peaks = {}
        for mib in (64, 256):
            n = mib * 1024 * 1024
            body = {"executable": "sh", "arguments": ["-c", stream(n)], "settle_ms": 0,
                    "timeout_ms": 600000, "idle_timeout_ms": 600000}
            cmd = [REA, "capture-process", scenario(cwd, f"stream{mib}.json", body), "--json"]
            rw, sw = interleaved(cmd, ["script", "-qec", stream(n), "/dev/null"], cwd, STREAM_RUNS)
            peaks[mib] = peak_rss_mib(cmd, cwd)
            print(f"{mib} MiB through the PTY ({STREAM_RUNS} runs): rea {n/rw/1e6:.0f} MB/s, script {n/sw/1e6:.0f} MB/s, "
                  f"throughput ratio {sw/rw:.2f} (target >= 0.9); rea peak RSS {fmt_rss(peaks[mib])} (target <= 32 MB)")
        if peaks[64] and peaks[256]:
            print(f"peak RSS 256 MiB / 64 MiB: {peaks[256]/peaks[64]:.2f} (1.00 = independent of output size)")


main()
