"""End-to-end client of `rea mcp`, on the official MCP Python SDK.

Run by tests/integration/mcp.rs (which builds `rea` and finds this venv's
python). Every check raises AssertionError with what was seen; on success the
last stdout line is a JSON summary that the Rust test inspects too.

usage: client.py --rea BIN --workdir DIR --schema docs/scenario.schema.json
                 --fixtures tests/fixtures/captures --mode full|stub
"""

import argparse
import json
import os
import sys
import uuid
from pathlib import Path

import subprocess

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CAPTURE = "capture_process_scenario"
COMPARE = "compare_process_captures"
EXPORT = "export_asciicast"
SUITE = "run_suite"
SESSION_TOOLS = {"start_session", "send_input", "resize", "wait_for", "read_screen", "stop_session"}
FAULT_VARIABLE = "REA_MCP_TEST_FAIL_CLEANUP_WHILE"


def structured(result):
    """The structured content of a tool result, checked against its JSON text."""
    data = result.structured_content
    assert isinstance(data, dict), f"no structuredContent: {result}"
    assert json.loads(result.content[0].text) == data, "the first text content differs from structuredContent"
    return data


def expect_error(result, code):
    assert result.is_error, f"expected an error {code}, got success: {result.structured_content}"
    doc = structured(result)
    assert doc.get("error") == "Process command failed", doc
    assert doc.get("code") == code, f"expected code {code}: {doc}"
    assert doc.get("remediation", {}).get("action"), doc
    return doc


def marked_processes(mark):
    """PIDs whose environment carries REA_TEST_MARK=<mark>."""
    needle = f"REA_TEST_MARK={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


async def wait_until(condition, seconds, what):
    with anyio.move_on_after(seconds):
        while True:
            if condition():
                return
            await anyio.sleep(0.05)
    raise AssertionError(f"timed out after {seconds}s waiting until {what}")


