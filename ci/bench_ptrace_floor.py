"""Places rea's exact observation against the floor of ptrace event stops
(see bench-ptrace-floor.sh): the fork-heavy workload run plainly, under the
minimal tracer of ptrace_floor.c, and captured by rea exactly and sampled,
interleaved run by run; medians and ratios."""

import os
import statistics
import sys
import tempfile

from bench_timing import scenario, wall

REA, FLOOR = sys.argv[1], sys.argv[2]
RUNS = int(os.environ.get("BENCH_RUNS", "10"))
LOOP = "for i in $(seq 1000); do /bin/true; done"


def main():
    with tempfile.TemporaryDirectory() as cwd:
        base = {"executable": "sh", "arguments": ["-c", LOOP], "limits": {"processes": 10000}, "timeout_ms": 120000}
        exact = scenario(cwd, "exact.json", base)
        sampled = scenario(cwd, "sampled.json", dict(base, process_observation="sampled"))
        commands = {
            "sh, untraced": ["sh", "-c", LOOP],
            "sh under ptrace_floor": [FLOOR, "sh", "-c", LOOP],
            "sh under ptrace_floor, a CPU kept awake 3 ms": ["env", "FLOOR_AWAKE_MS=3", FLOOR, "sh", "-c", LOOP],
            "rea, sampled": [REA, "capture-process", sampled, "--json"],
            "rea, exact": [REA, "capture-process", exact, "--json"],
        }
        times = {name: [] for name in commands}
        for cmd in commands.values():
            wall(cmd, cwd)
        for _ in range(RUNS):
            for name, cmd in commands.items():
                times[name].append(wall(cmd, cwd))
        median = {name: statistics.median(t) for name, t in times.items()}
        for name, m in median.items():
            print(f"{name}: median {m * 1000:.0f} ms (min {min(times[name]) * 1000:.0f}, max {max(times[name]) * 1000:.0f})")
        floor = median["sh under ptrace_floor"] / median["sh, untraced"]
        awake = median["sh under ptrace_floor, a CPU kept awake 3 ms"] / median["sh, untraced"]
        ours = median["rea, exact"] / median["rea, sampled"]
        print(f"ptrace floor: {floor:.2f} x untraced ({awake:.2f} with a CPU kept awake); "
              f"rea exact: {ours:.2f} x rea sampled ({RUNS} runs)")


if __name__ == "__main__":
    main()
