//! `rea mcp`'s live sessions end to end: tests/mcp/session_client.py, on the
//! official Python MCP SDK, explores real programs as an agent would, and the
//! scenarios it gets back are replayed with `rea capture-process`.

#![cfg(not(feature = "force-stub"))]

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::rea_bin;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs session_client.py in `mode` with `extra` arguments in `work`, and
/// returns its summary.
fn drive(mode: &str, work: &Path, extra: &[&str]) -> Option<Value> {
    let python = crate::mcp::python()?;
    let out = Command::new(python)
        .arg(repo().join("tests/mcp/session_client.py"))
        .args(["--mode", mode, "--rea"])
        .arg(rea_bin())
        .arg("--workdir")
        .arg(work)
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let server = std::fs::read_to_string(work.join("server.stderr")).unwrap_or_default();
    assert!(out.status.success(), "the session client failed:\n{stderr}\n{stdout}\nrea mcp stderr:\n{server}");
    let last = stdout.lines().last().unwrap_or_default();
    Some(serde_json::from_str(last).unwrap_or_else(|e| panic!("no summary ({e}): {stdout}\n{stderr}")))
}

/// Five sessions of `python3 -q` and five of `bc`, at once in one server
/// (they do not mix), each explored and stopped; each returned scenario,
/// replayed with `rea capture-process`, compares unchanged in terminal,
/// interaction and exit with its session's capture: 10 of 10.
#[test]
fn agents_explore_python_and_bc_and_every_returned_scenario_replays_unchanged() {
    let work = tempfile::tempdir().unwrap();
    let Some(summary) = drive("explore", work.path(), &["--rounds", "5"]) else { return };
    assert_eq!(summary["sessions"], 10, "{summary}");
    assert_eq!(summary["unchanged"], 10, "replays that compared unchanged: {summary}");
}

/// A password typed as a sensitive input at a prompt with the echo off is in
/// no reply (checked by the client), no file and not on the server's stderr.
#[test]
fn a_sensitive_session_input_is_in_no_reply_file_or_log() {
    const SECRET: &str = "Live-s3cret-W4";
    let work = tempfile::tempdir().unwrap();
    let Some(summary) = drive("secret", work.path(), &["--secret", SECRET]) else { return };
    assert_eq!(summary["marker"], true, "{summary}");
    for (name, bytes) in crate::util::files(work.path()) {
        assert!(!bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()), "the secret is in {name}");
    }
}

/// The server killed with SIGKILL mid-session: within 1 s no process of the
/// session and no temporary root remain (the client measures; checked again
/// here).
#[test]
fn a_server_killed_mid_session_leaves_no_process_and_no_temporary_root() {
    let mark = format!("live-kill-{}-{}", std::process::id(), line!());
    let work = tempfile::tempdir().unwrap();
    let Some(summary) = drive("kill", work.path(), &["--mark", &mark]) else { return };
    assert!(summary["gone_ms"].as_u64().unwrap() <= 1000, "{summary}");
    assert!(crate::mcp::marked_processes(&mark).is_empty(), "{summary}");
    let roots: Vec<_> = std::fs::read_dir(work.path().join("tmp")).unwrap().collect();
    assert!(roots.is_empty(), "temporary roots remain: {roots:?}");
}

/// Closing stdin ends the server: its running sessions are stopped, nothing
/// they started remains, and rea exits 0.
#[test]
fn server_end_stops_running_sessions_and_leaves_no_process() {
    use serde_json::json;
    use std::time::Duration;
    let mark = format!("live-end-{}-{}", std::process::id(), line!());
    let work = tempfile::tempdir().unwrap();
    let (mut server, _) = crate::mcp::Server::start(Some(work.path()));
    for id in [2, 3] {
        let scenario = json!({"executable": "sh", "arguments": ["-c", "sleep 600 & sleep 600; wait"],
            "environment": {"REA_TEST_MARK": mark}, "timeout_ms": 600_000, "idle_timeout_ms": 600_000});
        let started =
            server.call(id, "tools/call", json!({"name": "start_session", "arguments": {"scenario": scenario}}));
        assert_eq!(started["result"]["isError"], false, "{started}");
    }
    assert!(
        crate::util::wait_for(Duration::from_secs(30), || crate::mcp::marked_processes(&mark).len() >= 4),
        "the sessions' processes never ran"
    );
    server.close_and_await_success();
    let left = crate::mcp::marked_processes(&mark);
    assert!(left.is_empty(), "processes of the sessions remain: {left:?}");
    let roots: Vec<_> = std::fs::read_dir(work.path().join("tmp")).unwrap().collect();
    assert!(roots.is_empty(), "temporary roots remain: {roots:?}");
}
