"""Issue 19 ("Screens are the truth of a terminal"), in one run, each figure
beside its peer measured in the same run (see bench-screens.sh):

1. 32 MiB of each redraw shape of ci/bench_shapes.py (80x24: full clear;
   home + overwrite + ESC[K; scroll region with IL/DL; 256/true-colour SGR;
   wide characters) and of a recorded vim session (ci/streams/vim-scroll.bin,
   concatenated) through the PTY with `cat`: rea capture-process (default
   limits: the first megabyte admitted, every byte rendered) beside
   `script`; wall-time ratio (target <= 1.11); the capture's final screen
   checked against the shape's last redraw (tmux's screen for the session).
2. The renderer alone on the same stream, fed as a capture feeds it
   (screens-render), beside the PTY drain rate (`script` on the stream).
3. 256 MiB of plain output: throughput ratio to `script`.
4. Peak RSS (GNU time) at 8, 32 and 256 MiB of output.

Runs of the two commands alternate; medians are reported.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench_shapes import SHAPES, recorded
from bench_timing import peak_rss_mib

REA, RENDER = sys.argv[1], sys.argv[2]
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
COLUMNS, ROWS = 80, 24
SESSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "streams", "vim-scroll.bin")


def wall(cmd, cwd, out=subprocess.DEVNULL):
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start, done.stdout


def interleaved(a, b, cwd, runs):
    wall(a, cwd), wall(b, cwd)
    wa, wb = [], []
    for _ in range(runs):
        wa.append(wall(a, cwd)[0])
        wb.append(wall(b, cwd)[0])
    return statistics.median(wa), statistics.median(wb)


def scenario(cwd, name, command):
    path = os.path.join(cwd, name)
    with open(path, "w") as f:
        json.dump({"executable": "sh", "arguments": ["-c", command], "settle_ms": 0,
                   "terminal": {"columns": COLUMNS, "rows": ROWS},
                   "timeout_ms": 600000, "idle_timeout_ms": 600000}, f)
    return [REA, "capture-process", path, "--json"]


def main():
    with tempfile.TemporaryDirectory(prefix="rea-bench-screens-") as cwd:
        shapes = SHAPES + [("recorded vim session (ci/streams/vim-scroll.bin)",
                            lambda path, size: recorded(path, size, SESSION))]
        stream = rea = None
        for k, (name, make) in enumerate(shapes):
            path = os.path.join(cwd, f"shape{k}.txt")
            last = make(path, 32 * 1024 * 1024)
            size = os.path.getsize(path)
            cmd = scenario(cwd, f"shape{k}.json", f"cat {path}")
            _, out = wall(cmd, cwd, subprocess.PIPE)
            final = json.loads(out)["normalized_result"]["rendered_frames"][-1]["lines"]
            true_final = final == last
            rw, sw = interleaved(cmd, ["script", "-qec", f"cat {path}", "/dev/null"], cwd, RUNS)
            print(f"32 MiB, {name} ({size} bytes, {RUNS} runs): rea {rw:.3f} s ({size/rw/1e6:.1f} MB/s), "
                  f"script {sw:.3f} s ({size/sw/1e6:.1f} MB/s), rea/script {rw/sw:.2f}x (target <= 1.11); "
                  f"final screen true: {true_final}")
            if not true_final:
                wrong = [i for i, (a, b) in enumerate(zip(final, last)) if a != b]
                print(f"  rows differ at {wrong[:5]}: {[final[i] for i in wrong[:2]]} expected {[last[i] for i in wrong[:2]]}")
            if k == 0:
                stream, rea, drain = path, cmd, (size, sw)
            else:
                os.remove(path)
        size, sw = drain

        rates, avt_rates = [], []
        for _ in range(RUNS):
            fields = subprocess.run([RENDER, stream, str(COLUMNS), str(ROWS)], check=True,
                                    stdout=subprocess.PIPE, text=True).stdout.split()
            rates.append(int(fields[0]) / float(fields[1]) / 1e6)
            avt_rates.append(int(fields[0]) / float(fields[3]) / 1e6)
            states = fields[2]
        render_rate, avt_rate = statistics.median(rates), statistics.median(avt_rates)
        drain_rate = size / sw / 1e6
        print(f"renderer alone on the same stream ({RUNS} runs, {states} states): {render_rate:.1f} MB/s "
              f"(avt's own parse alone: {avt_rate:.1f} MB/s); PTY drain (script) {drain_rate:.1f} MB/s; "
              f"renderer/drain {render_rate/drain_rate:.2f}x (target >= 1)")

        n = 256 * 1024 * 1024
        plain = f"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c {n}"
        rea_plain = scenario(cwd, "plain.json", plain)
        rw, sw = interleaved(rea_plain, ["script", "-qec", plain, "/dev/null"], cwd, max(3, RUNS // 2))
        print(f"256 MiB plain output ({max(3, RUNS // 2)} runs): rea {n/rw/1e6:.1f} MB/s, script {n/sw/1e6:.1f} MB/s, "
              f"throughput ratio {sw/rw:.2f} (target >= 0.9)")

        peaks = []
        for mib in (8, 32, 256):
            cmd = scenario(cwd, f"rss{mib}.json", f"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c {mib * 1024 * 1024}")
            peaks.append((f"{mib} MiB plain", peak_rss_mib(cmd, cwd)))
        peaks.append(("32 MiB redraws", peak_rss_mib(rea, cwd)))
        shown = ", ".join(f"{name} {'n/a' if v is None else f'{v:.1f} MiB'}" for name, v in peaks)
        print(f"peak RSS: {shown}")
        if peaks[0][1] and peaks[2][1]:
            print(f"peak RSS 256 MiB / 8 MiB: {peaks[2][1]/peaks[0][1]:.2f} (1.00 = flat in output size)")


main()
