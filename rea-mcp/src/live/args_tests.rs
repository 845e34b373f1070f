use serde_json::{Value, json};

use super::*;

fn session() -> Scenario {
    parse_scenario(json!({"executable": "sh", "timeout_ms": 20_000})).unwrap()
}

fn paths(e: ArgumentsError) -> Vec<String> {
    e.issues.into_iter().map(|i| format!("{}: {}", i.path, i.rule)).collect()
}

#[test]
fn every_schema_names_exactly_the_arguments_the_checks_accept() {
    let props = |schema: Value| -> Vec<String> {
        let mut keys: Vec<String> = schema["properties"].as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    let sorted = |keys: &[&str]| {
        let mut keys: Vec<String> = keys.iter().map(|k| (*k).to_owned()).collect();
        keys.sort();
        keys
    };
    assert_eq!(props(schema::<StartArgs>()), sorted(rea_engine::keys::keys::<StartArgs>()));
    assert_eq!(props(schema::<InputArgs>()), ["data", "sensitive", "session_id"]);
    assert_eq!(props(schema::<ResizeArgs>()), ["columns", "rows", "session_id"]);
    assert_eq!(props(schema::<WaitArgs>()), ["session_id", "wait_for"]);
    assert_eq!(props(schema::<ScreenArgs>()), ["session_id"]);
    assert_eq!(props(schema::<StopArgs>()), ["await_exit", "session_id"]);
    // The scenario and the wait are the scenario schema's own definitions.
    let start = schema::<StartArgs>();
    assert_eq!(start["properties"]["scenario"]["$ref"], "#/$defs/Scenario", "{start}");
    assert_eq!(start["required"], json!(["scenario"]));
    let wait = schema::<WaitArgs>();
    assert!(wait["$defs"]["WaitFor"].is_object(), "{wait}");
}

#[test]
fn an_input_is_checked_by_the_scenario_rules_at_the_argument_paths() {
    let s = session();
    let ok = input("send_input", &s, &json!({"session_id": "session-1", "data": "1+1\r"})).unwrap();
    assert_eq!(ok, ("1+1\r".to_owned(), None));
    let secret = input("send_input", &s, &json!({"session_id": "s", "data": "hunter22\r", "sensitive": true})).unwrap();
    assert_eq!(secret.1, Some(true));
    let short = input("send_input", &s, &json!({"session_id": "s", "data": "ab\r", "sensitive": true})).unwrap_err();
    let found = paths(short);
    assert!(found.len() == 1 && found[0].starts_with("data: a sensitive input needs at least 4 bytes"), "{found:?}");
    let long = "x".repeat(5000);
    let e = input("send_input", &s, &json!({"session_id": "s", "data": long, "colour": 1})).unwrap_err();
    let found = paths(e);
    assert!(found[0].starts_with("colour: is not an argument"), "{found:?}");
    assert!(found[1].starts_with("data: has 5000 UTF-8 bytes"), "{found:?}");
    let e = input("send_input", &s, &json!({"session_id": "s"})).unwrap_err();
    assert!(paths(e)[0].starts_with("data: is required"));
}

#[test]
fn a_sensitive_input_rejected_never_shows_its_text() {
    let e =
        input("send_input", &session(), &json!({"session_id": "s", "data": "pw1\r", "sensitive": true})).unwrap_err();
    let doc = rea_engine::ErrorDocument::from_error(&e);
    let text = serde_json::to_string(&doc).unwrap();
    assert!(!text.contains("pw1"), "{text}");
}

#[test]
fn a_wait_is_a_scenario_wait_bounded_by_the_session_timeout() {
    let s = session();
    let w =
        wait("wait_for", &s, &json!({"session_id": "s", "wait_for": {"screen_contains": ">>> ", "timeout_ms": 5000}}))
            .unwrap();
    assert_eq!(w.timeout_ms, Some(5000));
    assert_eq!(w.condition.key(), "screen_contains");
    let e =
        wait("wait_for", &s, &json!({"session_id": "s", "wait_for": {"output_matches": "a(", "timeout_ms": 30_000}}))
            .unwrap_err();
    let found = paths(e);
    assert!(found[0].starts_with("wait_for.output_matches: is not a usable regular expression"), "{found:?}");
    assert!(found[1].starts_with("wait_for.timeout_ms: 30000 is after timeout_ms (20000)"), "{found:?}");
    let e = wait("wait_for", &s, &json!({"session_id": "s"})).unwrap_err();
    assert!(paths(e)[0].starts_with("wait_for: is required"));
}

#[test]
fn a_resize_keeps_the_terminal_bounds() {
    let s = session();
    assert_eq!(resize("resize", &s, &json!({"session_id": "s", "columns": 100, "rows": 30})).unwrap(), (100, 30));
    let e = resize("resize", &s, &json!({"session_id": "s", "columns": 0, "rows": 1001})).unwrap_err();
    let found = paths(e);
    assert!(found[0].starts_with("columns:") && found[1].starts_with("rows:"), "{found:?}");
}

#[test]
fn start_needs_a_scenario_without_events_and_stop_a_boolean() {
    assert!(start("start_session", &json!({"scenario": {"executable": "bc"}})).is_ok());
    let e =
        start("start_session", &json!({"scenario": {"executable": "bc", "events": [{"type": "input"}]}})).unwrap_err();
    assert!(paths(e)[0].starts_with("scenario.events: must be empty"));
    assert!(paths(start("start_session", &json!({})).unwrap_err())[0].starts_with("scenario: is required"));
    assert_eq!(stop("stop_session", &json!({"session_id": "s"})).unwrap(), StopMode::End);
    assert_eq!(stop("stop_session", &json!({"session_id": "s", "await_exit": true})).unwrap(), StopMode::AwaitExit);
    assert!(paths(stop("stop_session", &json!({"await_exit": 1})).unwrap_err())[0].starts_with("await_exit:"));
    assert!(paths(session_id("read_screen", &json!({"session_id": ""})).unwrap_err())[0].starts_with("session_id:"));
}
