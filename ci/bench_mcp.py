"""Times `rea mcp` (see bench-mcp.sh): start-up to the initialize reply, and
one compare_process_captures round trip, each beside its CLI peer measured
in the same run (interleaved, medians). Raw JSON-RPC over pipes, stdlib only.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REA = sys.argv[1]
RUNS = int(os.environ.get("BENCH_RUNS", "50"))
TARGET_MS = 20.0
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}


class Server:
    def __init__(self, cwd):
        self.proc = subprocess.Popen([REA, "mcp"], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0)
        self.next_id = 1

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def reply(self, id_):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("rea mcp closed stdout")
            message = json.loads(line)
            if message.get("id") == id_:
                return message

    def call(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.reply(self.next_id)

    def initialize(self):
        self.send(INIT)
        self.reply(1)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def startup_ms(cwd):
    start = time.perf_counter()
    server = Server(cwd)
    server.send(INIT)
    server.reply(1)
    elapsed = time.perf_counter() - start
    server.close()
    return elapsed * 1000


def cli_ms(cmd, cwd):
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def verdict(ms):
    return "met" if ms <= TARGET_MS else "NOT met"


def main():
    with tempfile.TemporaryDirectory(prefix="rea-bench-mcp-") as cwd:
        # Start-up: `rea mcp` to its initialize reply, beside `rea --version`.
        for _ in range(3):
            startup_ms(cwd), cli_ms([REA, "--version"], cwd)
        mcp, version = [], []
        for _ in range(RUNS):
            mcp.append(startup_ms(cwd))
            version.append(cli_ms([REA, "--version"], cwd))
        m, v = statistics.median(mcp), statistics.median(version)
        print(f"start-up to initialize reply  median {m:7.2f} ms   rea --version {v:6.2f} ms   ratio {m / v:.1f}x   "
              f"target <= {TARGET_MS:.0f} ms: {verdict(m)}")

        # Two captures of a default scenario (no limit changed): a short
        # output, and one filling most of the default 1 MB output budget.
        server = Server(cwd)
        server.initialize()
        workloads = {
            "short output": "printf 'line %s\\n' $(seq 1 200); echo {text}",
            "~1 MB output": "yes 'a line of terminal output' | head -c 950000; echo {text}",
        }
        for label, script in workloads.items():
            compare_pair(server, cwd, label, script)
        server.close()


def compare_pair(server, cwd, label, script):
    ids, files = [], []
    for text in ("authority", "reconstruction"):
        scenario = {"executable": "sh", "arguments": ["-c", script.format(text=text)]}
        reply = server.call("tools/call", {"name": "capture_process_scenario", "arguments": scenario})
        assert not reply["result"].get("isError"), reply
        ids.append(reply["result"]["structuredContent"]["evidence_id"])
    for evidence_id in ids:
        record = server.call("resources/read", {"uri": f"rea://evidence/{evidence_id}"})
        path = os.path.join(cwd, f"{evidence_id}.json")
        with open(path, "w") as f:
            f.write(record["result"]["contents"][0]["text"])
        files.append(path)
    size = sum(os.path.getsize(p) for p in files) / 2 / 1024
    by_id = {"name": "compare_process_captures", "arguments": {"left_evidence_id": ids[0], "right_evidence_id": ids[1]}}
    by_file = {"name": "compare_process_captures",
               "arguments": {"left_capture_path": files[0], "right_capture_path": files[1]}}
    cli = [REA, "compare-process-captures", files[0], files[1], "--json"]
    rows = {"by id": [], "by file": [], "cli": []}
    for _ in range(3):
        server.call("tools/call", by_id), server.call("tools/call", by_file), cli_ms(cli, cwd)
    for _ in range(RUNS):
        for name, params in (("by id", by_id), ("by file", by_file)):
            start = time.perf_counter()
            reply = server.call("tools/call", params)
            rows[name].append((time.perf_counter() - start) * 1000)
            assert not reply["result"].get("isError"), reply
        rows["cli"].append(cli_ms(cli, cwd))
    c = statistics.median(rows["cli"])
    print(f"captures ({label}): {size:.0f} KiB of JSON each")
    for name in ("by id", "by file"):
        r = statistics.median(rows[name])
        print(f"  compare round trip ({name:7}) median {r:7.2f} ms   CLI compare-process-captures {c:7.2f} ms   "
              f"ratio {r / c:.2f}x   target <= {TARGET_MS:.0f} ms: {verdict(r)}")

if __name__ == "__main__":
    main()
