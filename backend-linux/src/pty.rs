//! Launching a command in a new session on a raw `openpty`-style terminal.
//!
//! The master side is opened with `posix_openpt`, the slave configured with
//! the termios of the reference implementation (echo on, canonical input,
//! `ONLCR`, UTF-8) and the scenario's size. The child becomes a session leader
//! with the slave as its controlling terminal; everything it needs (argv,
//! envp, working directory) is built by `std::process::Command` before the
//! fork, and the pre-exec hook only calls `setsid` and `ioctl(TIOCSCTTY)`,
//! both async-signal-safe. `rea` keeps its own slave descriptor open until the
//! terminal is closed, so the master never reports a hang-up while output is
//! still buffered: after the launched process exits, a non-blocking read of
//! the master (which first flushes the kernel's pending tty buffer work)
//! returns every byte the process wrote.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, OnceLock, mpsc};

use async_io::Async;
use futures_lite::{AsyncRead, AsyncWrite};
use rea_engine::host::{
    BoxFuture, ExitStatus, HostError, Pid, ProcessIdentity, PtyBackend, PtyProcess, SharedHalf, SpawnSpec, StartTime,
    TermSize,
};
use rustix::fs::{Mode, OFlags};
use rustix::process::{PidfdFlags, WaitIdOptions, WaitOptions};
use rustix::pty::OpenptFlags;
use rustix::termios::{
    ControlModes, InputModes, LocalModes, OptionalActions, OutputModes, SpecialCodeIndex, Termios, Winsize,
};

use crate::procfs;

/// The PTY backend: `posix_openpt` + `std::process::Command`.
#[derive(Debug, Default)]
pub struct OpenptyPty;

static SUBREAPER: Once = Once::new();
static SUBREAPER_ACTIVE: AtomicBool = AtomicBool::new(false);
/// Launched processes whose handle is still alive in this process.
static LIVE_LAUNCHES: AtomicUsize = AtomicUsize::new(0);

/// Makes `rea` the reaper of orphaned descendants, so a process that
/// double-forks or calls `setsid` stays inside `rea`'s process tree.
fn become_subreaper() {
    SUBREAPER.call_once(|| {
        // Any non-zero argument enables the attribute; failure only weakens
        // descendant tracking (no lineage beyond the first orphan, no exact
        // final check), which the /proc token sweep still covers.
        let ok = rustix::process::set_child_subreaper(rustix::process::Pid::from_raw(1)).is_ok();
        SUBREAPER_ACTIVE.store(ok, Ordering::SeqCst);
    });
}

/// Whether `rea` is the child subreaper, so no descendant can leave its tree.
pub(crate) fn subreaper_active() -> bool {
    SUBREAPER_ACTIVE.load(Ordering::SeqCst)
}

/// Whether at most one launch of this process is alive, so every child of
/// `rea` (launched, or an orphan it adopted) belongs to that launch's run.
pub(crate) fn sole_launch() -> bool {
    LIVE_LAUNCHES.load(Ordering::SeqCst) <= 1
}

type LaunchJob = Box<dyn FnOnce() + Send>;

/// The thread every launch forks from. `PR_SET_PDEATHSIG` fires when the
/// *thread* that forked the child exits, not the process; this thread lives
/// as long as the process, so the signal fires exactly when `rea` dies.
fn launcher() -> Option<&'static Mutex<mpsc::Sender<LaunchJob>>> {
    static LAUNCHER: OnceLock<Option<Mutex<mpsc::Sender<LaunchJob>>>> = OnceLock::new();
    LAUNCHER
        .get_or_init(|| {
            let (tx, rx) = mpsc::channel::<LaunchJob>();
            std::thread::Builder::new()
                .name("rea-launcher".into())
                .spawn(move || {
                    for job in rx {
                        job();
                    }
                })
                .ok()
                .map(|_| Mutex::new(tx))
        })
        .as_ref()
}

