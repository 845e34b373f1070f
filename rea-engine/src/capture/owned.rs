//! Everything that may signal a process: verified delivery, settlement
//! observation and owned-process cleanup.
//!
//! No signal is ever sent to a bare PID: each goes through
//! [`OwnershipVerifier::verify`], whose `Owned` proof is the only handle that
//! can signal.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::host::{
    Descendants, Host, OwnedProcess, Ownership, OwnershipClaim, OwnershipVerifier, Pid, ProcessIdentity, ProcessRow,
    Proof, RunToken, SignalError,
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
        OwnershipClaim { token: &self.token, session: Some(self.session), root: Some(self.root) }
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

/// A bounded delivery: started on a blocking thread when first polled;
/// resolves within [`DELIVERY_BOUND`]. A late result is dropped, not
/// recorded. The future owns what it needs, so it can be held beside the
/// run's other state.
pub(super) fn deliver_bounded(
    host: &Host,
    run: &RunOwnership,
    signal: SignalName,
) -> impl Future<Output = Delivery> + Send + 'static {
    let verifier = Arc::clone(&host.verifier);
    let run = run.clone();
    async move {
        let task = blocking::unblock(move || deliver_to_root(&*verifier, &run, signal));
        futures_lite::future::or(task, async {
            async_io::Timer::after(DELIVERY_BOUND).await;
            Delivery::Unverified(format!("delivery did not settle within {} ms", DELIVERY_BOUND.as_millis()))
        })
        .await
    }
}

/// Whether a row is related to the run by its session or a sampled group:
/// an unverifiable process there blocks a verified cleanup.
fn related(row: &ProcessRow, run: &RunOwnership, groups: &BTreeSet<u32>) -> bool {
    row.session == run.session || groups.contains(&row.group.0)
}

/// One settlement observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum GroupObservation {
    /// The host proved exactly that no descendant is alive.
    Proven,
    /// No live owned process was seen.
    Empty,
    /// Owned processes are still alive.
    Alive(usize),
    /// A related process could not be verified.
    Unverifiable(String),
}

/// Observes whether the run's processes have quiesced (blocking): the exact
/// check first, a verified scan of the table where the host has none.
pub(super) fn observe(host: &Host, run: &RunOwnership, groups: &BTreeSet<u32>) -> GroupObservation {
    host.pty.reap_adopted();
    match host.verifier.descendants_of(&run.claim()) {
        Descendants::NoneAlive => return GroupObservation::Proven,
        Descendants::SomeAlive | Descendants::Unknown => {}
    }
    let table = match host.inspector.table() {
        Ok(t) => t,
        Err(e) => return GroupObservation::Unverifiable(format!("process table unreadable: {e}")),
    };
    let mut alive = 0;
    for row in table.rows.iter().filter(|r| !r.zombie) {
        match host.verifier.verify(row.pid, Some(row.start), &run.claim()) {
            Ownership::Owned(_) => alive += 1,
            Ownership::Gone | Ownership::IdentityChanged | Ownership::Foreign => {}
            Ownership::Unverifiable { reason } if related(row, run, groups) => {
                return GroupObservation::Unverifiable(format!("process {}: {reason}", row.pid));
            }
            Ownership::Unverifiable { .. } => {}
        }
    }
    match host.verifier.descendants_of(&run.claim()) {
        Descendants::SomeAlive => GroupObservation::Alive(alive.max(1)),
        _ if alive == 0 => GroupObservation::Empty,
        _ => GroupObservation::Alive(alive),
    }
}

/// A process cleanup killed, and how it was proven to be the run's.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KilledProcess {
    /// Native PID.
    pub pid: u32,
    /// `lineage` or `token`.
    pub proof: Proof,
}

/// The check that ended cleanup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FinalCheck {
    /// The host proved that `rea` has no child left (`waitid` -> `ECHILD`):
    /// no descendant is alive.
    NoChildren,
    /// A verified scan of the process table found no owned process (the host
    /// has no exact check, or other launches share this process).
    ProcessTable,
}

