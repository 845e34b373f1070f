//! `rea mcp` end to end: the real binary driven by a real MCP client, the
//! official Python SDK (tests/mcp/client.py, installed by ci/setup-mcp.sh),
//! plus a raw JSON-RPC exchange that needs no Python.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::util::rea_bin;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The venv's python with the `mcp` package: `$REA_MCP_PYTHON`, by default
/// `target/mcp-venv/bin/python`. Missing means skipped locally, failed in CI.
pub(crate) fn python() -> Option<PathBuf> {
    let path = std::env::var_os("REA_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/mcp-venv/bin/python"));
    let usable = Command::new(&path)
        .args(["-c", "import mcp"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if usable {
        return Some(path);
    }
    let why = format!("python MCP SDK not installed at {} (run ci/setup-mcp.sh)", path.display());
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("skipped: {why}");
    None
}

/// Runs tests/mcp/client.py against the built `rea mcp` and returns its summary.
fn drive(mode: &str) -> Option<Value> {
    let python = python()?;
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(python)
        .arg(repo().join("tests/mcp/client.py"))
        .args(["--mode", mode, "--rea"])
        .arg(rea_bin())
        .arg("--workdir")
        .arg(work.path())
        .arg("--schema")
        .arg(repo().join("docs/scenario.schema.json"))
        .arg("--fixtures")
        .arg(repo().join("tests/fixtures/captures"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the MCP client failed:\n{stderr}\n{stdout}");
    let last = stdout.lines().last().unwrap_or_default();
    Some(serde_json::from_str(last).unwrap_or_else(|e| panic!("no summary ({e}): {stdout}\n{stderr}")))
}

#[cfg(not(feature = "force-stub"))]
#[test]
fn python_sdk_captures_reads_compares_cancels_and_is_refused_while_cleanup_is_pending() {
    let Some(summary) = drive("full") else { return };
    let checks: Vec<&str> = summary["checks"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(
        checks,
        [
            "initialize",
            "tools",
            "capture",
            "compare_ids_and_files",
            "compare_files",
            "export_and_toon",
            "invalid_scenario",
            "cancel",
            "compare_files",
            "cleanup_refusal"
        ]
    );
    assert!(summary["progress_updates"].as_u64().unwrap() >= 2, "{summary}");
    assert!(summary["cancelled_processes"].as_u64().unwrap() >= 2, "{summary}");
}

#[cfg(feature = "force-stub")]
#[test]
fn python_sdk_on_the_stub_build_compares_and_is_refused_capture() {
    let Some(summary) = drive("stub") else { return };
    assert_eq!(
        summary["checks"],
        json!(["initialize", "tools", "stub_capture_refused", "compare_files", "export_and_toon"])
    );
}

/// `rea mcp` on pipes, initialized, with every stdout line it wrote kept.
pub(crate) struct Server {
    pub(crate) child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: BufReader<std::process::ChildStdout>,
    wire: Vec<u8>,
}

impl Server {
    /// Starts `rea mcp` (in `dir`, with `dir/tmp` as TMPDIR, when given),
    /// initializes the session and returns the initialize response.
    pub(crate) fn start(dir: Option<&Path>) -> (Server, Value) {
        let mut command = Command::new(rea_bin());
        command.arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(dir) = dir {
            let tmp = dir.join("tmp");
            std::fs::create_dir_all(&tmp).unwrap();
            command.current_dir(dir).env("TMPDIR", tmp);
        }
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server { child, stdin, stdout, wire: Vec::new() };
        let init = server.call(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "rea-test", "version": "0"}}),
        );
        server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        (server, init)
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin.as_mut().expect("stdin is open"), "{message}").unwrap();
    }

    /// Sends a request without waiting for its response.
    fn request(&mut self, id: u64, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }

    /// Sends a request and reads until its response.
    pub(crate) fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.request(id, method, params);
        self.response(id)
    }

    /// Reads JSON-RPC lines until the response with `id`.
    fn response(&mut self, id: u64) -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "rea mcp closed stdout before answering {id}");
            self.wire.extend_from_slice(line.as_bytes());
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Closes stdin, which ends the session.
    pub(crate) fn close(&mut self) {
        self.stdin = None;
    }

    /// Closes stdin and waits (60 s at most) for the server to exit with
    /// status 0; a server still running then is killed and the test fails.
    #[cfg(not(feature = "force-stub"))]
    pub(crate) fn close_and_await_success(&mut self) {
        self.close();
        let child = &mut self.child;
        let exited = crate::util::wait_for(std::time::Duration::from_secs(60), || child.try_wait().unwrap().is_some());
        if !exited {
            let _ = child.kill();
        }
        assert!(exited, "rea mcp did not exit after stdin closed");
        assert!(child.wait().unwrap().success());
    }
}

