//! The guard of a capture's launched tree: it is killed and reaped on every
//! path out of the lifecycle.

use std::collections::BTreeSet;

use super::owned::{self, CleanupReport, RunOwnership};
use crate::host::{Host, PtyProcess};

/// Owns the launched tree from spawn on. The lifecycle cleans up explicitly
/// ([`TreeGuard::cleanup`]) to record what happened; if it returns early with
/// an error or unwinds from a panic first, dropping the guard kills every
/// owned process and reaps it (blocking, bounded like every cleanup).
pub(super) struct TreeGuard {
    host: Host,
    pub(super) run: RunOwnership,
    /// Process groups seen so far (the sampler's), for relatedness.
    pub(super) groups: BTreeSet<u32>,
    pub(super) process: Box<dyn PtyProcess>,
    armed: bool,
}

impl TreeGuard {
    /// Takes ownership of a just-launched process.
    pub(super) fn new(host: &Host, run: RunOwnership, process: Box<dyn PtyProcess>) -> TreeGuard {
        TreeGuard { host: host.clone(), run, groups: BTreeSet::new(), process, armed: true }
    }

    /// Kills and reaps the tree, closes the terminal and disarms the guard;
    /// the report says what was proven.
    pub(super) async fn cleanup(&mut self) -> CleanupReport {
        let (h, r, g) = (self.host.clone(), self.run.clone(), self.groups.clone());
        let report = blocking::unblock(move || owned::cleanup(&h, &r, &g)).await;
        self.armed = false;
        self.process.close_terminal();
        report
    }
}

impl Drop for TreeGuard {
    fn drop(&mut self) {
        if self.armed {
            owned::cleanup(&self.host, &self.run, &self.groups);
        }
        self.process.close_terminal();
    }
}