/// Runs `command.spawn()` on the launcher thread.
fn spawn_on_launcher(mut command: Command) -> io::Result<std::process::Child> {
    let Some(launcher) = launcher() else {
        return Err(io::Error::other("the launcher thread could not be started"));
    };
    let (tx, rx) = mpsc::channel();
    let job: LaunchJob = Box::new(move || {
        let _ = tx.send(command.spawn());
    });
    launcher
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(job)
        .map_err(|_| io::Error::other("the launcher thread has stopped"))?;
    rx.recv().unwrap_or_else(|_| Err(io::Error::other("the launcher thread has stopped")))
}

fn io_err(op: &'static str) -> impl FnOnce(rustix::io::Errno) -> HostError {
    move |e| HostError::Io { op, source: e.into() }
}

/// Applies the terminal settings of the reference implementation.
fn configure_termios(slave: &OwnedFd) -> Result<(), HostError> {
    let mut t: Termios = rustix::termios::tcgetattr(slave).map_err(io_err("read the terminal settings"))?;
    t.input_modes = InputModes::ICRNL
        | InputModes::IXON
        | InputModes::IXANY
        | InputModes::IMAXBEL
        | InputModes::BRKINT
        | InputModes::IUTF8;
    t.output_modes = OutputModes::OPOST | OutputModes::ONLCR;
    t.control_modes = ControlModes::CREAD | ControlModes::CS8 | ControlModes::HUPCL;
    t.local_modes = LocalModes::ICANON
        | LocalModes::ISIG
        | LocalModes::IEXTEN
        | LocalModes::ECHO
        | LocalModes::ECHOE
        | LocalModes::ECHOK
        | LocalModes::ECHOKE
        | LocalModes::ECHOCTL;
    let cc = [
        (SpecialCodeIndex::VEOF, 4u8),
        (SpecialCodeIndex::VEOL, 0xff),
        (SpecialCodeIndex::VEOL2, 0xff),
        (SpecialCodeIndex::VERASE, 0x7f),
        (SpecialCodeIndex::VWERASE, 23),
        (SpecialCodeIndex::VKILL, 21),
        (SpecialCodeIndex::VREPRINT, 18),
        (SpecialCodeIndex::VINTR, 3),
        (SpecialCodeIndex::VQUIT, 0x1c),
        (SpecialCodeIndex::VSUSP, 26),
        (SpecialCodeIndex::VSTART, 17),
        (SpecialCodeIndex::VSTOP, 19),
        (SpecialCodeIndex::VLNEXT, 22),
        (SpecialCodeIndex::VDISCARD, 15),
        (SpecialCodeIndex::VMIN, 1),
        (SpecialCodeIndex::VTIME, 0),
    ];
    for (index, value) in cc {
        t.special_codes[index] = value;
    }
    t.set_speed(38400).map_err(io_err("set the terminal speed"))?;
    rustix::termios::tcsetattr(slave, OptionalActions::Now, &t).map_err(io_err("apply the terminal settings"))
}

fn winsize(size: TermSize) -> Winsize {
    Winsize { ws_row: size.rows, ws_col: size.columns, ws_xpixel: 0, ws_ypixel: 0 }
}

/// Opens a master/slave pair of the given size.
fn open_pair(size: TermSize) -> Result<(OwnedFd, OwnedFd), HostError> {
    let master = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)
        .map_err(io_err("open a pseudo-terminal master"))?;
    rustix::pty::grantpt(&master).map_err(io_err("grant the pseudo-terminal"))?;
    rustix::pty::unlockpt(&master).map_err(io_err("unlock the pseudo-terminal"))?;
    let name = rustix::pty::ptsname(&master, Vec::new()).map_err(io_err("name the pseudo-terminal"))?;
    let slave = rustix::fs::open(name.as_c_str(), OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC, Mode::empty())
        .map_err(io_err("open the pseudo-terminal slave"))?;
    configure_termios(&slave)?;
    rustix::termios::tcsetwinsize(&master, winsize(size)).map_err(io_err("set the terminal size"))?;
    Ok((master, slave))
}

