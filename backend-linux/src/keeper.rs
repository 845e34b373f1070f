//! The keeper: a small process between `rea` and the launched tree that
//! outlives `rea` by design, so that nothing `rea` started survives it,
//! whatever kills `rea`.
//!
//! `rea` starts its own executable (`/proc/self/exe`) with the hidden
//! argument [`KEEPER_ARGUMENT`], in a process group of its own (terminal
//! signals meant for `rea` do not reach it), with an empty environment, one
//! end of a socket pair as standard input and the terminal's slave side as
//! standard output. The keeper makes itself the child subreaper, reads the
//! launch over the socket, launches the command as its own child (a session
//! leader on the terminal, with `PR_SET_PDEATHSIG` tied to the keeper), and
//! answers on the socket:
//!
//! - `r`: reap every exited child, answer how many;
//! - `d`: reap, then answer whether any child is left (`ECHILD` is the exact
//!   statement that the keeper's whole subtree is gone);
//! - `s`: reap the launched process if it exited, answer its status;
//! - `q`: release: `rea` has cleaned up; exit at once when no child is left,
//!   otherwise clean up as below, keeping the temporary root alone;
//! - end of file without `q`: `rea` is gone. The keeper runs the engine's
//!   cleanup ([`rea_engine::capture::cleanup_orphaned_run`]) with the same
//!   proof rules as `rea` (lineage through the keeper's own unreaped
//!   children, the run token, pidfds, `ECHILD`), removes the run's temporary
//!   root and exits.
//!
//! The keeper reaps only when asked, so while `rea` lives every child of
//! the keeper keeps its PID until `rea` has looked: the lineage proof of
//! `ownership.rs` runs through the keeper exactly as it runs through `rea`.
//! `rea` stays the child subreaper too: if the keeper dies (or stops
//! answering within [`ANSWER_BOUND`] and is killed), its children fall to
//! `rea`, and every check falls back to `rea`'s own children.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rea_engine::host::{ExitStatus, HostError, Pid, ProcessIdentity, RunToken, SpawnSpec, StartTime};
use rea_engine::scenario::RUN_TOKEN_VARIABLE;
use rustix::process::{PidfdFlags, WaitId, WaitIdOptions, WaitOptions};

use crate::procfs;

/// The hidden first argument that starts `rea` as a keeper.
pub const KEEPER_ARGUMENT: &str = "__rea-keeper";

/// Longest wait for one answer of a keeper; a keeper that does not answer
/// in time is killed, and its children fall to `rea`.
const ANSWER_BOUND: Duration = Duration::from_secs(5);
/// Longest wait for a released keeper to exit.
const RELEASE_BOUND: Duration = Duration::from_secs(1);
/// Largest launch message accepted (argv and environment together).
const LAUNCH_LIMIT: usize = 64 * 1024 * 1024;

// ---------------------------------------------------------------- wire format

fn put(buf: &mut Vec<u8>, bytes: &[u8]) {
    buf.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    buf.extend_from_slice(bytes);
}

/// Reads the fields of one launch message.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn bytes(&mut self) -> io::Result<&'a [u8]> {
        let bad = || io::Error::new(io::ErrorKind::InvalidData, "truncated launch message");
        let (len, rest) = self.0.split_first_chunk::<4>().ok_or_else(bad)?;
        let len = u32::from_le_bytes(*len) as usize;
        let (field, rest) = rest.split_at_checked(len).ok_or_else(bad)?;
        self.0 = rest;
        Ok(field)
    }

    fn os(&mut self) -> io::Result<OsString> {
        Ok(OsString::from_vec(self.bytes()?.to_vec()))
    }

    fn count(&mut self) -> io::Result<usize> {
        let field = self.bytes()?;
        let raw = <[u8; 4]>::try_from(field)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "malformed count in launch message"))?;
        Ok(u32::from_le_bytes(raw) as usize)
    }
}

