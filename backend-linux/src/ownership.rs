//! Ownership proof on Linux: start identity, run token, and a pidfd.
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

use rea_engine::host::{
    OwnedProcess, Ownership, OwnershipClaim, OwnershipVerifier, Pid, ProcessIdentity, SignalError, StartTime,
};
use rea_engine::scenario::{RUN_TOKEN_VARIABLE, SignalName};
use rustix::process::PidfdFlags;

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

/// Whether `pid` descends from this process, following parents in `/proc`.
fn descends_from_self(pid: u32) -> bool {
    let me = std::process::id();
    let mut current = pid;
    for _ in 0..4096 {
        match procfs::stat(current) {
            Ok(Some(st)) if st.ppid == me => return true,
            Ok(Some(st)) if st.ppid > 1 => current = st.ppid,
            _ => return false,
        }
    }
    false
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
        let before = match procfs::stat(pid.0) {
            Ok(Some(st)) => st,
            Ok(None) => return Ownership::Gone,
            Err(e) => return Ownership::Unverifiable { reason: format!("start identity unreadable: {e}") },
        };
        if before.exited() {
            return Ownership::Gone;
        }
        if expected.is_some_and(|s| s.0 != before.starttime) {
            return Ownership::IdentityChanged;
        }
        let token = procfs::environ_lookup(pid.0, RUN_TOKEN_VARIABLE);
        let after = match procfs::stat(pid.0) {
            Ok(Some(st)) => st,
            Ok(None) => return Ownership::Gone,
            Err(e) => return Ownership::Unverifiable { reason: format!("start identity unreadable: {e}") },
        };
        if after.starttime != before.starttime {
            return Ownership::IdentityChanged;
        }
        if after.exited() {
            return Ownership::Gone;
        }
        let owned = match token {
            Ok(EnvLookup::Found(value)) if value == claim.token.as_str().as_bytes() => true,
            Ok(EnvLookup::Found(_)) => false,
            Ok(EnvLookup::Absent) => {
                // Session IDs are pinned by the kernel while any member lives,
                // and only the launched process's descendants can be members.
                claim.session.is_some_and(|s| s.0 == after.session) && descends_from_self(pid.0)
            }
            Ok(EnvLookup::Gone) => return Ownership::Gone,
            Err(e) => return Ownership::Unverifiable { reason: format!("ownership token unreadable: {e}") },
        };
        if !owned {
            return Ownership::Foreign;
        }
        Ownership::Owned(Box::new(LinuxOwned {
            identity: ProcessIdentity { pid, start: StartTime(after.starttime) },
            pidfd,
        }))
    }

    fn mechanism(&self) -> &'static str {
        if pidfds_available() { "pidfd" } else { "checked-kill" }
    }
}

/// A verified process.
struct LinuxOwned {
    identity: ProcessIdentity,
    pidfd: Option<OwnedFd>,
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
}
