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
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rea_engine::host::{
    ExactJournal, ExitStatus, HostError, Pid, ProcessIdentity, RunToken, SpawnSpec, StartTime, TracedImage,
    TreeObservation,
};
use rea_engine::scenario::RUN_TOKEN_VARIABLE;
use rustix::process::{PidfdFlags, WaitId, WaitIdOptions};

use crate::awake::Awake;
use crate::procfs;
use crate::tracer::{self, Tracer, Waited};

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

    fn wide(&mut self) -> io::Result<u64> {
        let field = self.bytes()?;
        let raw = <[u8; 8]>::try_from(field)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "malformed number in keeper message"))?;
        Ok(u64::from_le_bytes(raw))
    }

    fn status(&mut self) -> io::Result<Option<ExitStatus>> {
        let field = self.bytes()?;
        let raw = <[u8; 5]>::try_from(field)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "malformed status in keeper message"))?;
        decode_status(raw)
    }
}

/// How the keeper observes the launched tree (a byte of the launch message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trace {
    /// Sampling only: no tracing.
    Off,
    /// Trace with ptrace event stops.
    Exact,
    /// Behave as if ptrace were refused (debug builds, for tests).
    Refused,
}

impl Trace {
    fn byte(self) -> u8 {
        match self {
            Trace::Off => b'o',
            Trace::Exact => b'x',
            Trace::Refused => b'r',
        }
    }

    fn of_byte(byte: &[u8]) -> io::Result<Trace> {
        match byte {
            b"o" => Ok(Trace::Off),
            b"x" => Ok(Trace::Exact),
            b"r" => Ok(Trace::Refused),
            _ => Err(io::Error::new(io::ErrorKind::InvalidData, "malformed trace mode in launch message")),
        }
    }
}

/// The environment variable that makes a debug build's keeper behave as if
/// ptrace were refused (for the fallback's tests; release builds ignore it).
pub(crate) const SIMULATE_REFUSAL_VARIABLE: &str = "REA_TEST_SIMULATE_PTRACE_REFUSAL";

/// What the keeper launches, as it crosses the socket.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Launch {
    program: OsString,
    argv0: OsString,
    working_directory: OsString,
    temporary_root: Option<OsString>,
    args: Vec<OsString>,
    environment: Vec<(OsString, OsString)>,
    trace: Trace,
    /// Most journal rows kept.
    limit: u32,
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
            trace: match spec.observation {
                TreeObservation::Sampled => Trace::Off,
                TreeObservation::Exact { .. }
                    if cfg!(debug_assertions) && std::env::var_os(SIMULATE_REFUSAL_VARIABLE).is_some() =>
                {
                    Trace::Refused
                }
                TreeObservation::Exact { .. } => Trace::Exact,
            },
            limit: match spec.observation {
                TreeObservation::Sampled => 0,
                TreeObservation::Exact { limit } => u32::try_from(limit).unwrap_or(u32::MAX),
            },
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
        put(&mut body, &[self.trace.byte()]);
        put(&mut body, &self.limit.to_le_bytes());
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
        let trace = Trace::of_byte(f.bytes()?)?;
        let limit = f.count()? as u32;
        Ok(Launch { program, argv0, working_directory, temporary_root, args, environment, trace, limit })
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

/// The journal message: `x`, the rows left out and the rows; or `n` and
/// why the tree was not traced.
fn encode_journal(tracer: Option<&crate::tracer::Tracer>, untraced: &str) -> Vec<u8> {
    let mut body = Vec::new();
    let Some(tracer) = tracer else {
        put(&mut body, b"n");
        put(&mut body, untraced.as_bytes());
        let mut message = Vec::new();
        put(&mut message, &body);
        return message;
    };
    let (rows, dropped) = tracer.journal();
    put(&mut body, b"x");
    put(&mut body, &dropped.to_le_bytes());
    put(&mut body, &(rows.len() as u32).to_le_bytes());
    for row in rows {
        put(&mut body, &row.at_us.to_le_bytes());
        put(&mut body, &row.pid.to_le_bytes());
        put(&mut body, &row.parent.to_le_bytes());
        put(&mut body, &row.command_bytes.to_le_bytes());
        put(&mut body, row.command.as_bytes());
        put(&mut body, row.unread.as_deref().unwrap_or("").as_bytes());
        put(&mut body, &encode_status(row.exit));
    }
    let mut message = Vec::with_capacity(body.len() + 4);
    put(&mut message, &body);
    message
}

