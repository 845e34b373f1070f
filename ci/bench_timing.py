"""Timing pieces the capture benchmarks share (bench_capture.py,
bench_ptrace.py, bench_screens.py): wall time of one run, two commands
interleaved run by run with their medians, peak RSS from GNU time, and a
scenario file written into the work directory."""

import json
import os
import resource
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


def _alternated(a, b, cwd, runs, measure):
    """`measure` of `a` and of `b`, run alternately `runs` times each after
    one warm-up run of each: the two lists."""
    wall(a, cwd)
    wall(b, cwd)
    ra, rb = [], []
    for _ in range(runs):
        ra.append(measure(a, cwd))
        rb.append(measure(b, cwd))
    return ra, rb


def interleaved(a, b, cwd, runs):
    """Median wall seconds of `a` and of `b`, run alternately `runs` times
    each after one warm-up run of each."""
    wa, wb = _alternated(a, b, cwd, runs, wall)
    return statistics.median(wa), statistics.median(wb)


def wall_and_cpu(cmd, cwd):
    """Wall seconds of one run of `cmd` in `cwd`, and the CPU seconds (user
    and system) of every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = wall(cmd, cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def interleaved_with_cpu(a, b, cwd, runs):
    """Like `interleaved`, with the median CPU seconds of each beside:
    ((wall a, cpu a), (wall b, cpu b))."""
    ra, rb = _alternated(a, b, cwd, runs, wall_and_cpu)
    medians = lambda rs: (statistics.median(w for w, _ in rs), statistics.median(c for _, c in rs))
    return medians(ra), medians(rb)


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