#[test]
fn raw_json_rpc_initialize_and_tool_schemas() {
    let (mut server, init) = Server::start(None);
    assert_eq!(init["result"]["serverInfo"]["name"], "rea", "{init}");
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    let tools = server.call(2, "tools/list", json!({}))["result"]["tools"].clone();
    let published: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("docs/scenario.schema.json")).unwrap()).unwrap();
    assert_eq!(tools[0]["name"], "capture_process_scenario");
    assert_eq!(tools[0]["inputSchema"], published);
    assert_eq!(tools[0]["annotations"]["readOnlyHint"], false);
    assert_eq!(tools[1]["name"], "compare_process_captures");
    assert_eq!(tools[1]["annotations"]["readOnlyHint"], true);
    assert_eq!(tools[2]["name"], "export_asciicast");
    assert_eq!(tools[2]["annotations"]["readOnlyHint"], true);
    assert_eq!(tools[3]["name"], "run_suite");
    assert_eq!(tools[3]["annotations"]["readOnlyHint"], false);
    let live: Vec<(&str, bool)> = tools.as_array().unwrap()[4..]
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["annotations"]["readOnlyHint"] == true))
        .collect();
    assert_eq!(
        live,
        [
            ("start_session", false),
            ("send_input", false),
            ("resize", false),
            ("wait_for", true),
            ("read_screen", true),
            ("stop_session", false)
        ]
    );
    assert_eq!(tools[4]["inputSchema"]["properties"]["scenario"]["$ref"], "#/$defs/Scenario");
    let unknown =
        server.call(4, "tools/call", json!({"name": "read_screen", "arguments": {"session_id": "session-7"}}));
    assert_eq!(unknown["result"]["isError"], true, "{unknown}");
    assert_eq!(unknown["result"]["structuredContent"]["code"], "unknown_session", "{unknown}");
    // An unknown resource is a protocol error naming the URI.
    let missing = server.call(3, "resources/read", json!({"uri": "rea://evidence/ev_x"}));
    assert!(missing["error"]["message"].as_str().unwrap().contains("rea://evidence/ev_x"), "{missing}");
    // Closing stdin ends the session cleanly.
    server.close();
    let status = server.child.wait().unwrap();
    assert!(status.success(), "rea mcp exited with {status}");
}

/// PIDs whose environment carries `REA_TEST_MARK=<mark>`.
#[cfg(not(feature = "force-stub"))]
pub(crate) fn marked_processes(mark: &str) -> Vec<u32> {
    let needle = format!("REA_TEST_MARK={mark}");
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|var| var == needle.as_bytes()))
        })
        .collect()
}

