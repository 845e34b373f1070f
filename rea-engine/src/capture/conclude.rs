//! How the command's end was observed after it ran, and what the capture
//! may be made of once cleanup has run.

use std::collections::BTreeSet;
use std::time::Instant;

use serde_json::Value;

use super::cancel::CancelCause;
use super::checkpoint;
use super::error::{CaptureError, PendingCleanup, snapshot_json};
use super::owned::{CleanupReport, RunOwnership};
use super::parts::{Context, FinalStates};
use super::progress::{Disposition, Released, RootState};
use super::redact_names::Checkpoint;
use super::run::RunOutcome;
use super::sampler::SamplerResult;
use crate::evidence::SettlementState;
use crate::fs::SnapshotError;
use crate::secrets::Secrets;

/// How the command's end was observed, before cleanup.
pub(super) enum Ended {
    /// Settled (or found unsettled) and snapshotted afterwards.
    Observed { settlement: (SettlementState, u64), after: Result<Checkpoint, SnapshotError> },
    /// A cancellation came first: its cause, and what the snapshot had seen.
    Cancelled { cause: CancelCause, partial_observation: Option<Value> },
}

/// What a record is made of besides the observation: the settled run's
/// verdict, the sampler's rows and the cleanup's facts.
pub(super) struct Concluded {
    /// Settlement, the after-checkpoint and the cleanup report.
    pub(super) verdict: Verdict,
    /// What the sampler recorded (an exact journal's rows in their place).
    pub(super) sampled: SamplerResult,
    /// How the rows were observed.
    pub(super) processes: super::exact::ProcessMode,
    /// Whether the temporary root was removed.
    pub(super) temporary_root_removed: bool,
    /// When settlement ended (the journal's settlement mark).
    pub(super) settled_at: Instant,
}

/// A run observed to its end whose cleanup was proven.
pub(super) struct Verdict {
    /// The settlement state and how long it took.
    pub(super) settlement: (SettlementState, u64),
    /// The filesystem afterwards.
    pub(super) after: Checkpoint,
    /// What cleanup did.
    pub(super) cleanup: CleanupReport,
}

impl Ended {
    /// Takes the after-snapshot of a settled run, unless the capture was
    /// cancelled during settling (`settled` is its cause) or the snapshot.
    pub(super) async fn observe(
        context: &mut Context<'_>,
        secrets: &Secrets,
        settled: Result<(SettlementState, u64), CancelCause>,
    ) -> Ended {
        let settlement = match settled {
            Ok(settlement) => settlement,
            Err(cause) => return Ended::Cancelled { cause, partial_observation: None },
        };
        let resolved = &context.request.resolved;
        let taken = checkpoint::take(context.host, &mut context.cancel, resolved, secrets).await;
        match taken.cancelled {
            None => Ended::Observed { settlement, after: taken.result },
            Some(cause) => {
                let partial_observation = taken.result.err().map(|e| snapshot_json(e.partial()));
                Ended::Cancelled { cause, partial_observation }
            }
        }
    }

    /// The states progress reports last, once cleanup has run.
    pub(super) fn final_states(
        &self,
        report: &CleanupReport,
        outcome: &RunOutcome,
        terminal_renderer: Released,
        temporary_root_removed: bool,
    ) -> FinalStates {
        FinalStates {
            disposition: match self {
                Ended::Cancelled { .. } => Disposition::Cancelled,
                Ended::Observed { .. } if report.verified => outcome.reason.into(),
                Ended::Observed { .. } => Disposition::Failed,
            },
            owned_process_group: if report.verified { Released::Cleaned } else { Released::Failed },
            terminal_renderer,
            temporary_root: RootState::removed(temporary_root_removed),
        }
    }

    /// What a record may be made of: a run observed to its end whose
    /// cleanup was proven. Otherwise the error that says why not (a cleanup
    /// left unproven keeps what it needs to be retried).
    pub(super) fn verdict(
        self,
        report: CleanupReport,
        run: RunOwnership,
        groups: &BTreeSet<u32>,
    ) -> Result<Verdict, CaptureError> {
        match self {
            Ended::Cancelled { cause, partial_observation } => {
                Err(CaptureError::Cancelled { cause, cleanup: Box::new(report), partial_observation })
            }
            Ended::Observed { .. } if !report.verified => Err(CaptureError::CleanupIncomplete {
                report: Box::new(report),
                pending: Box::new(PendingCleanup { run, groups: groups.clone() }),
                retried: None,
            }),
            Ended::Observed { settlement, after } => {
                Ok(Verdict { settlement, after: after.map_err(CaptureError::Snapshot)?, cleanup: report })
            }
        }
    }
}
