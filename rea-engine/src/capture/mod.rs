//! The capture lifecycle: prepare, run, settle, snapshot, clean up, record.
//!
//! [`capture`] takes a prepared request, a [`Host`] and what may cancel it
//! ([`Cancellation`]) and returns sealed capture Evidence. Observed trouble
//! (deadlines, truncation, unverifiable processes) is evidence inside the
//! record; an `Err` means no Evidence could be produced (the command could
//! not start, the run was cancelled, or owned processes could not be cleaned
//! up).
//!
//! The modules, each importing only those below it: [`request`] (prepare),
//! `session` (the lifecycle as one value with phase methods) over `run` (the
//! event loop), `dispatch` and `deadline`; `conclude`, `settle` and
//! `checkpoint` (after the run); `assemble` and `fit` (the record); `parts`
//! (the session's parts) over the observers (`terminal`, `render`,
//! `sampler`, the `redact*` modules) and `owned`, `guard`, `cancel`, `clock`.

mod assemble;
mod cancel;
mod checkpoint;
mod clock;
mod conclude;
mod deadline;
mod decoder;
mod dispatch;
mod error;
mod exact;
pub mod fit;
mod guard;
pub mod live;
pub mod normalize;
mod owned;
mod parts;
pub mod progress;
mod redact_names;
pub mod render;
pub mod request;
mod run;
mod sampler;
mod session;
mod settle;
pub mod terminal;
mod wait;

use std::sync::Arc;
use std::time::Instant;

pub use cancel::{CancelCause, Cancellation};
pub use error::{CaptureError, PendingCleanup};
pub use owned::{CleanupReport, Delivery, FinalCheck, KilledProcess, cleanup_orphaned_run};
pub use request::{CaptureRequest, child_environment, prepare, prepare_with};

use self::error::serialization_error;
use self::parts::Ending;
use self::progress::{Counts, Phase, ProgressReporter, ProgressSink};
use self::session::Session;
use crate::evidence::{Evidence, SealedCapture};
use crate::host::{CaptureSupport, Host};

/// Runs a capture to completion on the current thread.
pub fn capture(
    host: &Host,
    request: CaptureRequest,
    cancellation: Cancellation,
    sink: Arc<dyn ProgressSink>,
) -> Result<Evidence, CaptureError> {
    async_io::block_on(capture_async(host, request, cancellation, sink))
}

/// Cleanup retries after a capture's own cleanup could not be verified.
pub const CLEANUP_RETRIES: u32 = 1;

/// The cleanup-retry policy every front end applies before reporting an
/// error (CLI, MCP server): a `cleanup_incomplete` error retries its pending
/// cleanup [`CLEANUP_RETRIES`] time(s) (blocking, bounded); the error keeps
/// the original report and records the retry's. Other errors pass through.
pub fn retry_failed_cleanup(host: &Host, mut error: CaptureError) -> CaptureError {
    for _ in 0..CLEANUP_RETRIES {
        if error.retry_cleanup(host) {
            break;
        }
    }
    error
}

/// [`capture`], its record kept typed, followed by the cleanup-retry policy
/// on failure.
pub fn capture_with_cleanup_retry(
    host: &Host,
    request: CaptureRequest,
    cancellation: Cancellation,
    sink: Arc<dyn ProgressSink>,
) -> Result<SealedCapture, CaptureError> {
    async_io::block_on(capture_sealed_async(host, request, cancellation, sink))
        .map_err(|e| retry_failed_cleanup(host, e))
}

/// The capture lifecycle. Whatever path the run takes, one place emits the
/// final progress line, and the launched tree is owned by a kill-on-drop
/// guard from spawn on.
pub async fn capture_async(
    host: &Host,
    request: CaptureRequest,
    cancellation: Cancellation,
    sink: Arc<dyn ProgressSink>,
) -> Result<Evidence, CaptureError> {
    capture_sealed_async(host, request, cancellation, sink).await?.into_evidence().map_err(serialization_error)
}

