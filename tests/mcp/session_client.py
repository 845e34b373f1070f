"""End-to-end client of `rea mcp`'s live-session tools (start_session,
send_input, resize, wait_for, read_screen, stop_session), on the official MCP
Python SDK, acting as an exploring agent would. Run by
tests/integration/mcp_sessions.rs. Every check raises AssertionError with
what was seen; on success the last stdout line is a JSON summary.

usage: session_client.py --mode explore|secret|kill --rea BIN --workdir DIR
                         [--rounds N] [--secret TEXT] [--mark MARK]

explore: ROUNDS sessions of `python3 -q` and of `bc` at once in one server
  (they must not mix), each explored (wait for the prompt, type, read the
  screen, quit, stop); each returned scenario is replayed with
  `rea capture-process` and compared with the session's capture.
secret: a password typed as a sensitive input into a prompt with the echo off
  appears in no reply, no resource and no returned scenario.
kill: a session runs, then the server is killed with SIGKILL; within 1 s no
  process of the session and no temporary root remain.
"""

import argparse
import hashlib
import json
import os
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

PROGRAMS = {
    # name: (scenario, prompt, [(input, expected answer)], quit)
    "python": ({"executable": "python3", "arguments": ["-q"]}, ">>> ", [("6*7\r", "42"), ("'py' + str(2**10)\r", "py1024")], "exit()\r"),
    "bc": ({"executable": "bc", "arguments": ["-q"]}, None, [("6*7\r", "42"), ("2^10 + 7\r", "1031")], "quit\r"),
}
SESSION_LIMITS = {"timeout_ms": 120_000, "idle_timeout_ms": 60_000}
MAX_SESSIONS = 8
SERVER_PATH = "/usr/bin:/bin"


def structured(result):
    data = result.structured_content
    assert isinstance(data, dict), f"no structuredContent: {result}"
    assert json.loads(result.content[0].text) == data, "the first text content differs from structuredContent"
    return data


async def call(session, tool, arguments, replies):
    result = await session.call_tool(tool, arguments)
    replies.append(result.model_dump_json())
    data = structured(result)
    assert not result.is_error, f"{tool} failed: {data}"
    return data


def screen_text(screen):
    assert set(screen) == {"columns", "rows", "lines", "cursor_row", "cursor_column"}, screen
    assert len(screen["lines"]) == screen["rows"], screen
    return "\n".join(screen["lines"])


def tagged(name, tag):
    """The tagged input of a session and the answer it gets: the tag is in
    the input's echo, the answer only in the program's reply."""
    if name == "python":
        return f"'{tag}'.lower()\r", f"'{tag.lower()}'"
    n = int(tag[len("TAGBC"):]) + 7_000_001
    return f"{n}*3 /* {tag} */\r", str(n * 3)


session_workdir = "."


async def explore(session, name, tag, replies):
    """One agent-like exploration; returns what stop_session returned."""
    scenario, prompt, steps, quit_ = PROGRAMS[name]
    scenario = dict(scenario, environment={"REA_SESSION_TAG": tag}, **SESSION_LIMITS)
    started = await call(session, "start_session", {"scenario": scenario}, replies)
    sid = started["session_id"]
    screen_text(started["screen"])
    if prompt:
        waited = await call(session, "wait_for", {"session_id": sid, "wait_for": {"output_contains": prompt, "timeout_ms": 20_000}}, replies)
        assert waited["satisfied"], f"{name}: no prompt: {waited}"
    else:
        # bc -q prints nothing: the agent waits for it to be quiet.
        waited = await call(session, "wait_for", {"session_id": sid, "wait_for": {"quiet_ms": 200, "timeout_ms": 20_000}}, replies)
        assert waited["satisfied"], f"{name}: never quiet: {waited}"
    for text, answer in steps:
        await call(session, "send_input", {"session_id": sid, "data": text}, replies)
        waited = await call(session, "wait_for", {"session_id": sid, "wait_for": {"output_contains": answer, "timeout_ms": 20_000}}, replies)
        assert waited["satisfied"], f"{name}: {answer!r} never came: {waited}"
        if prompt:
            waited = await call(session, "wait_for", {"session_id": sid, "wait_for": {"output_contains": prompt, "timeout_ms": 20_000}}, replies)
            assert waited["satisfied"], f"{name}: no prompt after {text!r}: {waited}"
    # Each session types its own tag, so that mixing would show.
    typed, answer = tagged(name, tag)
    await call(session, "send_input", {"session_id": sid, "data": typed}, replies)
    waited = await call(session, "wait_for", {"session_id": sid, "wait_for": {"output_contains": answer, "timeout_ms": 20_000}}, replies)
    assert waited["satisfied"], f"{name}: {answer!r} never came: {waited}"
    if prompt:
        await call(session, "wait_for", {"session_id": sid, "wait_for": {"output_contains": prompt, "timeout_ms": 20_000}}, replies)
    else:
        await call(session, "wait_for", {"session_id": sid, "wait_for": {"quiet_ms": 200, "timeout_ms": 20_000}}, replies)
    shown = screen_text((await call(session, "read_screen", {"session_id": sid}, replies))["screen"])
    for _, answer in steps + [tagged(name, tag)]:
        assert answer in shown, f"{name}: {answer!r} not on the screen:\n{shown}"
    await call(session, "send_input", {"session_id": sid, "data": quit_}, replies)
    stopped = await call(session, "stop_session", {"session_id": sid, "await_exit": True}, replies)
    assert set(stopped) >= {"scenario", "result", "evidence_id", "evidence_uri"}, sorted(stopped)
    assert stopped["evidence_uri"] == "rea://evidence/" + stopped["evidence_id"], stopped
    inputs = [e for e in stopped["scenario"]["events"] if e["type"] == "input"]
    assert len(inputs) == len(steps) + 2, stopped["scenario"]["events"]
    assert all("wait_for" in e for e in inputs), inputs
    # The session's capture, kept beside its replay for whoever reads a failure.
    record = (await session.read_resource(stopped["evidence_uri"])).contents[0].text
    (Path(session_workdir) / f"{sid}.capture.json").write_text(record)
    return {"name": name, "tag": tag, "session_id": sid, "stopped": stopped, "screen": shown}


