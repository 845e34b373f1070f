//! Waiting on output (`wait_for`): events dispatched when the program shows
//! what they wait for, on real programs through the real binary. (The
//! comparison of an idle and a busy machine is in `tests/load/`, a test
//! binary of its own, so its load slows no other test.)
#![cfg(not(feature = "force-stub"))]

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
    // The lag: the burst settle (30 ms without output) and the loop's turn.
    assert!(dispatched + 1 >= satisfied + 30 && dispatched - satisfied <= 150, "{e}");
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
    // Never dispatched: no time, for it and for every event after it.
    assert!(first["dispatched_at_ms"].is_null() && second["dispatched_at_ms"].is_null(), "{first} {second}");
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
    assert!(shown.contains("(never sent; waited for"), "{shown}");
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

#[test]
fn the_waiting_example_runs_every_event_when_its_prompt_appears() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/waiting.json");
    let scenario: Value = serde_json::from_slice(&std::fs::read(example).expect("read the example")).expect("JSON");
    let c = capture(scenario);
    let r = record(&c);
    let outcomes: Vec<(&str, &str)> = events(r)
        .iter()
        .map(|e| (e["outcome"].as_str().unwrap_or_default(), e["wait"]["outcome"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(outcomes, [("dispatched", "satisfied"); 4], "{}", r["interaction_events"]);
    assert_eq!(events(r)[1]["data"], "<redacted-input:9-bytes>");
    assert!(!c.stdout.contains("hunter22"), "the password reached the capture");
    let text = crate::util::frames_text(r);
    assert!(text.contains("welcome ada") && text.contains("ran status") && text.ends_with("bye\r\n"), "{text:?}");
}
