//! Tests that load the whole machine, in a test binary of their own: cargo
//! runs test binaries one after another, so the load slows no other test.
#![cfg(not(feature = "force-stub"))]

#[path = "../integration/util.rs"]
#[allow(dead_code, reason = "shared helpers; this binary uses a few")]
mod util;

use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use util::{Capture, capture, rea};

fn record(c: &Capture) -> &Value {
    assert_eq!(c.status, 0, "{}", c.stderr);
    &c.document["normalized_result"]
}

/// Busy loops on every core (and more), ended when dropped.
struct Load(Vec<Child>);

impl Load {
    fn start(n: usize) -> Load {
        let spawn = || {
            // Each in a session of its own: with the kernel's autogroup
            // scheduling, CPU is shared between sessions first, and the
            // captured program runs in a session of its own too.
            Command::new("setsid")
                .args(["sh", "-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .spawn()
                .expect("start a busy loop")
        };
        Load((0..n).map(|_| spawn()).collect())
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A program that computes (CPU time, so load slows it) before each prompt.
const SLOW_STARTER: &str = "import sys, time\n\
def work(ms):\n    end = time.process_time() + ms / 1000\n    while time.process_time() < end:\n        pass\n\
work(300)\nsys.stdout.write('name? '); sys.stdout.flush()\nn = sys.stdin.readline().strip()\nprint('hello ' + n)\n\
work(100)\nsys.stdout.write('age? '); sys.stdout.flush()\na = sys.stdin.readline().strip()\nprint('age ' + a)\n";

/// Both sides run in `dir` (the working directory is part of the contract).
fn slow_starter(dir: &std::path::Path, events: Value) -> Value {
    json!({
        "executable": "python3",
        "arguments": ["-c", SLOW_STARTER],
        "working_directory": dir,
        "events": events,
        "timeout_ms": 20000
    })
}

/// Compares two captures' documents with a wide timing tolerance (load
/// moves timings; the question here is behaviour) and returns the
/// statuses of the terminal and interaction dimensions.
fn behaviour(left: &Capture, right: &Capture) -> (String, String, Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("left.json"), &left.stdout).expect("write left");
    std::fs::write(dir.path().join("right.json"), &right.stdout).expect("write right");
    let args = ["compare-process-captures", "left.json", "right.json", "--json", "--timing-tolerance-ms", "10000"];
    let out = rea(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("comparison JSON");
    let result = doc["normalized_result"].clone();
    let status = |name: &str| {
        let dims = result["dimensions"].as_array().expect("dimensions");
        let d = dims.iter().find(|d| d["dimension"] == name).unwrap_or_else(|| panic!("no {name} in {result}"));
        d["status"].as_str().unwrap_or_default().to_owned()
    };
    (status("terminal"), status("interaction"), result)
}

#[test]
fn waits_compare_unchanged_between_an_idle_and_a_busy_machine_where_fixed_delays_do_not() {
    let wd = tempfile::tempdir().expect("temp dir");
    let waits = slow_starter(
        wd.path(),
        json!([
            {"type": "input", "wait_for": {"screen_contains": "name?"}, "data": "bob\r"},
            {"type": "input", "wait_for": {"output_contains": "age? "}, "data": "42\r"}
        ]),
    );
    // Written on an idle machine: the prompts come within 1200 and 2000 ms.
    let fixed = slow_starter(
        wd.path(),
        json!([
            {"type": "input", "at_ms": 1200, "data": "bob\r"},
            {"type": "input", "at_ms": 2000, "data": "42\r"}
        ]),
    );
    let (waits_idle, fixed_idle) = (capture(waits.clone()), capture(fixed.clone()));
    let (waits_busy, fixed_busy) = {
        let _load = Load::start(16);
        (capture(waits), capture(fixed))
    };
    for c in [&waits_idle, &waits_busy, &fixed_idle] {
        let text = util::frames_text(record(c));
        assert!(text.contains("name? bob\r\nhello bob"), "{text:?}");
    }
    // Under load the fixed delay typed before the prompt appeared.
    let typed_early = util::frames_text(record(&fixed_busy));
    assert!(!typed_early.contains("name? bob\r\nhello bob"), "the load did not slow the program: {typed_early:?}");

    let (terminal, interaction, result) = behaviour(&waits_idle, &waits_busy);
    assert_eq!((terminal.as_str(), interaction.as_str()), ("unchanged", "unchanged"), "{result}");
    let (terminal, _, result) = behaviour(&fixed_idle, &fixed_busy);
    assert_eq!(terminal, "changed", "{result}");
}
