//! Ownership on macOS, written against a system-call seam.
//!
//! macOS has no pidfd: a PID is only a number, so the proof is rebuilt right
//! before every signal. [`HelperVerifier::verify`] reads the start identity
//! through [`DarwinSys`], then the token and identity through the token
//! reader, then the identity again; the three must name the same process and
//! the token must be the run's. [`DarwinOwned::signal`] reads the identity
//! once more immediately before `kill`, and refuses to signal a process whose
//! identity changed. (A PID reused in the microseconds between that read and
//! `kill` cannot be excluded without a kernel handle; the window is the
//! smallest the platform allows.)
//!
//! These adapters implement today's engine traits; the engine's ownership
//! traits are being reworked, and only this module needs to follow.

use std::sync::Arc;

use rea_engine::evidence::SignalMechanism;
use rea_engine::host::HostError;
use rea_engine::host::{
    OwnedProcess, Ownership, OwnershipClaim, OwnershipVerifier, Pid, ProcessIdentity, ProcessInspector, ProcessRow,
    ProcessTable, SignalError, StartTime,
};
use rea_engine::scenario::SignalName;

use crate::protocol::{ReadError, Reading, StartIdentity};

/// A libproc read of one process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BsdInfo {
    /// Start identity.
    pub identity: StartIdentity,
    /// Parent PID.
    pub parent: u32,
    /// Process group.
    pub group: u32,
    /// Session (from `getsid`; 0 when unreadable).
    pub session: u32,
    /// Whether it is a zombie (`SZOMB`).
    pub zombie: bool,
    /// Its executable path or command name.
    pub command: String,
}

/// The system calls the macOS backend needs. `Ok(None)` means no such
/// process.
pub trait DarwinSys: Send + Sync {
    /// `proc_pidinfo(PROC_PIDTBSDINFO)` and friends.
    fn info(&self, pid: Pid) -> std::io::Result<Option<BsdInfo>>;
    /// `proc_listchildpids`.
    fn children(&self, pid: Pid) -> std::io::Result<Vec<Pid>>;
    /// `proc_listallpids`.
    fn all_pids(&self) -> std::io::Result<Vec<Pid>>;
    /// `kill(pid, signal)`; `ESRCH` maps to `ErrorKind::NotFound`.
    fn kill(&self, pid: Pid, signal: SignalName) -> std::io::Result<()>;
}

/// Reads tokens: the compiled helper, or a test's table.
pub trait TokenSource: Send + Sync {
    /// The readings for `pids`, in order; `Err` when the helper failed as a
    /// whole.
    fn read(&self, pids: &[Pid]) -> Result<Vec<(Pid, Reading)>, String>;
}

#[cfg(unix)]
impl TokenSource for crate::reader::TokenReader {
    fn read(&self, pids: &[Pid]) -> Result<Vec<(Pid, Reading)>, String> {
        self.query(pids, &crate::reader::Cancel::new()).map_err(|e| e.to_string())
    }
}

/// The live identity of `pid`: `None` when gone or a zombie.
fn live_identity(sys: &dyn DarwinSys, pid: Pid) -> Result<Option<StartIdentity>, String> {
    match sys.info(pid) {
        Ok(Some(info)) if !info.zombie => Ok(Some(info.identity)),
        Ok(_) => Ok(None),
        Err(e) => Err(format!("start identity of PID {pid} unreadable: {e}")),
    }
}

/// Proves ownership through start identity and the helper-read token.
pub struct HelperVerifier {
    sys: Arc<dyn DarwinSys>,
    tokens: Arc<dyn TokenSource>,
}

impl HelperVerifier {
    /// A verifier over a system-call layer and a token source.
    pub fn new(sys: Arc<dyn DarwinSys>, tokens: Arc<dyn TokenSource>) -> HelperVerifier {
        HelperVerifier { sys, tokens }
    }
}

