//! Launching a command in a new session on a raw `openpty`-style terminal.
//!
//! The master side is opened with `posix_openpt`, the slave configured with
//! the termios of the reference implementation (echo on, canonical input,
//! `ONLCR`, UTF-8) and the scenario's size. The command is launched by the
//! run's keeper (`keeper.rs`), a child of `rea` that outlives it, as the
//! keeper's child: a session leader with the slave as its controlling
//! terminal. `rea` keeps its own slave descriptor open until the
//! terminal is closed, so the master never reports a hang-up while output is
//! still buffered: after the launched process exits, a non-blocking read of
//! the master (which first flushes the kernel's pending tty buffer work)
//! returns every byte the process wrote.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_io::Async;
use futures_lite::{AsyncRead, AsyncWrite};
use rea_backend_unix::terminal::{io_err, is_executable, open_pair, winsize};
use rea_engine::host::{
    BoxFuture, ExitStatus, HostError, Pid, ProcessIdentity, PtyBackend, PtyProcess, SharedHalf, SpawnSpec, StartTime,
    TermSize,
};
use rustix::process::{PidfdFlags, WaitIdOptions, WaitOptions};

use crate::procfs;
use crate::subreaper::become_subreaper;

/// The PTY backend: `posix_openpt` + `std::process::Command`.
#[derive(Debug, Default)]
pub struct OpenptyPty;

/// Launched processes whose handle is still alive in this process.
static LIVE_LAUNCHES: AtomicUsize = AtomicUsize::new(0);

/// Whether at most one launch of this process is alive, so every child of
/// `rea` (launched, or an orphan it adopted) belongs to that launch's run.
pub(crate) fn sole_launch() -> bool {
    LIVE_LAUNCHES.load(Ordering::SeqCst) <= 1
}

impl PtyBackend for OpenptyPty {
    fn name(&self) -> &'static str {
        "openpty"
    }

    fn is_executable(&self, path: &std::path::Path) -> bool {
        is_executable(path)
    }

    fn reap_adopted(&self) -> usize {
        let kept: usize = crate::keeper::live().iter().map(|k| k.reap()).sum();
        let Ok(Some(children)) = procfs::children(std::process::id()) else { return kept };
        kept + children
            .into_iter()
            .filter_map(|child| rustix::process::Pid::from_raw(child as i32))
            .filter(|pid| matches!(rustix::process::waitpid(Some(*pid), WaitOptions::NOHANG), Ok(Some(_))))
            .count()
    }

    fn private_dir_permissions(&self) -> Option<std::fs::Permissions> {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o700))
    }

    fn spawn(&self, spec: &SpawnSpec) -> Result<Box<dyn PtyProcess>, HostError> {
        become_subreaper();
        let (master, slave) = open_pair(spec.size)?;
        // Counted before the keeper starts: while it starts, it is a child
        // of rea that no other launch may take for one of its own (their
        // cleanup proves ownership of rea's children by `sole_launch`).
        LIVE_LAUNCHES.fetch_add(1, Ordering::SeqCst);
        let (keeper, pid) = crate::keeper::launch(spec, &slave).inspect_err(|_| {
            LIVE_LAUNCHES.fetch_sub(1, Ordering::SeqCst);
        })?;
        // The child is the keeper's, unreaped until rea asks, so its PID
        // cannot be reused: the pidfd and the start identity below are the
        // child's own. Without a start identity nothing could later prove
        // ownership, so a child whose identity cannot be read is not left
        // running (releasing the keeper with a child left kills it).
        let start = match procfs::stat(pid) {
            Ok(Some(st)) => st.starttime,
            other => {
                LIVE_LAUNCHES.fetch_sub(1, Ordering::SeqCst);
                keeper.release();
                return Err(HostError::Io {
                    op: "read the launched process's start identity",
                    source: other.err().unwrap_or_else(|| io::Error::other("it is missing from /proc")),
                });
            }
        };
        let pidfd = rustix::process::Pid::from_raw(pid as i32)
            .map(|p| rustix::process::pidfd_open(p, PidfdFlags::empty()).map_err(io::Error::from))
            .unwrap_or_else(|| Err(io::Error::other("zero PID")));
        // Registering with the reactor is the last fallible step; if it
        // fails, the child is killed and reaped here, never left running.
        let registered = Async::new(File::from(master))
            .map_err(|e| HostError::Io { op: "register the terminal", source: e })
            .and_then(|master| {
                let pidfd = match pidfd {
                    Ok(fd) => Some(
                        Async::new(fd)
                            .map_err(|e| HostError::Io { op: "register the process descriptor", source: e })?,
                    ),
                    Err(_) => None,
                };
                Ok((master, pidfd))
            });
        let (master, pidfd) = match registered {
            Ok(r) => r,
            Err(e) => {
                LIVE_LAUNCHES.fetch_sub(1, Ordering::SeqCst);
                keeper.release();
                return Err(e);
            }
        };
        keeper.pin_root(start);
        let process = LinuxPtyProcess {
            identity: ProcessIdentity { pid: Pid(pid), start: StartTime(start) },
            master: Some(Arc::new(master)),
            slave: Some(slave),
            exit: Arc::new(ExitWatch { pid, pidfd, keeper }),
            handed_out: 0,
        };
        Ok(Box::new(process))
    }
}

