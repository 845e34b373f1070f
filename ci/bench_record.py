"""Keystroke-to-screen latency: rea record-scenario vs script, through tmux.

Both sides run `cat` in a tmux pane of a private server; each key (a
distinct letter followed by its number) is sent with `tmux send-keys` and
the pane is polled (`capture-pane`) until it shows it. The same polling
loop measures both, alternating key by key, so the machine's load falls on
both alike.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

REA = sys.argv[1]
KEYS = int(os.environ.get("BENCH_KEYS", "40"))
SOCKET = f"rea-bench-record-{os.getpid()}"


def tmux(*args):
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True).stdout


def start(name, command, cwd):
    tmux("-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-s", name, "-c", cwd, command)


def latency(name, text):
    start_at = time.perf_counter()
    tmux("send-keys", "-t", name, "-l", text)
    while text not in tmux("capture-pane", "-p", "-t", name):
        if time.perf_counter() - start_at > 10:
            raise SystemExit(f"bench-record: {name} never showed {text!r}")
    return (time.perf_counter() - start_at) * 1000


def main():
    with tempfile.TemporaryDirectory() as tmp:
        start("rea", f"'{REA}' record-scenario {tmp}/out.json -- cat", tmp)
        start("script", "script -q /dev/null -c cat", tmp)
        time.sleep(2)
        # Enter starts a new line each time, so the pane keeps few lines.
        samples = {"rea": [], "script": []}
        try:
            for i in range(KEYS):
                for name in ("rea", "script"):
                    samples[name].append(latency(name, f"k{i}x"))
                    tmux("send-keys", "-t", name, "C-u")
        finally:
            tmux("kill-server")
    rea, script = (statistics.median(samples[n]) for n in ("rea", "script"))
    print(f"keystroke-to-screen median over {KEYS} keys: rea record-scenario {rea:.1f} ms, script {script:.1f} ms")
    print(f"ratio rea/script: {rea / script:.2f}x (target <= 1.2x)")


main()
