"""Measures `rea compare-process-captures` on two maximum-budget captures.

Usage: python3 ci/bench_compare.py REA_BINARY   (BENCH_RUNS, default 15)
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

STREAMS = {
    # Normalization leaves the text as it is: frames hold `data` only.
    "plain text": "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 12000000",
    # Every chunk holds a port: frames hold `data` and `raw_data`.
    "normalized text": "yes 'listening on localhost:8080 ok' | head -c 12000000",
}


def capture(work, name, script):
    scenario = {
        "executable": "sh",
        "arguments": ["-c", script],
        "limits": {"output_bytes": 10_000_000, "frames": 100_000},
        "timeout_ms": 120_000,
    }
    path = os.path.join(work, name + ".scenario.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    out = os.path.join(work, name + ".json")
    with open(out, "wb") as f:
        subprocess.run([REA, "capture-process", path, "--json"], stdout=f, stderr=subprocess.DEVNULL, check=True, cwd=work)
    return out


def timed(argv):
    """Wall seconds and peak RSS in KiB of one run under GNU time."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    wall = time.perf_counter() - start
    return wall, int(done.stderr.decode().strip().splitlines()[-1])


def main():
    with tempfile.TemporaryDirectory() as work:
        for label, script in STREAMS.items():
            a, b = capture(work, "a", script), capture(work, "b", script)
            size = os.path.getsize(a) + os.path.getsize(b)
            rea = [REA, "compare-process-captures", a, b, "--json"]
            peer = [sys.executable, "-c", "import json,sys; [json.load(open(p)) for p in sys.argv[1:]]", a, b]
            rea_runs, peer_runs = [], []
            for _ in range(RUNS):
                rea_runs.append(timed(rea))
                peer_runs.append(timed(peer))
            rea_ms = statistics.median(w for w, _ in rea_runs) * 1000
            peer_ms = statistics.median(w for w, _ in peer_runs) * 1000
            rss = max(r for _, r in rea_runs) * 1024
            peer_rss = max(r for _, r in peer_runs) * 1024
            print(f"{label}: two captures of {os.path.getsize(a) / 1e6:.1f} MB and {os.path.getsize(b) / 1e6:.1f} MB ({RUNS} runs)")
            print(f"  compare, median wall: {rea_ms:.1f} ms (target <= 100 ms: {rea_ms / 100:.2f}x); "
                  f"peer json.load: {peer_ms:.1f} ms; ratio rea/peer {rea_ms / peer_ms:.2f}")
            print(f"  compare, peak RSS: {rss / 1e6:.1f} MB = {rss / size:.2f}x the combined size "
                  f"(target <= 2x); peer: {peer_rss / 1e6:.1f} MB = {peer_rss / size:.2f}x")


if __name__ == "__main__":
    main()
