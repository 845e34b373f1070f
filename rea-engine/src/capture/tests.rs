//! Lifecycle tests over the fake host: what is recorded, and what is (not)
//! signalled, when verification answers each way.

use std::sync::Arc;

use serde_json::{Value, json};

use super::progress::NullProgress;
use super::{Cancellation, CaptureError, CaptureRequest, capture};
use crate::BuildInfo;
use crate::evidence::{
    CaptureRecord, CleanupOutcome, Evidence, JournalCollection, OwnedGroupOutcome, ResidualScope, SettlementState,
};
use crate::host::ExitStatus;
use crate::scenario::SignalName;
use crate::testing::fakes::{FakeOwnership, FakeWorld, ROOT_PID, Reaction};

const BUILD: BuildInfo = BuildInfo { version: "0.0.0-test", revision: None, target: "test" };

fn run(world: &FakeWorld, scenario: Value) -> Result<Evidence, CaptureError> {
    let dir = tempfile::tempdir().unwrap();
    let resolved = crate::testing::resolve(dir.path(), scenario);
    let request = CaptureRequest::new(resolved, Vec::new(), BUILD);
    capture(&world.host(), request, Cancellation::none(), Arc::new(NullProgress))
}

fn record(e: &Evidence) -> CaptureRecord {
    serde_json::from_value(e.normalized_result.clone()).unwrap()
}

#[test]
fn output_queued_before_the_exit_is_all_recorded() {
    let world = FakeWorld::new();
    for chunk in ["one ", "two ", "three"] {
        world.write_output(chunk.as_bytes());
    }
    world.exit(ExitStatus::Code(0));
    let r = record(&run(&world, json!({"executable": "sh", "settle_ms": 0})).unwrap());
    let text: String = r.frames.iter().map(|f| f.data.as_str()).collect();
    assert_eq!(text, "one two three");
    assert_eq!((r.exit.code, r.exit.signal, r.exit.reason.as_str()), (Some(0), 0, "exited"));
    assert_eq!(r.settlement.state, SettlementState::Quiesced);
    // The exit is journaled after every frame.
    let exit_at =
        r.event_journal.iter().position(|e| e.collection == JournalCollection::Lifecycle && e.index == 0).unwrap();
    let last_frame = r.event_journal.iter().rposition(|e| e.collection == JournalCollection::Frames).unwrap();
    assert!(exit_at > last_frame);
    assert!(world.delivered().is_empty(), "nothing needed a signal");
}

#[test]
fn unverifiable_finalization_signals_are_recorded_and_never_sent() {
    let world = FakeWorld::new();
    world.push_ownership(ROOT_PID, FakeOwnership::Unverifiable("ownership token unreadable: EACCES".into()));
    world.push_ownership(ROOT_PID, FakeOwnership::IdentityChanged);
    let e = run(&world, json!({"executable": "sh", "timeout_ms": 20, "finalization_ms": 30, "settle_ms": 0})).unwrap();
    let r = record(&e);
    let fin = r.exit.finalization.as_ref().expect("finalization attempted");
    assert_eq!(fin.requested_ms, 30);
    assert_eq!(fin.elapsed_ms, None);
    assert_eq!(fin.exit_code, None);
    let receipts: Vec<(&str, &str, Option<&str>)> =
        fin.signals.iter().map(|s| (s.signal.as_str(), s.delivery.as_str(), s.reason.as_deref())).collect();
    assert_eq!(
        receipts,
        [("SIGTERM", "unverified", Some("ownership token unreadable: EACCES")), ("SIGKILL", "identity-changed", None)]
    );
    assert!(fin.signals[1].sent_at_ms >= 30, "SIGKILL only after the interval");
    assert_eq!((r.exit.code, r.exit.signal, r.exit.reason.as_str()), (None, 0, "timeout"));
    assert!(
        r.residual_unknowns
            .iter()
            .any(|u| u.scope == ResidualScope::Exit && u.reason.contains("SIGKILL could not be delivered"))
    );
    // The process was still alive: settlement saw it, cleanup killed it,
    // and that verified cleanup kill is the only signal that reached it.
    assert_eq!(r.settlement.state, SettlementState::AliveAtDeadline);
    assert_eq!(r.settlement.cleanup_outcome, CleanupOutcome::Cleaned);
    assert_eq!(world.delivered(), [(ROOT_PID, SignalName::SIGKILL)]);
}