/// What the keeper launches, as it crosses the socket.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Launch {
    program: OsString,
    argv0: OsString,
    working_directory: OsString,
    temporary_root: Option<OsString>,
    args: Vec<OsString>,
    environment: Vec<(OsString, OsString)>,
}

impl Launch {
    fn of(spec: &SpawnSpec) -> Launch {
        Launch {
            program: spec.program.clone().into_os_string(),
            argv0: spec.argv0.clone().into(),
            working_directory: spec.working_directory.clone().into_os_string(),
            temporary_root: spec.temporary_root.clone().map(PathBuf::into_os_string),
            args: spec.args.iter().map(OsString::from).collect(),
            environment: spec.environment.clone(),
        }
    }

    /// The message: its length, then each field length-prefixed.
    fn encode(&self) -> Vec<u8> {
        let mut body = Vec::new();
        put(&mut body, self.program.as_bytes());
        put(&mut body, self.argv0.as_bytes());
        put(&mut body, self.working_directory.as_bytes());
        put(&mut body, self.temporary_root.as_ref().map_or(&[][..], |t| t.as_bytes()));
        put(&mut body, &(self.args.len() as u32).to_le_bytes());
        for arg in &self.args {
            put(&mut body, arg.as_bytes());
        }
        put(&mut body, &(self.environment.len() as u32).to_le_bytes());
        for (k, v) in &self.environment {
            put(&mut body, k.as_bytes());
            put(&mut body, v.as_bytes());
        }
        let mut message = Vec::with_capacity(body.len() + 4);
        put(&mut message, &body);
        message
    }

    fn decode(body: &[u8]) -> io::Result<Launch> {
        let mut f = Fields(body);
        let program = f.os()?;
        let argv0 = f.os()?;
        let working_directory = f.os()?;
        let temporary_root = Some(f.os()?).filter(|t| !t.is_empty());
        let args = (0..f.count()?).map(|_| f.os()).collect::<io::Result<_>>()?;
        let environment = (0..f.count()?).map(|_| Ok((f.os()?, f.os()?))).collect::<io::Result<_>>()?;
        Ok(Launch { program, argv0, working_directory, temporary_root, args, environment })
    }

    /// The run token the launch carries (the PTY probe carries none).
    fn token(&self) -> Option<RunToken> {
        self.environment
            .iter()
            .find(|(k, _)| k == RUN_TOKEN_VARIABLE)
            .and_then(|(_, v)| v.to_str())
            .map(|v| RunToken::from_string(v.to_owned()))
    }
}

fn read_message(socket: &mut UnixStream) -> io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    socket.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > LAUNCH_LIMIT {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("launch message of {len} bytes")));
    }
    let mut body = vec![0u8; len];
    socket.read_exact(&mut body)?;
    Ok(body)
}

fn encode_status(status: Option<ExitStatus>) -> [u8; 5] {
    let (kind, value) = match status {
        None => (b'n', 0),
        Some(ExitStatus::Code(c)) => (b'c', c),
        Some(ExitStatus::Signal(s)) => (b'g', s),
    };
    let v = value.to_le_bytes();
    [kind, v[0], v[1], v[2], v[3]]
}

fn decode_status(answer: [u8; 5]) -> io::Result<Option<ExitStatus>> {
    let value = i32::from_le_bytes([answer[1], answer[2], answer[3], answer[4]]);
    match answer[0] {
        b'n' => Ok(None),
        b'c' => Ok(Some(ExitStatus::Code(value))),
        b'g' => Ok(Some(ExitStatus::Signal(value))),
        other => Err(io::Error::new(io::ErrorKind::InvalidData, format!("keeper status kind {other}"))),
    }
}

// ------------------------------------------------------------ rea's side

/// A keeper of one launch, seen from `rea`.
pub(crate) struct Keeper {
    pid: u32,
    start: u64,
    pidfd: Option<OwnedFd>,
    /// The launched process: its PID, and its start identity once read.
    root: u32,
    root_start: OnceLock<u64>,
    /// `None` once released, or once the keeper failed and was killed.
    socket: Mutex<Option<UnixStream>>,
}

