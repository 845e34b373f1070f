//! Launching a command in a new session on a `posix_openpt` terminal.
//!
//! The same terminal settings as the Linux backend (echo, canonical input,
//! `ONLCR`, UTF-8, 38400 baud, the reference control characters) and the same
//! launch: `std::process::Command` builds everything before the fork and the
//! pre-exec hook only calls `setsid` and `ioctl(TIOCSCTTY)`. Nothing here is
//! specific to macOS beyond the absence of pidfds: the launched process is
//! awaited by polling `waitpid(WNOHANG)`, and its start identity is read
//! through [`DarwinSys`] while it is unreaped (so its PID cannot be reused).
//! This module builds and is tested on Linux too.

use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_io::Async;
use futures_lite::{AsyncRead, AsyncWrite};
use rea_backend_unix::terminal::{io_err, is_executable, open_pair, winsize};
use rea_engine::host::{
    BoxFuture, ExitStatus, HostError, Pid, ProcessIdentity, PtyBackend, PtyProcess, SharedHalf, SpawnSpec, TermSize,
};
use rustix::process::WaitOptions;

use crate::ownership::DarwinSys;

/// A check that must pass before any launch (on macOS: the token reader
/// compiled, so ownership can be proven for what is launched).
pub type Prerequisite = fn() -> Result<(), String>;

/// The PTY backend.
pub struct DarwinPty {
    sys: Arc<dyn DarwinSys>,
    prerequisite: Option<Prerequisite>,
}

impl DarwinPty {
    /// A backend reading start identities through `sys`.
    pub fn new(sys: Arc<dyn DarwinSys>) -> DarwinPty {
        DarwinPty { sys, prerequisite: None }
    }

    /// Runs `check` before every launch; its failure refuses the launch
    /// before any process exists.
    pub fn with_prerequisite(self, check: Prerequisite) -> DarwinPty {
        DarwinPty { prerequisite: Some(check), ..self }
    }
}

impl PtyBackend for DarwinPty {
    fn name(&self) -> &'static str {
        "posix_openpt"
    }

    fn is_executable(&self, path: &std::path::Path) -> bool {
        is_executable(path)
    }

    fn reap_adopted(&self) -> usize {
        let Ok(children) = self.sys.children(Pid(std::process::id())) else { return 0 };
        children
            .into_iter()
            .filter_map(|child| rustix::process::Pid::from_raw(child.0 as i32))
            .filter(|pid| matches!(rustix::process::waitpid(Some(*pid), WaitOptions::NOHANG), Ok(Some(_))))
            .count()
    }

    fn private_dir_permissions(&self) -> Option<std::fs::Permissions> {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o700))
    }

    fn spawn(&self, spec: &SpawnSpec) -> Result<Box<dyn PtyProcess>, HostError> {
        if let Some(check) = self.prerequisite {
            check().map_err(|e| HostError::Io {
                op: "prepare process-ownership inspection",
                source: io::Error::other(e),
            })?;
        }
        let (master, slave) = open_pair(spec.size)?;
        let stdio = |what: &'static str| -> Result<Stdio, HostError> {
            Ok(Stdio::from(slave.try_clone().map_err(|e| HostError::Io { op: what, source: e })?))
        };
        let mut command = Command::new(&spec.program);
        command
            .arg0(&spec.argv0)
            .args(&spec.args)
            .current_dir(&spec.working_directory)
            .env_clear()
            .envs(spec.environment.iter().map(|(k, v)| (k, v)))
            .stdin(stdio("duplicate the terminal for stdin")?)
            .stdout(stdio("duplicate the terminal for stdout")?)
            .stderr(stdio("duplicate the terminal for stderr")?);
        #[expect(unsafe_code, reason = "pre_exec is the only way to make the child a session leader on its PTY")]
        // SAFETY: the closure runs in the forked child before exec and only
        // makes two async-signal-safe system calls (setsid and the
        // TIOCSCTTY ioctl on the already-installed stdin); it allocates
        // nothing and touches no lock.
        unsafe {
            command.pre_exec(|| {
                rustix::process::setsid().map_err(io::Error::from)?;
                rustix::process::ioctl_tiocsctty(rustix::stdio::stdin()).map_err(io::Error::from)?;
                Ok(())
            });
        }
        let mut child = command.spawn().map_err(|source| HostError::Spawn { program: spec.program.clone(), source })?;
        let pid = Pid(child.id());
        // Unreaped, the child keeps its PID: this identity is its own. Without
        // one nothing could later prove ownership, so the child is not kept.
        let start = match self.sys.info(pid) {
            Ok(Some(info)) => info.identity.start_time(),
            other => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(HostError::Io {
                    op: "read the launched process's start identity",
                    source: other.err().unwrap_or_else(|| io::Error::other("proc_pidinfo does not list it")),
                });
            }
        };
        let master = Arc::new(
            Async::new(File::from(master)).map_err(|e| HostError::Io { op: "register the terminal", source: e })?,
        );
        Ok(Box::new(DarwinPtyProcess {
            identity: ProcessIdentity { pid, start },
            master: Some(master),
            slave: Some(slave),
            child: Arc::new(Mutex::new(child)),
            handed_out: 0,
        }))
    }
}

struct DarwinPtyProcess {
    identity: ProcessIdentity,
    master: Option<Arc<Async<File>>>,
    slave: Option<OwnedFd>,
    child: Arc<Mutex<Child>>,
    handed_out: u8,
}

impl DarwinPtyProcess {
    fn take(&mut self, bit: u8) -> Option<SharedHalf<File>> {
        if self.handed_out & bit != 0 {
            return None;
        }
        self.handed_out |= bit;
        self.master.clone().map(SharedHalf)
    }
}

