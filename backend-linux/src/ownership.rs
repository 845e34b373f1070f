//! Ownership proof on Linux: lineage through `rea`'s own process tree, the
//! run token where lineage cannot show it, start identity, and a pidfd.
//!
//! Lineage: `rea` is the child subreaper, so a descendant's live ancestor
//! chain ends at a child of `rea`, whose PID cannot be reused until `rea`
//! reaps it; each link is confirmed by re-reading the child after its parent
//! (see `lineage`). The exact final check is `waitid(P_ALL)` -> `ECHILD`.
//!
//! A pidfd is opened *before* the identity check, so the descriptor names the
//! process whose identity is then read: a PID reused after the check can never
//! receive the signal, because the signal goes to the descriptor, not to the
//! number. The identity (`starttime` in `/proc/<pid>/stat`) is read before and
//! after the token (`REA_PROCESS_RUN_ID` in `/proc/<pid>/environ`); any change
//! between the two reads leaves the process unverified rather than adopting a
//! replacement. Where the kernel has no pidfds, the same checks run and the
//! signal is a `kill` issued right after the second identity read (recorded
//! as mechanism `checked-kill`).

use std::os::fd::OwnedFd;

use rea_engine::evidence::SignalMechanism;
use rea_engine::host::{
    Descendants, OwnedProcess, Ownership, OwnershipClaim, OwnershipVerifier, Pid, ProcessIdentity, Proof, SignalError,
    StartTime,
};
use rea_engine::scenario::{RUN_TOKEN_VARIABLE, SignalName};
use rustix::process::{PidfdFlags, WaitId, WaitIdOptions};

use crate::procfs::{self, EnvLookup};

/// Verifies ownership through `/proc` and signals through pidfds.
#[derive(Debug, Default)]
pub struct EnvironVerifier;

/// The native number of a signal name.
pub(crate) fn signal_number(signal: SignalName) -> rustix::process::Signal {
    use rustix::process::Signal;
    match signal {
        SignalName::SIGINT => Signal::INT,
        SignalName::SIGTERM => Signal::TERM,
        SignalName::SIGKILL => Signal::KILL,
        SignalName::SIGHUP => Signal::HUP,
        SignalName::SIGQUIT => Signal::QUIT,
        SignalName::SIGUSR1 => Signal::USR1,
        SignalName::SIGUSR2 => Signal::USR2,
    }
}

/// Whether pidfds work on this kernel.
pub(crate) fn pidfds_available() -> bool {
    let me = rustix::process::getpid();
    rustix::process::pidfd_open(me, PidfdFlags::empty()).is_ok()
}

/// Most ancestry levels followed (deeper trees are not proven by lineage).
const MAX_DEPTH: usize = 4096;
/// Retries of one ancestry level whose parent changed while it was read.
const LEVEL_RETRIES: usize = 8;

/// What the ancestry walk proved about a process.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lineage {
    /// It descends from the run's launched process (or, while that launch is
    /// the only one in this process, from any child of `rea`).
    Descendant,
    /// It does not.
    Outside,
}

/// Whether the process whose current status is `st` descends from the run,
/// proven race-free.
///
/// `rea` is the child subreaper, so every live descendant of a launched
/// process has a live ancestor chain ending at a child of `rea`, and a child
/// of `rea` keeps its PID until `rea` reaps it. Each link "X's parent is P"
/// is confirmed by reading P and then re-reading X: if X still names P (and
/// has its start identity), P was alive while it was read, because a dead
/// parent's children are re-parented at once and never back. The chain is
/// proven when it ends at `rea`: through the run's launched process (its
/// identity), or through any child of `rea` while the run is the only launch
/// of this process (an orphan adopted by `rea` then can only be the run's).
fn lineage(st: procfs::Stat, claim: &OwnershipClaim<'_>) -> Lineage {
    let me = std::process::id();
    if st.pid == me {
        return Lineage::Outside;
    }
    let root = claim.root;
    let mut current = st;
    'levels: for _ in 0..MAX_DEPTH {
        if current.ppid == me {
            // A child of rea: the run's keeper (the launched tree's
            // ancestor), or the launched process itself once its keeper died.
            let is_root = root.is_some_and(|r| r.pid.0 == current.pid && r.start.0 == current.starttime);
            let is_keeper =
                root.is_some_and(|r| crate::keeper::find(current.pid, current.starttime).is_some_and(|k| k.holds(r)));
            return if is_root || is_keeper || crate::pty::sole_launch() {
                Lineage::Descendant
            } else {
                Lineage::Outside
            };
        }
        if current.ppid <= 1 {
            return Lineage::Outside;
        }
        for _ in 0..LEVEL_RETRIES {
            let parent = match procfs::stat(current.ppid) {
                Ok(Some(p)) => p,
                _ => return Lineage::Outside,
            };
            match procfs::stat(current.pid) {
                Ok(Some(again)) if again.starttime == current.starttime && again.ppid == current.ppid => {
                    current = parent;
                    continue 'levels;
                }
                // Re-parented meanwhile: follow the new parent.
                Ok(Some(again)) if again.starttime == current.starttime => current = again,
                _ => return Lineage::Outside,
            }
        }
        return Lineage::Outside;
    }
    Lineage::Outside
}

