"""Timing pieces the capture benchmarks share (bench_capture.py,
bench_ptrace.py, bench_screens.py): wall time of one run, two commands
interleaved run by run with their medians, peak RSS from GNU time, and a
scenario file written into the work directory."""

import json
import os
import statistics
import subprocess
import tempfile
import time

GNU_TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None


def wall(cmd, cwd):
    """Wall seconds of one run of `cmd` in `cwd`."""
    start = time.perf_counter()
    # No standard input: a keeper started by hand reads its launch there.
    subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    return time.perf_counter() - start


def interleaved(a, b, cwd, runs):
    """Median wall seconds of `a` and of `b`, run alternately `runs` times
    each after one warm-up run of each."""
    wall(a, cwd)
    wall(b, cwd)
    wa, wb = [], []
    for _ in range(runs):
        wa.append(wall(a, cwd))
        wb.append(wall(b, cwd))
    return statistics.median(wa), statistics.median(wb)


def peak_rss_mib(cmd, cwd):
    """Peak RSS of one run in MiB (GNU time: a child forked by Python would
    report Python's own resident size), or None without GNU time."""
    if GNU_TIME is None:
        return None
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run([GNU_TIME, "-f", "%M", "-o", out.name] + cmd, cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return int(out.read().strip().splitlines()[-1]) / 1024


def scenario(cwd, name, body):
    """Writes the scenario `body` to `cwd/name`; returns `name`."""
    with open(os.path.join(cwd, name), "w") as f:
        json.dump(body, f)
    return name