impl OwnershipVerifier for HelperVerifier {
    fn verify(&self, pid: Pid, expected: Option<StartTime>, claim: &OwnershipClaim<'_>) -> Ownership {
        let unverifiable = |reason: String| Ownership::Unverifiable { reason };
        let before = match live_identity(&*self.sys, pid) {
            Ok(Some(i)) => i,
            Ok(None) => return Ownership::Gone,
            Err(e) => return unverifiable(e),
        };
        if expected.is_some_and(|s| s != before.start_time()) {
            return Ownership::IdentityChanged;
        }
        let reading = match self.tokens.read(&[pid]) {
            Ok(mut r) if r.len() == 1 => r.remove(0).1,
            Ok(_) => return unverifiable("the token reader answered for other PIDs".into()),
            Err(e) => return unverifiable(format!("ownership token unreadable: {e}")),
        };
        let (read_identity, token) = match reading {
            Reading::Process { identity, token } => (identity, token),
            Reading::Error(ReadError::Gone) => return Ownership::Gone,
            Reading::Error(ReadError::PermissionDenied) => {
                return unverifiable("ownership token unreadable: the kernel denied its arguments area".into());
            }
            Reading::Error(ReadError::MalformedArguments) => {
                return unverifiable(
                    "ownership token unreadable: its arguments area was rewritten (for example by a process.title change)"
                        .into(),
                );
            }
        };
        if !read_identity.same_process(&before) {
            return Ownership::IdentityChanged;
        }
        let after = match live_identity(&*self.sys, pid) {
            Ok(Some(i)) => i,
            Ok(None) => return Ownership::Gone,
            Err(e) => return unverifiable(e),
        };
        if !after.same_process(&before) {
            return Ownership::IdentityChanged;
        }
        match token {
            Some(value) if value == claim.token.as_str().as_bytes() => Ownership::Owned(Box::new(DarwinOwned {
                identity: ProcessIdentity { pid, start: after.start_time() },
                native: after,
                sys: Arc::clone(&self.sys),
            })),
            _ => Ownership::Foreign,
        }
    }

    fn mechanism(&self) -> SignalMechanism {
        SignalMechanism::CheckedKill
    }
}

/// A verified process, signalled only after its identity is read again.
pub struct DarwinOwned {
    identity: ProcessIdentity,
    native: StartIdentity,
    sys: Arc<dyn DarwinSys>,
}

impl OwnedProcess for DarwinOwned {
    fn identity(&self) -> ProcessIdentity {
        self.identity
    }

    fn signal(&self, signal: SignalName) -> Result<(), SignalError> {
        let pid = self.identity.pid;
        match live_identity(&*self.sys, pid) {
            Ok(Some(now)) if now.same_process(&self.native) => {}
            // Exited, or the PID now names another process: nothing to signal.
            Ok(_) => return Err(SignalError::Gone),
            Err(e) => return Err(SignalError::Failed(std::io::Error::other(e))),
        }
        match self.sys.kill(pid, signal) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(SignalError::Gone),
            Err(e) => Err(SignalError::Failed(e)),
        }
    }
}

/// The process table through libproc.
pub struct LibprocInspector {
    sys: Arc<dyn DarwinSys>,
}

impl LibprocInspector {
    /// An inspector over a system-call layer.
    pub fn new(sys: Arc<dyn DarwinSys>) -> LibprocInspector {
        LibprocInspector { sys }
    }
}

fn io_error(op: &'static str) -> impl FnOnce(std::io::Error) -> HostError {
    move |source| HostError::Io { op, source }
}

fn row(pid: Pid, info: BsdInfo) -> ProcessRow {
    ProcessRow {
        pid,
        parent: Pid(info.parent),
        group: Pid(info.group),
        session: Pid(info.session),
        start: info.identity.start_time(),
        zombie: info.zombie,
        command: info.command,
    }
}

impl ProcessInspector for LibprocInspector {
    fn process(&self, pid: Pid) -> Result<Option<ProcessRow>, HostError> {
        Ok(self.sys.info(pid).map_err(io_error("read a process with proc_pidinfo"))?.map(|info| row(pid, info)))
    }

    fn children(&self, pid: Pid) -> Result<Vec<Pid>, HostError> {
        let mut children = self.sys.children(pid).map_err(io_error("list child processes"))?;
        children.sort_unstable();
        children.dedup();
        Ok(children)
    }