#[test]
fn a_term_trap_that_exits_records_the_finalization_exit_code() {
    let world = FakeWorld::new();
    world.on_signal(SignalName::SIGTERM, Reaction::Exit(ExitStatus::Code(3)));
    let r = record(&run(&world, json!({"executable": "sh", "timeout_ms": 20, "finalization_ms": 5000})).unwrap());
    let fin = r.exit.finalization.unwrap();
    assert_eq!(fin.exit_code, Some(3));
    assert!(fin.elapsed_ms.is_some_and(|ms| ms < 5000));
    assert_eq!(fin.signals.len(), 1);
    assert_eq!((fin.signals[0].signal.as_str(), fin.signals[0].delivery.as_str()), ("SIGTERM", "signaled"));
    assert_eq!(r.exit.code, None, "exit.code is null for every deadline exit");
    assert_eq!(world.delivered(), [(ROOT_PID, SignalName::SIGTERM)]);
}

#[test]
fn a_scripted_signal_to_a_changed_identity_fails_without_signalling() {
    let world = FakeWorld::new();
    world.push_ownership(ROOT_PID, FakeOwnership::IdentityChanged);
    let r = record(
        &run(
            &world,
            json!({"executable": "sh", "timeout_ms": 40, "settle_ms": 0,
                   "events": [{"type": "signal", "at_ms": 0, "signal": "SIGINT"}]}),
        )
        .unwrap(),
    );
    let event = &r.interaction_events[0];
    assert_eq!((event.kind.as_str(), event.outcome.as_str()), ("signal", "failed"));
    assert!(event.reason.as_deref().unwrap().contains("identity changed"), "{event:?}");
    // Only the deadline's verified SIGKILL reached the process.
    assert_eq!(world.delivered(), [(ROOT_PID, SignalName::SIGKILL)]);
    assert_eq!((r.exit.reason.as_str(), r.exit.signal, r.exit.code), ("timeout", 9, None));
}

#[test]
fn interactions_are_dispatched_in_scenario_order() {
    let world = FakeWorld::new();
    world.on_signal(SignalName::SIGTERM, Reaction::Exit(ExitStatus::Code(0)));
    let r = record(
        &run(
            &world,
            json!({"executable": "sh", "settle_ms": 0, "events": [
                {"type": "input", "at_ms": 0, "data": "hi\r"},
                {"type": "resize", "at_ms": 0, "columns": 100, "rows": 30},
                {"type": "signal", "at_ms": 5, "signal": "SIGTERM"},
                {"type": "input", "at_ms": 5000, "data": "never"}
            ]}),
        )
        .unwrap(),
    );
    assert_eq!(world.input(), b"hi\r");
    assert_eq!(world.resizes().len(), 1);
    let summary: Vec<(&str, &str, &str)> =
        r.interaction_events.iter().map(|e| (e.kind.as_str(), e.data.as_str(), e.outcome.as_str())).collect();
    assert_eq!(
        summary,
        [
            ("input", "hi\r", "dispatched"),
            ("resize", "100x30", "dispatched"),
            ("signal", "SIGTERM", "dispatched"),
            ("input", "<not-dispatched>", "target_exited"),
        ]
    );
    assert!(r.interaction_events.iter().enumerate().all(|(i, e)| e.sequence == i as u64));
}

#[test]
fn an_unverifiable_descendant_makes_cleanup_incomplete() {
    let world = FakeWorld::new();
    world.add_descendant(5000);
    world.set_ownership(5000, FakeOwnership::Unverifiable("ownership token unreadable: EPERM".into()));
    world.exit(ExitStatus::Code(0));
    match run(&world, json!({"executable": "sh", "settle_ms": 0})) {
        Err(mut e @ CaptureError::CleanupIncomplete { .. }) => {
            let CaptureError::CleanupIncomplete { report, .. } = &e else { unreachable!() };
            assert!(!report.verified);
            assert_eq!(report.unresolved, [(5000, "ownership token unreadable: EPERM".to_owned())]);
            assert!(world.delivered().is_empty(), "an unverifiable process is never signalled");
            // A retry once the process became verifiable kills it and clears the status.
            world.set_ownership(5000, FakeOwnership::Owned);
            assert!(e.retry_cleanup(&world.host()));
            let details = crate::UserError::details(&e).unwrap();
            assert_eq!(details["cleanup"], "complete");
            assert_eq!(details["cleanup_report"]["verified"], false, "the original facts are kept");
            assert_eq!(world.delivered(), [(5000, SignalName::SIGKILL)]);
        }
        other => panic!("expected cleanup_incomplete, got {:?}", other.map(|e| e.evidence_id)),
    }
}