def replay(rea, workdir, index, scenario):
    path = Path(workdir) / f"replay-{index}.scenario.json"
    path.write_text(json.dumps(scenario))
    out = Path(workdir) / f"replay-{index}.capture.json"
    with open(out, "wb") as f:
        # The server's environment: the same programs on PATH.
        env = {"TMPDIR": str(Path(workdir) / "tmp"), "PATH": SERVER_PATH}
        done = subprocess.run([rea, "capture-process", str(path), "--json"], stdout=f, stderr=subprocess.PIPE, cwd=workdir, env=env, timeout=300)
    assert done.returncode == 0, f"replay {index} failed: {done.stderr.decode()[-2000:]}"
    return str(out)


async def mode_explore(session, args):
    global session_workdir
    session_workdir = args.workdir
    replies = []
    tags = [(name, f"TAG{name.upper()}{i}") for i in range(args.rounds) for name in PROGRAMS]
    results = [None] * len(tags)

    async def one(i):
        results[i] = await explore(session, tags[i][0], tags[i][1], replies)

    # At most MAX_SESSIONS at once (the server's bound).
    for start in range(0, len(tags), MAX_SESSIONS):
        async with anyio.create_task_group() as group:
            for i in range(start, min(start + MAX_SESSIONS, len(tags))):
                group.start_soon(one, i)
    # Sessions at once do not mix: no screen shows another session's tag.
    for r in results:
        for other in results:
            if other["tag"] != r["tag"]:
                assert other["tag"] not in r["screen"], f"{r['session_id']} shows {other['tag']}:\n{r['screen']}"
    assert len({r["session_id"] for r in results}) == len(results), "session ids repeat"
    # Replays run beside each other, then each compares with its session's capture.
    with ThreadPoolExecutor(max_workers=4) as pool:
        files = list(pool.map(lambda ir: replay(args.rea, args.workdir, ir[0], ir[1]["stopped"]["scenario"]), enumerate(results)))
    verdicts = []
    for r, path in zip(results, files):
        compared = await call(session, "compare_process_captures", {"left_evidence_id": r["stopped"]["evidence_id"], "right_capture_path": path}, replies)
        dims = {d["dimension"]: d["status"] for d in compared["result"]["dimensions"]}
        wanted = {k: dims.get(k) for k in ("terminal", "interaction", "exit")}
        verdicts.append({"name": r["name"], "session_id": r["session_id"], **wanted})
    unchanged = sum(all(v[k] == "unchanged" for k in ("terminal", "interaction", "exit")) for v in verdicts)
    return {"mode": "explore", "sessions": len(results), "unchanged": unchanged, "verdicts": verdicts}


