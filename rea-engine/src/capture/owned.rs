//! Everything that may signal a process: verified delivery, settlement
//! observation and owned-process cleanup.
//!
//! No signal is ever sent to a bare PID: each goes through
//! [`OwnershipVerifier::verify`], whose `Owned` proof is the only handle that
//! can signal.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::host::{
    Host, Ownership, OwnershipClaim, OwnershipVerifier, Pid, ProcessIdentity, ProcessRow, RunToken, SignalError,
};
use crate::scenario::SignalName;

/// Bound on one signal delivery (identity check plus signal call).
pub(super) const DELIVERY_BOUND: Duration = Duration::from_millis(1000);

/// The outcome of a verified delivery, in the record's vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// Identity matched and the signal call returned.
    Signaled,
    /// No live process matched.
    Gone,
    /// The PID belongs to a different process, which was not signalled.
    IdentityChanged,
    /// Identity not established, or the call failed.
    Unverified(String),
}

impl Delivery {
    /// The record's spelling.
    pub fn as_str(&self) -> &'static str {
        self.record().as_str()
    }

    /// The record's value.
    pub fn record(&self) -> crate::evidence::SignalDelivery {
        use crate::evidence::SignalDelivery;
        match self {
            Delivery::Signaled => SignalDelivery::Signaled,
            Delivery::Gone => SignalDelivery::Gone,
            Delivery::IdentityChanged => SignalDelivery::IdentityChanged,
            Delivery::Unverified(_) => SignalDelivery::Unverified,
        }
    }

    /// The reason of an unverified delivery.
    pub fn reason(&self) -> Option<String> {
        match self {
            Delivery::Unverified(r) => Some(r.clone()),
            _ => None,
        }
    }
}

/// The facts identifying this run's processes.
#[derive(Debug, Clone)]
pub(super) struct RunOwnership {
    /// The run token.
    pub token: RunToken,
    /// The launched process.
    pub root: ProcessIdentity,
    /// The session it leads.
    pub session: Pid,
}

impl RunOwnership {
    fn claim(&self) -> OwnershipClaim<'_> {
        OwnershipClaim { token: &self.token, session: Some(self.session) }
    }
}

/// Verifies the launched process and sends it `signal` (blocking).
pub(super) fn deliver_to_root(verifier: &dyn OwnershipVerifier, run: &RunOwnership, signal: SignalName) -> Delivery {
    match verifier.verify(run.root.pid, Some(run.root.start), &run.claim()) {
        Ownership::Owned(proc_) => match proc_.signal(signal) {
            Ok(()) => Delivery::Signaled,
            Err(SignalError::Gone) => Delivery::Gone,
            Err(SignalError::Failed(e)) => Delivery::Unverified(format!("signal call failed: {e}")),
        },
        Ownership::Gone => Delivery::Gone,
        Ownership::IdentityChanged => Delivery::IdentityChanged,
        Ownership::Foreign => Delivery::Unverified("the process does not carry this run's ownership token".into()),
        Ownership::Unverifiable { reason } => Delivery::Unverified(reason),
    }
}

/// Starts a bounded delivery on a blocking thread; resolves within
/// [`DELIVERY_BOUND`]. A late result is dropped, not recorded.
pub(super) async fn deliver_bounded(host: &Host, run: &RunOwnership, signal: SignalName) -> Delivery {
    let verifier = Arc::clone(&host.verifier);
    let run = run.clone();
    let task = blocking::unblock(move || deliver_to_root(&*verifier, &run, signal));
    futures_lite::future::or(task, async {
        async_io::Timer::after(DELIVERY_BOUND).await;
        Delivery::Unverified(format!("delivery did not settle within {} ms", DELIVERY_BOUND.as_millis()))
    })
    .await
}

/// Whether `pid` descends from this process according to `rows`.
fn descends_from_self(rows: &[ProcessRow], pid: Pid) -> bool {
    let me = Pid(std::process::id());
    let mut current = pid;
    for _ in 0..rows.len().min(4096) + 1 {
        let Some(row) = rows.binary_search_by_key(&current, |r| r.pid).ok().map(|i| &rows[i]) else { return false };
        if row.parent == me {
            return true;
        }
        if row.parent.0 <= 1 || row.parent == current {
            return false;
        }
        current = row.parent;
    }
    false
}

/// Live processes related to the run: descendants of `rea`, members of the
/// run's session or of a sampled process group.
fn related(rows: &[ProcessRow], run: &RunOwnership, groups: &BTreeSet<u32>) -> Vec<ProcessRow> {
    let me = Pid(std::process::id());
    rows.iter()
        .filter(|r| !r.zombie && r.pid != me)
        .filter(|r| r.session == run.session || groups.contains(&r.group.0) || descends_from_self(rows, r.pid))
        .cloned()
        .collect()
}

/// One settlement observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum GroupObservation {
    /// No live related process.
    Empty,
    /// Owned processes are still alive.
    Alive(usize),
    /// A related process could not be verified.
    Unverifiable(String),
}

