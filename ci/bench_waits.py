"""Measures a 10-prompt interactive session captured with waits against the
program's own run time, beside the fixed-delay scenario that works on the
same machine, in one run (see bench-waits.sh).

The program sleeps 100 ms before each of its 10 prompts (so its own run time
is about one second plus its start) and answers each input. "Own run time"
is the program run directly with all ten answers on a pipe: no terminal, no
capture, no waiting for anyone. The waiting capture sends each answer when
its prompt appears (`wait_for.output_contains`); the fixed-delay capture
sends them at times padded as a scenario writer must (first at 500 ms, then
every 300 ms), and is checked to work (every answer reached the program).
All three run alternately, run by run; medians are reported, with the
ratios to the program's own run time (target for waits: <= 1.1).
Default settings otherwise (settle_ms 100, exact process observation).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_timing import scenario, wall

REA = sys.argv[1]
RUNS = int(os.environ.get("BENCH_RUNS", "10"))
PROMPTS = 10
PROGRAM = f"""import sys, time
for i in range({PROMPTS}):
    time.sleep(0.1)
    sys.stdout.write('prompt %d> ' % i)
    sys.stdout.flush()
    line = sys.stdin.readline()
    print('answer %d: %s' % (i, line.strip()))
"""


def events(waiting):
    out = []
    for i in range(PROMPTS):
        event = {"type": "input", "data": f"a{i}\r"}
        if waiting:
            event["wait_for"] = {"output_contains": f"prompt {i}> "}
        else:
            event["at_ms"] = 500 + 300 * i
        out.append(event)
    return out


def check(cwd, name):
    out = subprocess.run([REA, "capture-process", name, "--json"], cwd=cwd, stdin=subprocess.DEVNULL,
                         capture_output=True, check=True)
    r = json.loads(out.stdout)["normalized_result"]
    text = "".join(f.get("raw_data") or f["data"] for f in r["frames"])
    missing = [i for i in range(PROMPTS) if f"answer {i}: a{i}" not in text]
    if missing or r["exit"]["code"] != 0:
        sys.exit(f"bench-waits: {name} did not complete the session (missing answers {missing}, exit {r['exit']})")


def own(cwd):
    """Wall seconds of the program run directly, answers on a pipe."""
    answers = "".join(f"a{i}\n" for i in range(PROMPTS)).encode()
    import time
    start = time.perf_counter()
    subprocess.run(["python3", "-c", PROGRAM], input=answers, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main():
    with tempfile.TemporaryDirectory() as cwd:
        base = {"executable": "python3", "arguments": ["-c", PROGRAM], "timeout_ms": 20000}
        waits = scenario(cwd, "waits.json", {**base, "events": events(True)})
        fixed = scenario(cwd, "fixed.json", {**base, "events": events(False)})
        check(cwd, waits)
        check(cwd, fixed)
        a = [REA, "capture-process", waits, "--json"]
        b = [REA, "capture-process", fixed, "--json"]
        own(cwd), wall(a, cwd), wall(b, cwd)
        wo, wa, wb = [], [], []
        for _ in range(RUNS):
            wo.append(own(cwd))
            wa.append(wall(a, cwd))
            wb.append(wall(b, cwd))
        o, w, f = statistics.median(wo), statistics.median(wa), statistics.median(wb)
        load = os.getloadavg()[0]
        print(f"10-prompt session, median of {RUNS} interleaved runs (load average {load:.1f}):")
        print(f"  program alone (answers piped)  {o * 1000:8.0f} ms")
        print(f"  rea, wait_for on each prompt   {w * 1000:8.0f} ms  {w / o:5.2f}x the program (target <= 1.1)")
        print(f"  rea, fixed delays that work    {f * 1000:8.0f} ms  {f / o:5.2f}x the program")
        print(f"  waits / fixed delays           {w / f:5.2f}x")


main()
