//! rea's replies to terminal queries never decide the interaction
//! dimension: a program that asks for the cursor position before each
//! prompt (as BusyBox `bc` and `dc` do) against one that does not, with the
//! query normalized away, compares `unchanged`; the replies are listed as
//! information in the comparison and in `rea show`.
#![cfg(not(feature = "force-stub"))]

use std::fs;

use serde_json::{Value, json};

use crate::sandbox::Sandbox;

/// Two prompts; with `ask`, a cursor-position query before each (read in
/// cbreak mode without echo, as line editors do).
const PROGRAM: &str = r#"
import os, sys, termios, tty
ask = sys.argv[1] == "ask"
def query():
    saved = termios.tcgetattr(0)
    tty.setcbreak(0)
    os.write(1, b"\x1b[6n")
    reply = b""
    while not reply.endswith(b"R"):
        reply += os.read(0, 1)
    termios.tcsetattr(0, termios.TCSANOW, saved)
for _ in range(2):
    if ask:
        query()
    os.write(1, b"> ")
    line = sys.stdin.readline().strip()
    os.write(1, ("= %d\r\n" % eval(line)).encode())
"#;

fn scenario(executable: &str, arguments: Value) -> Value {
    json!({
        "executable": executable,
        "arguments": arguments,
        "events": [
            {"type": "input", "wait_for": {"output_contains": "> ", "timeout_ms": 20000}, "data": "1+1\r"},
            {"type": "input", "wait_for": {"output_contains": "> ", "timeout_ms": 20000}, "data": "2*3\r"}
        ],
        "normalization": {"patterns": [{"pattern": "\u{1b}[6n", "replacement": ""}]},
        "timeout_ms": 30000
    })
}

fn capture(sandbox: &Sandbox, scenario: &Value, out: &str) -> Value {
    let file = format!("{out}.scenario.json");
    fs::write(sandbox.work().join(&file), scenario.to_string()).unwrap();
    let output = sandbox.rea(&["capture-process", &file, "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    fs::write(sandbox.work().join(out), &output.stdout).unwrap();
    serde_json::from_slice::<Value>(&output.stdout).unwrap()["normalized_result"].clone()
}

fn compare(sandbox: &Sandbox, left: &str, right: &str, lens: &[&str]) -> Value {
    // Python's start on a loaded machine varies by more than the default
    // tolerance; the times are not what this compares.
    let mut args = vec!["compare-process-captures", left, right, "--json", "--timing-tolerance-ms", "10000"];
    args.extend_from_slice(lens);
    let output = sandbox.rea(&args);
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)));
    document["normalized_result"].clone()
}

fn dimension<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["dimensions"].as_array().unwrap().iter().find(|d| d["dimension"] == name).unwrap()
}

fn replies(record: &Value) -> usize {
    let events = record["interaction_events"].as_array().unwrap();
    events.iter().filter(|e| e["type"] == "terminal_reply").count()
}

/// Terminal, interaction and exit `unchanged`; the replies listed, not deciding.
fn assert_same_behaviour(result: &Value, replies_listed: bool) {
    for name in ["terminal", "interaction", "exit"] {
        assert_eq!(dimension(result, name)["status"], "unchanged", "{name}: {result:#}");
    }
    let listed = dimension(result, "interaction")["differences"].as_array().unwrap().clone();
    assert_eq!(!listed.is_empty(), replies_listed, "{result:#}");
    for d in &listed {
        assert!(d["path"].as_str().unwrap().starts_with("terminal_replies["), "{d}");
        assert_eq!(d["deciding"], false, "{d}");
    }
}

#[test]
fn a_program_that_asks_for_the_cursor_before_each_prompt_behaves_as_one_that_does_not() {
    let sandbox = Sandbox::new();
    fs::write(sandbox.work().join("calc.py"), PROGRAM).unwrap();
    let asks = capture(&sandbox, &scenario("python3", json!(["calc.py", "ask"])), "asks.json");
    let silent = capture(&sandbox, &scenario("python3", json!(["calc.py", "silent"])), "silent.json");
    assert_eq!((replies(&asks), replies(&silent)), (2, 0), "{}", asks["interaction_events"]);
    let text = crate::util::frames_text(&asks);
    assert!(text.contains("= 2") && text.contains("= 6"), "{text:?}");
    for (l, r) in [("asks.json", "silent.json"), ("silent.json", "asks.json")] {
        assert_same_behaviour(&compare(&sandbox, l, r, &[]), true);
        assert_same_behaviour(&compare(&sandbox, l, r, &["--terminal-lens", "screen"]), true);
    }
    // The view says what the replies are.
    let shown = sandbox.rea(&["compare-process-captures", "asks.json", "silent.json"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("terminal_replies[0]"), "{shown}");
    let view = sandbox.rea(&["show", "asks.json"]);
    let view = String::from_utf8_lossy(&view.stdout);
    assert!(view.contains("rea's reply to cursor_position, information only"), "{view}");
}

#[test]
fn busybox_bc_against_gnu_bc_compares_unchanged_with_its_query_normalized_away() {
    let have = |p: &str| std::process::Command::new("sh").args(["-c", p]).output().is_ok_and(|o| o.status.success());
    if !have("command -v bc && busybox bc -h 2>&1 | grep -q bc") {
        eprintln!("skipped: GNU bc or BusyBox bc is not installed (ci/setup.sh installs both)");
        return;
    }
    let sandbox = Sandbox::new();
    let scenario = |executable: &str, arguments: Value| {
        let mut s = scenario(executable, arguments);
        s["events"] = json!([
            {"type": "input", "wait_for": {"quiet_ms": 300, "timeout_ms": 20000}, "data": "1+1\r"},
            {"type": "input", "wait_for": {"output_contains": "2\r\n", "timeout_ms": 20000}, "data": "quit\r"}
        ]);
        s
    };
    let busybox = capture(&sandbox, &scenario("busybox", json!(["bc", "-q"])), "busybox.json");
    let gnu = capture(&sandbox, &scenario("bc", json!(["-q"])), "gnu.json");
    let result = compare(&sandbox, "busybox.json", "gnu.json", &[]);
    assert_eq!(dimension(&result, "interaction")["status"], "unchanged", "{result:#}");
    let listed = dimension(&result, "interaction")["differences"].as_array().unwrap().clone();
    assert!(listed.iter().all(|d| d["deciding"] == false), "{result:#}");
    assert!(replies(&busybox) >= replies(&gnu), "{}", busybox["interaction_events"]);
}