#[test]
fn owned_descendants_are_killed_by_cleanup() {
    let world = FakeWorld::new();
    world.add_descendant(5001);
    world.add_descendant(5002);
    world.exit(ExitStatus::Code(0));
    let r = record(&run(&world, json!({"executable": "sh", "settle_ms": 0})).unwrap());
    assert_eq!(r.settlement.state, SettlementState::AliveAtDeadline);
    assert_eq!(r.cleanup.owned_process_group, OwnedGroupOutcome::Verified);
    let mut killed = world.delivered();
    killed.sort_by_key(|(pid, _)| *pid);
    assert_eq!(killed, [(5001, SignalName::SIGKILL), (5002, SignalName::SIGKILL)]);
}

#[test]
fn unreadable_table_rows_are_reported_and_left_alone() {
    let world = FakeWorld::new();
    world.add_unreadable(6000, "permission denied");
    world.exit(ExitStatus::Code(0));
    let r = record(&run(&world, json!({"executable": "sh", "settle_ms": 0})).unwrap());
    assert_eq!(r.cleanup.unverified_processes.len(), 1);
    assert_eq!(r.cleanup.unverified_processes[0].pid, 6000);
    assert_eq!(r.cleanup.unverified_processes[0].reason, "process status unreadable: permission denied");
    assert!(r.residual_unknowns.iter().any(|u| u.scope == ResidualScope::Process && u.reason.contains("Process 6000")));
    assert!(world.delivered().is_empty());
}

#[test]
fn unreadable_rows_beyond_the_listed_bound_are_counted_not_listed() {
    let world = FakeWorld::new();
    // Added in falling PID order: the record lists the lowest PIDs.
    for pid in (0..1500).rev() {
        world.add_unreadable(10_000 + pid, "permission denied");
    }
    world.exit(ExitStatus::Code(0));
    let r = record(&run(&world, json!({"executable": "sh", "settle_ms": 0})).unwrap());
    let listed: Vec<u64> = r.cleanup.unverified_processes.iter().map(|p| p.pid).collect();
    assert_eq!(listed, (10_000..11_000).collect::<Vec<u64>>());
    let named: Vec<&str> = r
        .residual_unknowns
        .iter()
        .filter(|u| u.reason.contains("ownership could not be read"))
        .map(|u| u.reason.as_str())
        .collect();
    assert_eq!(named.len(), 1001, "one per listed process and one for the rest");
    assert_eq!(
        named[1000],
        "500 further processes were left untouched because their ownership could not be read; they are not listed."
    );
    assert!(r.limitations.iter().any(|l| l
        == "1500 processes whose status could not be read were left untouched; \
            cleanup.unverified_processes lists the first 1000 by PID."));
    assert!(world.delivered().is_empty());
}

/// What each scripted event became: its kind, data, outcome and wait outcome.
fn waits(r: &CaptureRecord) -> Vec<(String, String, String)> {
    let scripted = r.interaction_events.iter().filter(|e| e.kind != crate::evidence::InteractionKind::TerminalReply);
    scripted
        .map(|e| {
            let wait = e.wait.as_ref().map_or("-", |w| w.outcome.as_str());
            (e.data.clone(), e.outcome.as_str().to_owned(), wait.to_owned())
        })
        .collect()
}

