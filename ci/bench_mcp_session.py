"""Times one live-session round trip (see bench-mcp-session.sh): send_input
then wait_for the answer, on `cat`, through `rea mcp` with the official MCP
Python SDK, beside the same round trip through pexpect on a bare PTY, the
two interleaved in one run. Prints medians and their ratio.
"""

import os
import statistics
import sys
import tempfile
import time

import anyio
import pexpect
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REA = sys.argv[1]
RUNS = int(os.environ.get("BENCH_RUNS", "200"))
TARGET_MS = 5.0


async def main():
    work = tempfile.mkdtemp(prefix="bench-mcp-session-")
    env = {"TMPDIR": work, "PATH": "/usr/bin:/bin"}
    server = StdioServerParameters(command=REA, args=["mcp"], env=env, cwd=work)
    peer = pexpect.spawn("cat", encoding="utf-8", env=env)
    # pexpect sleeps 50 ms before each send by default; the peer is timed without it.
    peer.delaybeforesend = None
    mcp_ms, peer_ms = [], []
    async with stdio_client(server, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            scenario = {"executable": "cat", "timeout_ms": 600_000, "idle_timeout_ms": 600_000}
            started = await session.call_tool("start_session", {"scenario": scenario})
            assert not started.is_error, started.structured_content
            sid = started.structured_content["session_id"]
            for i in range(RUNS):
                text = f"r{i}x"
                t0 = time.perf_counter()
                sent = await session.call_tool("send_input", {"session_id": sid, "data": text + "\r"})
                waited = await session.call_tool(
                    "wait_for", {"session_id": sid, "wait_for": {"output_contains": text + "\r\n" + text, "timeout_ms": 10_000}}
                )
                mcp_ms.append((time.perf_counter() - t0) * 1000)
                assert not sent.is_error and waited.structured_content["satisfied"], waited.structured_content
                t0 = time.perf_counter()
                peer.send(text + "\r")
                peer.expect_exact(text + "\r\n" + text)
                peer_ms.append((time.perf_counter() - t0) * 1000)
            await session.call_tool("stop_session", {"session_id": sid})
    peer.close(force=True)
    m, p = statistics.median(mcp_ms), statistics.median(peer_ms)
    print(f"runs:    {RUNS} round trips each, interleaved")
    print(f"mcp send_input+wait_for median: {m:.2f} ms (p90 {statistics.quantiles(mcp_ms, n=10)[-1]:.2f} ms, target <= {TARGET_MS} ms: {'met' if m <= TARGET_MS else 'NOT met'})")
    print(f"pexpect send+expect median:     {p:.2f} ms (p90 {statistics.quantiles(peer_ms, n=10)[-1]:.2f} ms)")
    print(f"ratio mcp/pexpect: {m / p:.1f}x")


anyio.run(main)
