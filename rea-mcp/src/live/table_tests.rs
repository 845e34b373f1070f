use std::sync::{Arc, Mutex};

use serde_json::json;

use super::{LiveTable, MAX_LIVE_SESSIONS, Refused};
use crate::live::fake;

fn scenario() -> rea_engine::scenario::Scenario {
    rea_engine::scenario::parse_scenario(json!({"executable": "sh"})).unwrap()
}

fn code(refused: Refused) -> &'static str {
    refused.error().code()
}

#[test]
fn sessions_have_their_own_ids_up_to_the_bound_and_a_freed_slot_is_reusable() {
    let table = LiveTable::default();
    let log = Arc::new(Mutex::new(fake::Log::default()));
    let ids: Vec<String> =
        (0..MAX_LIVE_SESSIONS).map(|_| table.reserve().unwrap().fill(fake::live(scenario(), &log))).collect();
    let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), MAX_LIVE_SESSIONS, "{ids:?}");
    let refused = table.reserve().err().expect("one over the bound is refused");
    assert_eq!(refused.max, MAX_LIVE_SESSIONS);
    assert_eq!(refused.running.len(), MAX_LIVE_SESSIONS);
    assert!(table.take("stop_session", &ids[3]).is_ok(), "a running session is taken");
    let again = table.reserve().unwrap().fill(fake::live(scenario(), &log));
    assert!(!ids.contains(&again), "an id is never reused: {again}");
}

#[test]
fn a_start_that_fails_frees_its_reserved_slot() {
    let table = LiveTable::default();
    let held: Vec<_> = (0..MAX_LIVE_SESSIONS).map(|_| table.reserve().unwrap()).collect();
    assert!(table.reserve().is_err(), "reservations count against the bound");
    drop(held);
    assert!(table.reserve().is_ok());
}

#[test]
fn an_unknown_or_stopped_id_is_refused_naming_the_running_ones() {
    let table = LiveTable::default();
    let log = Arc::new(Mutex::new(fake::Log::default()));
    let id = table.reserve().unwrap().fill(fake::live(scenario(), &log));
    let Err(refused) = table.with("read_screen", "session-99", |_| ()) else { panic!("an unknown id ran") };
    let doc = rea_engine::ErrorDocument::from_error(refused.error());
    assert_eq!(doc.code, "unknown_session");
    assert!(doc.message.contains("\"session-99\"") && doc.message.contains(&id), "{}", doc.message);
    table.take("stop_session", &id).ok().unwrap();
    let Err(refused) = table.with("send_input", &id, |_| ()) else { panic!("a stopped session ran") };
    assert_eq!(code(refused), "unknown_session");
}

#[test]
fn a_session_takes_one_call_at_a_time() {
    let table = LiveTable::default();
    let log = Arc::new(Mutex::new(fake::Log::default()));
    let id = table.reserve().unwrap().fill(fake::live(scenario(), &log));
    let inner = table.with("wait_for", &id, |_| {
        let during = table.with("read_screen", &id, |_| ()).err().map(code);
        let stop = table.take("stop_session", &id).err().map(code);
        (during, stop)
    });
    assert_eq!(inner.ok(), Some((Some("session_busy"), Some("session_busy"))));
    assert!(table.with("read_screen", &id, |_| ()).is_ok(), "free again once the call returned");
}

#[test]
fn server_end_takes_every_session() {
    let table = LiveTable::default();
    let log = Arc::new(Mutex::new(fake::Log::default()));
    for _ in 0..3 {
        table.reserve().unwrap().fill(fake::live(scenario(), &log));
    }
    assert_eq!(table.take_all().len(), 3);
    assert!(table.take_all().is_empty());
    assert_eq!(table.reserve().ok().map(|_| ()), Some(()));
}
