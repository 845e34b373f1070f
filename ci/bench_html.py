"""Measures `rea show --html` against `rea show` on a maximum-budget comparison.

Usage: python3 ci/bench_html.py REA_BINARY

Two captures at the scenario model's maximum budget (10,000,000 output
bytes, 100,000 frames) of coloured output that differs near the end are
compared (default stream lens, and --terminal-lens screen); each comparison
is then shown as text and as HTML, run by run interleaved. BENCH_RUNS
(default 9) runs per round, BENCH_ROUNDS (default 3) rounds; each round's
figure is the median of its runs, and the range over the rounds is printed.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REA = sys.argv[1]
RUNS = int(os.environ.get("BENCH_RUNS", "9"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
MAX_LIMITS = {"output_bytes": 10_000_000, "frames": 100_000}
RATIO_TARGET = 2.0
LINE = "printf '\\033[31mred \\033[42;1mgreen\\033[0m \\033[38;5;99mviolet\\033[0m %s\\n'"


def capture(work, name, last):
    script = f"yes \"$({LINE} row)\" | head -c 12000000; {LINE} {last}"
    scenario = {"executable": "sh", "arguments": ["-c", script], "limits": MAX_LIMITS, "timeout_ms": 300_000}
    path = os.path.join(work, name + ".scenario.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    out = os.path.join(work, name + ".json")
    with open(out, "wb") as f:
        subprocess.run([REA, "capture-process", path, "--json"], stdout=f, stderr=subprocess.DEVNULL, check=True, cwd=work)
    return out


def compare(work, left, right, name, extra):
    out = os.path.join(work, name)
    with open(out, "wb") as f:
        subprocess.run([REA, "compare-process-captures", left, right, "--json", *extra], stdout=f, check=True, cwd=work)
    return out


def timed(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def measure(comparison):
    rounds = []
    for _ in range(ROUNDS):
        text, html = [], []
        for _ in range(RUNS):
            text.append(timed([REA, "show", comparison]))
            html.append(timed([REA, "show", "--html", comparison]))
        rounds.append((statistics.median(text) * 1000, statistics.median(html) * 1000))
    return rounds


def main():
    with tempfile.TemporaryDirectory() as work:
        left = capture(work, "left", "authority")
        right = capture(work, "right", "reconstruction")
        print(f"captures: {os.path.getsize(left):,} and {os.path.getsize(right):,} bytes of JSON")
        ok = True
        for lens, extra in [("stream", []), ("screen", ["--terminal-lens", "screen"])]:
            comparison = compare(work, left, right, f"comparison-{lens}.json", extra)
            page = subprocess.run([REA, "show", "--html", comparison], capture_output=True, check=True).stdout
            rounds = measure(comparison)
            ratios = [h / t for t, h in rounds]
            t_ms = [t for t, _ in rounds]
            h_ms = [h for _, h in rounds]
            print(
                f"{lens} lens: comparison {os.path.getsize(comparison):,} bytes, page {len(page):,} bytes; "
                f"text view {min(t_ms):.1f}-{max(t_ms):.1f} ms, HTML page {min(h_ms):.1f}-{max(h_ms):.1f} ms, "
                f"ratio {min(ratios):.2f}-{max(ratios):.2f} (target <= {RATIO_TARGET})"
            )
            ok &= max(ratios) <= RATIO_TARGET
        print("within target" if ok else "OVER TARGET")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