/// What owned-process cleanup did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CleanupReport {
    /// Whether the final check proved that no owned process remained.
    pub verified: bool,
    /// The check that proved it (absent when not verified).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_check: Option<FinalCheck>,
    /// Processes killed, in order, each with its proof of ownership.
    pub killed: Vec<KilledProcess>,
    /// Process groups killed atomically (proven groups of lineage-proven processes).
    pub groups_killed: Vec<u32>,
    /// Processes stopped before the sweep so they could not fork meanwhile.
    pub frozen: u64,
    /// Related processes that could not be verified or killed: `(pid, reason)`.
    pub unresolved: Vec<(u32, String)>,
    /// Why cleanup could not run at all, or could not prove its result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Unrelated processes left untouched because their token was withheld.
    pub unverified_processes: Vec<(u32, String)>,
    /// Rounds run.
    pub rounds: u32,
}

/// Most rounds of one cleanup.
const CLEANUP_ROUNDS: u32 = 64;
/// Time bound of one cleanup (every round together).
const CLEANUP_BOUND: Duration = Duration::from_millis(5000);
/// Time bound of waiting for one round's signalled processes.
const GONE_WAIT: Duration = Duration::from_millis(2000);

/// What one scan of the table found.
#[derive(Default)]
struct Scan {
    targets: Vec<(Box<dyn OwnedProcess>, Pid)>,
    unresolved: Vec<(u32, String)>,
    unverified: Vec<(u32, String)>,
}

fn scan(host: &Host, run: &RunOwnership, groups: &BTreeSet<u32>) -> Result<Scan, String> {
    let table = host.inspector.table().map_err(|e| format!("the process table could not be read: {e}"))?;
    let mut found = Scan::default();
    let mut rows: Vec<&ProcessRow> = table.rows.iter().filter(|r| !r.zombie).collect();
    // The launched process first, then the rest by PID.
    rows.sort_by_key(|r| (r.pid != run.root.pid, r.pid));
    for row in rows {
        match host.verifier.verify(row.pid, Some(row.start), &run.claim()) {
            Ownership::Owned(p) => found.targets.push((p, row.group)),
            Ownership::Gone | Ownership::IdentityChanged | Ownership::Foreign => {}
            Ownership::Unverifiable { reason } if related(row, run, groups) => {
                found.unresolved.push((row.pid.0, reason));
            }
            Ownership::Unverifiable { .. } => {}
        }
    }
    // Rows the table could not read at all: their relation to the run is
    // unknown, so they are left alone and reported, not passed over.
    found
        .unverified
        .extend(table.unreadable.iter().map(|(pid, why)| (pid.0, format!("process status unreadable: {why}"))));
    found.unverified.sort_by_key(|(pid, _)| *pid);
    Ok(found)
}