#[test]
fn each_wait_dispatches_its_event_when_the_output_it_waits_for_arrives() {
    let world = FakeWorld::new();
    world.write_output(b"name? ");
    world.on_input(b"bob\r", b"bob\r\nhello bob\r\nage? ", None);
    world.on_input(b"42\r", b"42\r\nsaved\r\n", None);
    world.on_input(b"q\r", b"q\r\nbye\r\n", Some(ExitStatus::Code(0)));
    let r = record(
        &run(
            &world,
            json!({"executable": "sh", "settle_ms": 0, "timeout_ms": 60000, "events": [
                {"type": "input", "wait_for": {"screen_contains": "name?"}, "data": "bob\r"},
                {"type": "input", "wait_for": {"output_matches": "(?m)^age\\? $"}, "data": "42\r"},
                {"type": "input", "wait_for": {"output_contains": "saved"}, "data": "q\r"}
            ]}),
        )
        .unwrap(),
    );
    assert_eq!(world.input(), b"bob\r42\rq\r");
    let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        waits(&r),
        [
            s("bob\r", "dispatched", "satisfied"),
            s("42\r", "dispatched", "satisfied"),
            s("q\r", "dispatched", "satisfied")
        ]
    );
    for e in &r.interaction_events {
        let w = e.wait.as_ref().unwrap();
        assert!(w.satisfied_at_ms.is_some_and(|t| Some(t) <= e.dispatched_at_ms), "{e:?}");
        assert_eq!(e.scheduled_at_ms, None);
    }
    assert_eq!(r.exit.code, Some(0));
    assert!(!r.limitations.iter().any(|l| l.contains("did not complete")), "{:?}", r.limitations);
}

#[test]
fn output_that_came_before_the_previous_dispatch_does_not_satisfy_the_next_wait() {
    let world = FakeWorld::new();
    // "ready" is on screen from the start, but the second wait is on the
    // output since the first event went out, which never says it again.
    world.write_output(b"ready\r\n");
    world.on_input(b"a\r", b"a\r\n", Some(ExitStatus::Code(0)));
    let r = record(
        &run(
            &world,
            json!({"executable": "sh", "settle_ms": 0, "timeout_ms": 60000, "events": [
                {"type": "input", "wait_for": {"output_contains": "ready"}, "data": "a\r"},
                {"type": "input", "wait_for": {"output_contains": "ready"}, "data": "b\r"}
            ]}),
        )
        .unwrap(),
    );
    assert_eq!(world.input(), b"a\r");
    let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        waits(&r),
        [s("a\r", "dispatched", "satisfied"), s("<not-dispatched>", "target_exited", "target_exited")]
    );
    assert!(r.interaction_events[0].dispatched_at_ms.is_some() && r.interaction_events[1].dispatched_at_ms.is_none());
}

#[test]
fn a_timed_out_wait_sends_nothing_more_and_says_the_script_did_not_complete() {
    let world = FakeWorld::new();
    world.write_output(b"hello\r\n");
    world.on_signal(SignalName::SIGTERM, Reaction::Exit(ExitStatus::Code(0)));
    let r = record(
        &run(
            &world,
            json!({"executable": "sh", "settle_ms": 0, "timeout_ms": 60000, "events": [
                {"type": "input", "wait_for": {"screen_contains": "never", "timeout_ms": 20}, "data": "a\r"},
                {"type": "input", "at_ms": 0, "data": "b\r"},
                {"type": "signal", "wait_for": {"quiet_ms": 1}, "signal": "SIGTERM"}
            ], "idle_timeout_ms": 200}),
        )
        .unwrap(),
    );
    assert!(world.input().is_empty(), "{:?}", world.input());
    let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        waits(&r),
        [
            s("<not-dispatched>", "wait_timed_out", "timed_out"),
            s("<not-dispatched>", "not_dispatched", "-"),
            s("SIGTERM", "not_dispatched", "not_started"),
        ]
    );
    // Never dispatched: no time, the timed-out event and its successors alike.
    let times: Vec<Option<u64>> = r.interaction_events.iter().map(|e| e.dispatched_at_ms).collect();
    assert_eq!(times, [None, None, None], "{:?}", r.interaction_events);
    let as_written = serde_json::to_value(&r.interaction_events[1]).unwrap();
    assert_eq!(as_written["dispatched_at_ms"], serde_json::Value::Null, "{as_written}");
    let limitation = r.limitations.iter().find(|l| l.contains("did not complete")).expect("a limitation");
    assert!(limitation.contains("events[0]") && limitation.contains("2 later event(s)"), "{limitation}");
}