/// Closing stdin ends the session: the running capture is cancelled through
/// the engine's cleanup path, its processes are gone, and rea exits 0.
#[cfg(not(feature = "force-stub"))]
#[test]
fn session_end_cancels_a_running_capture_and_leaves_no_process() {
    use std::time::Duration;
    let mark = format!("session-end-{}-{}", std::process::id(), line!());
    let work = tempfile::tempdir().unwrap();
    let (mut server, _) = Server::start(Some(work.path()));
    let scenario = json!({"executable": "sh", "arguments": ["-c", "sleep 600 & sleep 600; wait"],
        "environment": {"REA_TEST_MARK": mark}, "timeout_ms": 600_000});
    server.request(
        2,
        "tools/call",
        json!({"name": "capture_process_scenario", "arguments": scenario, "_meta": {"progressToken": "p"}}),
    );
    assert!(
        crate::util::wait_for(Duration::from_secs(30), || marked_processes(&mark).len() >= 2),
        "the capture's processes never ran"
    );
    server.close_and_await_success();
    let left = marked_processes(&mark);
    assert!(left.is_empty(), "processes of the cancelled capture remain: {left:?}");
    // The call was answered before exit: cancelled by session end, cleanup verified.
    let answer = server.response(2);
    let doc = &answer["result"]["structuredContent"];
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(doc["code"], "cancelled", "{doc}");
    assert_eq!(doc["details"]["signal"], "the end of the MCP session", "{doc}");
    assert_eq!(doc["details"]["cleanup"], "complete", "{doc}");
}

