//! Why a capture produced no Evidence, as the user reads it.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::cancel::CancelCause;
use super::owned::{self, CleanupReport, RunOwnership};
use crate::error::{Category, UserError};
use crate::fs::{Snapshot, SnapshotError};
use crate::host::{Host, HostError};
use crate::scenario::ResolveError;

/// Why no capture Evidence was produced.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// This host cannot capture.
    #[error("process capture is unavailable on this host: {reason}")]
    Unsupported {
        /// Why.
        reason: &'static str,
    },
    /// The scenario cannot run on this host (working directory, executable).
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// The command could not be started.
    #[error("{0}")]
    Spawn(HostError),
    /// A host operation needed to run the capture failed.
    #[error("{0}")]
    Host(HostError),
    /// The private temporary root could not be created.
    #[error("the private temporary directory could not be created: {0}")]
    TemporaryRoot(std::io::Error),
    /// The run was cancelled (see [`CancelCause`]).
    #[error("process capture was cancelled by {cause}; the launched command was killed and cleanup {}", if .cleanup.verified { "verified that no owned process remains" } else { "could not verify every owned process" })]
    Cancelled {
        /// What cancelled it.
        cause: CancelCause,
        /// What cleanup did.
        cleanup: Box<CleanupReport>,
        /// Entries examined by an interrupted snapshot, if one was running.
        partial_observation: Option<Value>,
    },
    /// Owned processes could not all be verified gone.
    #[error("owned-process cleanup is incomplete: {}", describe_unresolved(.report))]
    CleanupIncomplete {
        /// What the capture's own cleanup did.
        report: Box<CleanupReport>,
        /// What is needed to retry the cleanup.
        pending: Box<PendingCleanup>,
        /// The outcome of the latest retry, if one ran.
        retried: Option<Box<CleanupReport>>,
    },
    /// A filesystem snapshot failed without an OS error code.
    #[error("{0}")]
    Snapshot(SnapshotError),
}

/// The resources of a cleanup that could not be verified, kept so the owner
/// can retry it (the CLI retries once before printing its error).
#[derive(Debug, Clone)]
pub struct PendingCleanup {
    pub(super) run: RunOwnership,
    pub(super) groups: BTreeSet<u32>,
}

impl CaptureError {
    /// Retries a pending cleanup once; the error keeps the facts of the
    /// original attempt and records the retry. Returns whether owned
    /// processes are now verified gone (true when nothing was pending).
    pub fn retry_cleanup(&mut self, host: &Host) -> bool {
        match self {
            CaptureError::CleanupIncomplete { pending, retried, .. } => {
                let report = owned::cleanup(host, &pending.run, &pending.groups);
                let verified = report.verified;
                *retried = Some(Box::new(report));
                verified
            }
            _ => true,
        }
    }
}

fn describe_unresolved(report: &CleanupReport) -> String {
    let list = &report.unresolved;
    if let Some(failure) = &report.failure {
        return failure.clone();
    }
    if list.is_empty() {
        return "owned processes were still alive after every cleanup round".into();
    }
    list.iter().map(|(pid, r)| format!("PID {pid}: {r}")).collect::<Vec<_>>().join("; ")
}

impl UserError for CaptureError {
    fn category(&self) -> Category {
        match self {
            CaptureError::Unsupported { .. } => Category::UnsupportedProvider,
            CaptureError::Resolve(e) => e.category(),
            CaptureError::Spawn(e) => e.category(),
            CaptureError::Host(_) | CaptureError::TemporaryRoot(_) | CaptureError::Snapshot(_) => {
                Category::ExecutionFailure
            }
            CaptureError::Cancelled { .. } => Category::Cancelled,
            CaptureError::CleanupIncomplete { .. } => Category::ExecutionFailure,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            CaptureError::Unsupported { .. } => "capture_unsupported",
            CaptureError::Resolve(e) => e.code(),
            CaptureError::Spawn(_) => "spawn_failed",
            CaptureError::Host(_) | CaptureError::TemporaryRoot(_) | CaptureError::Snapshot(_) => {
                "process_capture_failed"
            }
            CaptureError::Cancelled { .. } => "cancelled",
            CaptureError::CleanupIncomplete { .. } => "cleanup_incomplete",
        }
    }
    fn remediation(&self) -> String {
        match self {
            CaptureError::Unsupported { .. } => "Capture on Linux or macOS; comparing existing captures works here.".into(),
            CaptureError::Resolve(e) => e.remediation(),
            CaptureError::Spawn(e) => e.remediation(),
            CaptureError::Cancelled { .. } => "Start the capture again when ready.".into(),
            CaptureError::CleanupIncomplete { .. } => "Inspect the listed processes (they were left untouched because their ownership could not be proven), stop them if they are yours, then run `rea doctor` and capture again.".into(),
            _ => "Run `rea doctor`, then try again.".into(),
        }
    }
    fn retryable(&self) -> bool {
        matches!(self, CaptureError::Cancelled { .. })
    }
    fn details(&self) -> Option<Value> {
        match self {
            CaptureError::Resolve(e) => e.details(),
            CaptureError::Cancelled { cause, cleanup, partial_observation } => Some(json!({
                "operation": "process_capture",
                "signal": cause.as_str(),
                "cleanup": if cleanup.verified { "complete" } else { "incomplete" },
                "cleanup_report": cleanup,
                "partial_observation": partial_observation,
            })),
            CaptureError::CleanupIncomplete { report, retried, .. } => Some(json!({
                "operation": "process_capture",
                "cleanup": if retried.as_ref().is_some_and(|r| r.verified) { "complete" } else { "incomplete" },
                "cleanup_report": report,
                "cleanup_retry": retried,
            })),
            CaptureError::Spawn(HostError::Spawn { program, .. }) => Some(json!({
                "operation": "process_capture",
                "executable": program.display().to_string(),
            })),
            CaptureError::Snapshot(e) => Some(json!({
                "operation": "process_capture",
                "partial_observation": snapshot_json(e.partial()),
            })),
            _ => Some(json!({ "operation": "process_capture" })),
        }
    }
}

pub(super) fn snapshot_json(s: &Snapshot) -> Value {
    json!({ "files": s.files, "truncation": s.truncation })
}

/// The error of a record that could not be serialized.
pub(super) fn serialization_error(e: serde_json::Error) -> CaptureError {
    CaptureError::Host(HostError::Io { op: "serialize the capture", source: std::io::Error::other(e) })
}
