//! Waiting on output (`wait_for`): events dispatched when the program shows
//! what they wait for, on real programs through the real binary.

use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::util::{Capture, capture, rea};

fn record(c: &Capture) -> &Value {
    assert_eq!(c.status, 0, "{}", c.stderr);
    &c.document["normalized_result"]
}

fn events(r: &Value) -> &Vec<Value> {
    r["interaction_events"].as_array().expect("interaction_events")
}

fn ms(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number of milliseconds: {v}"))
}

/// The rendered frame an event saw, as text.
fn screen_seen(r: &Value, event: &Value) -> String {
    let n = ms(&event["screen_before"]) as usize;
    let lines = r["rendered_frames"][n]["lines"].as_array().expect("lines");
    lines.iter().map(|l| l.as_str().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// A delay in 200..=600 ms that differs from run to run.
fn random_delay_ms() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    200 + u64::from(nanos % 401)
}

#[test]
fn a_prompt_that_appears_after_a_random_delay_is_answered_as_soon_as_it_appears() {
    let delay = random_delay_ms();
    // The program measures how long its prompt waited for an answer.
    let program = format!(
        "import sys, time\ntime.sleep({delay} / 1000)\nsys.stdout.write('ready> ')\nsys.stdout.flush()\n\
         shown = time.monotonic()\nline = sys.stdin.readline().strip()\n\
         print('got %s after %d ms' % (line, (time.monotonic() - shown) * 1000))\n"
    );
    let c = capture(json!({
        "executable": "python3",
        "arguments": ["-c", program],
        "events": [{"type": "input", "wait_for": {"screen_contains": "ready>", "timeout_ms": 8000}, "data": "yes\r"}],
        "timeout_ms": 10000
    }));
    let r = record(&c);
    let e = &events(r)[0];
    assert_eq!((e["outcome"].as_str(), e["wait"]["outcome"].as_str()), (Some("dispatched"), Some("satisfied")), "{e}");
    let (satisfied, dispatched) = (ms(&e["wait"]["satisfied_at_ms"]), ms(&e["dispatched_at_ms"]));
    assert!(satisfied >= delay, "satisfied at {satisfied} ms, before the prompt could appear ({delay} ms)");
    assert!(dispatched >= satisfied && dispatched - satisfied <= 50, "{e}");
    assert!(e["scheduled_at_ms"].is_null(), "{e}");
    assert!(screen_seen(r, e).contains("ready>"), "the event saw: {}", screen_seen(r, e));
    let last = r["rendered_frames"].as_array().and_then(|f| f.last()).expect("a final screen");
    let answer = last["lines"][0].as_str().unwrap_or_default().to_owned() + last["lines"][1].as_str().unwrap_or("");
    let latency: u64 = answer
        .split("after ")
        .nth(1)
        .and_then(|rest| rest.strip_suffix(" ms"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the program did not report its wait: {answer:?}"));
    assert!(answer.contains("got yes"), "{answer:?}");
    assert!(latency < 250, "the prompt waited {latency} ms for its answer");
}

#[test]
fn a_regular_expression_wait_then_a_quiet_wait() {
    let program = "printf 'loading\\r\\n'; sleep 0.1; printf 'count: 12 items\\r\\n'; read a; \
                   for i in 1 2 3; do echo tick$i; sleep 0.1; done; read b; echo \"done $a $b\"";
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", program],
        "events": [
            {"type": "input", "wait_for": {"output_matches": "(?m)^count: \\d+ items\\r?$"}, "data": "a\r"},
            {"type": "input", "wait_for": {"quiet_ms": 300}, "data": "b\r"}
        ],
        "timeout_ms": 10000
    }));
    let r = record(&c);
    let (first, second) = (&events(r)[0], &events(r)[1]);
    assert_eq!(first["wait"]["outcome"], "satisfied", "{first}");
    assert_eq!(second["wait"]["outcome"], "satisfied", "{second}");
    assert!(screen_seen(r, first).contains("count: 12 items"), "{}", screen_seen(r, first));
    // The quiet wait held 300 ms after the last tick was read, not before.
    let frames = r["frames"].as_array().expect("frames");
    let tick3 = frames.iter().find(|f| f["data"].as_str().is_some_and(|d| d.contains("tick3"))).expect("tick3 read");
    let quiet_from = ms(&tick3["at_ms"]);
    let satisfied = ms(&second["wait"]["satisfied_at_ms"]);
    assert!(satisfied >= quiet_from + 300, "quiet held at {satisfied} ms, tick3 was read at {quiet_from} ms");
    assert!(satisfied <= quiet_from + 300 + 200, "quiet held late: {satisfied} ms after tick3 at {quiet_from} ms");
    let screen = screen_seen(r, second);
    assert!(screen.contains("tick3") && !screen.contains("done"), "{screen}");
    let text = crate::util::frames_text(r);
    assert!(text.contains("done a b"), "{text:?}");
    assert_eq!(r["exit"]["code"], 0);
}