class Run:
    def __init__(self, session, args):
        self.session = session
        self.args = args
        self.workdir = Path(args.workdir)
        self.summary = {"mode": args.mode, "checks": []}

    def passed(self, name, **facts):
        self.summary["checks"].append(name)
        self.summary.update(facts)

    async def initialize(self):
        init = await self.session.initialize()
        assert init.server_info.name == "rea", init.server_info
        assert init.capabilities.tools is not None and init.capabilities.resources is not None, init.capabilities
        self.passed("initialize", protocol_version=init.protocol_version)

    async def tools(self):
        tools = {t.name: t for t in (await self.session.list_tools()).tools}
        assert set(tools) == {CAPTURE, COMPARE, EXPORT, SUITE} | SESSION_TOOLS, sorted(tools)
        published = json.loads(Path(self.args.schema).read_text())
        assert tools[CAPTURE].input_schema == published, "capture input schema differs from docs/scenario.schema.json"
        props = tools[COMPARE].input_schema["properties"]
        fields = ("left_evidence_id", "right_evidence_id", "left_capture_path", "right_capture_path", "trace_spec")
        for field in fields + ("timing_tolerance_ms",):
            assert field in props, f"compare schema lacks {field}"
        assert tools[COMPARE].input_schema.get("additionalProperties") is False
        cap, cmp = tools[CAPTURE].annotations, tools[COMPARE].annotations
        assert cap.read_only_hint is False and cap.destructive_hint is True and cap.open_world_hint is True, cap
        assert cmp.read_only_hint is True and cmp.destructive_hint is False, cmp
        assert set(tools[EXPORT].input_schema["properties"]) == {"evidence_id", "capture_path"}, tools[EXPORT].input_schema
        assert tools[EXPORT].annotations.read_only_hint is True, tools[EXPORT].annotations
        self.passed("tools")

    async def compare_files(self):
        fixtures = Path(self.args.fixtures)
        result = await self.session.call_tool(
            COMPARE,
            {
                "left_capture_path": str(fixtures / "authority.json"),
                "right_capture_path": str(fixtures / "reconstruction.json"),
            },
        )
        assert not result.is_error, result.structured_content
        data = structured(result)
        exit_dim = next(d for d in data["result"]["dimensions"] if d["dimension"] == "exit")
        assert exit_dim["status"] == "changed", exit_dim
        record = await self.read(data["evidence_uri"])
        assert record["operation"] == COMPARE and record["evidence_id"] == data["evidence_id"], record["operation"]
        # The CLI's default timing tolerance, unless the call sets one.
        assert record["parameters"]["timing_tolerance_ms"] == 250, record["parameters"]
        strict = await self.session.call_tool(
            COMPARE,
            {
                "left_capture_path": str(fixtures / "authority.json"),
                "right_capture_path": str(fixtures / "reconstruction.json"),
                "timing_tolerance_ms": 0,
            },
        )
        assert not strict.is_error, strict.structured_content
        strict_record = await self.read(structured(strict)["evidence_uri"])
        assert strict_record["parameters"]["timing_tolerance_ms"] == 0, strict_record["parameters"]
        self.passed("compare_files")
        return data

    def cli(self, *args):
        """What `rea ARGS` prints on stdout, run in the fixture directory."""
        out = subprocess.run([self.args.rea, *args], cwd=self.args.fixtures, capture_output=True, check=False)
        return out.stdout.decode()

    async def export_and_toon(self, capture_id=None, capture_file=None):
        """The export tool prints what the CLI prints, for a JSON and a TOON
        capture file and for a session capture; comparison reads TOON too."""
        toon = str(Path(self.args.fixtures) / ".." / "comparisons" / "captures" / "hello.toon")
        for path in (str(Path(self.args.fixtures) / "authority.json"), toon):
            result = await self.session.call_tool(EXPORT, {"capture_path": path})
            assert not result.is_error, result.structured_content
            data = structured(result)
            assert data["asciicast"] == self.cli("export-asciicast", path), f"export of {path} differs from the CLI's"
            assert result.content[1].text == data["asciicast"], "the second content is not the recording"
            assert json.loads(data["asciicast"].splitlines()[0])["version"] == 2, data["asciicast"][:200]
        if capture_id is not None:
            by_id = structured(await self.session.call_tool(EXPORT, {"evidence_id": capture_id}))
            assert by_id["evidence_id"] == capture_id, by_id
            assert by_id["asciicast"] == self.cli("export-asciicast", str(capture_file)), "export by id differs"
        doc = expect_error(await self.session.call_tool(EXPORT, {"evidence_id": "ev_nope"}), "evidence_reference")
        assert doc["details"]["field"] == "evidence_id", doc
        hello = str(Path(toon).with_name("hello.json"))
        compared = await self.session.call_tool(COMPARE, {"left_capture_path": hello, "right_capture_path": toon})
        assert not compared.is_error, compared.structured_content
        expected = json.loads(self.cli("compare-process-captures", hello, toon, "--json"))
        assert structured(compared)["result"] == expected["normalized_result"], "TOON comparison differs from the CLI's"
        self.passed("export_and_toon")

    async def read(self, uri):
        contents = (await self.session.read_resource(uri)).contents
        assert len(contents) == 1 and contents[0].mime_type == "application/json", contents
        return json.loads(contents[0].text)

    async def capture(self, scenario, progress=None):
        return await self.session.call_tool(CAPTURE, scenario, progress_callback=progress)

    async def capture_and_read(self):
        updates = []

        async def on_progress(progress, total, message):
            updates.append((progress, total, message))

        scenario = {"executable": "sh", "arguments": ["-c", "echo ready; sleep 0.4; echo done"], "timeout_ms": 10000}
        result = await self.capture(scenario, on_progress)
        assert not result.is_error, result.structured_content
        data = structured(result)
        evidence_id = data["evidence_id"]
        assert data["evidence_uri"] == f"rea://evidence/{evidence_id}", data
        assert set(data) == {"result", "evidence_id", "evidence_uri"}, sorted(data)
        links = [c for c in result.content if c.type == "resource_link"]
        assert len(links) == 1 and str(links[0].uri) == data["evidence_uri"] and links[0].name == evidence_id, links
        assert any(c.type == "text" and "resources/read" in c.text for c in result.content), result.content
        # Progress: the CLI's phases, non-decreasing, no invented total, final cleanup states.
        assert updates, "no progress notification arrived"
        phases = [m.split(":", 1)[0] for _, _, m in updates]
        assert phases[0] == "prepare" and phases[-1] == "cleanup", phases
        assert set(phases) <= {"prepare", "running", "settling", "cleanup"}, phases
        assert all(t is None for _, t, _ in updates), updates
        values = [p for p, _, _ in updates]
        assert values == sorted(values), values
        assert "disposition=exited" in updates[-1][2] and "owned_process_group=cleaned" in updates[-1][2], updates[-1]
        # The resource is the full record.
        listed = [str(r.uri) for r in (await self.session.list_resources()).resources]
        assert data["evidence_uri"] in listed, listed
        record = await self.read(data["evidence_uri"])
        assert record["evidence_id"] == evidence_id and record["operation"] == CAPTURE, record["operation"]
        assert record["normalized_result"] == data["result"], "resource and tool result disagree"
        frames = "".join(f.get("raw_data") or f.get("data", "") for f in record["normalized_result"]["frames"])
        assert "ready" in frames and "done" in frames, frames
        self.passed("capture", progress_updates=len(updates), progress_phases=sorted(set(phases)))
        return evidence_id, record

    async def compare_ids_and_files(self, left_id, left_record):
        scenario = {"executable": "sh", "arguments": ["-c", "echo ready; sleep 0.4; echo changed"], "timeout_ms": 10000}
        right = await self.capture(scenario)
        assert not right.is_error, right.structured_content
        right_id = structured(right)["evidence_id"]
        by_id = await self.session.call_tool(COMPARE, {"left_evidence_id": left_id, "right_evidence_id": right_id})
        assert not by_id.is_error, by_id.structured_content
        by_id_data = structured(by_id)
        terminal = next(d for d in by_id_data["result"]["dimensions"] if d["dimension"] == "terminal")
        assert terminal["status"] == "changed", terminal
        # The same two captures as files give the same comparison result.
        left_file, right_file = self.workdir / "left.json", self.workdir / "right.json"
        left_file.write_text(json.dumps(left_record))
        right_file.write_text(json.dumps(await self.read(f"rea://evidence/{right_id}")))
        by_file = await self.session.call_tool(
            COMPARE, {"left_capture_path": str(left_file), "right_evidence_id": right_id}
        )
        assert not by_file.is_error, by_file.structured_content
        both_files = await self.session.call_tool(
            COMPARE, {"left_capture_path": str(left_file), "right_capture_path": str(right_file)}
        )
        assert structured(both_files)["result"] == by_id_data["result"], "file and id comparisons differ"
        assert structured(by_file)["result"] == by_id_data["result"], "mixed comparison differs"
        # Wrong references get their specific errors.
        doc = expect_error(
            await self.session.call_tool(COMPARE, {"left_evidence_id": by_id_data["evidence_id"], "right_evidence_id": right_id}),
            "evidence_reference",
        )
        assert doc["details"]["reason"] == "wrong_operation" and doc["details"]["field"] == "left_evidence_id", doc
        doc = expect_error(
            await self.session.call_tool(COMPARE, {"left_evidence_id": left_id, "right_evidence_id": "ev_nope"}),
            "evidence_reference",
        )
        assert doc["details"]["reason"] == "missing" and doc["details"]["field"] == "right_evidence_id", doc
        doc = expect_error(
            await self.session.call_tool(COMPARE, {"left_evidence_id": left_id, "right_evidence_id": right_id, "extra": 1}),
            "invalid_arguments",
        )
        assert [i["path"] for i in doc["details"]["issues"]] == ["extra"], doc
        self.passed("compare_ids_and_files")

    async def invalid_scenario(self):
        marker = self.workdir / "launched-by-invalid"
        scenario = {"executable": "sh", "arguments": ["-c", f"touch {marker}"], "timeout_ms": -5}
        doc = expect_error(await self.capture(scenario), "invalid_scenario")
        paths = [i["path"] for i in doc["details"]["issues"]]
        assert paths == ["timeout_ms"], doc
        assert "timeout_ms" in doc["message"], doc["message"]
        assert not marker.exists(), "an invalid scenario launched its command"
        self.passed("invalid_scenario")

    async def cancel_long_capture(self):
        mark = uuid.uuid4().hex
        scenario = {
            "executable": "sh",
            "arguments": ["-c", "sleep 600 & sleep 600; wait"],
            "environment": {"REA_TEST_MARK": mark},
            "timeout_ms": 600000,
        }
        outcome = {}
        async with anyio.create_task_group() as group:

            async def call():
                outcome["result"] = await self.capture(scenario)

            group.start_soon(call)
            await wait_until(lambda: len(marked_processes(mark)) >= 2, 30, "the long capture's processes run")
            launched = marked_processes(mark)
            group.cancel_scope.cancel()
        assert "result" not in outcome, outcome
        await wait_until(lambda: not marked_processes(mark), 30, f"the cancelled capture's processes {launched} are gone")
        self.passed("cancel", cancelled_processes=len(launched))

    async def cleanup_refusal(self):
        fault = self.workdir / "fail-cleanup"
        fault.write_text("injected")
        doc = expect_error(await self.capture({"executable": "sh", "arguments": ["-c", "echo hi"]}), "cleanup_incomplete")
        assert doc["details"]["cleanup_report"]["verified"] is False, doc
        marker = self.workdir / "launched-while-pending"
        scenario = {"executable": "sh", "arguments": ["-c", f"touch {marker}"]}
        doc = expect_error(await self.capture(scenario), "cleanup_incomplete")
        assert doc["message"].startswith("capture refused"), doc["message"]
        assert len(doc["details"]["pending"]) == 1, doc["details"]
        assert not marker.exists(), "a capture was launched while a cleanup was pending"
        # Comparison is not blocked by a pending cleanup.
        await self.compare_files()
        # Once the fault is gone, the retry before admission releases it.
        fault.unlink()
        result = await self.capture(scenario)
        assert not result.is_error, result.structured_content
        assert marker.exists(), "the admitted capture did not run"
        self.passed("cleanup_refusal")

    async def stub_capture(self):
        marker = self.workdir / "launched-on-stub"
        doc = expect_error(
            await self.capture({"executable": "sh", "arguments": ["-c", f"touch {marker}"]}), "capture_unsupported"
        )
        assert doc["category"] == "unsupported_provider", doc
        assert not marker.exists(), "the stub launched a command"
        self.passed("stub_capture_refused")


async def main(args):
    env = {"TMPDIR": str(Path(args.workdir) / "tmp"), FAULT_VARIABLE: str(Path(args.workdir) / "fail-cleanup")}
    (Path(args.workdir) / "tmp").mkdir(exist_ok=True)
    server = StdioServerParameters(command=args.rea, args=["mcp"], env=env, cwd=args.workdir)
    with anyio.fail_after(240):
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                run = Run(session, args)
                await run.initialize()
                await run.tools()
                if args.mode == "stub":
                    await run.stub_capture()
                    await run.compare_files()
                    await run.export_and_toon()
                else:
                    evidence_id, record = await run.capture_and_read()
                    await run.compare_ids_and_files(evidence_id, record)
                    await run.compare_files()
                    await run.export_and_toon(evidence_id, Path(args.workdir) / "left.json")
                    await run.invalid_scenario()
                    await run.cancel_long_capture()
                    await run.cleanup_refusal()
    print(json.dumps(run.summary))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    for name in ("--rea", "--workdir", "--schema", "--fixtures"):
        parser.add_argument(name, required=True)
    parser.add_argument("--mode", choices=["full", "stub"], required=True)
    anyio.run(main, parser.parse_args())
