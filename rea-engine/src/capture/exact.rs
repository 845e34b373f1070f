//! Exact process observation in the record: the host's journal of every
//! fork, exec and exit takes the place of the samples (see
//! `docs/decisions.md`, "Exact process observation").

use std::time::{Duration, Instant};

use super::sampler::{RawSample, SamplerResult};
use crate::host::ExactJournal;

/// How the record's process rows were observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ProcessMode {
    /// The scenario asked for sampling.
    Sampled,
    /// Every process image was journaled (each row carries its end).
    Exact,
    /// Exact observation was asked for and not available: sampled, and why.
    Fallback {
        /// The host's reason.
        reason: String,
    },
}

impl ProcessMode {
    /// Whether the rows are an exact journal.
    pub(super) fn is_exact(&self) -> bool {
        matches!(self, ProcessMode::Exact)
    }
}

/// Puts the journal's rows in place of the samples (the sampler's process
/// groups stay, for cleanup); `None`: the scenario asked for sampling.
pub(super) fn apply(journal: Option<ExactJournal>, sampled: &mut SamplerResult, launch: Instant) -> ProcessMode {
    let (rows, dropped) = match journal {
        None => return ProcessMode::Sampled,
        Some(ExactJournal::Unavailable { reason }) => return ProcessMode::Fallback { reason },
        Some(ExactJournal::Observed { rows, dropped }) => (rows, dropped),
    };
    sampled.samples = rows
        .into_iter()
        .map(|r| RawSample {
            at_ms: r.at_us / 1000,
            pid: r.pid.0,
            parent: r.parent.0,
            command: r.command,
            command_bytes: r.command_bytes,
            unread: r.unread,
            group: 0,
            session: 0,
            recorded: launch + Duration::from_micros(r.at_us),
            exit: r.exit,
        })
        .collect();
    sampled.limit_reached = dropped > 0;
    sampled.failures = 0;
    sampled.first_failure = None;
    ProcessMode::Exact
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{ExitStatus, Pid, TracedImage};

    #[test]
    fn a_journal_replaces_the_samples_and_keeps_the_groups() {
        let mut sampled = SamplerResult { failures: 2, ..Default::default() };
        sampled.groups.insert(7);
        let row = TracedImage {
            at_us: 2500,
            pid: Pid(10),
            parent: Pid(9),
            command: "date".into(),
            command_bytes: 4,
            unread: None,
            exit: Some(ExitStatus::Code(0)),
        };
        let journal = ExactJournal::Observed { rows: vec![row], dropped: 3 };
        let mode = apply(Some(journal), &mut sampled, Instant::now());
        assert_eq!(mode, ProcessMode::Exact);
        assert_eq!(sampled.samples.len(), 1);
        assert_eq!(sampled.samples[0].exit, Some(ExitStatus::Code(0)));
        assert_eq!((sampled.samples[0].at_ms, sampled.samples[0].command.as_str()), (2, "date"));
        assert!(sampled.limit_reached);
        assert_eq!(sampled.failures, 0);
        assert!(sampled.groups.contains(&7));
        let refused = ExactJournal::Unavailable { reason: "refused".into() };
        assert_eq!(
            apply(Some(refused), &mut sampled, Instant::now()),
            ProcessMode::Fallback { reason: "refused".into() }
        );
        assert_eq!(apply(None, &mut sampled, Instant::now()), ProcessMode::Sampled);
    }
}