/// A sensitive input echoed by the terminal and printed back by the program
/// is in no byte `rea mcp` writes: the tool result, progress notifications,
/// the resource list and resource, a comparison, an error, stderr.
#[cfg(not(feature = "force-stub"))]
#[test]
fn a_secret_is_in_no_byte_the_mcp_server_writes() {
    use std::io::Read;
    const SECRET: &str = "Mcp-s3cret-Q7";
    let work = tempfile::tempdir().unwrap();
    let (mut server, _) = Server::start(Some(work.path()));
    let scenario = json!({
        "executable": "sh",
        "arguments": ["-c", "printf 'pw? '; read pw; echo \"got $pw\""],
        // Over MCP too, the input waits for its prompt, and stays redacted.
        "events": [{"type": "input", "wait_for": {"output_contains": "pw? "}, "data": format!("{SECRET}\r"), "sensitive": true}],
        "timeout_ms": 15_000,
    });
    let captured = server.call(
        2,
        "tools/call",
        json!({"name": "capture_process_scenario", "arguments": scenario, "_meta": {"progressToken": "p"}}),
    );
    let result = &captured["result"]["structuredContent"];
    assert_eq!(captured["result"]["isError"], false, "{captured}");
    let (id, uri) = (result["evidence_id"].clone(), result["evidence_uri"].clone());
    let listed = server.call(3, "resources/list", json!({}));
    assert!(listed.to_string().contains(uri.as_str().unwrap()), "{listed}");
    let read = server.call(4, "resources/read", json!({"uri": uri}));
    let marker = format!("<redacted-input:{}-bytes>", SECRET.len() + 1);
    let text = read["result"]["contents"][0]["text"].as_str().expect("the resource's text");
    assert!(text.contains(&format!("got {marker}")), "the program's echo is shown as the marker: {text}");
    let stored: Value = serde_json::from_str(text).expect("the resource is JSON");
    let wait = &stored["normalized_result"]["interaction_events"][0]["wait"];
    assert_eq!(
        *wait,
        json!({"condition": {"output_contains": "pw? "}, "satisfied_at_ms": wait["satisfied_at_ms"], "outcome": "satisfied"})
    );
    let compared = server.call(
        5,
        "tools/call",
        json!({"name": "compare_process_captures", "arguments": {"left_evidence_id": id, "right_evidence_id": id}}),
    );
    assert_eq!(compared["result"]["isError"], false, "{compared}");
    // The lens is an argument, recorded in the stored comparison's parameters.
    let screen = json!({"left_evidence_id": id, "right_evidence_id": id, "terminal_lens": "screen"});
    let screen = server.call(7, "tools/call", json!({"name": "compare_process_captures", "arguments": screen}));
    assert_eq!(screen["result"]["isError"], false, "{screen}");
    let terminal = &screen["result"]["structuredContent"]["result"]["dimensions"][0];
    assert_eq!((&terminal["dimension"], &terminal["status"]), (&json!("terminal"), &json!("unchanged")), "{screen}");
    let mut stored = |result: &Value, id: u64| {
        let uri = result["result"]["structuredContent"]["evidence_uri"].clone();
        let read = server.call(id, "resources/read", json!({"uri": uri}));
        read["result"]["contents"][0]["text"].as_str().expect("the resource's text").to_owned()
    };
    assert!(stored(&screen, 8).contains(r#""terminal_lens": "screen""#));
    assert!(!stored(&compared, 9).contains("terminal_lens"), "the default is not written");
    // An invalid scenario holding the secret: the error names the path, not the text.
    let invalid = json!({"executable": "sh", "timeout_ms": 0,
        "events": [{"type": "input", "at_ms": 0, "data": format!("{SECRET}\r"), "sensitive": true}]});
    let refused = server.call(6, "tools/call", json!({"name": "capture_process_scenario", "arguments": invalid}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    server.close();
    assert!(server.child.wait().unwrap().success());
    server.stdout.read_to_end(&mut server.wire).unwrap();
    let mut stderr = Vec::new();
    server.child.stderr.take().unwrap().read_to_end(&mut stderr).unwrap();
    let wire = String::from_utf8(server.wire).unwrap();
    assert!(wire.contains("notifications/progress"), "progress was sent");
    assert!(!wire.contains(SECRET), "the secret is on the MCP wire");
    assert!(!String::from_utf8_lossy(&stderr).contains(SECRET), "the secret is on stderr");
    for (name, bytes) in crate::util::files(work.path()) {
        assert!(!bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()), "the secret is in {name}");
    }
}

/// A capture path that is a FIFO (no writer) or a kernel file is refused at
/// once over MCP, naming the path, and the server keeps serving (Linux
/// backend; see `special_inputs` for why the stub build is left out).
#[cfg(not(feature = "force-stub"))]
#[test]
fn capture_paths_that_are_not_regular_files_are_refused_at_once() {
    let work = tempfile::tempdir().unwrap();
    let fifo = crate::special_inputs::make_fifo(work.path(), "capture.json");
    let (mut server, _) = Server::start(Some(work.path()));
    let pid = server.child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    let fifo_text = fifo.display().to_string();
    let calls = std::thread::spawn(move || {
        let mut answers = Vec::new();
        for (id, left) in [(2, fifo_text.as_str()), (3, "/proc/self/status")] {
            let arguments = json!({"left_capture_path": left, "right_capture_path": left});
            answers.push((
                left.to_owned(),
                server.call(id, "tools/call", json!({"name": "compare_process_captures", "arguments": arguments})),
            ));
        }
        let listed = server.call(4, "tools/list", json!({}));
        server.close();
        let status = server.child.wait().unwrap();
        tx.send((answers, listed, status)).unwrap();
    });
    let Ok((answers, listed, status)) = rx.recv_timeout(std::time::Duration::from_secs(30)) else {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        panic!("rea mcp did not answer within 30 s: it blocked on a capture path");
    };
    calls.join().unwrap();
    for (path, answer) in answers {
        let doc = &answer["result"]["structuredContent"];
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        assert_eq!(doc["code"], "input_not_regular_file", "{doc}");
        assert!(doc["message"].as_str().unwrap().contains(&format!("{path} is not a regular file")), "{doc}");
    }
    assert_eq!(listed["result"]["tools"].as_array().map(Vec::len), Some(10), "{listed}");
    assert!(status.success(), "rea mcp exited with {status}");
}

/// One line sent to `rea mcp` and the reply it must get: one with `id`, one
/// with `id: null`, or none (a notification, a blank line).
enum Expect {
    Id(Value),
    Null,
    Nothing,
}

/// 500 requests, malformed, odd and valid mixed, as raw lines.
fn odd_lines() -> Vec<(Vec<u8>, Expect)> {
    let mut lines: Vec<(Vec<u8>, Expect)> = Vec::new();
    for i in 0..500u64 {
        let id = 1000 + i;
        let (line, expect): (String, Expect) = match i % 25 {
            0 => (json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string(), Expect::Id(json!(id))),
            1 => (json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}).to_string(), Expect::Id(json!(id))),
            2 => (json!({"jsonrpc": "2.0", "id": id, "method": "no/such/method"}).to_string(), Expect::Id(json!(id))),
            3 => (json!({"jsonrpc": "1.0", "id": id, "method": "ping"}).to_string(), Expect::Id(json!(id))),
            4 => (json!({"jsonrpc": "2.0", "id": format!("s-{id}"), "method": "ping"}).to_string(), Expect::Id(json!(format!("s-{id}")))),
            5 => (format!("{{garbage {id}"), Expect::Null),
            6 => (format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\""), Expect::Null),
            7 => (id.to_string(), Expect::Null),
            8 => (json!({"jsonrpc": "2.0", "id": id}).to_string(), Expect::Id(json!(id))),
            9 => (
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}}).to_string(),
                Expect::Id(json!(id)),
            ),
            10 => (
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "compare_process_captures", "arguments": {"left_capture_path": 5}}}).to_string(),
                Expect::Id(json!(id)),
            ),
            11 => (json!({"jsonrpc": "2.0", "id": {"n": id}, "method": "ping"}).to_string(), Expect::Null),
            12 => (json!([{"jsonrpc": "2.0", "id": id, "method": "ping"}]).to_string(), Expect::Id(json!(id))),
            13 => (json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"n": id}}).to_string(), Expect::Nothing),
            14 => (
                json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": "rea://evidence/ev_none"}}).to_string(),
                Expect::Id(json!(id)),
            ),
            15 => (json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": 5}).to_string(), Expect::Id(json!(id))),
            16 => (format!("{{\"jsonrpc\":\"2.0\",\"id\":{id}.5,\"method\":\"ping\"}}"), Expect::Id(json!(id as f64 + 0.5))),
            17 => (json!({"jsonrpc": "2.0", "id": -(id as i64), "method": "ping"}).to_string(), Expect::Id(json!(-(id as i64)))),
            18 => ("   ".to_owned(), Expect::Nothing),
            19 => (json!({"jsonrpc": "2.0", "id": null, "method": "ping"}).to_string(), Expect::Null),
            20 => (json!({"jsonrpc": "2.0", "id": id, "method": 7}).to_string(), Expect::Id(json!(id))),
            21 => (json!({"jsonrpc": "2.0", "id": id, "method": "resources/list"}).to_string(), Expect::Id(json!(id))),
            22 => (json!(["not a message"]).to_string(), Expect::Null),
            23 => (json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"arguments": {}}}).to_string(), Expect::Id(json!(id))),
            _ => {
                // Not UTF-8 at all.
                lines.push((vec![0xff, 0xfe, b'{', 0x80, b'}'], Expect::Null));
                continue;
            }
        };
        lines.push((line.into_bytes(), expect));
    }
    lines
}