#[test]
fn a_wait_that_times_out_stops_the_script_and_sends_nothing_after_it() {
    let program = "printf 'hello\\n'; if read -t 2 x; then echo \"got $x\"; else echo none; fi";
    let c = capture(json!({
        "executable": "bash",
        "arguments": ["-c", program],
        "events": [
            {"type": "input", "wait_for": {"screen_contains": "never shown", "timeout_ms": 300}, "data": "a\r"},
            {"type": "input", "at_ms": 0, "data": "b\r"}
        ],
        "timeout_ms": 10000
    }));
    let r = record(&c);
    let (first, second) = (&events(r)[0], &events(r)[1]);
    assert_eq!(first["outcome"], "wait_timed_out", "{first}");
    assert_eq!(
        first["wait"],
        json!({"condition": {"screen_contains": "never shown"}, "timeout_ms": 300, "satisfied_at_ms": null, "outcome": "timed_out"})
    );
    assert_eq!(first["data"], "<not-dispatched>");
    let at = ms(&first["dispatched_at_ms"]);
    assert!((300..1000).contains(&at), "timed out at {at} ms");
    assert_eq!(second["outcome"], "not_dispatched", "{second}");
    assert!(second.get("wait").is_none(), "{second}");
    // Nothing was typed: the program's read timed out, and it ran to its end.
    let text = crate::util::frames_text(r);
    assert!(text.contains("none") && !text.contains("got"), "{text:?}");
    assert_eq!((r["exit"]["reason"].as_str(), r["exit"]["code"].as_i64()), (Some("exited"), Some(0)));
    let limitation = r["limitations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find(|l| l.starts_with("The scenario's script did not complete"))
        .expect("a limitation says the script did not complete");
    assert!(
        limitation.contains("events[0] waited for screen_contains \"never shown\" for 300 ms")
            && limitation.contains("1 later event(s) were not dispatched"),
        "{limitation}"
    );
    // `rea show` tells the same.
    let path = c.dir.path().join("capture.json");
    std::fs::write(&path, &c.stdout).expect("write capture");
    let shown = rea(c.dir.path(), &["show", "capture.json"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("wait_timed_out") && shown.contains("up to 300 ms, timed out"), "{shown}");
}

#[test]
fn a_program_that_ends_while_an_event_waits_leaves_target_exited() {
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "echo bye"],
        "events": [{"type": "signal", "wait_for": {"output_contains": "never"}, "signal": "SIGINT"}],
        "timeout_ms": 5000
    }));
    let r = record(&c);
    let e = &events(r)[0];
    assert_eq!((e["outcome"].as_str(), e["wait"]["outcome"].as_str()), (Some("target_exited"), Some("target_exited")));
    let limits = r["limitations"].to_string();
    assert!(!limits.contains("did not complete"), "{limits}");
}

/// Busy loops on every core (and more), ended when dropped.
struct Load(Vec<Child>);

impl Load {
    fn start(n: usize) -> Load {
        let spawn = || {
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
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
        let text = crate::util::frames_text(record(c));
        assert!(text.contains("name? bob\r\nhello bob"), "{text:?}");
    }
    // Under load the fixed delay typed before the prompt appeared.
    let typed_early = crate::util::frames_text(record(&fixed_busy));
    assert!(!typed_early.contains("name? bob\r\nhello bob"), "the load did not slow the program: {typed_early:?}");

    let (terminal, interaction, result) = behaviour(&waits_idle, &waits_busy);
    assert_eq!((terminal.as_str(), interaction.as_str()), ("unchanged", "unchanged"), "{result}");
    let (terminal, _, result) = behaviour(&fixed_idle, &fixed_busy);
    assert_eq!(terminal, "changed", "{result}");
}