impl PtyProcess for DarwinPtyProcess {
    fn identity(&self) -> ProcessIdentity {
        self.identity
    }

    fn take_output(&mut self) -> Option<Box<dyn AsyncRead + Send + Unpin>> {
        self.take(1).map(|h| Box::new(h) as Box<dyn AsyncRead + Send + Unpin>)
    }

    fn take_input(&mut self) -> Option<Box<dyn AsyncWrite + Send + Unpin>> {
        self.take(2).map(|h| Box::new(h) as Box<dyn AsyncWrite + Send + Unpin>)
    }

    fn resize(&self, size: TermSize) -> Result<(), HostError> {
        let master = self.master.as_ref().ok_or_else(|| HostError::Io {
            op: "resize the terminal",
            source: io::Error::other("the terminal is closed"),
        })?;
        rustix::termios::tcsetwinsize(master.get_ref(), winsize(size)).map_err(io_err("resize the terminal"))
    }

    fn wait(&self) -> BoxFuture<'static, Result<ExitStatus, HostError>> {
        let child = Arc::clone(&self.child);
        Box::pin(async move {
            loop {
                let reaped = child
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .try_wait()
                    .map_err(|e| HostError::Io { op: "wait for the launched process", source: e })?;
                if let Some(status) = reaped {
                    return Ok(match (status.code(), status.signal()) {
                        (Some(code), _) => ExitStatus::Code(code),
                        (None, Some(signal)) => ExitStatus::Signal(signal),
                        (None, None) => ExitStatus::Code(-1),
                    });
                }
                // No pidfd on macOS: poll at a short interval.
                async_io::Timer::after(Duration::from_millis(5)).await;
            }
        })
    }

    fn close_terminal(&mut self) {
        self.master = None;
        self.slave = None;
    }
}

#[cfg(test)]
mod tests {
    use futures_lite::AsyncReadExt;

    use super::*;
    use crate::ownership::BsdInfo;
    use crate::protocol::StartIdentity;

    /// Start identities from `/proc` (this test runs on Linux), in place of
    /// `proc_pidinfo`.
    struct ProcStat;

    impl DarwinSys for ProcStat {
        fn info(&self, pid: Pid) -> io::Result<Option<BsdInfo>> {
            let text = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                Ok(t) => t,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e),
            };
            let fields: Vec<&str> = text.rsplit_once(')').unwrap().1.split_whitespace().collect();
            let number = |i: usize| fields[i].parse::<u64>().unwrap();
            Ok(Some(BsdInfo {
                identity: StartIdentity { seconds: number(19), micros: 0, unique: None },
                parent: number(1) as u32,
                group: number(2) as u32,
                session: number(3) as u32,
                zombie: fields[0] == "Z",
                command: String::new(),
            }))
        }
        fn children(&self, _pid: Pid) -> io::Result<Vec<Pid>> {
            Ok(Vec::new())
        }
        fn all_pids(&self) -> io::Result<Vec<Pid>> {
            Ok(Vec::new())
        }
        fn kill(&self, _pid: Pid, _signal: rea_engine::scenario::SignalName) -> io::Result<()> {
            Ok(())
        }
    }

    fn spec(script: &str) -> SpawnSpec {
        SpawnSpec {
            program: "/bin/sh".into(),
            argv0: "sh".into(),
            args: vec!["-c".into(), script.into()],
            working_directory: "/".into(),
            environment: vec![("TERM".into(), "xterm-256color".into())],
            size: TermSize { columns: 100, rows: 30 },
            temporary_root: None,
            observation: rea_engine::host::TreeObservation::Sampled,
        }
    }

    #[test]
    fn a_command_runs_as_a_session_leader_on_a_configured_terminal() {
        let pty = DarwinPty::new(Arc::new(ProcStat));
        let script = "stty size; stty -a | grep -o -- '-*iutf8'; test \"$(cut -d' ' -f6 /proc/$$/stat)\" = $$ && echo leader; exit 3";
        let mut process = pty.spawn(&spec(script)).unwrap();
        assert!(process.identity().start.0 > 0);
        let mut output = process.take_output().unwrap();
        assert!(process.take_output().is_none());
        let status = async_io::block_on(process.wait()).unwrap();
        assert_eq!(status, ExitStatus::Code(3));
        let mut text = Vec::new();
        let mut buf = [0u8; 4096];
        // Everything the shell wrote is buffered in the kernel: read until
        // a read would block.
        loop {
            match async_io::block_on(futures_lite::future::or(async { Some(output.read(&mut buf).await) }, async {
                async_io::Timer::after(Duration::from_millis(500)).await;
                None
            })) {
                Some(Ok(n)) if n > 0 => text.extend_from_slice(&buf[..n]),
                _ => break,
            }
        }
        process.close_terminal();
        let text = String::from_utf8_lossy(&text);
        assert!(text.contains("30 100\r\n"), "{text}");
        assert!(text.contains("iutf8") && !text.contains("-iutf8"), "{text}");
        assert!(text.contains("leader"), "{text}");
    }

    #[test]
    fn a_failed_prerequisite_refuses_the_launch() {
        let pty = DarwinPty::new(Arc::new(ProcStat)).with_prerequisite(|| Err("swiftc timed out".into()));
        let err = pty.spawn(&spec("exit 0")).err().unwrap();
        assert!(err.to_string().contains("swiftc timed out"), "{err}");
    }

    #[test]
    fn a_program_that_cannot_start_is_an_error_naming_it() {
        let pty = DarwinPty::new(Arc::new(ProcStat));
        let mut bad = spec("");
        bad.program = "/nonexistent/program".into();
        let err = pty.spawn(&bad).err().unwrap();
        assert!(err.to_string().contains("/nonexistent/program"), "{err}");
    }
}
