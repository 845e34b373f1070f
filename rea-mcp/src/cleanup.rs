//! Pending cleanup of this session (specification, "Cleanup retry
//! semantics"): a failed cleanup keeps its resources attached to the session;
//! they are retried before another capture is admitted and at session end,
//! and captures are refused while any is still pending.
//!
//! The retry itself is [`retry_one`], the single place to swap when the
//! engine takes over the retry policy.

use rea_engine::capture::CaptureError;
use rea_engine::{Host, UserError};
use serde_json::Value;

/// Retries one pending cleanup; true when its owned processes are now
/// verified gone. The failure keeps the facts of its first attempt and
/// records the latest retry.
pub(crate) fn retry_one(host: &Host, failure: &mut CaptureError) -> bool {
    failure.retry_cleanup(host)
}

/// The session's failed cleanups, each kept as the capture error that owns
/// its resources.
#[derive(Default)]
pub(crate) struct PendingCleanups {
    owners: Vec<CaptureError>,
}

impl PendingCleanups {
    /// Adds a failed cleanup.
    pub(crate) fn push(&mut self, failure: CaptureError) {
        self.owners.push(failure);
    }

    /// Retries every owner once and drops the released ones.
    pub(crate) fn retry_all(&mut self, host: &Host) {
        self.owners.retain_mut(|owner| !retry_one(host, owner));
    }

    /// How many are still pending.
    pub(crate) fn len(&self) -> usize {
        self.owners.len()
    }

    /// The details (cleanup report and latest retry) of each pending owner.
    pub(crate) fn details(&self) -> Vec<Value> {
        self.owners.iter().map(|o| o.details().unwrap_or(Value::Null)).collect()
    }
}