/// Observes whether the run's processes have quiesced (blocking).
pub(super) fn observe(host: &Host, run: &RunOwnership, groups: &BTreeSet<u32>) -> GroupObservation {
    let table = match host.inspector.table() {
        Ok(t) => t,
        Err(e) => return GroupObservation::Unverifiable(format!("process table unreadable: {e}")),
    };
    let mut alive = 0;
    for row in related(&table.rows, run, groups) {
        match host.verifier.verify(row.pid, Some(row.start), &run.claim()) {
            Ownership::Owned(_) => alive += 1,
            Ownership::Gone | Ownership::IdentityChanged => {}
            Ownership::Foreign => {
                return GroupObservation::Unverifiable(format!(
                    "process {} is related to the run but carries a different ownership token",
                    row.pid
                ));
            }
            Ownership::Unverifiable { reason } => {
                return GroupObservation::Unverifiable(format!("process {}: {reason}", row.pid));
            }
        }
    }
    if alive == 0 { GroupObservation::Empty } else { GroupObservation::Alive(alive) }
}

/// What owned-process cleanup did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CleanupReport {
    /// Whether no owned process remained at the end.
    pub verified: bool,
    /// Processes killed (PIDs, in order).
    pub killed: Vec<u32>,
    /// Related processes that could not be verified or killed: `(pid, reason)`.
    pub unresolved: Vec<(u32, String)>,
    /// Why cleanup could not run at all (the process table was unreadable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Unrelated processes left untouched because their token was withheld.
    pub unverified_processes: Vec<(u32, String)>,
    /// Rounds run.
    pub rounds: u32,
}

const CLEANUP_ROUNDS: u32 = 8;
const GONE_WAIT: Duration = Duration::from_millis(2000);

/// Kills every owned process of the run and verifies the family is gone
/// (blocking). Unrelated unreadable processes are left alone.
pub(super) fn cleanup(host: &Host, run: &RunOwnership, groups: &BTreeSet<u32>) -> CleanupReport {
    let reap = || {
        host.pty.reap_adopted();
    };
    let mut report = CleanupReport::default();
    let sweep_claim = OwnershipClaim { token: &run.token, session: None };
    for round in 1..=CLEANUP_ROUNDS {
        report.rounds = round;
        reap();
        let table = match host.inspector.table() {
            Ok(t) => t,
            Err(e) => {
                report.failure = Some(format!("the process table could not be read: {e}"));
                return report;
            }
        };
        let mut related_rows = related(&table.rows, run, groups);
        let related_pids: BTreeSet<Pid> = related_rows.iter().map(|r| r.pid).collect();
        let mut targets = Vec::new();
        let mut unresolved = Vec::new();
        let mut unverified = Vec::new();
        // The launched process first, then the rest by PID.
        related_rows.sort_by_key(|r| (r.pid != run.root.pid, r.pid));
        for row in &related_rows {
            match host.verifier.verify(row.pid, Some(row.start), &run.claim()) {
                Ownership::Owned(p) => targets.push(p),
                Ownership::Gone | Ownership::IdentityChanged | Ownership::Foreign => {}
                Ownership::Unverifiable { reason } => unresolved.push((row.pid.0, reason)),
            }
        }
        // Sweep: processes outside the tree that still carry the token.
        let me = Pid(std::process::id());
        for row in table.rows.iter().filter(|r| !r.zombie && r.pid != me && !related_pids.contains(&r.pid)) {
            match host.verifier.verify(row.pid, Some(row.start), &sweep_claim) {
                Ownership::Owned(p) => targets.push(p),
                Ownership::Unverifiable { reason } if groups.contains(&row.group.0) => {
                    unverified.push((row.pid.0, reason));
                }
                _ => {}
            }
        }
        // Rows the table could not read at all: their relation to the run is
        // unknown, so they are left alone and reported, not passed over.
        unverified
            .extend(table.unreadable.iter().map(|(pid, why)| (pid.0, format!("process status unreadable: {why}"))));
        if targets.is_empty() && unresolved.is_empty() {
            report.verified = true;
            report.unresolved.clear();
            report.unverified_processes = unverified;
            return report;
        }
        let mut signalled = Vec::new();
        for target in &targets {
            let id = target.identity();
            match target.signal(SignalName::SIGKILL) {
                Ok(()) => {
                    report.killed.push(id.pid.0);
                    signalled.push(id);
                }
                Err(SignalError::Gone) => {}
                Err(SignalError::Failed(e)) => unresolved.push((id.pid.0, format!("SIGKILL failed: {e}"))),
            }
        }
        // Wait, with a deadline, until the signalled processes are gone.
        let deadline = Instant::now() + GONE_WAIT;
        loop {
            reap();
            let remaining = signalled
                .iter()
                .filter(|id| {
                    matches!(
                        host.inspector.process(id.pid),
                        Ok(Some(r)) if r.start == id.start && !r.zombie
                    )
                })
                .count();
            if remaining == 0 || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        report.unresolved = unresolved;
        report.unverified_processes = unverified;
    }
    report
}