static KEEPERS: Mutex<Vec<Arc<Keeper>>> = Mutex::new(Vec::new());

fn registry() -> std::sync::MutexGuard<'static, Vec<Arc<Keeper>>> {
    KEEPERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The keepers of this process's live launches.
pub(crate) fn live() -> Vec<Arc<Keeper>> {
    registry().clone()
}

/// The keeper with this PID and start identity, if it is one of ours.
pub(crate) fn find(pid: u32, start: u64) -> Option<Arc<Keeper>> {
    registry().iter().find(|k| k.pid == pid && k.start == start).cloned()
}

/// Starts a keeper on the terminal's slave side and has it launch `spec`;
/// returns the keeper and the launched process's PID. A failed launch
/// leaves no process behind (the keeper exits after reporting it).
pub(crate) fn launch(spec: &SpawnSpec, slave: &OwnedFd) -> Result<(Arc<Keeper>, u32), HostError> {
    let start_err = |source| HostError::Io { op: "start the keeper (rea's own executable, /proc/self/exe)", source };
    let (mut ours, theirs) = UnixStream::pair().map_err(start_err)?;
    let terminal = slave.try_clone().map_err(start_err)?;
    let mut child = Command::new("/proc/self/exe")
        .arg0("rea")
        .arg(KEEPER_ARGUMENT)
        .env_clear()
        .current_dir("/")
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::from(terminal))
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(start_err)?;
    let pid = child.id();
    // The keeper is rea's unreaped child: its PID, pidfd and start identity
    // below are its own.
    let handshake = procfs::stat(pid)
        .and_then(|st| st.ok_or_else(|| io::Error::other("the keeper is missing from /proc")))
        .and_then(|st| {
            ours.set_read_timeout(Some(ANSWER_BOUND))?;
            ours.write_all(&Launch::of(spec).encode())?;
            Ok((st.starttime, read_launched(&mut ours)?))
        });
    let (start, launched) = match handshake {
        Ok(done) => done,
        Err(source) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(HostError::Io { op: "hand the launch to the keeper", source });
        }
    };
    let root = match launched {
        Ok(root) => root,
        Err(source) => {
            // The keeper exits after reporting a failed launch.
            let _ = child.wait();
            return Err(HostError::Spawn { program: spec.program.clone(), source });
        }
    };
    let pidfd = rustix::process::Pid::from_raw(pid as i32)
        .and_then(|p| rustix::process::pidfd_open(p, PidfdFlags::empty()).ok());
    drop(child);
    let keeper =
        Arc::new(Keeper { pid, start, pidfd, root, root_start: OnceLock::new(), socket: Mutex::new(Some(ours)) });
    registry().push(Arc::clone(&keeper));
    Ok((keeper, root))
}

/// The keeper's report of the launch: the launched PID, or why it failed.
fn read_launched(socket: &mut UnixStream) -> io::Result<io::Result<u32>> {
    let mut kind = [0u8; 1];
    socket.read_exact(&mut kind)?;
    let mut word = [0u8; 4];
    socket.read_exact(&mut word)?;
    match kind[0] {
        b'P' => Ok(Ok(u32::from_le_bytes(word))),
        b'E' => {
            let errno = i32::from_le_bytes(word);
            let message = String::from_utf8_lossy(&read_message(socket)?).into_owned();
            Ok(Err(if errno > 0 { io::Error::from_raw_os_error(errno) } else { io::Error::other(message) }))
        }
        other => Err(io::Error::new(io::ErrorKind::InvalidData, format!("keeper answer kind {other}"))),
    }
}

impl Keeper {
    /// The keeper's PID.
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Records the launched process's start identity.
    pub(crate) fn pin_root(&self, start: u64) {
        let _ = self.root_start.set(start);
    }