/// The status of `pid`, unless it exited: `Err` carries the verdict.
fn live_stat(pid: u32) -> Result<procfs::Stat, Ownership> {
    match procfs::stat(pid) {
        Ok(Some(st)) if st.exited() => Err(Ownership::Gone),
        Ok(Some(st)) => Ok(st),
        Ok(None) => Err(Ownership::Gone),
        Err(e) => Err(Ownership::Unverifiable { reason: format!("start identity unreadable: {e}") }),
    }
}

impl OwnershipVerifier for EnvironVerifier {
    fn verify(&self, pid: Pid, expected: Option<StartTime>, claim: &OwnershipClaim<'_>) -> Ownership {
        let Some(rpid) = rustix::process::Pid::from_raw(pid.0 as i32) else {
            return Ownership::Unverifiable { reason: "PID 0 names no process".into() };
        };
        let pidfd = match rustix::process::pidfd_open(rpid, PidfdFlags::empty()) {
            Ok(fd) => Some(fd),
            Err(rustix::io::Errno::SRCH) => return Ownership::Gone,
            Err(_) => None,
        };
        let before = match live_stat(pid.0) {
            Ok(st) => st,
            Err(verdict) => return verdict,
        };
        if expected.is_some_and(|s| s.0 != before.starttime) {
            return Ownership::IdentityChanged;
        }
        if crate::keeper::find(pid.0, before.starttime).is_some() {
            // rea's own keeper: no part of the run, and never signalled.
            return Ownership::Foreign;
        }
        let proof = if lineage(before, claim) == Lineage::Descendant {
            Some(Proof::Lineage)
        } else {
            match procfs::environ_lookup(pid.0, RUN_TOKEN_VARIABLE) {
                Ok(EnvLookup::Found(value)) if value == claim.token.as_str().as_bytes() => Some(Proof::Token),
                Ok(EnvLookup::Found(_) | EnvLookup::Absent) => None,
                Ok(EnvLookup::Gone) => return Ownership::Gone,
                Err(e) => return Ownership::Unverifiable { reason: format!("ownership token unreadable: {e}") },
            }
        };
        let after = match live_stat(pid.0) {
            Ok(st) => st,
            Err(verdict) => return verdict,
        };
        if after.starttime != before.starttime {
            return Ownership::IdentityChanged;
        }
        let Some(proof) = proof else { return Ownership::Foreign };
        Ownership::Owned(Box::new(LinuxOwned {
            identity: ProcessIdentity { pid, start: StartTime(after.starttime) },
            pidfd,
            proof,
            session: after.session,
        }))
    }

    fn mechanism(&self) -> SignalMechanism {
        if pidfds_available() { SignalMechanism::Pidfd } else { SignalMechanism::CheckedKill }
    }

    fn descendants(&self) -> Descendants {
        if !crate::subreaper::subreaper_active() {
            // Orphans escaped to init: no child count can speak for them.
            return Descendants::Unknown;
        }
        let sole = crate::pty::sole_launch();
        if !sole {
            // The check must not steal another launch's exit status.
            return match own_children_exited(WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT) {
                Some(true) => Descendants::NoneAlive,
                _ => Descendants::Unknown,
            };
        }
        // Each keeper answers for its subtree exactly (it reaps, then
        // `ECHILD`); rea answers for its own children beside the keepers.
        let mut keepers = Vec::new();
        for keeper in crate::keeper::live() {
            match keeper.has_children() {
                Some(true) => return Descendants::SomeAlive,
                Some(false) => keepers.push(keeper.pid()),
                // It was killed: its children fall to rea, checked below.
                None => {}
            }
        }
        match own_children_exited(WaitIdOptions::EXITED | WaitIdOptions::NOHANG) {
            Some(true) => Descendants::NoneAlive,
            None => Descendants::Unknown,
            // Listed after the keepers answered, so a child that fell to rea
            // from a keeper dying meanwhile is seen here.
            Some(false) => match procfs::children(std::process::id()) {
                Ok(Some(children)) if children.iter().all(|c| keepers.contains(c)) => Descendants::NoneAlive,
                Ok(_) => Descendants::SomeAlive,
                Err(_) => Descendants::Unknown,
            },
        }
    }

    fn descendants_of(&self, claim: &OwnershipClaim<'_>) -> Descendants {
        if crate::pty::sole_launch() || !crate::subreaper::subreaper_active() {
            return self.descendants();
        }
        // Other launches are alive: rea's own children may be theirs. The
        // run's keeper is the subreaper of the run's whole tree, so its
        // answer is exact for this run alone.
        let keeper = claim.root.and_then(|root| crate::keeper::live().into_iter().find(|k| k.holds(root)));
        match keeper.and_then(|k| k.has_children()) {
            Some(true) => Descendants::SomeAlive,
            Some(false) => Descendants::NoneAlive,
            None => self.descendants(),
        }
    }