async def mode_secret(session, args):
    replies = []
    secret = args.secret
    # The program reads the password with the echo off and checks it against
    # its SHA-256 (the text itself is given to no one but send_input), so it
    # must get what was typed.
    digest = hashlib.sha256(secret.encode()).hexdigest()
    check = f"[ \"$(printf %s \"$pw\" | sha256sum)\" = '{digest}  -' ]"
    script = f"printf 'user: '; read u; stty -echo; printf 'password: '; read pw; stty echo; echo; if {check}; then echo welcome; else echo denied; fi; read done"
    scenario = {"executable": "sh", "arguments": ["-c", script], **SESSION_LIMITS}
    started = await call(session, "start_session", {"scenario": scenario}, replies)
    sid = started["session_id"]
    await call(session, "wait_for", {"session_id": sid, "wait_for": {"output_contains": "user: ", "timeout_ms": 20_000}}, replies)
    await call(session, "send_input", {"session_id": sid, "data": "agent\r"}, replies)
    await call(session, "wait_for", {"session_id": sid, "wait_for": {"output_contains": "password: ", "timeout_ms": 20_000}}, replies)
    typed = await call(session, "send_input", {"session_id": sid, "data": secret + "\r", "sensitive": True}, replies)
    assert typed == {"session_id": sid, "bytes": len(secret) + 1}, typed
    waited = await call(session, "wait_for", {"session_id": sid, "wait_for": {"output_contains": "welcome", "timeout_ms": 20_000}}, replies)
    assert waited["satisfied"], f"the program did not read the password: {waited}"
    await call(session, "read_screen", {"session_id": sid}, replies)
    await call(session, "send_input", {"session_id": sid, "data": "\r"}, replies)
    stopped = await call(session, "stop_session", {"session_id": sid, "await_exit": True}, replies)
    marker = f"<redacted-input:{len(secret) + 1}-bytes>"
    events = stopped["scenario"]["events"]
    assert [e.get("sensitive", False) for e in events] == [False, True, False], events
    assert events[1]["data"] == marker, events[1]
    assert stopped["redacted_inputs"] == ["events[1].data"], stopped
    resource = (await session.read_resource(stopped["evidence_uri"])).contents[0].text
    replies.append(resource)
    listed = await session.list_resources()
    replies.append(listed.model_dump_json())
    leaked = [r[:200] for r in replies if secret in r]
    assert not leaked, f"the secret is in {len(leaked)} replies: {leaked}"
    return {"mode": "secret", "replies": len(replies), "marker": marker in resource}


def children(pid):
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def marked(mark):
    needle = f"REA_TEST_MARK={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


async def mode_kill(session, args):
    replies = []
    scenario = {"executable": "python3", "arguments": ["-q"], "environment": {"REA_TEST_MARK": args.mark}, **SESSION_LIMITS}
    started = await call(session, "start_session", {"scenario": scenario}, replies)
    sid = started["session_id"]
    await call(session, "wait_for", {"session_id": sid, "wait_for": {"output_contains": ">>> ", "timeout_ms": 20_000}}, replies)
    await call(session, "send_input", {"session_id": sid, "data": "import subprocess; p = subprocess.Popen(['sleep', '600'])\r"}, replies)
    await call(session, "wait_for", {"session_id": sid, "wait_for": {"output_contains": ">>> ", "timeout_ms": 20_000}}, replies)
    running = marked(args.mark)
    assert len(running) >= 2, f"the session's processes are not running: {running}"
    servers = [p for p in children(os.getpid()) if Path(f"/proc/{p}/cmdline").read_bytes().split(b"\0")[1:2] == [b"mcp"]]
    assert len(servers) == 1, f"not one rea mcp child: {servers}"
    tmp = Path(args.workdir) / "tmp"
    roots = sorted(p.name for p in tmp.iterdir())
    assert roots, "no temporary root while the session runs"
    os.kill(servers[0], signal.SIGKILL)
    killed = time.monotonic()
    left, remaining = running, roots
    while time.monotonic() - killed < 1.0:
        left, remaining = marked(args.mark), sorted(p.name for p in tmp.iterdir())
        if not left and not remaining:
            break
        time.sleep(0.02)
    took_ms = round((time.monotonic() - killed) * 1000)
    assert not left, f"processes of the session remain {took_ms} ms after SIGKILL: {left}"
    assert not remaining, f"temporary roots remain {took_ms} ms after SIGKILL: {remaining}"
    return {"mode": "kill", "processes_before": len(running), "roots_before": roots, "gone_ms": took_ms}


MODES = {"explore": mode_explore, "secret": mode_secret, "kill": mode_kill}


async def main(args):
    tmp = Path(args.workdir) / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {"TMPDIR": str(tmp), "PATH": SERVER_PATH}
    server = StdioServerParameters(command=args.rea, args=["mcp"], env=env, cwd=args.workdir)
    summary = None
    with open(Path(args.workdir) / "server.stderr", "w") as errlog:
        try:
            with anyio.fail_after(600):
                async with stdio_client(server, errlog=errlog) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        summary = await MODES[args.mode](session, args)
        except BaseException:
            # A killed server ends the client's streams abnormally: that is the test.
            if summary is None or args.mode != "kill":
                raise
    print(json.dumps(summary))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True, choices=sorted(MODES))
    parser.add_argument("--rea", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--secret", default="")
    parser.add_argument("--mark", default="")
    anyio.run(main, parser.parse_args())