    /// Whether this keeper holds the launch `root`.
    pub(crate) fn holds(&self, root: ProcessIdentity) -> bool {
        self.root == root.pid.0 && self.root_start.get() == Some(&root.start.0)
    }

    /// Whether the keeper still answers.
    pub(crate) fn answering(&self) -> bool {
        self.socket.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    /// Sends one request and reads its fixed-size answer. A keeper that
    /// fails to answer is killed: its children fall to `rea`.
    fn ask<const N: usize>(&self, request: u8) -> io::Result<[u8; N]> {
        let mut socket = self.socket.lock().unwrap_or_else(|e| e.into_inner());
        let Some(stream) = socket.as_mut() else { return Err(io::Error::other("the keeper no longer answers")) };
        let mut answer = [0u8; N];
        let result = stream.write_all(&[request]).and_then(|()| stream.read_exact(&mut answer));
        if let Err(e) = result {
            *socket = None;
            self.kill();
            return Err(e);
        }
        Ok(answer)
    }

    fn kill(&self) {
        if let Some(fd) = &self.pidfd {
            let _ = rustix::process::pidfd_send_signal(fd, rustix::process::Signal::KILL);
        }
    }

    /// Has the keeper reap its exited children; how many it reaped.
    pub(crate) fn reap(&self) -> usize {
        self.ask::<4>(b'r').map_or(0, |n| u32::from_le_bytes(n) as usize)
    }

    /// Whether the keeper has a child left (`None`: it did not answer).
    pub(crate) fn has_children(&self) -> Option<bool> {
        self.ask::<1>(b'd').ok().map(|a| a[0] != b'0')
    }

    /// The launched process's status, reaping it if it exited.
    pub(crate) fn root_status(&self) -> io::Result<Option<ExitStatus>> {
        decode_status(self.ask::<5>(b's')?)
    }

    /// Ends the keeper: `rea` has cleaned up. Waits (bounded) for it to
    /// exit and reaps it; a keeper that still holds children keeps cleaning
    /// after this returns.
    pub(crate) fn release(&self) {
        registry().retain(|k| !(k.pid == self.pid && k.start == self.start));
        if let Some(mut stream) = self.socket.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = stream.write_all(b"q");
        }
        let Some(fd) = &self.pidfd else { return };
        let mut poll = [rustix::event::PollFd::new(fd, rustix::event::PollFlags::IN)];
        let bound = rustix::time::Timespec { tv_sec: RELEASE_BOUND.as_secs() as i64, tv_nsec: 0 };
        if matches!(rustix::event::poll(&mut poll, Some(&bound)), Ok(n) if n > 0) {
            let _ = rustix::process::waitid(WaitId::PidFd(fd.as_fd()), WaitIdOptions::EXITED | WaitIdOptions::NOHANG);
        }
    }
}

// ---------------------------------------------------------- keeper's side

/// `__WALL`: wait for every kind of child, clone children included.
fn all_children() -> WaitOptions {
    WaitOptions::NOHANG | WaitOptions::from_bits_retain(libc::__WALL as u32)
}

/// The keeper process's state.
struct Kept {
    /// The host whose rules prove the cleanup (handed in by the crate root).
    host: fn() -> rea_engine::Host,
    launch: Launch,
    root: ProcessIdentity,
    status: Option<ExitStatus>,
}

fn to_status(status: rustix::process::WaitStatus) -> Option<ExitStatus> {
    status.exit_status().map(ExitStatus::Code).or_else(|| status.terminating_signal().map(ExitStatus::Signal))
}

impl Kept {
    /// Reaps every exited child; returns how many, and whether none is left.
    fn reap_all(&mut self) -> (u32, bool) {
        let mut reaped = 0;
        loop {
            match rustix::process::wait(all_children()) {
                Ok(Some((pid, status))) => {
                    reaped += 1;
                    if pid.as_raw_nonzero().get() as u32 == self.root.pid.0 {
                        self.status = to_status(status);
                    }
                }
                Ok(None) => return (reaped, false),
                Err(rustix::io::Errno::CHILD) => return (reaped, true),
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => return (reaped, false),
            }
        }
    }

