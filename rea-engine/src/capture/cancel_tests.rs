//! Cancellation over the fake host: each [`CancelCause`] ends the capture
//! on the one cancellation path and is what the error reports.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::progress::NullProgress;
use super::{CancelCause, Cancellation, CaptureError, CaptureRequest, capture};
use crate::BuildInfo;
use crate::error::UserError;
use crate::host::{ExitStatus, Host, HostError, InterruptSignal, InterruptSource, Interrupts};
use crate::scenario::SignalName;
use crate::testing::fakes::{FakeWorld, ROOT_PID};

const BUILD: BuildInfo = BuildInfo { version: "0.0.0-test", revision: None, target: "test" };

/// A host whose interrupt source raises one signal as soon as it listens.
struct Raises(InterruptSignal);

impl InterruptSource for Raises {
    fn listen(&self) -> Result<Interrupts, HostError> {
        Ok(Interrupts::new(futures_lite::stream::once(self.0)))
    }
}

fn raising(world: &FakeWorld, signal: InterruptSignal) -> Host {
    Host { interrupts: Arc::new(Raises(signal)), ..world.host() }
}

fn run(host: &Host, cancellation: Cancellation) -> Result<crate::evidence::Evidence, CaptureError> {
    let dir = tempfile::tempdir().unwrap();
    let resolved = crate::testing::resolve(dir.path(), json!({"executable": "sh", "settle_ms": 0}));
    capture(host, CaptureRequest::new(resolved, Vec::new(), BUILD), cancellation, Arc::new(NullProgress))
}

/// The cause of a cancelled capture, and its error.
fn cause(result: Result<crate::evidence::Evidence, CaptureError>) -> (CancelCause, CaptureError) {
    match result {
        Err(CaptureError::Cancelled { cause, cleanup, partial_observation }) => {
            (cause, CaptureError::Cancelled { cause, cleanup, partial_observation })
        }
        other => panic!("expected a cancelled capture, got {:?}", other.map(|e| e.evidence_id)),
    }
}

#[test]
fn a_host_signal_cancels_a_capture_that_listens_for_host_signals() {
    let world = FakeWorld::new();
    let (cause, error) = cause(run(&raising(&world, InterruptSignal::SIGTERM), Cancellation::on_host_signals()));
    assert_eq!(cause, CancelCause::Signal(InterruptSignal::SIGTERM));
    let details = error.details().expect("details");
    assert_eq!(details["signal"], "SIGTERM", "{details}");
    assert_eq!(details["cleanup"], "complete", "{details}");
    assert!(error.to_string().starts_with("process capture was cancelled by SIGTERM;"), "{error}");
}

#[test]
fn a_host_signal_does_not_cancel_a_capture_that_does_not_listen_for_it() {
    let world = FakeWorld::new();
    world.exit(ExitStatus::Code(0));
    let evidence = run(&raising(&world, InterruptSignal::SIGINT), Cancellation::none());
    assert!(evidence.is_ok(), "{:?}", evidence.err().map(|e| e.to_string()));
}

/// Resolves once the fake world has launched the command (or after ten
/// seconds, when the capture is cancelled anyway and the test's assertion
/// on the delivered signals says what went wrong).
async fn launched(world: FakeWorld) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while world.spawned().is_none() && Instant::now() < deadline {
        async_io::Timer::after(Duration::from_millis(1)).await;
    }
}

#[test]
fn a_client_cancellation_during_the_run_kills_the_launched_command_at_once() {
    let world = FakeWorld::new();
    let cancellation = Cancellation::none().or_when(CancelCause::Client, launched(world.clone()));
    let (cause, error) = cause(run(&world.host(), cancellation));
    assert_eq!(cause, CancelCause::Client);
    assert_eq!(error.details().expect("details")["signal"], "the MCP client (notifications/cancelled)");
    assert!(world.spawned().is_some(), "the command was launched");
    assert_eq!(world.delivered().first(), Some(&(ROOT_PID, SignalName::SIGKILL)), "SIGKILL at once");
}

#[test]
fn the_end_of_the_session_cancels_like_any_other_cause() {
    let world = FakeWorld::new();
    let cancellation = Cancellation::none()
        .or_when(CancelCause::SessionEnd, launched(world.clone()))
        .or_when(CancelCause::Client, futures_lite::future::pending());
    let (cause, error) = cause(run(&world.host(), cancellation));
    assert_eq!(cause, CancelCause::SessionEnd);
    assert_eq!(error.details().expect("details")["signal"], "the end of the MCP session");
    assert_eq!(error.code(), "cancelled");
}
