"""Measures the screen lens against the stream lens on two maximum-budget
captures, in one run.

Usage: python3 ci/bench_screen_lens.py REA_BINARY

Pairs:
- "full-screen, 1000 events": a full-screen program redrawing 80x24 rows in
  colour for about 5 s at the maximum budget, with the maximum number of
  events (1000 inputs, 5 ms apart), so each side has 1001 segment
  boundaries; the two sides' screens differ at every boundary (frame
  counters), so every screen is replayed and compared cell by cell: the
  lens's worst case.
- "plain text": the stream of ci/bench_compare.py (12 MB of `yes`), one
  segment.

BENCH_RUNS (default 7) timed runs of each lens per round, interleaved,
BENCH_ROUNDS (default 3) rounds; each round's figure is the median of its
runs, and the range over the rounds is printed.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REA = sys.argv[1]
RUNS = int(os.environ.get("BENCH_RUNS", "7"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
RATIO_TARGET = 1.5

# The scenario model's maximum budget (`limits` in the scenario schema).
MAX_LIMITS = {"output_bytes": 10_000_000, "frames": 100_000}
MAX_EVENTS = 1000

TUI = r"""
import sys, time
end = time.time() + 5.2
n = 0
out = sys.stdout
while time.time() < end:
    rows = []
    for r in range(24):
        pen = "1;31" if r % 3 == 0 else ("32" if r % 3 == 1 else "0")
        rows.append("\x1b[%d;1H\x1b[%sm%s\x1b[0m" % (r + 1, pen, ("row %02d frame %08d " % (r, n)).ljust(79, ".")))
    out.write("\x1b[?25l" + "".join(rows))
    out.flush()
    n += 1
    if n % 8 == 0:
        time.sleep(0.002)
"""

PAIRS = {
    "full-screen, 1000 events": {
        "executable": "python3",
        "arguments": ["-c", TUI],
        "events": [{"type": "input", "at_ms": 100 + 5 * i, "data": "x"} for i in range(MAX_EVENTS)],
        "timeout_ms": 60_000,
    },
    "plain text": {
        "executable": "sh",
        "arguments": ["-c", "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 12000000"],
        "timeout_ms": 120_000,
    },
}


def capture(work, name, scenario):
    path = os.path.join(work, name + ".scenario.json")
    with open(path, "w") as f:
        json.dump(dict(scenario, limits=MAX_LIMITS), f)
    out = os.path.join(work, name + ".json")
    with open(out, "wb") as f:
        subprocess.run([REA, "capture-process", path, "--json"], stdout=f, stderr=subprocess.DEVNULL, check=True,
                       cwd=work)
    return out


def timed(argv):
    """Wall seconds and CPU seconds (user + system) of one run under GNU time."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%U %S"] + argv, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=True)
    wall = time.perf_counter() - start
    user, system = done.stderr.decode().strip().splitlines()[-1].split()
    return wall, float(user) + float(system)


def summary(rea, a, b):
    """The screen lens's verdict on the pair, to show what was compared."""
    done = subprocess.run(rea + ["--terminal-lens", "screen", "--json"], stdout=subprocess.PIPE, check=True)
    record = json.loads(done.stdout)["normalized_result"]
    terminal = next(d for d in record["dimensions"] if d["dimension"] == "terminal")
    listed = len(terminal["differences"]) + terminal["differences_omitted"]
    return f"terminal {terminal['status']} under the screen lens, {listed} differences"


def main():
    with tempfile.TemporaryDirectory() as work:
        for label, scenario in PAIRS.items():
            a, b = capture(work, "a", scenario), capture(work, "b", scenario)
            rea = [REA, "compare-process-captures", a, b]
            print(f"{label}: two captures of {os.path.getsize(a) / 1e6:.1f} MB and {os.path.getsize(b) / 1e6:.1f} MB; "
                  f"{summary(rea, a, b)} ({ROUNDS} rounds of {RUNS} interleaved runs)")
            ratios, cpu_ratios = [], []
            for i in range(ROUNDS):
                stream, screen = [], []
                for _ in range(RUNS):
                    stream.append(timed(rea))
                    screen.append(timed(rea + ["--terminal-lens", "screen"]))
                s_wall, s_cpu = statistics.median(r[0] for r in stream), statistics.median(r[1] for r in stream)
                c_wall, c_cpu = statistics.median(r[0] for r in screen), statistics.median(r[1] for r in screen)
                ratios.append(c_wall / s_wall)
                cpu_ratios.append(c_cpu / s_cpu)
                print(f"  round {i + 1}: stream {s_wall * 1000:.1f} ms (CPU {s_cpu * 1000:.0f} ms), "
                      f"screen {c_wall * 1000:.1f} ms (CPU {c_cpu * 1000:.0f} ms): ratio {ratios[-1]:.2f}")
            verdict = "met" if max(ratios) <= RATIO_TARGET else "not met"
            print(f"  wall ratio screen/stream: [{min(ratios):.2f}-{max(ratios):.2f}] (target <= {RATIO_TARGET}: "
                  f"{verdict}); CPU ratio [{min(cpu_ratios):.2f}-{max(cpu_ratios):.2f}]")


if __name__ == "__main__":
    main()