    /// Reaps the launched process if it exited.
    fn root_status(&mut self) -> Option<ExitStatus> {
        if self.status.is_none()
            && let Some(pid) = rustix::process::Pid::from_raw(self.root.pid.0 as i32)
            && let Ok(Some((_, status))) = rustix::process::waitpid(Some(pid), WaitOptions::NOHANG)
        {
            self.status = to_status(status);
        }
        self.status
    }

    /// `rea` is gone (or released the keeper with children left): kill the
    /// tree with the engine's proof rules; remove the temporary root when
    /// `rea` could not. Returns the process's exit status.
    fn clean_up(&mut self, remove_root: bool) -> u8 {
        let host = (self.host)();
        // A launch without a token (the PTY probe) is proven by lineage
        // alone: a NUL can never occur in an environment value.
        let token = self.launch.token().unwrap_or_else(|| RunToken::from_string("\0".into()));
        let report = rea_engine::capture::cleanup_orphaned_run(&host, token, self.root);
        let root_removed = match self.launch.temporary_root.as_ref().filter(|_| remove_root) {
            Some(path) => std::fs::remove_dir_all(path).is_ok(),
            None => true,
        };
        if report.verified && root_removed { 0 } else { 3 }
    }
}

/// Runs this process as a keeper (the binary calls it when its first
/// argument is [`KEEPER_ARGUMENT`]); `host` builds the host whose rules
/// prove a cleanup. Returns the exit status.
pub(crate) fn serve(host: fn() -> rea_engine::Host) -> u8 {
    crate::subreaper::become_subreaper();
    if !crate::subreaper::subreaper_active() {
        return 2;
    }
    let setup = || -> io::Result<(UnixStream, OwnedFd)> {
        let socket = UnixStream::from(rustix::io::fcntl_dupfd_cloexec(rustix::stdio::stdin(), 3)?);
        let slave = rustix::io::fcntl_dupfd_cloexec(rustix::stdio::stdout(), 3)?;
        // Standard output held the terminal: only `slave` keeps it now.
        let null = std::fs::File::options().write(true).open("/dev/null")?;
        rustix::stdio::dup2_stdout(&null)?;
        Ok((socket, slave))
    };
    let Ok((mut socket, slave)) = setup() else { return 2 };
    let launch = match read_message(&mut socket).and_then(|body| Launch::decode(&body)) {
        Ok(l) => l,
        // rea went away before handing over a launch: nothing was started.
        Err(_) => return 0,
    };
    let spawned = spawn_root(&launch, &slave);
    drop(slave);
    let child = match spawned {
        Ok(child) => child,
        Err(e) => {
            let mut answer = vec![b'E'];
            answer.extend_from_slice(&e.raw_os_error().unwrap_or(0).to_le_bytes());
            put(&mut answer, e.to_string().as_bytes());
            let _ = socket.write_all(&answer);
            return 1;
        }
    };
    let pid = child.id();
    drop(child);
    // The launched process is this keeper's unreaped child: its start
    // identity is its own.
    let start = procfs::stat(pid).ok().flatten().map_or(0, |st| st.starttime);
    let mut kept =
        Kept { host, launch, root: ProcessIdentity { pid: Pid(pid), start: StartTime(start) }, status: None };
    let mut answer = vec![b'P'];
    answer.extend_from_slice(&pid.to_le_bytes());
    if socket.write_all(&answer).is_err() {
        return kept.clean_up(true);
    }
    serve_requests(&mut kept, &mut socket)
}