    fn table(&self) -> Result<ProcessTable, HostError> {
        let mut pids = self.sys.all_pids().map_err(io_error("list processes with proc_listallpids"))?;
        pids.sort_unstable();
        pids.dedup();
        let mut table = ProcessTable::default();
        for pid in pids {
            match self.sys.info(pid) {
                Ok(Some(info)) => table.rows.push(row(pid, info)),
                Ok(None) => {}
                Err(e) => table.unreadable.push((pid, e.to_string())),
            }
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use rea_engine::host::RunToken;

    use super::*;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef";

    /// A scripted process table. Each `info` call pops the next scripted
    /// answer for the PID when several are queued, so a test can change the
    /// process between the reads.
    #[derive(Default)]
    struct FakeSys {
        infos: Mutex<HashMap<u32, Vec<std::io::Result<Option<BsdInfo>>>>>,
        killed: Mutex<Vec<(u32, SignalName)>>,
    }

    impl FakeSys {
        fn script(&self, pid: u32, answers: Vec<std::io::Result<Option<BsdInfo>>>) {
            self.infos.lock().unwrap().insert(pid, answers);
        }
    }

    impl DarwinSys for FakeSys {
        fn info(&self, pid: Pid) -> std::io::Result<Option<BsdInfo>> {
            let mut infos = self.infos.lock().unwrap();
            let queue = infos.get_mut(&pid.0).expect("unscripted PID");
            if queue.len() > 1 {
                queue.remove(0)
            } else {
                match &queue[0] {
                    Ok(v) => Ok(v.clone()),
                    Err(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
                }
            }
        }
        fn children(&self, _pid: Pid) -> std::io::Result<Vec<Pid>> {
            Ok(vec![Pid(9), Pid(3), Pid(9)])
        }
        fn all_pids(&self) -> std::io::Result<Vec<Pid>> {
            Ok(self.infos.lock().unwrap().keys().copied().map(Pid).collect())
        }
        fn kill(&self, pid: Pid, signal: SignalName) -> std::io::Result<()> {
            self.killed.lock().unwrap().push((pid.0, signal));
            Ok(())
        }
    }

    struct FakeTokens(Result<Reading, String>);

    impl TokenSource for FakeTokens {
        fn read(&self, pids: &[Pid]) -> Result<Vec<(Pid, Reading)>, String> {
            self.0.clone().map(|r| vec![(pids[0], r)])
        }
    }

    fn identity(seconds: u64) -> StartIdentity {
        StartIdentity { seconds, micros: 7, unique: None }
    }

    fn info(seconds: u64) -> std::io::Result<Option<BsdInfo>> {
        Ok(Some(BsdInfo {
            identity: identity(seconds),
            parent: 1,
            group: 42,
            session: 42,
            zombie: false,
            command: "/bin/sleep".into(),
        }))
    }

    fn token_reading(seconds: u64, token: Option<&str>) -> Result<Reading, String> {
        Ok(Reading::Process {
            identity: StartIdentity { unique: Some(5), ..identity(seconds) },
            token: token.map(|t| t.as_bytes().to_vec()),
        })
    }

    fn verify(sys: &Arc<FakeSys>, reading: Result<Reading, String>, expected: Option<StartTime>) -> Ownership {
        let verifier = HelperVerifier::new(sys.clone(), Arc::new(FakeTokens(reading)));
        let token = RunToken::from_string(TOKEN.into());
        verifier.verify(Pid(42), expected, &OwnershipClaim { token: &token, session: None, root: None })
    }

    #[test]
    fn a_process_with_the_token_and_a_stable_identity_is_owned_and_signalled_after_a_recheck() {
        let sys = Arc::new(FakeSys::default());
        sys.script(42, vec![info(100)]);
        let expected = Some(identity(100).start_time());
        let Ownership::Owned(owned) = verify(&sys, token_reading(100, Some(TOKEN)), expected) else {
            panic!("not owned")
        };
        assert_eq!(owned.identity(), ProcessIdentity { pid: Pid(42), start: identity(100).start_time() });
        owned.signal(SignalName::SIGTERM).unwrap();
        assert_eq!(*sys.killed.lock().unwrap(), [(42, SignalName::SIGTERM)]);
    }

    #[test]
    fn a_pid_reused_before_the_signal_is_not_signalled() {
        let sys = Arc::new(FakeSys::default());
        // before, after, then the recheck right before kill sees a new process.
        sys.script(42, vec![info(100), info(100), info(200)]);
        let Ownership::Owned(owned) = verify(&sys, token_reading(100, Some(TOKEN)), None) else { panic!("not owned") };
        assert!(matches!(owned.signal(SignalName::SIGKILL), Err(SignalError::Gone)));
        assert!(sys.killed.lock().unwrap().is_empty());
    }

    #[test]
    fn identity_changes_at_any_read_are_never_adopted() {
        // Expected identity differs from the first read.
        let sys = Arc::new(FakeSys::default());
        sys.script(42, vec![info(100)]);
        let other = Some(identity(99).start_time());
        assert!(matches!(verify(&sys, token_reading(100, Some(TOKEN)), other), Ownership::IdentityChanged));
        // The helper read a different process.
        assert!(matches!(verify(&sys, token_reading(101, Some(TOKEN)), None), Ownership::IdentityChanged));
        // The PID was reused between the token read and the second read.
        let sys = Arc::new(FakeSys::default());
        sys.script(42, vec![info(100), info(300)]);
        assert!(matches!(verify(&sys, token_reading(100, Some(TOKEN)), None), Ownership::IdentityChanged));
    }

    #[test]
    fn missing_or_other_tokens_are_foreign() {
        let sys = Arc::new(FakeSys::default());
        sys.script(42, vec![info(100)]);
        assert!(matches!(verify(&sys, token_reading(100, None), None), Ownership::Foreign));
        assert!(matches!(verify(&sys, token_reading(100, Some("ffff")), None), Ownership::Foreign));
    }

    #[test]
    fn every_per_pid_error_maps_to_a_conclusion() {
        let sys = Arc::new(FakeSys::default());
        sys.script(42, vec![info(100)]);
        assert!(matches!(verify(&sys, Ok(Reading::Error(ReadError::Gone)), None), Ownership::Gone));
        let denied = verify(&sys, Ok(Reading::Error(ReadError::PermissionDenied)), None);
        assert!(matches!(&denied, Ownership::Unverifiable { reason } if reason.contains("denied")), "{denied:?}");
        let malformed = verify(&sys, Ok(Reading::Error(ReadError::MalformedArguments)), None);
        assert!(matches!(&malformed, Ownership::Unverifiable { reason } if reason.contains("process.title")));
        let failed = verify(&sys, Err("helper crashed".into()), None);
        assert!(matches!(&failed, Ownership::Unverifiable { reason } if reason.contains("helper crashed")));
    }

    #[test]
    fn gone_zombie_and_unreadable_processes() {
        let sys = Arc::new(FakeSys::default());
        sys.script(42, vec![Ok(None)]);
        assert!(matches!(verify(&sys, token_reading(100, Some(TOKEN)), None), Ownership::Gone));
        let mut zombie = info(100).unwrap().unwrap();
        zombie.zombie = true;
        sys.script(42, vec![Ok(Some(zombie))]);
        assert!(matches!(verify(&sys, token_reading(100, Some(TOKEN)), None), Ownership::Gone));
        sys.script(42, vec![Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied))]);
        assert!(matches!(verify(&sys, token_reading(100, Some(TOKEN)), None), Ownership::Unverifiable { .. }));
    }

    #[test]
    fn the_inspector_sorts_and_counts_unreadable_rows() {
        let sys = Arc::new(FakeSys::default());
        sys.script(42, vec![info(100)]);
        sys.script(7, vec![Ok(None)]);
        sys.script(5, vec![Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied))]);
        let inspector = LibprocInspector::new(sys);
        let table = inspector.table().unwrap();
        assert_eq!(table.rows.len(), 1);
        assert_eq!(table.rows[0].pid, Pid(42));
        assert_eq!(table.rows[0].group, Pid(42));
        assert_eq!(table.rows[0].start, identity(100).start_time());
        assert_eq!(table.unreadable.len(), 1);
        assert_eq!(table.unreadable[0].0, Pid(5));
        assert_eq!(inspector.children(Pid(42)).unwrap(), [Pid(3), Pid(9)]);
        assert!(inspector.process(Pid(7)).unwrap().is_none());
    }
}