fn decode_journal(body: &[u8]) -> io::Result<ExactJournal> {
    let mut f = Fields(body);
    match f.bytes()? {
        b"n" => Ok(ExactJournal::Unavailable { reason: String::from_utf8_lossy(f.bytes()?).into_owned() }),
        b"x" => {
            let dropped = f.wide()?;
            let rows = (0..f.count()?)
                .map(|_| {
                    Ok(TracedImage {
                        at_us: f.wide()?,
                        pid: Pid(f.count()? as u32),
                        parent: Pid(f.count()? as u32),
                        command_bytes: f.count()?,
                        command: String::from_utf8_lossy(f.bytes()?).into_owned(),
                        unread: Some(String::from_utf8_lossy(f.bytes()?).into_owned()).filter(|u| !u.is_empty()),
                        exit: f.status()?,
                    })
                })
                .collect::<io::Result<_>>()?;
            Ok(ExactJournal::Observed { rows, dropped })
        }
        _ => Err(io::Error::new(io::ErrorKind::InvalidData, "malformed journal kind")),
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

    /// Sends one request and reads its length-prefixed answer (bounded by
    /// the launch limit). A keeper that fails to answer is killed.
    fn ask_message(&self, request: u8) -> io::Result<Vec<u8>> {
        let mut socket = self.socket.lock().unwrap_or_else(|e| e.into_inner());
        let Some(stream) = socket.as_mut() else { return Err(io::Error::other("the keeper no longer answers")) };
        let result = stream.write_all(&[request]).and_then(|()| read_message(stream));
        if result.is_err() {
            *socket = None;
            self.kill();
        }
        result
    }

    /// The exact journal of the launched tree, or why there is none.
    pub(crate) fn journal(&self) -> ExactJournal {
        match self.ask_message(b'j').and_then(|body| decode_journal(&body)) {
            Ok(journal) => journal,
            Err(e) => ExactJournal::Unavailable { reason: format!("the keeper's journal could not be read: {e}") },
        }
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

/// The keeper process's state.
struct Kept {
    /// The host whose rules prove the cleanup (handed in by the crate root).
    host: fn() -> rea_engine::Host,
    launch: Launch,
    root: ProcessIdentity,
    status: Option<ExitStatus>,
    /// Becomes readable when a child changed state.
    signals: OwnedFd,
    /// The tracer of the launched tree, when it is traced.
    tracer: Option<Tracer>,
    /// Why the tree is not traced.
    untraced: String,
    /// Keeps a CPU awake during bursts of stops (when traced).
    awake: Option<Awake>,
}

impl Kept {
    /// Handles what a wait reported besides an exit (a tracee's stop).
    fn note(&mut self, waited: Waited) {
        if let Some(tracer) = self.tracer.as_mut() {
            tracer.on_waited(waited);
        }
    }

    /// Shows the tracer the zombie that the next reap of `pid` (any child:
    /// `None`) takes, while it can still be looked at.
    fn peek_exit(&mut self, pid: Option<u32>) {
        if let Some(tracer) = self.tracer.as_mut()
            && let Ok(Some(Waited::Exit(pid, status))) = tracer::wait_once(pid, libc::WEXITED | libc::WNOWAIT)
        {
            tracer.before_reap(pid, status);
        }
    }

    /// Reaps every exited child; returns how many, and whether none is left.
    fn reap_all(&mut self) -> (u32, bool) {
        let mut reaped = 0;
        loop {
            self.peek_exit(None);
            match tracer::wait_once(None, libc::WEXITED) {
                Ok(Some(waited @ Waited::Exit(pid, status))) => {
                    reaped += 1;
                    if pid == self.root.pid.0 {
                        self.status = Some(status);
                    }
                    self.note(waited);
                }
                Ok(Some(stop)) => self.note(stop),
                Ok(None) => return (reaped, false),
                Err(e) if e.raw_os_error() == Some(libc::ECHILD) => return (reaped, true),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return (reaped, false),
            }
        }
    }

    /// Reaps the launched process if it exited.
    fn root_status(&mut self) -> Option<ExitStatus> {
        while self.status.is_none() {
            self.peek_exit(Some(self.root.pid.0));
            match tracer::wait_once(Some(self.root.pid.0), libc::WEXITED) {
                Ok(Some(waited @ Waited::Exit(_, status))) => {
                    self.status = Some(status);
                    self.note(waited);
                }
                Ok(Some(stop)) => self.note(stop),
                _ => break,
            }
        }
        self.status
    }

    /// `rea` is gone (or released the keeper with children left): stop
    /// tracing, kill the tree with the engine's proof rules; remove the
    /// temporary root when `rea` could not. Returns the process's exit status.
    fn clean_up(&mut self, remove_root: bool) -> u8 {
        if let Some(mut tracer) = self.tracer.take() {
            tracer.detach_all(&self.signals);
        }
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
    let setup = || -> io::Result<(UnixStream, OwnedFd, OwnedFd)> {
        let socket = UnixStream::from(rustix::io::fcntl_dupfd_cloexec(rustix::stdio::stdin(), 3)?);
        let slave = rustix::io::fcntl_dupfd_cloexec(rustix::stdio::stdout(), 3)?;
        // Standard output held the terminal: only `slave` keeps it now.
        let null = std::fs::File::options().write(true).open("/dev/null")?;
        rustix::stdio::dup2_stdout(&null)?;
        // Before any thread starts, so that every thread blocks SIGCHLD.
        let signals = tracer::child_signals()?;
        Ok((socket, slave, signals))
    };
    let Ok((mut socket, slave, signals)) = setup() else { return 2 };
    let launch = match read_message(&mut socket).and_then(|body| Launch::decode(&body)) {
        Ok(l) => l,
        // rea went away before handing over a launch: nothing was started.
        Err(_) => return 0,
    };
    let spawned = spawn_root(&launch, &slave);
    drop(slave);
    let (child, traced) = match spawned {
        Ok(spawned) => spawned,
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
    let (tracer, untraced) = match traced {
        Ok(()) => (Some(Tracer::new(pid, launch.limit as usize)), String::new()),
        Err(why) => (None, why),
    };
    let root = ProcessIdentity { pid: Pid(pid), start: StartTime(start) };
    let awake = tracer.as_ref().and_then(|_| Awake::start());
    let mut kept = Kept { host, launch, root, status: None, signals, tracer, untraced, awake };
    let mut answer = vec![b'P'];
    answer.extend_from_slice(&pid.to_le_bytes());
    if socket.write_all(&answer).is_err() {
        return kept.clean_up(true);
    }
    serve_requests(&mut kept, &mut socket)
}

/// Waits for `rea`'s next request, handling the tree's stops meanwhile;
/// `None`: `rea` is gone.
fn next_request(kept: &mut Kept, socket: &mut UnixStream) -> Option<u8> {
    loop {
        use rustix::event::{PollFd, PollFlags};
        let (socket_ready, child_ready) = {
            let mut fds = [PollFd::new(&*socket, PollFlags::IN), PollFd::new(&kept.signals, PollFlags::IN)];
            match rustix::event::poll(&mut fds, None) {
                Ok(_) => (!fds[0].revents().is_empty(), !fds[1].revents().is_empty()),
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return None,
            }
        };
        if child_ready {
            tracer::drain(&kept.signals);
            if let Some(tracer) = kept.tracer.as_mut() {
                tracer.pump();
            }
            if let Some(awake) = kept.awake.as_mut() {
                awake.touch();
            }
        }
        if socket_ready {
            let mut request = [0u8; 1];
            match socket.read(&mut request) {
                Ok(0) => return None,
                Ok(_) => return Some(request[0]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
    }
}

/// Answers `rea`'s requests until it releases the keeper or goes away.
fn serve_requests(kept: &mut Kept, socket: &mut UnixStream) -> u8 {
    loop {
        let Some(request) = next_request(kept, socket) else { return kept.clean_up(true) };
        let written = match request {
            b'r' => socket.write_all(&kept.reap_all().0.to_le_bytes()),
            b'd' => socket.write_all(if kept.reap_all().1 { b"0" } else { b"1" }),
            b's' => {
                let status = kept.root_status();
                socket.write_all(&encode_status(status))
            }
            b'j' => {
                if let Some(tracer) = kept.tracer.as_mut() {
                    tracer.pump();
                }
                socket.write_all(&encode_journal(kept.tracer.as_ref(), &kept.untraced))
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

/// The launched process, and whether it is traced (or why not).
type Spawned = (std::process::Child, Result<(), String>);

/// Launches the command as a session leader on the terminal. The child
/// writes its PID and waits until the keeper has seized it (or decided not
/// to), then execs. It is forked by a helper thread that lives as long as
/// the keeper (a parent-death signal follows the thread that forked).
fn spawn_root(launch: &Launch, slave: &OwnedFd) -> io::Result<Spawned> {
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
    let (pid_read, pid_write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    let (go_read, go_write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    prepare_child(&mut command, pid_write.as_raw_fd(), go_read.as_raw_fd());
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::Builder::new().name("rea-keeper-launch".into()).spawn(move || {
        let spawned = command.spawn();
        drop((pid_write, go_read));
        let _ = sender.send(spawned);
        loop {
            std::thread::park();
        }
    })?;
    let mut word = [0u8; 4];
    let traced = match std::fs::File::from(pid_read).read_exact(&mut word) {
        Ok(()) => match launch.trace {
            Trace::Off => Err("the scenario asked for sampling".to_owned()),
            Trace::Refused => Err("ptrace(PTRACE_SEIZE) was refused (simulated for a test)".to_owned()),
            Trace::Exact => tracer::seize(u32::from_le_bytes(word))
                .map_err(|e| format!("ptrace(PTRACE_SEIZE) of the launched process was refused: {e}")),
        },
        // The child was not forked, or failed before it could wait.
        Err(_) => Err("the command was not launched".to_owned()),
    };
    let _ = rustix::io::write(&go_write, b"g");
    drop(go_write);
    let child = receiver.recv().map_err(|_| io::Error::other("the keeper's launch thread ended"))??;
    Ok((child, traced))
}

/// The child's steps before `exec`: a session leader on the terminal, tied
/// to the keeper by its death signal, `SIGCHLD` unblocked; then it reports
/// its PID on `pid_write` and waits for a byte (or end of file) on `go_read`.
fn prepare_child(command: &mut Command, pid_write: i32, go_read: i32) {
    let parent = rustix::process::getpid();
    #[expect(unsafe_code, reason = "pre_exec is the only way to make the child a session leader on its PTY")]
    // SAFETY: the closure runs in the forked child before exec and only
    // makes async-signal-safe system calls (setsid, the TIOCSCTTY ioctl on
    // the already-installed stdin, prctl(PR_SET_PDEATHSIG), getppid,
    // sigprocmask, getpid, write and read on two pipe descriptors that stay
    // open until exec); it allocates nothing and touches no lock. The other
    // keeper thread is blocked reading the PID pipe meanwhile.
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
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            let pid = libc::getpid().to_le_bytes();
            if libc::write(pid_write, pid.as_ptr().cast(), pid.len()) != pid.len() as isize {
                return Err(io::Error::last_os_error());
            }
            let mut go = [0u8; 1];
            while libc::read(go_read, go.as_mut_ptr().cast(), 1) < 0 {
                if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
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
            trace: Trace::Exact,
            limit: 1000,
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
            trace: Trace::Off,
            limit: 0,
        }
        .encode();
        for cut in 4..message.len() - 1 {
            assert!(Launch::decode(&message[4..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn a_journal_survives_the_wire() {
        use crate::tracer::Row;
        let rows = vec![
            Row {
                at_us: 5,
                pid: 10,
                parent: 0,
                command: "sh -c x".into(),
                command_bytes: 7,
                unread: None,
                exit: Some(ExitStatus::Code(3)),
            },
            Row {
                at_us: 9,
                pid: 11,
                parent: 10,
                command: "sleep 1".into(),
                command_bytes: 90,
                unread: None,
                exit: None,
            },
            Row {
                at_us: 12,
                pid: 12,
                parent: 10,
                command: String::new(),
                command_bytes: 0,
                unread: Some("it was killed".into()),
                exit: Some(ExitStatus::Signal(9)),
            },
        ];
        let tracer = Tracer::holding(rows.clone(), 4);
        let message = encode_journal(Some(&tracer), "");
        let ExactJournal::Observed { rows: back, dropped } = decode_journal(&message[4..]).unwrap() else {
            panic!("not observed")
        };
        assert_eq!(dropped, 4);
        let back: Vec<_> = back
            .iter()
            .map(|r| (r.at_us, r.pid.0, r.parent.0, r.command.clone(), r.command_bytes, r.unread.clone(), r.exit))
            .collect();
        let sent: Vec<_> = rows
            .iter()
            .map(|r| (r.at_us, r.pid, r.parent, r.command.clone(), r.command_bytes as usize, r.unread.clone(), r.exit))
            .collect();
        assert_eq!(back, sent);
        let refused = encode_journal(None, "ptrace refused");
        assert_eq!(
            decode_journal(&refused[4..]).unwrap(),
            ExactJournal::Unavailable { reason: "ptrace refused".into() }
        );
        for cut in 4..message.len() - 1 {
            assert!(decode_journal(&message[4..cut]).is_err(), "cut at {cut}");
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