/// Answers `rea`'s requests until it releases the keeper or goes away.
fn serve_requests(kept: &mut Kept, socket: &mut UnixStream) -> u8 {
    loop {
        let mut request = [0u8; 1];
        match socket.read(&mut request) {
            Ok(0) => return kept.clean_up(true),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return kept.clean_up(true),
        }
        let written = match request[0] {
            b'r' => socket.write_all(&kept.reap_all().0.to_le_bytes()),
            b'd' => socket.write_all(if kept.reap_all().1 { b"0" } else { b"1" }),
            b's' => {
                let status = kept.root_status();
                socket.write_all(&encode_status(status))
            }
            b'q' => {
                return if kept.reap_all().1 { 0 } else { kept.clean_up(false) };
            }
            _ => return kept.clean_up(true),
        };
        if written.is_err() {
            return kept.clean_up(true);
        }
    }
}

/// Launches the command as a session leader on the terminal.
fn spawn_root(launch: &Launch, slave: &OwnedFd) -> io::Result<std::process::Child> {
    let mut command = Command::new(&launch.program);
    command
        .arg0(&launch.argv0)
        .args(&launch.args)
        .current_dir(&launch.working_directory)
        .env_clear()
        .envs(launch.environment.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::from(slave.try_clone()?))
        .stdout(Stdio::from(slave.try_clone()?))
        .stderr(Stdio::from(slave.try_clone()?));
    let parent = rustix::process::getpid();
    #[expect(unsafe_code, reason = "pre_exec is the only way to make the child a session leader on its PTY")]
    // SAFETY: the closure runs in the forked child before exec and only
    // makes async-signal-safe system calls (setsid, the TIOCSCTTY ioctl on
    // the already-installed stdin, prctl(PR_SET_PDEATHSIG) and getppid); it
    // allocates nothing and touches no lock. The keeper is single-threaded.
    unsafe {
        command.pre_exec(move || {
            rustix::process::setsid().map_err(io::Error::from)?;
            rustix::process::ioctl_tiocsctty(rustix::stdio::stdin()).map_err(io::Error::from)?;
            // A killed keeper takes the launched process with it.
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
                .map_err(io::Error::from)?;
            // The keeper died before the death signal was armed: do not run.
            if rustix::process::getppid() != Some(parent) {
                return Err(io::Error::other("the keeper exited while the command was being launched"));
            }
            Ok(())
        });
    }
    command.spawn()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_survives_the_wire() {
        let launch = Launch {
            program: "/bin/sh".into(),
            argv0: "sh".into(),
            working_directory: "/tmp".into(),
            temporary_root: Some("/tmp/rea-process-x".into()),
            args: vec!["-c".into(), OsString::from_vec(b"echo \xff".to_vec()), "".into()],
            environment: vec![("A".into(), "1".into()), (RUN_TOKEN_VARIABLE.into(), "abc".into())],
        };
        let message = launch.encode();
        assert_eq!(u32::from_le_bytes(message[..4].try_into().unwrap()) as usize, message.len() - 4);
        let back = Launch::decode(&message[4..]).unwrap();
        assert_eq!(back, launch);
        assert_eq!(back.token().map(|t| t.as_str().to_owned()), Some("abc".to_owned()));
        let none = Launch { temporary_root: None, environment: Vec::new(), ..launch };
        let back = Launch::decode(&none.encode()[4..]).unwrap();
        assert_eq!(back.temporary_root, None);
        assert!(back.token().is_none());
    }

    #[test]
    fn a_truncated_launch_is_refused() {
        let message = Launch {
            program: "/bin/true".into(),
            argv0: "true".into(),
            working_directory: "/".into(),
            temporary_root: None,
            args: vec!["x".into()],
            environment: Vec::new(),
        }
        .encode();
        for cut in 4..message.len() - 1 {
            assert!(Launch::decode(&message[4..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn statuses_survive_the_wire() {
        for status in [None, Some(ExitStatus::Code(0)), Some(ExitStatus::Code(-3)), Some(ExitStatus::Signal(9))] {
            assert_eq!(decode_status(encode_status(status)).unwrap(), status);
        }
        assert!(decode_status([b'?', 0, 0, 0, 0]).is_err());
    }
}