/// A launched process and its terminal.
struct LinuxPtyProcess {
    identity: ProcessIdentity,
    master: Option<Arc<Async<File>>>,
    slave: Option<OwnedFd>,
    exit: Arc<ExitWatch>,
    handed_out: u8,
}

/// Waits for, and reaps, the launched process: through its keeper (its
/// parent), or directly once the keeper failed and the process fell to rea.
struct ExitWatch {
    pid: u32,
    pidfd: Option<Async<OwnedFd>>,
    keeper: Arc<crate::keeper::Keeper>,
}

fn to_status(status: &rustix::process::WaitIdStatus) -> Option<ExitStatus> {
    if let Some(code) = status.exit_status() {
        Some(ExitStatus::Code(code))
    } else {
        status.terminating_signal().map(ExitStatus::Signal)
    }
}

impl ExitWatch {
    /// Reaps the launched process if it has exited.
    fn try_reap(&self) -> Result<Option<ExitStatus>, HostError> {
        if let Ok(status) = self.keeper.root_status() {
            return Ok(status);
        }
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG;
        let status = match &self.pidfd {
            Some(fd) => rustix::process::waitid(rustix::process::WaitId::PidFd(fd.as_fd()), options),
            None => match rustix::process::Pid::from_raw(self.pid as i32) {
                Some(p) => rustix::process::waitid(rustix::process::WaitId::Pid(p), options),
                None => return Ok(None),
            },
        };
        match status {
            Ok(status) => Ok(status.as_ref().and_then(to_status)),
            // Not (yet) re-parented to rea after its keeper died.
            Err(rustix::io::Errno::CHILD) => Ok(None),
            Err(e) => Err(io_err("wait for the launched process")(e)),
        }
    }
}

impl PtyProcess for LinuxPtyProcess {
    fn identity(&self) -> ProcessIdentity {
        self.identity
    }

    fn take_output(&mut self) -> Option<Box<dyn AsyncRead + Send + Unpin>> {
        if self.handed_out & 1 != 0 {
            return None;
        }
        self.handed_out |= 1;
        self.master.clone().map(|m| Box::new(SharedHalf(m)) as Box<dyn AsyncRead + Send + Unpin>)
    }

    fn take_input(&mut self) -> Option<Box<dyn AsyncWrite + Send + Unpin>> {
        if self.handed_out & 2 != 0 {
            return None;
        }
        self.handed_out |= 2;
        self.master.clone().map(|m| Box::new(SharedHalf(m)) as Box<dyn AsyncWrite + Send + Unpin>)
    }

    fn resize(&self, size: TermSize) -> Result<(), HostError> {
        let master = self.master.as_ref().ok_or_else(|| HostError::Io {
            op: "resize the terminal",
            source: io::Error::other("the terminal is closed"),
        })?;
        rustix::termios::tcsetwinsize(master.get_ref(), winsize(size)).map_err(io_err("resize the terminal"))
    }

    fn wait(&self) -> BoxFuture<'static, Result<ExitStatus, HostError>> {
        let watch = Arc::clone(&self.exit);
        Box::pin(async move {
            loop {
                if let Some(status) = watch.try_reap()? {
                    return Ok(status);
                }
                match &watch.pidfd {
                    // A pidfd becomes readable when the process exits (the
                    // keeper, its parent, then reaps it when asked).
                    Some(fd) if watch.keeper.answering() => fd
                        .readable()
                        .await
                        .map_err(|e| HostError::Io { op: "wait for the launched process", source: e })?,
                    // Without pidfds, or while the process falls from a
                    // failed keeper to rea, poll at a short interval.
                    _ => {
                        async_io::Timer::after(std::time::Duration::from_millis(5)).await;
                    }
                }
            }
        })
    }

    fn echo(&self) -> Option<bool> {
        let master = self.master.as_ref()?;
        let termios = rustix::termios::tcgetattr(master.get_ref()).ok()?;
        Some(termios.local_modes.contains(rustix::termios::LocalModes::ECHO))
    }

    fn close_terminal(&mut self) {
        self.master = None;
        self.slave = None;
    }

    fn process_journal(&self) -> rea_engine::host::ExactJournal {
        self.exit.keeper.journal()
    }
}

impl Drop for LinuxPtyProcess {
    fn drop(&mut self) {
        // The launch no longer counts: an orphan adopted by rea from now on
        // can only be proven by the run's token, unless it is the sole launch.
        LIVE_LAUNCHES.fetch_sub(1, Ordering::SeqCst);
        self.exit.keeper.release();
    }
}