impl PtyBackend for OpenptyPty {
    fn name(&self) -> &'static str {
        "openpty"
    }

    fn is_executable(&self, path: &std::path::Path) -> bool {
        path.is_file() && rustix::fs::access(path, rustix::fs::Access::EXEC_OK).is_ok()
    }

    fn reap_adopted(&self) -> usize {
        let Ok(Some(children)) = procfs::children(std::process::id()) else { return 0 };
        children
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
        let parent = rustix::process::getpid();
        #[expect(unsafe_code, reason = "pre_exec is the only way to make the child a session leader on its PTY")]
        // SAFETY: the closure runs in the forked child before exec and only
        // makes async-signal-safe system calls (setsid, the TIOCSCTTY ioctl
        // on the already-installed stdin, prctl(PR_SET_PDEATHSIG) and
        // getppid); it allocates nothing and touches no lock.
        unsafe {
            command.pre_exec(move || {
                rustix::process::setsid().map_err(io::Error::from)?;
                rustix::process::ioctl_tiocsctty(rustix::stdio::stdin()).map_err(io::Error::from)?;
                // A SIGKILLed rea takes the launched process with it.
                rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
                    .map_err(io::Error::from)?;
                // rea died before the death signal was armed: do not run.
                if rustix::process::getppid() != Some(parent) {
                    return Err(io::Error::other("rea exited while the command was being launched"));
                }
                Ok(())
            });
        }
        let mut child =
            spawn_on_launcher(command).map_err(|source| HostError::Spawn { program: spec.program.clone(), source })?;
        LIVE_LAUNCHES.fetch_add(1, Ordering::SeqCst);
        let pid = child.id();
        // The child is unreaped, so its PID cannot be reused: the pidfd and
        // the start identity below are the child's own. Without a start
        // identity nothing could later prove ownership, so a child whose
        // identity cannot be read is not left running.
        let start = match procfs::stat(pid) {
            Ok(Some(st)) => st.starttime,
            other => {
                LIVE_LAUNCHES.fetch_sub(1, Ordering::SeqCst);
                let _ = child.kill();
                let _ = child.wait();
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
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        };
        drop(child);
        let process = LinuxPtyProcess {
            identity: ProcessIdentity { pid: Pid(pid), start: StartTime(start) },
            master: Some(Arc::new(master)),
            slave: Some(slave),
            exit: Arc::new(ExitWatch { pid, pidfd }),
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

/// Waits for, and reaps, the launched process.
struct ExitWatch {
    pid: u32,
    pidfd: Option<Async<OwnedFd>>,
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
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG;
        let status = match &self.pidfd {
            Some(fd) => rustix::process::waitid(rustix::process::WaitId::PidFd(fd.as_fd()), options),
            None => match rustix::process::Pid::from_raw(self.pid as i32) {
                Some(p) => rustix::process::waitid(rustix::process::WaitId::Pid(p), options),
                None => return Ok(None),
            },
        }
        .map_err(io_err("wait for the launched process"))?;
        Ok(status.as_ref().and_then(to_status))
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
                    // A pidfd becomes readable when the process exits.
                    Some(fd) => fd
                        .readable()
                        .await
                        .map_err(|e| HostError::Io { op: "wait for the launched process", source: e })?,
                    // Without pidfds, poll at a short interval.
                    None => {
                        async_io::Timer::after(std::time::Duration::from_millis(5)).await;
                    }
                }
            }
        })
    }

    fn close_terminal(&mut self) {
        self.master = None;
        self.slave = None;
    }
}

impl Drop for LinuxPtyProcess {
    fn drop(&mut self) {
        // The launch no longer counts: an orphan adopted by rea from now on
        // can only be proven by the run's token, unless it is the sole launch.
        LIVE_LAUNCHES.fetch_sub(1, Ordering::SeqCst);
    }
}
