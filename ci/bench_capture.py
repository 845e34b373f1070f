"""Measures rea capture against `script` in one run (see bench-capture.sh).

Each comparison interleaves the two commands run by run, so drift on a busy
machine affects both alike, and reports medians. Peak RSS comes from GNU
time (`/usr/bin/time -f %M`): a child forked by Python would report
Python's own resident size as its high-water mark.
"""

import os
import shutil
import subprocess
import sys
import tempfile

from bench_timing import interleaved, peak_rss_mib, scenario, wall

REA = sys.argv[1]
RUNS = int(os.environ.get("BENCH_RUNS", "30"))
STREAM_RUNS = int(os.environ.get("BENCH_STREAM_RUNS", "5"))


def fmt_rss(v):
    return "n/a (install GNU time)" if v is None else f"{v:.1f} MiB"


def cpu_seconds(cmd, cwd):
    """User + system CPU of `cmd` itself and the children it reaped."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime


def keeper(cwd):
    """Issue 23: what the keeper costs. A trivial capture with settle_ms 0
    beside `script`, the keeper's own start-up (`rea __rea-keeper` that finds
    no launch on its socket and exits) beside /bin/true, and, for the
    alternative the keeper was chosen over, a PID namespace's start-up
    (`unshare --pid --fork true`) beside /bin/true where unshare works."""
    trivial = scenario(cwd, "trivial-settle0.json", {"executable": "true", "settle_ms": 0})
    rw, sw = interleaved([REA, "capture-process", trivial, "--json"], ["script", "-qec", "true", "/dev/null"], cwd, RUNS)
    print(f"trivial capture with the keeper, settle_ms 0 ({RUNS} runs): rea {rw*1000:.2f} ms, "
          f"script {sw*1000:.2f} ms, wall ratio {rw/sw:.2f} (target <= 1.5)")
    kw, tw = interleaved([REA, "__rea-keeper"], ["/bin/true"], cwd, RUNS)
    print(f"keeper start-up ({RUNS} runs): {kw*1000:.2f} ms, /bin/true {tw*1000:.2f} ms, "
          f"keeper adds {(kw-tw)*1000:.2f} ms per launch")
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "--pid", "--fork", "true"], stderr=subprocess.DEVNULL).returncode == 0:
        nw, tw = interleaved([unshare, "--pid", "--fork", "true"], ["/bin/true"], cwd, RUNS)
        print(f"PID namespace start-up ({RUNS} runs): unshare --pid --fork true {nw*1000:.2f} ms, "
              f"/bin/true {tw*1000:.2f} ms, adds {(nw-tw)*1000:.2f} ms")
    else:
        print("PID namespace start-up: unshare --pid --fork is not permitted here")


def ownership(cwd):
    """Issue 7: default settings, rea's own CPU while a command sleeps, and
    the cost of cleaning up a 200-process tree."""
    default = scenario(cwd, "default.json", {"executable": "true"})
    rw, sw = interleaved([REA, "capture-process", default, "--json"], ["script", "-qec", "true", "/dev/null"], cwd, RUNS)
    print(f"trivial capture, default settings ({RUNS} runs): rea {rw*1000:.2f} ms, script {sw*1000:.2f} ms, "
          f"wall ratio {rw/sw:.2f} (target <= 1.5)")

    keeper(cwd)

    sleep = scenario(cwd, "sleep.json", {"executable": "sleep", "arguments": ["10"], "timeout_ms": 60000})
    rea_cpu = cpu_seconds([REA, "capture-process", sleep, "--json"], cwd)
    script_cpu = cpu_seconds(["script", "-qec", "sleep 10", "/dev/null"], cwd)
    print(f"CPU during a 10 s capture of `sleep 10`: rea {rea_cpu:.3f} s ({rea_cpu/10*100:.2f} % of one core, "
          f"target <= 1 %), script {script_cpu:.3f} s")

    # The root starts 200 sleepers and exits; rea's cleanup kills them. The
    # peer run kills them itself before exiting, so the difference of the
    # medians is what rea's cleanup adds.
    spawn = "for i in $(seq 200); do sleep 1000 & done; "
    left = scenario(cwd, "tree-left.json", {"executable": "bash", "arguments": ["-c", spawn + "sleep 0.2"],
                                            "settle_ms": 0})
    killed = scenario(cwd, "tree-killed.json", {"executable": "bash", "arguments": ["-c", spawn + "sleep 0.2; kill -9 $(jobs -p); wait"],
                                                "settle_ms": 0})
    lw, kw = interleaved([REA, "capture-process", left, "--json"], [REA, "capture-process", killed, "--json"], cwd,
                         max(5, RUNS // 3))
    print(f"cleanup of a 200-process tree ({max(5, RUNS // 3)} runs): tree left to rea {lw*1000:.1f} ms, "
          f"killed by the program {kw*1000:.1f} ms, cleanup adds {(lw-kw)*1000:.1f} ms (target <= 100 ms)")


def main():
    if os.environ.get("BENCH_ONLY") == "ownership":
        with tempfile.TemporaryDirectory(prefix="rea-bench-") as cwd:
            ownership(cwd)
        return
    with tempfile.TemporaryDirectory(prefix="rea-bench-") as cwd:
        ownership(cwd)
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
