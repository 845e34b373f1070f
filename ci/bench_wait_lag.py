"""The lag from a satisfied wait to its input, rea beside pexpect, on the
same prompts (see bench-wait-lag.sh).

The program writes each prompt `(p N) ` (in one write, or one byte per
write with 2 ms pauses), notes the time after its last byte, reads a line
and notes when it came: the lag is the gap, measured by the program on one
clock for both drivers. rea waits with `output_contains: "(p N) "`; pexpect
with `expect_exact("(p N) ")` then `send`, at its default settings
(`delaybeforesend` 0.05 s: "pexpect") and without that delay ("pexpect0"). rea holds a satisfied wait until
the output paused for 30 ms (the burst settle), so its lag is that plus its
loop; pexpect sends as soon as it has read the match.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

import pexpect

REA = sys.argv[1]
PROMPTS = int(os.environ.get("BENCH_PROMPTS", "40"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
PROGRAM = """import os, sys, time
bytewise, out = sys.argv[1] == "bytes", sys.argv[2]
lags = []
for n in range(%d):
    prompt = b"(p %%d) " %% n
    if bytewise:
        for i, byte in enumerate(prompt):
            if i:
                time.sleep(0.002)
            os.write(1, bytes([byte]))
    else:
        os.write(1, prompt)
    shown = time.monotonic()
    sys.stdin.readline()
    lags.append((time.monotonic() - shown) * 1000)
with open(out, "w") as f:
    f.write(" ".join("%%.3f" %% x for x in lags))
""" % PROMPTS


def rea(cwd, mode, out):
    events = [{"type": "input", "wait_for": {"output_contains": f"(p {n}) "}, "data": f"{n}\r"} for n in range(PROMPTS)]
    scenario = {"executable": "python3", "arguments": ["prog.py", mode, out], "events": events, "timeout_ms": 120000}
    with open(os.path.join(cwd, "s.json"), "w") as f:
        json.dump(scenario, f)
    subprocess.run([REA, "capture-process", "s.json", "--json"], cwd=cwd, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def pexpect_run(cwd, mode, out, delay=0.05):
    child = pexpect.spawn("python3", ["prog.py", mode, out], cwd=cwd, timeout=60)
    child.delaybeforesend = delay
    for n in range(PROMPTS):
        child.expect_exact(f"(p {n}) ")
        child.send(f"{n}\r")
    child.expect(pexpect.EOF)


def pexpect_nodelay(cwd, mode, out):
    pexpect_run(cwd, mode, out, delay=None)


def lags(driver, cwd, mode):
    out = os.path.join(cwd, "lags.txt")
    driver(cwd, mode, out)
    with open(out) as f:
        return [float(x) for x in f.read().split()]


def p99(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * 0.99))]


def main():
    with tempfile.TemporaryDirectory() as cwd:
        with open(os.path.join(cwd, "prog.py"), "w") as f:
            f.write(PROGRAM)
        print(f"# {PROMPTS} prompts x {RUNS} sessions each; lag = prompt end to answer, ms (program's clock)")
        print("# measured on this machine as it is (under load if others run); rea runs its default settings")
        print(f"{'prompt':<10} {'driver':<8} {'median':>8} {'p99':>8}")
        for mode in ("whole", "bytes"):
            drivers = {"pexpect": pexpect_run, "pexpect0": pexpect_nodelay, "rea": rea}
            got = {name: [] for name in drivers}
            for _ in range(RUNS):  # alternately, run by run
                for name, driver in drivers.items():
                    got[name] += lags(driver, cwd, mode)
            m = {name: (statistics.median(v), p99(v)) for name, v in got.items()}
            for name in drivers:
                print(f"{mode:<10} {name:<8} {m[name][0]:8.2f} {m[name][1]:8.2f}")
            for peer in ("pexpect", "pexpect0"):
                r, b = m["rea"], m[peer]
                print(f"{mode:<10} rea/{peer}: median {r[0] / b[0]:.2f}x, p99 {r[1] / b[1]:.2f}x")


main()