/// [`capture_async`] with the record kept typed (see [`SealedCapture`]):
/// what a front end that writes the document itself uses.
pub async fn capture_sealed_async(
    host: &Host,
    request: CaptureRequest,
    cancellation: Cancellation,
    sink: Arc<dyn ProgressSink>,
) -> Result<SealedCapture, CaptureError> {
    let mut progress = ProgressReporter::new(sink, Instant::now());
    progress.update(Phase::Prepare, Counts::default());
    let mut ending = Ending::new();
    let result = lifecycle(host, &request, cancellation, &mut progress, &mut ending).await;
    progress.finish(ending.counts, &ending.states.text());
    result
}

/// The phases: refuse, listen for cancellation, snapshot, launch, run,
/// conclude.
async fn lifecycle(
    host: &Host,
    request: &CaptureRequest,
    cancellation: Cancellation,
    progress: &mut ProgressReporter,
    ending: &mut Ending,
) -> Result<SealedCapture, CaptureError> {
    if let CaptureSupport::Unavailable { reason } = host.capture {
        return Err(CaptureError::Unsupported { reason });
    }
    let mut cancel = cancellation.listen(host).map_err(CaptureError::Host)?;
    let before = session::before_launch(host, request, &mut cancel, ending).await?;
    let mut session = Session::launch(host, request, cancel, progress, ending, before, None)?;
    let outcome = session.run().await;
    session.conclude(outcome).await
}

/// A live capture (see [`live`] and `crate::live`): `request`'s scenario
/// runs, its events first, then those `setup`'s inbox sends, until the
/// program ends or the caller stops it. Then `derive` builds the scenario
/// of the session from the run's notes; the record is assembled as a
/// capture of that scenario. Returns the sealed capture and the derived
/// scenario.
pub async fn capture_live_async(
    host: &Host,
    request: CaptureRequest,
    cancellation: Cancellation,
    sink: Arc<dyn ProgressSink>,
    setup: live::LiveSetup,
    derive: live::Derive,
) -> Result<(SealedCapture, crate::scenario::Scenario), CaptureError> {
    let mut progress = ProgressReporter::new(sink, Instant::now());
    progress.update(Phase::Prepare, Counts::default());
    let mut ending = Ending::new();
    let inbox = Arc::clone(&setup.inbox);
    let result = live_lifecycle(host, &request, cancellation, &mut progress, &mut ending, setup, derive).await;
    inbox.close();
    progress.finish(ending.counts, &ending.states.text());
    result
}

/// [`lifecycle`] of a live capture: the derived request replaces the
/// started one before the record is assembled.
async fn live_lifecycle(
    host: &Host,
    request: &CaptureRequest,
    cancellation: Cancellation,
    progress: &mut ProgressReporter,
    ending: &mut Ending,
    setup: live::LiveSetup,
    derive: live::Derive,
) -> Result<(SealedCapture, crate::scenario::Scenario), CaptureError> {
    if let CaptureSupport::Unavailable { reason } = host.capture {
        return Err(CaptureError::Unsupported { reason });
    }
    let derived_request = std::cell::OnceCell::new();
    let mut cancel = cancellation.listen(host).map_err(CaptureError::Host)?;
    let before = session::before_launch(host, request, &mut cancel, ending).await?;
    let mut session = Session::launch(host, request, cancel, progress, ending, before, Some(setup))?;
    let outcome = session.run().await;
    let elapsed_ms = session.context.clock.ms(Instant::now());
    let derived = match session.observed.live.as_deref() {
        Some(l) => derive(&request.resolved.scenario, &l.notes, l.output_since().0, elapsed_ms),
        None => live::Derived { scenario: request.resolved.scenario.clone(), satisfied_ms: Vec::new() },
    };
    session.observed.apply_derived(&derived, request.resolved.scenario.events.len());
    let scenario = derived.scenario.clone();
    let resolved = crate::scenario::ResolvedScenario { scenario: derived.scenario, ..request.resolved.clone() };
    let derived_request =
        derived_request.get_or_init(|| CaptureRequest::new(resolved, request.host_environment.clone(), request.build));
    session.context.request = derived_request;
    Ok((session.conclude(outcome).await?, scenario))
}

#[cfg(test)]
mod cancel_tests;
#[cfg(test)]
mod fit_tests;
#[cfg(test)]
mod ownership_tests;
#[cfg(test)]
mod tests;
