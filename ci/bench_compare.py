"""Measures `rea compare-process-captures` on two maximum-budget captures.

Usage: python3 ci/bench_compare.py REA_BINARY

BENCH_RUNS (default 15) timed runs of each command per round, BENCH_ROUNDS
(default 3) rounds; each round's figure is the median of its runs, and the
range over the rounds is printed. The comparison runs with the default
settings (TOON output, default tolerance); the peer is Python's json.load
of the same two files, interleaved run by run.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REA = sys.argv[1]
RUNS = int(os.environ.get("BENCH_RUNS", "15"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))

# The scenario model's maximum budget (`limits` in the scenario schema).
MAX_LIMITS = {"output_bytes": 10_000_000, "frames": 100_000}

STREAMS = {
    # Normalization leaves the text as it is: frames hold `data` only.
    "plain text": "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 12000000",
    # Every chunk holds a port: frames hold `data` and `raw_data`.
    "normalized text": "yes 'listening on localhost:8080 ok' | head -c 12000000",
}

RATIO_TARGET = 0.5
RSS_TARGET = 2.0


def capture(work, name, script):
    scenario = {"executable": "sh", "arguments": ["-c", script], "limits": MAX_LIMITS, "timeout_ms": 120_000}
    path = os.path.join(work, name + ".scenario.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    out = os.path.join(work, name + ".json")
    with open(out, "wb") as f:
        subprocess.run([REA, "capture-process", path, "--json"], stdout=f, stderr=subprocess.DEVNULL, check=True, cwd=work)
    return out


def timed(argv):
    """Wall seconds, CPU seconds (user + system) and peak RSS in bytes of one
    run under GNU time."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%U %S %M"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    wall = time.perf_counter() - start
    user, system, rss = done.stderr.decode().strip().splitlines()[-1].split()
    return wall, float(user) + float(system), int(rss) * 1024


def median_of(runs, i):
    return statistics.median(r[i] for r in runs)


def round_figures(rea, peer):
    rea_runs, peer_runs = [], []
    for _ in range(RUNS):
        rea_runs.append(timed(rea))
        peer_runs.append(timed(peer))
    return {
        "rea_ms": median_of(rea_runs, 0) * 1000,
        "peer_ms": median_of(peer_runs, 0) * 1000,
        "rea_cpu_ms": median_of(rea_runs, 1) * 1000,
        "peer_cpu_ms": median_of(peer_runs, 1) * 1000,
        "rss": max(r[2] for r in rea_runs),
        "peer_rss": max(r[2] for r in peer_runs),
    }


def span(rounds, f):
    values = [f(r) for r in rounds]
    return min(values), max(values)


def report(label, a, b, rounds):
    size = os.path.getsize(a) + os.path.getsize(b)
    print(f"{label}: two captures of {os.path.getsize(a) / 1e6:.1f} MB and {os.path.getsize(b) / 1e6:.1f} MB "
          f"({ROUNDS} rounds of {RUNS} interleaved runs; [min-max] over the rounds)")
    for i, r in enumerate(rounds, 1):
        print(f"  round {i}: rea {r['rea_ms']:.1f} ms (CPU {r['rea_cpu_ms']:.0f} ms), json.load {r['peer_ms']:.1f} ms "
              f"(CPU {r['peer_cpu_ms']:.0f} ms): ratio {r['rea_ms'] / r['peer_ms']:.2f}")
    lo, hi = span(rounds, lambda r: r["rea_ms"] / r["peer_ms"])
    clo, chi = span(rounds, lambda r: r["rea_cpu_ms"] / r["peer_cpu_ms"])
    verdict = "met" if hi <= RATIO_TARGET else "not met"
    print(f"  wall ratio rea/json.load: [{lo:.2f}-{hi:.2f}] (target <= {RATIO_TARGET}: {verdict}); CPU ratio [{clo:.2f}-{chi:.2f}]")
    rss = max(r["rss"] for r in rounds)
    peer_rss = max(r["peer_rss"] for r in rounds)
    verdict = "met" if rss <= RSS_TARGET * size else "not met"
    print(f"  peak RSS: rea {rss / 2**20:.1f} MiB = {rss / size:.2f}x the combined size {size / 2**20:.1f} MiB "
          f"(target <= {RSS_TARGET}x: {verdict}); json.load {peer_rss / 2**20:.1f} MiB = {peer_rss / size:.2f}x")


def main():
    with tempfile.TemporaryDirectory() as work:
        for label, script in STREAMS.items():
            a, b = capture(work, "a", script), capture(work, "b", script)
            rea = [REA, "compare-process-captures", a, b]
            peer = [sys.executable, "-c", "import json,sys; [json.load(open(p)) for p in sys.argv[1:]]", a, b]
            rounds = [round_figures(rea, peer) for _ in range(ROUNDS)]
            report(label, a, b, rounds)


if __name__ == "__main__":
    main()
