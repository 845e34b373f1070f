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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rea_engine::BuildInfo;
    use rea_engine::capture::progress::NullProgress;
    use rea_engine::capture::{Cancellation, CaptureError, CaptureRequest, capture};
    use rea_engine::host::ExitStatus;
    use rea_engine::scenario::SignalName;
    use rea_engine::testing::fakes::{FakeOwnership, FakeWorld};
    use serde_json::json;

    use crate::session::Session;

    const BUILD: BuildInfo = BuildInfo { version: "0.0.0-test", revision: None, target: "test" };

    /// A world whose descendant 5000 cannot be verified, and the failed
    /// capture that leaves it pending.
    fn failed_cleanup() -> (FakeWorld, CaptureError) {
        let world = FakeWorld::new();
        world.add_descendant(5000);
        world.set_ownership(5000, FakeOwnership::Unverifiable("ownership token unreadable: EPERM".into()));
        world.exit(ExitStatus::Code(0));
        let dir = tempfile::tempdir().unwrap();
        let resolved = rea_engine::testing::resolve(dir.path(), json!({"executable": "sh", "settle_ms": 0}));
        let request = CaptureRequest::new(resolved, Vec::new(), BUILD);
        match capture(&world.host(), request, Cancellation::none(), Arc::new(NullProgress)) {
            Err(e @ CaptureError::CleanupIncomplete { .. }) => (world, e),
            other => panic!("expected cleanup_incomplete, got {:?}", other.map(|e| e.evidence_id)),
        }
    }

    #[test]
    fn a_pending_cleanup_refuses_captures_until_a_retry_releases_it() {
        let (world, failure) = failed_cleanup();
        let session = Session::new(world.host(), BUILD);
        session.keep_pending(failure);
        let scenario =
            rea_engine::scenario::parse_scenario(json!({"executable": "sh", "arguments": ["refused"]})).unwrap();
        let refused = crate::capture::captured(&session, scenario, Arc::new(NullProgress), Cancellation::none());
        let doc = refused.structured_content.clone().unwrap();
        assert_eq!(refused.is_error, Some(true));
        assert_eq!(doc["code"], "cleanup_incomplete", "{doc}");
        assert!(doc["message"].as_str().unwrap().starts_with("capture refused"), "{doc}");
        assert_eq!(doc["details"]["pending"][0]["cleanup_retry"]["verified"], false, "{doc}");
        let launched = world.spawned().map(|s| s.args).unwrap_or_default();
        assert_ne!(launched, ["refused"], "a refused capture launched its command");
        assert!(world.delivered().is_empty(), "an unverifiable process is never signalled");
        // Once the process is verifiable, the retry before admission kills it.
        world.set_ownership(5000, FakeOwnership::Owned);
        assert!(session.admit().is_empty());
        assert_eq!(world.delivered(), [(5000, SignalName::SIGKILL)]);
    }

    #[test]
    fn session_end_retries_pending_cleanup() {
        let (world, failure) = failed_cleanup();
        let session = Session::new(world.host(), BUILD);
        session.keep_pending(failure);
        assert_eq!(session.drain_pending(), 1, "still unverifiable");
        world.set_ownership(5000, FakeOwnership::Owned);
        assert_eq!(session.drain_pending(), 0);
        assert_eq!(world.delivered(), [(5000, SignalName::SIGKILL)]);
    }
}