/// Every request line gets exactly one reply carrying its id (or `null` when
/// it has none or the line is not JSON), a line of 16 MiB or more included,
/// and the server goes on serving.
#[test]
fn every_request_line_gets_exactly_one_reply_with_its_id() {
    let (mut server, _) = Server::start(None);
    let mut lines = odd_lines();
    // Two lines over the 16 MiB limit, one with its id first, one without.
    let pad = "x".repeat(16 * 1024 * 1024);
    let big = format!("{{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"ping\",\"params\":{{\"pad\":\"{pad}\"}}}}");
    lines.insert(100, (big.into_bytes(), Expect::Id(json!("big"))));
    lines.insert(300, (format!("{{\"params\":{{\"pad\":\"{pad}\"}},\"id\":1}}").into_bytes(), Expect::Null));
    let mut stdin = server.stdin.take().unwrap();
    let sent: Vec<Vec<u8>> = lines.iter().map(|(line, _)| line.clone()).collect();
    // The writer runs beside the reader: replies must be read while requests go out.
    let writer = std::thread::spawn(move || {
        for line in sent {
            stdin.write_all(&line).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
    });
    let pid = server.child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut replies = Vec::new();
        let mut line = String::new();
        while server.stdout.read_line(&mut line).unwrap() > 0 {
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            replies.extend(match message {
                Value::Array(items) => items,
                one => vec![one],
            });
            line.clear();
        }
        tx.send((replies, server.child.wait().unwrap())).unwrap();
    });
    writer.join().unwrap();
    let Ok((replies, status)) = rx.recv_timeout(std::time::Duration::from_secs(120)) else {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        panic!("rea mcp did not answer every line and exit within 120 s");
    };
    reader.join().unwrap();
    assert!(status.success(), "rea mcp exited with {status}");
    let replies: Vec<&Value> = replies.iter().filter(|r| r.get("id").is_some()).collect();
    for (line, expect) in &lines {
        let Expect::Id(id) = expect else { continue };
        let matching = replies.iter().filter(|r| r["id"] == *id).count();
        assert_eq!(
            matching,
            1,
            "{matching} replies for id {id} ({})",
            String::from_utf8_lossy(&line[..line.len().min(120)])
        );
    }
    let nulls = replies.iter().filter(|r| r["id"].is_null()).count();
    let expected_nulls = lines.iter().filter(|(_, e)| matches!(e, Expect::Null)).count();
    assert_eq!(nulls, expected_nulls, "replies with id null");
    let ids = lines.iter().filter(|(_, e)| matches!(e, Expect::Id(_))).count();
    assert_eq!(replies.len(), ids + expected_nulls, "one reply per request line, no more");
    assert!(replies.iter().filter(|r| r["id"].is_null()).all(|r| r["error"]["code"].is_i64()));
}

