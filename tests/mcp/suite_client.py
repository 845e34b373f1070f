"""End-to-end client of `rea mcp`'s run_suite tool, on the official MCP
Python SDK. Run by tests/integration/suites/mcp.rs, which writes the suite's
tools into --workdir. Every check raises AssertionError with what was seen;
on success the last stdout line is a JSON summary.

usage: suite_client.py --rea BIN --workdir DIR
"""

import argparse
import json
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SUITE = "run_suite"


def structured(result):
    data = result.structured_content
    assert isinstance(data, dict), f"no structuredContent: {result}"
    assert json.loads(result.content[0].text) == data, "the first text content differs from structuredContent"
    return data


def suite():
    cases = [{"name": n, "scenario": {"arguments": [n]}} for n in ("alpha", "beta", "gamma")]
    return {
        "name": "mcp suite",
        "sides": {"authority": {"executable": "tools/say"}, "reconstruction": {"executable": "tools/say-too"}},
        "cases": cases,
        "defaults": {"filesystem_observation_paths": ["."]},
    }


async def checks(session, workdir):
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert SUITE in tools, sorted(tools)
    props = set(tools[SUITE].input_schema["properties"])
    expected = {"suite", "suite_path", "out", "jobs", "self_check", "goldens", "record_goldens", "partition", "cases", "terminal_lens"}
    assert props == expected, props

    updates = []

    async def on_progress(progress, total, message):
        updates.append({"progress": progress, "total": total, "message": message})

    result = await session.call_tool(SUITE, {"suite": suite(), "out": "mcp-out", "jobs": 2}, progress_callback=on_progress)
    assert not result.is_error, result.structured_content
    data = structured(result)
    record = data["result"]
    assert record["totals"]["cases"] == 3 and record["totals"]["changed"] == 1, record["totals"]
    verdicts = {c["name"]: c["verdict"] for c in record["cases"]}
    assert verdicts == {"alpha": "unchanged", "beta": "changed", "gamma": "unchanged"}, verdicts
    assert data["evidence_uri"] == "rea://evidence/" + data["evidence_id"], data
    contents = (await session.read_resource(data["evidence_uri"])).contents
    read = json.loads(contents[0].text)
    assert read["predicate_type"] == "rea.process-suite/v1" and read["normalized_result"] == record, read["predicate_type"]
    on_disk = json.loads((Path(workdir) / "mcp-out" / "suite.json").read_text())
    assert on_disk["evidence_id"] == data["evidence_id"], "suite.json is the record returned"
    # Notifications may trail the result by a moment.
    with anyio.move_on_after(5):
        while len(updates) < 3:
            await anyio.sleep(0.05)
    assert [u["progress"] for u in updates] == [1, 2, 3], updates
    assert all(u["total"] == 3 for u in updates), updates
    assert sorted(u["message"] for u in updates) == ["alpha: unchanged", "beta: changed", "gamma: unchanged"], updates

    bad = await session.call_tool(SUITE, {"suite": suite(), "partition": "0/3", "jobs": 0})
    assert bad.is_error, bad.structured_content
    doc = structured(bad)
    assert doc["code"] == "invalid_arguments", doc
    paths = sorted(i["path"] for i in doc["details"]["issues"])
    assert paths == ["jobs", "partition"], doc

    broken = suite()
    broken["cases"].append({"name": "alpha", "scenario": {"timeout_ms": 0}})
    invalid = await session.call_tool(SUITE, {"suite": broken, "out": "never"})
    doc = structured(invalid)
    assert invalid.is_error and doc["code"] == "invalid_suite", doc
    assert "cases[3].scenario.timeout_ms: 0 is below the minimum 1" in doc["message"], doc["message"]
    assert not (Path(workdir) / "never").exists(), "an invalid suite writes nothing"
    return {"progress": updates, "checks": ["tools", "run", "read", "progress", "invalid_arguments", "invalid_suite"]}


async def main(args):
    env = {"TMPDIR": str(Path(args.workdir) / "tmp"), "PATH": "/usr/bin:/bin"}
    (Path(args.workdir) / "tmp").mkdir(exist_ok=True)
    server = StdioServerParameters(command=args.rea, args=["mcp"], env=env, cwd=args.workdir)
    with anyio.fail_after(120):
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                summary = await checks(session, args.workdir)
    print(json.dumps(summary))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rea", required=True)
    parser.add_argument("--workdir", required=True)
    anyio.run(main, parser.parse_args())