    fn owned_children(&self, claim: &OwnershipClaim<'_>) -> Vec<Box<dyn OwnedProcess>> {
        // rea's children, and each keeper's: the top of every launched tree.
        let parents = std::iter::once(std::process::id()).chain(crate::keeper::live().into_iter().map(|k| k.pid()));
        parents
            .filter_map(|parent| procfs::children(parent).ok().flatten())
            .flatten()
            .filter_map(|child| match self.verify(Pid(child), None, claim) {
                Ownership::Owned(p) => Some(p),
                _ => None,
            })
            .collect()
    }
}

/// Reaps rea's exited children (unless `options` has `NOWAIT`): `Some(true)`
/// when it has none at all (`ECHILD`), `Some(false)` when one is alive,
/// `None` when the check failed.
fn own_children_exited(options: WaitIdOptions) -> Option<bool> {
    for _ in 0..MAX_DEPTH {
        match rustix::process::waitid(WaitId::All, options) {
            Err(rustix::io::Errno::CHILD) => return Some(true),
            Ok(Some(_)) if !options.contains(WaitIdOptions::NOWAIT) => continue,
            Ok(_) => return Some(false),
            Err(_) => return None,
        }
    }
    Some(false)
}

/// A verified process.
struct LinuxOwned {
    identity: ProcessIdentity,
    pidfd: Option<OwnedFd>,
    proof: Proof,
    session: u32,
}

/// `PIDFD_SIGNAL_PROCESS_GROUP` (Linux 6.9): signal the process group of the
/// pidfd's process, resolved by the kernel at the moment of the call.
const PIDFD_SIGNAL_PROCESS_GROUP: libc::c_uint = 1 << 2;

/// Sends `signal` to the process group of the process behind `pidfd`.
fn pidfd_signal_group(pidfd: &OwnedFd, signal: libc::c_int) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    #[expect(unsafe_code, reason = "pidfd_send_signal with a flag rustix does not expose")]
    // SAFETY: the syscall takes a descriptor we own for the duration of the
    // call, a signal number, a null siginfo pointer (allowed: the kernel
    // fills a default one) and a flags word; it touches no memory of ours.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            signal,
            std::ptr::null::<libc::siginfo_t>(),
            PIDFD_SIGNAL_PROCESS_GROUP,
        )
    };
    if rc == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

impl OwnedProcess for LinuxOwned {
    fn identity(&self) -> ProcessIdentity {
        self.identity
    }

    fn signal(&self, signal: SignalName) -> Result<(), SignalError> {
        let sig = signal_number(signal);
        let result = match &self.pidfd {
            Some(fd) => rustix::process::pidfd_send_signal(fd, sig),
            None => match rustix::process::Pid::from_raw(self.identity.pid.0 as i32) {
                Some(p) => rustix::process::kill_process(p, sig),
                None => Err(rustix::io::Errno::SRCH),
            },
        };
        match result {
            Ok(()) => Ok(()),
            Err(rustix::io::Errno::SRCH) => Err(SignalError::Gone),
            Err(e) => Err(SignalError::Failed(e.into())),
        }
    }

    fn proof(&self) -> Proof {
        self.proof
    }

    fn freeze(&self) -> Result<bool, SignalError> {
        let Some(fd) = &self.pidfd else { return Ok(false) };
        match rustix::process::pidfd_send_signal(fd, rustix::process::Signal::STOP) {
            Ok(()) => Ok(true),
            Err(rustix::io::Errno::SRCH) => Err(SignalError::Gone),
            Err(e) => Err(SignalError::Failed(e.into())),
        }
    }

    fn kill_group(&self) -> Result<Option<Pid>, SignalError> {
        // Every member of the group is in the process's session, and a
        // lineage-proven process's session was created inside the run (the
        // launched process called setsid, and nobody can join a session
        // from outside), unless it is rea's own, which is never killed.
        let Some(fd) = &self.pidfd else { return Ok(None) };
        if self.proof != Proof::Lineage || self.session == std::process::id() || Some(self.session) == own_session() {
            return Ok(None);
        }
        let group = match procfs::stat(self.identity.pid.0) {
            Ok(Some(st)) if st.starttime == self.identity.start.0 && st.session == self.session => st.pgrp,
            Ok(_) => return Err(SignalError::Gone),
            Err(e) => return Err(SignalError::Failed(e)),
        };
        match pidfd_signal_group(fd, libc::SIGKILL) {
            Ok(()) => Ok(Some(Pid(group))),
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => Err(SignalError::Gone),
            // An older kernel without the flag: the members are signalled one by one.
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(None),
            Err(e) => Err(SignalError::Failed(e)),
        }
    }
}

/// `rea`'s own session.
fn own_session() -> Option<u32> {
    procfs::stat(std::process::id()).ok().flatten().map(|st| st.session)
}