/// An id is echoed as its own text: an integer beyond 64 bits, an integer
/// in float form, and the same in a request the transport refuses itself.
#[test]
fn json_rpc_ids_are_echoed_exactly_as_sent() {
    let (mut server, _) = Server::start(None);
    let big = "1000000000000000000000000000000";
    let lines = [
        format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"ping"}}"#),
        r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1e2,"method":"tools/list"}"#.to_owned(),
        format!(r#"{{"jsonrpc":"2.0","id":-{big}7,"method":7}}"#),
        r#"{"jsonrpc":"2.0","id":42,"method":"ping"}"#.to_owned(),
    ];
    let stdin = server.stdin.as_mut().unwrap();
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
    }
    let mut replies = Vec::new();
    let mut line = String::new();
    while replies.len() < lines.len() {
        line.clear();
        assert!(server.stdout.read_line(&mut line).unwrap() > 0, "rea mcp closed stdout; replies so far: {replies:?}");
        replies.push(line.trim_end().to_owned());
    }
    let has = |id: &str| {
        replies.iter().filter(|r| r.contains(&format!("\"id\":{id},")) || r.contains(&format!("\"id\":{id}}}"))).count()
    };
    for id in [big, "1.0", "1e2", &format!("-{big}7"), "42"] {
        assert_eq!(has(id), 1, "one reply with id {id} as sent: {replies:#?}");
    }
    let reply = |id: &str| -> Value {
        let text = replies.iter().find(|r| r.contains(&format!("\"id\":{id}"))).unwrap();
        serde_json::from_str(text).unwrap()
    };
    assert_eq!(reply(big)["result"], json!({}), "the request was served: {replies:#?}");
    assert!(reply("1e2")["result"]["tools"].is_array(), "{replies:#?}");
    assert_eq!(reply(&format!("-{big}7"))["error"]["code"], -32600, "{replies:#?}");
    assert!(!replies.iter().any(|r| r.contains("rea-mcp-id")), "no stand-in leaks: {replies:#?}");
    server.close();
    assert!(server.child.wait().unwrap().success());
}
