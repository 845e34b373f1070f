use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::{END_ALL_STOP, call};
use crate::live::fake;
use crate::session::Session;

const SECRET: &str = "Tools-s3cret-K9";

fn session(log: &Arc<Mutex<fake::Log>>) -> (rea_engine::testing::fakes::FakeWorld, Session) {
    let world = rea_engine::testing::fakes::FakeWorld::new();
    let session = Session::with_starter(world.host(), fake::BUILD, fake::starter(Arc::clone(log)));
    (world, session)
}

/// The structured reply, and whether it is an error.
fn answer(session: &Session, tool: &'static str, arguments: Value) -> (bool, Value) {
    let reply = call(session, tool, &arguments);
    let text = serde_json::to_string(&reply).unwrap();
    assert!(!text.contains(SECRET), "{tool} replied with the secret: {text}");
    (reply.is_error == Some(true), reply.structured_content.unwrap_or(Value::Null))
}

#[test]
fn a_session_runs_start_to_stop_and_returns_its_scenario_with_the_secret_redacted() {
    let log = Arc::new(Mutex::new(fake::Log::default()));
    let (_world, session) = session(&log);
    let (err, started) = answer(&session, "start_session", json!({"scenario": {"executable": "sh", "settle_ms": 0}}));
    assert!(!err, "{started}");
    let id = started["session_id"].as_str().unwrap().to_owned();
    assert_eq!(started["screen"]["columns"], 80, "{started}");
    let (err, typed) =
        answer(&session, "send_input", json!({"session_id": id, "data": format!("{SECRET}\r"), "sensitive": true}));
    assert!(!err, "{typed}");
    assert_eq!(typed, json!({"session_id": id, "bytes": SECRET.len() + 1}));
    let (err, waited) =
        answer(&session, "wait_for", json!({"session_id": id, "wait_for": {"quiet_ms": 100, "timeout_ms": 1000}}));
    assert!(!err && waited["satisfied"] == true, "{waited}");
    let (err, resized) = answer(&session, "resize", json!({"session_id": id, "columns": 100, "rows": 30}));
    assert!(!err, "{resized}");
    let (err, screen) = answer(&session, "read_screen", json!({"session_id": id}));
    assert!(!err && screen["screen"]["lines"].is_array(), "{screen}");
    let (err, stopped) = answer(&session, "stop_session", json!({"session_id": id, "await_exit": true}));
    assert!(!err, "{stopped}");
    assert_eq!(stopped["scenario"]["events"][0]["data"], rea_engine::secrets::redacted_input(SECRET.len() + 1));
    assert_eq!(stopped["redacted_inputs"], json!(["events[0].data"]));
    assert_eq!(stopped["evidence_uri"], format!("rea://evidence/{}", stopped["evidence_id"].as_str().unwrap()));
    assert!(session.get(stopped["evidence_id"].as_str().unwrap()).is_some(), "the capture is a session resource");
    assert_eq!(log.lock().unwrap().stopped, Some(crate::live::StopMode::AwaitExit));
    let calls = log.lock().unwrap().calls.clone();
    assert_eq!(calls, ["start", "input 16 bytes", "wait quiet_ms", "resize 100x30"]);
    let (err, gone) = answer(&session, "read_screen", json!({"session_id": id}));
    assert!(err && gone["code"] == "unknown_session", "{gone}");
}

#[test]
fn nothing_starts_for_bad_arguments_an_invalid_scenario_or_over_the_bound() {
    let log = Arc::new(Mutex::new(fake::Log::default()));
    let (_world, session) = session(&log);
    let (err, doc) = answer(&session, "start_session", json!({"scenario": {"executable": "sh", "timeout_ms": 0}}));
    assert!(err && doc["code"] == "invalid_scenario", "{doc}");
    let (err, doc) = answer(&session, "start_session", json!({"scenario": "sh"}));
    assert!(err && doc["code"] == "invalid_arguments", "{doc}");
    assert!(log.lock().unwrap().calls.is_empty(), "nothing was started");
    for _ in 0..crate::live::table::MAX_LIVE_SESSIONS {
        assert!(!answer(&session, "start_session", json!({"scenario": {"executable": "sh"}})).0);
    }
    let (err, doc) = answer(&session, "start_session", json!({"scenario": {"executable": "sh"}}));
    assert!(err && doc["code"] == "session_limit", "{doc}");
    assert_eq!(doc["details"]["max_sessions"], crate::live::table::MAX_LIVE_SESSIONS, "{doc}");
    super::end_all(&session);
    assert_eq!(log.lock().unwrap().stopped, Some(END_ALL_STOP), "server end stops the sessions");
    assert!(!answer(&session, "start_session", json!({"scenario": {"executable": "sh"}})).0, "slots are free again");
}

#[test]
fn calls_on_a_session_check_their_arguments_first() {
    let log = Arc::new(Mutex::new(fake::Log::default()));
    let (_world, session) = session(&log);
    let (_, started) = answer(&session, "start_session", json!({"scenario": {"executable": "sh"}}));
    let id = started["session_id"].clone();
    let (err, doc) = answer(&session, "send_input", json!({"session_id": id, "data": "pw\r", "sensitive": true}));
    assert!(err && doc["code"] == "invalid_arguments", "{doc}");
    assert_eq!(doc["details"]["issues"][0]["path"], "data", "{doc}");
    let (err, doc) = answer(&session, "wait_for", json!({"session_id": id, "wait_for": {}}));
    assert!(err && doc["details"]["issues"][0]["path"] == "wait_for", "{doc}");
    let (err, doc) = answer(&session, "read_screen", json!({}));
    assert!(err && doc["details"]["issues"][0]["path"] == "session_id", "{doc}");
    assert_eq!(log.lock().unwrap().calls, ["start"], "no call reached the session");
}
