"""Raw PTY drain rate on the bench-render stream: `script` beside rea.

rea runs with limits that admit the whole stream, so every chunk is handed to
the renderer. rea's drain time is the `at_ms` of its last raw frame (1 ms
buckets): when the last byte was read, which the renderer must not delay.
Its wall time also includes finishing the renderer and building a record of
~10 MB of frames plus ~10 MB of rendered states. Runs alternate between the
two commands; medians are reported.
"""

import json
import os
import statistics
import subprocess
import sys
import time

REA, WORK = sys.argv[1], sys.argv[2]
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
STREAM = os.path.join(WORK, "stream.txt")
SIZE = os.path.getsize(STREAM)


def timed(cmd):
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    return time.perf_counter() - start, out


def main():
    scenario = os.path.join(WORK, "s.json")
    with open(scenario, "w") as f:
        json.dump({"executable": "cat", "arguments": [STREAM], "terminal": {"columns": 120, "rows": 40},
                   "limits": {"output_bytes": 10_000_000, "frames": 100_000},
                   "normalization": {"time_bucket_ms": 1},
                   "timeout_ms": 120000, "settle_ms": 0}, f)
    rea = [REA, "capture-process", scenario, "--json"]
    script = ["script", "-q", "-e", "-c", f"cat {STREAM}", "/dev/null"]
    timed(rea), timed(script)
    walls, drains, scripts = [], [], []
    for _ in range(RUNS):
        w, out = timed(rea)
        record = json.loads(out)["normalized_result"]
        raw = record["truncation_details"]["raw_terminal"]
        assert not raw["truncated"], "the stream must be admitted whole"
        walls.append(w)
        drains.append(max(record["frames"][-1]["at_ms"], 1) / 1000)
        scripts.append(timed(script)[0])
    rendered = record["truncation_details"]["rendered_terminal"]
    w, d, s = statistics.median(walls), statistics.median(drains), statistics.median(scripts)
    print(f"\nPTY drain of {SIZE} bytes ({RUNS} runs each, medians):")
    print(f"  script (wall time): {SIZE / 1e6 / s:.1f} MB/s ({s:.3f} s)")
    print(f"  rea, launch to last byte read: {SIZE / 1e6 / d:.1f} MB/s ({d:.3f} s), {s / d:.2f}x script")
    print(f"  rea, wall time (renderer finished, 20 MB record built and printed): "
          f"{SIZE / 1e6 / w:.1f} MB/s ({w:.3f} s)")
    print(f"  rea admitted {raw['retained_chunks']} chunks; rendered states: "
          f"{rendered['observed_frames']} produced, {rendered['retained_frames']} kept")


main()