/// Stops every target, kills each proven group at once, then each target,
/// and waits (bounded) until the signalled processes are gone.
fn kill_round(host: &Host, found: &mut Scan, report: &mut CleanupReport) {
    for (target, _) in &found.targets {
        if matches!(target.freeze(), Ok(true)) {
            report.frozen += 1;
        }
    }
    let mut groups_done = BTreeSet::new();
    for (target, group) in &found.targets {
        if target.proof() == Proof::Lineage
            && groups_done.insert(*group)
            && let Ok(Some(killed)) = target.kill_group()
            && !report.groups_killed.contains(&killed.0)
        {
            report.groups_killed.push(killed.0);
        }
    }
    let mut signalled = Vec::new();
    for (target, _) in &found.targets {
        let id = target.identity();
        match target.signal(SignalName::SIGKILL) {
            Ok(()) => {
                report.killed.push(KilledProcess { pid: id.pid.0, proof: target.proof() });
                signalled.push(id);
            }
            // Already gone (perhaps with its group): nothing was signalled.
            Err(SignalError::Gone) => signalled.push(id),
            Err(SignalError::Failed(e)) => found.unresolved.push((id.pid.0, format!("SIGKILL failed: {e}"))),
        }
    }
    let deadline = Instant::now() + GONE_WAIT;
    loop {
        host.pty.reap_adopted();
        let alive: Vec<&ProcessIdentity> = signalled
            .iter()
            .filter(|id| matches!(host.inspector.process(id.pid), Ok(Some(r)) if r.start == id.start && !r.zombie))
            .collect();
        if alive.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            found.unresolved.extend(
                alive.iter().map(|id| (id.pid.0, format!("still alive {} ms after SIGKILL", GONE_WAIT.as_millis()))),
            );
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Adds rea's own children to the targets, first, right before the kill: a
/// tree that forks and exits faster than the table scan is caught here.
fn children_first(host: &Host, run: &RunOwnership, found: &mut Scan) {
    let mut children: Vec<(Box<dyn OwnedProcess>, Pid)> = host
        .verifier
        .owned_children(&run.claim())
        .into_iter()
        .filter(|c| found.targets.iter().all(|(t, _)| t.identity().pid != c.identity().pid))
        .map(|c| {
            let group = host.inspector.process(c.identity().pid).ok().flatten().map_or(c.identity().pid, |r| r.group);
            (c, group)
        })
        .collect();
    children.append(&mut found.targets);
    found.targets = children;
}

/// Kills every owned process of the run (blocking) until the final check
/// proves none is left: "`rea` has no child" where the host can say so
/// exactly, else a verified scan finding no owned process. Bounded in rounds
/// and time; whatever survives, or cannot be proven, is listed with why.
/// Unrelated unreadable processes are left alone.
pub(super) fn cleanup(host: &Host, run: &RunOwnership, groups: &BTreeSet<u32>) -> CleanupReport {
    let started = Instant::now();
    let mut report = CleanupReport::default();
    loop {
        report.rounds += 1;
        host.pty.reap_adopted();
        let mut found = match scan(host, run, groups) {
            Ok(f) => f,
            Err(failure) => {
                report.failure = Some(failure);
                return report;
            }
        };
        report.unverified_processes = std::mem::take(&mut found.unverified);
        children_first(host, run, &mut found);
        let out_of_time = report.rounds >= CLEANUP_ROUNDS || started.elapsed() >= CLEANUP_BOUND;
        if found.targets.is_empty() && found.unresolved.is_empty() {
            match host.verifier.descendants_of(&run.claim()) {
                Descendants::NoneAlive => return report.proven(FinalCheck::NoChildren),
                Descendants::Unknown => return report.proven(FinalCheck::ProcessTable),
                // A descendant the scan could not see (it forked and exited
                // meanwhile): sweep again.
                Descendants::SomeAlive if !out_of_time => continue,
                Descendants::SomeAlive => return report.unseen_descendant(started),
            }
        }
        if out_of_time {
            report.unresolved = found.unresolved;
            report.unresolved.extend(found.targets.iter().map(|(t, _)| {
                (t.identity().pid.0, "owned and still alive when cleanup's time bound ran out".to_owned())
            }));
            return report;
        }
        if found.targets.is_empty() {
            // Only unverifiable processes remain: nothing may be signalled.
            report.unresolved = found.unresolved;
            return report;
        }
        kill_round(host, &mut found, &mut report);
        report.unresolved = found.unresolved;
    }
}

/// Cleanup of a run whose `rea` died, by the backend's keeper (the process
/// that held the launched tree for it): the same proof rules, the same
/// rounds and bounds as [`cleanup`], with the launched process's identity
/// and the run token as the claim. No process groups were sampled for it.
pub fn cleanup_orphaned_run(host: &Host, token: RunToken, root: ProcessIdentity) -> CleanupReport {
    let run = RunOwnership { token, root, session: root.pid };
    cleanup(host, &run, &BTreeSet::new())
}

impl CleanupReport {
    /// The report of a cleanup that ran out of rounds or time while the host
    /// still said a descendant was alive that no scan could see.
    fn unseen_descendant(mut self, started: Instant) -> CleanupReport {
        self.failure = Some(format!(
            "a descendant of rea was still alive after {} cleanup rounds ({} ms), but no scan could see it",
            self.rounds,
            started.elapsed().as_millis()
        ));
        self
    }

    fn proven(mut self, check: FinalCheck) -> CleanupReport {
        self.verified = true;
        self.final_check = Some(check);
        self.unresolved.clear();
        self
    }
}
