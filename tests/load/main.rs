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

/// Every core busy: one busy loop pinned to each core, ended when dropped.
/// Each runs in a session of its own: with the kernel's autogroup
/// scheduling CPU is shared between sessions first, and the captured
/// program runs in a session of its own too, so wherever the program runs
/// it gets about half a core. Each is bounded by `timeout` as well, so a
/// test binary killed before its drop leaves nothing running for long.
struct Load(Vec<Child>);

impl Load {
    fn every_core() -> Load {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let spawn = |core: usize| {
            Command::new("setsid")
                .args(["taskset", "-c", &core.to_string()])
                .args(["timeout", "-s", "KILL", "120", "sh", "-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .spawn()
                .expect("start a busy loop")
        };
        Load((0..cores).map(spawn).collect())
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for child in &mut self.0 {
            // The loop's group is the session `setsid` made: `timeout` and its shell.
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let _ = child.wait();
        }
    }
}

/// A program that computes (CPU time, so load slows it) before its first
/// prompt: little enough that, at half a core, its prompts come less than
/// the default timing tolerance (250 ms) later than on an idle machine.
/// Perl starts in about a millisecond, so the work is nearly all there is.
const SLOW_STARTER: &str = r#"$| = 1;
sub work { my ($u, $s) = times; my $end = $u + $s + $_[0] / 1000; while (1) { ($u, $s) = times; last if $u + $s >= $end } }
work(110); print "name? "; my $n = <STDIN>; chomp $n; print "hello $n\n";
print "age? "; my $a = <STDIN>; chomp $a; print "age $a\n";
"#;

/// Both sides run in `dir` (the working directory is part of the contract).
fn slow_starter(dir: &std::path::Path, events: Value) -> Value {
    json!({
        "executable": "perl",
        "arguments": ["-e", SLOW_STARTER],
        "working_directory": dir,
        "events": events,
        "timeout_ms": 20000
    })
}

/// Compares two captures' documents with the default settings and returns
/// the statuses of the terminal and interaction dimensions.
fn behaviour(left: &Capture, right: &Capture) -> (String, String, Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("left.json"), &left.stdout).expect("write left");
    std::fs::write(dir.path().join("right.json"), &right.stdout).expect("write right");
    let out = rea(dir.path(), &["compare-process-captures", "left.json", "right.json", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("comparison JSON");
    let result = doc["normalized_result"].clone();
    let status = |name: &str| {
        let dims = result["dimensions"].as_array().expect("dimensions");
        let d = dims.iter().find(|d| d["dimension"] == name).unwrap_or_else(|| panic!("no {name} in {result}"));
        d["status"].as_str().expect("status").to_owned()
    };
    (status("terminal"), status("interaction"), result)
}

/// When each event's wait was met, in milliseconds after launch.
fn satisfied(c: &Capture) -> Vec<u64> {
    let events = record(c)["interaction_events"].as_array().expect("interaction_events");
    events.iter().map(|e| e["wait"]["satisfied_at_ms"].as_u64().unwrap_or_else(|| panic!("unmet wait: {e}"))).collect()
}

/// What a scenario author sees on an idle machine and writes as fixed
/// delays: each input this long after its prompt appeared.
const AUTHOR_MARGIN_MS: u64 = 30;

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
    let waits_idle = capture(waits.clone());
    let prompts = satisfied(&waits_idle);
    // The same scenario with fixed delays, written from the idle capture:
    // the first input comes a margin after its prompt, so everything after
    // it a margin later than with waits.
    let fixed = slow_starter(
        wd.path(),
        json!([
            {"type": "input", "at_ms": prompts[0] + AUTHOR_MARGIN_MS, "data": "bob\r"},
            {"type": "input", "at_ms": prompts[1] + 2 * AUTHOR_MARGIN_MS, "data": "42\r"}
        ]),
    );
    let fixed_idle = capture(fixed.clone());
    let (waits_busy, fixed_busy) = {
        let _load = Load::every_core();
        (capture(waits), capture(fixed))
    };
    for c in [&waits_idle, &waits_busy, &fixed_idle] {
        let text = util::frames_text(record(c));
        assert!(text.contains("name? bob\r\nhello bob\r\nage? 42\r\nage 42"), "{text:?}");
    }
    let busy = satisfied(&waits_busy);
    eprintln!("prompts idle {prompts:?} ms, busy {busy:?} ms");
    // Under load the fixed delays typed before a prompt appeared.
    let typed_early = util::frames_text(record(&fixed_busy));
    assert!(
        !typed_early.contains("name? bob\r\nhello bob\r\nage? 42"),
        "the load did not slow the program: {typed_early:?}"
    );

    let (terminal, interaction, result) = behaviour(&waits_idle, &waits_busy);
    assert_eq!((terminal.as_str(), interaction.as_str()), ("unchanged", "unchanged"), "{result}");
    let (terminal, _, result) = behaviour(&fixed_idle, &fixed_busy);
    assert_eq!(terminal, "changed", "{result}");
}
