//! Filesystem checkpoints taken while cancellation is watched: the snapshot
//! runs on a blocking thread; a cancellation stops it between entries.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::cancel::{Cancel, CancelCause};
use super::redact_names::{Checkpoint, redact_snapshot};
use crate::fs::{Snapshot, SnapshotError};
use crate::host::Host;
use crate::scenario::ResolvedScenario;
use crate::secrets::Secrets;

/// A checkpoint, or what a stopped snapshot had seen, with the cause that
/// stopped it.
pub(super) struct Taken {
    /// The checkpoint, or the snapshot's error (its partial observation
    /// redacted).
    pub(super) result: Result<Checkpoint, SnapshotError>,
    /// What cancelled the capture during the snapshot, if anything did.
    pub(super) cancelled: Option<CancelCause>,
}

/// Snapshots the scenario's observation paths while watching `cancel`;
/// the snapshot, or what a stopped one had seen, has `secrets` replaced in
/// its names.
pub(super) async fn take(host: &Host, cancel: &mut Cancel, resolved: &ResolvedScenario, secrets: &Secrets) -> Taken {
    enum First {
        Done(Result<Snapshot, SnapshotError>),
        Cancelled(CancelCause),
    }
    let stop = Arc::new(AtomicBool::new(false));
    let (probe, flag) = (Arc::clone(&host.fs), Arc::clone(&stop));
    let (roots, limits) = (resolved.observation_paths.clone(), resolved.scenario.limits);
    let mut task =
        blocking::unblock(move || crate::fs::snapshot(&*probe, &roots, &limits, &move || flag.load(Ordering::Relaxed)));
    let first = futures_lite::future::or(async { First::Done((&mut task).await) }, async {
        First::Cancelled(cancel.fired().await)
    })
    .await;
    let (result, cancelled) = match first {
        First::Done(result) => (result, None),
        First::Cancelled(cause) => {
            stop.store(true, Ordering::Relaxed);
            (task.await, Some(cause))
        }
    };
    let result = match result {
        Ok(snapshot) => Ok(Checkpoint::redacted(snapshot, secrets)),
        Err(mut stopped) => {
            redact_snapshot(stopped.partial_mut(), &mut secrets.redactor());
            Err(stopped)
        }
    };
    Taken { result, cancelled }
}
