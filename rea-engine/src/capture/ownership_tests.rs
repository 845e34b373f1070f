//! Ownership and cleanup over the fake host: the guard kills the tree on an
//! early failure, the exact check settles at once, and nothing foreign is
//! ever signalled, not even a process that took a verified PID.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::progress::{ProgressLine, ProgressSink};
use super::{Cancellation, CaptureError, CaptureRequest, capture, retry_failed_cleanup};
use crate::BuildInfo;
use crate::evidence::{CaptureRecord, Evidence, OwnedGroupOutcome, SettlementState};
use crate::host::{Descendants, ExitStatus, Proof};
use crate::scenario::SignalName;
use crate::testing::fakes::{FakeOwnership, FakeWorld, ROOT_PID};

const BUILD: BuildInfo = BuildInfo { version: "0.0.0-test", revision: None, target: "test" };

#[derive(Default)]
struct Lines(Mutex<Vec<ProgressLine>>);

impl ProgressSink for Lines {
    fn write(&self, line: &ProgressLine) {
        self.0.lock().unwrap().push(line.clone());
    }
}

fn run_with(world: &FakeWorld, scenario: Value, lines: Arc<Lines>) -> Result<Evidence, CaptureError> {
    let dir = tempfile::tempdir().unwrap();
    let resolved = crate::testing::resolve(dir.path(), scenario);
    let request = CaptureRequest::new(resolved, Vec::new(), BUILD);
    capture(&world.host(), request, Cancellation::none(), lines)
}

fn record(e: &Evidence) -> CaptureRecord {
    serde_json::from_value(e.normalized_result.clone()).unwrap()
}

#[test]
fn a_failure_right_after_spawn_kills_and_reaps_the_tree_and_ends_progress_once() {
    let world = FakeWorld::new();
    world.fail_streams();
    world.add_descendant(5001);
    let lines = Arc::new(Lines::default());
    let err = run_with(&world, json!({"executable": "sh", "settle_ms": 0}), Arc::clone(&lines)).unwrap_err();
    assert!(matches!(err, CaptureError::Host(_)), "{err}");
    let mut delivered = world.delivered();
    delivered.sort_by_key(|(pid, _)| *pid);
    assert_eq!(delivered, [(ROOT_PID, SignalName::SIGKILL), (5001, SignalName::SIGKILL)]);
    assert!(world.reaps() > 0, "the killed tree was reaped");
    let lines = lines.0.lock().unwrap();
    let finals: Vec<&ProgressLine> = lines.iter().filter(|l| l.terminal).collect();
    assert_eq!(finals.len(), 1, "exactly one final progress line");
    assert!(finals[0].message.contains("disposition=failed owned_process_group=failed"), "{}", finals[0].message);
}

#[test]
fn settlement_is_quiesced_at_once_when_no_descendant_is_proven_alive() {
    let world = FakeWorld::new();
    world.set_descendants(Descendants::NoneAlive);
    world.exit(ExitStatus::Code(0));
    // A long settle_ms that the exact proof makes unnecessary.
    let started = std::time::Instant::now();
    let r = record(&run_with(&world, json!({"executable": "sh", "settle_ms": 5000}), Arc::default()).unwrap());
    assert_eq!(r.settlement.state, SettlementState::Quiesced);
    assert!(r.settlement.elapsed_ms < 1000, "{}", r.settlement.elapsed_ms);
    assert!(started.elapsed().as_millis() < 4000);
}

#[test]
fn a_descendant_proven_alive_is_never_reported_quiesced() {
    let world = FakeWorld::new();
    world.set_descendants(Descendants::SomeAlive);
    world.exit(ExitStatus::Code(0));
    // SomeAlive with nothing visible: cleanup cannot prove the tree gone.
    match run_with(&world, json!({"executable": "sh", "settle_ms": 0}), Arc::default()) {
        Err(e @ CaptureError::CleanupIncomplete { .. }) => {
            let CaptureError::CleanupIncomplete { report, .. } = &e else { unreachable!() };
            assert!(!report.verified);
            assert!(report.failure.as_deref().unwrap().contains("still alive"), "{report:?}");
            let e = retry_failed_cleanup(&world.host(), e);
            let details = crate::UserError::details(&e).unwrap();
            assert_eq!(details["cleanup"], "incomplete", "the retry cannot prove it either");
            assert_eq!(crate::UserError::code(&e), "cleanup_incomplete");
        }
        other => panic!("expected cleanup_incomplete, got {:?}", other.map(|e| e.evidence_id)),
    }
}

#[test]
fn lineage_proven_descendants_are_killed_and_reported_with_their_proof() {
    let world = FakeWorld::new();
    world.add_descendant(5001);
    world.set_proof(5001, Proof::Lineage);
    world.add_descendant(5002);
    world.set_descendants(Descendants::NoneAlive);
    world.exit(ExitStatus::Code(0));
    let r = record(&run_with(&world, json!({"executable": "sh", "settle_ms": 0}), Arc::default()).unwrap());
    assert_eq!(r.cleanup.owned_process_group, OwnedGroupOutcome::Verified);
    let mut delivered = world.delivered();
    delivered.sort_by_key(|(pid, _)| *pid);
    assert_eq!(delivered, [(5001, SignalName::SIGKILL), (5002, SignalName::SIGKILL)]);
    // The cleanup report (kept on errors, too) names each proof.
    world.add_descendant(5003);
    world.set_proof(5003, Proof::Lineage);
    let report = super::owned::cleanup(&world.host(), &fake_run(), &Default::default());
    assert!(report.verified);
    assert_eq!(report.final_check, Some(super::FinalCheck::NoChildren));
    assert_eq!(report.killed, [super::KilledProcess { pid: 5003, proof: Proof::Lineage }]);
    assert_eq!(serde_json::to_value(&report.killed).unwrap(), json!([{"pid": 5003, "proof": "lineage"}]));
}

#[test]
fn a_foreign_process_is_never_signalled() {
    let world = FakeWorld::new();
    world.add_foreign(7000);
    world.add_foreign(7001);
    world.set_ownership(7001, FakeOwnership::Foreign);
    world.add_descendant(5001);
    world.set_descendants(Descendants::NoneAlive);
    world.exit(ExitStatus::Code(0));
    let r = record(&run_with(&world, json!({"executable": "sh", "settle_ms": 0}), Arc::default()).unwrap());
    assert_eq!(r.cleanup.owned_process_group, OwnedGroupOutcome::Verified);
    assert_eq!(world.delivered(), [(5001, SignalName::SIGKILL)]);
}

#[test]
fn a_pid_reused_between_check_and_signal_is_never_signalled() {
    let world = FakeWorld::new();
    world.add_descendant(5001);
    // Verified owned, then it exits and a foreign process takes PID 5001
    // before the signal: the handle names the old process, the new one is
    // not reached, and the next round sees the foreign process as foreign.
    world.reuse_after_verify(5001);
    world.exit(ExitStatus::Code(0));
    let report = super::owned::cleanup(&world.host(), &fake_run(), &Default::default());
    assert!(report.verified, "{report:?}");
    assert!(report.killed.is_empty(), "{report:?}");
    assert!(report.rounds >= 2, "the sweep looked again after the failed signal");
    assert!(world.delivered().is_empty(), "{:?}", world.delivered());
}

fn fake_run() -> super::owned::RunOwnership {
    use crate::host::{Pid, ProcessIdentity, RunToken, StartTime};
    super::owned::RunOwnership {
        token: RunToken::from_string("t".into()),
        root: ProcessIdentity { pid: Pid(ROOT_PID), start: StartTime(1) },
        session: Pid(ROOT_PID),
    }
}
