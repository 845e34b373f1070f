//! The host capabilities the engine programs against, in OS-neutral terms.
//!
//! Three traits split the host by capability and failure semantics:
//! [`PtyBackend`] launches a command in a pseudo-terminal, [`ProcessInspector`]
//! reads the process table without changing anything, and
//! [`OwnershipVerifier`] proves a process belongs to this run before anything
//! may signal it. A fourth seam, [`crate::fs::FsProbe`], reads the filesystem
//! for snapshots. Backend crates implement them; the engine never sees a file
//! descriptor, a `pid_t` or a `libc` type. Only the PTY byte stream is
//! asynchronous; everything else is a plain blocking call the engine runs on
//! a blocking thread when it must not stall the event loop.

use std::ffi::OsString;
use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use futures_lite::{AsyncRead, AsyncWrite, Stream, StreamExt};

use crate::error::{Category, UserError};
use crate::evidence::SignalMechanism;
use crate::scenario::SignalName;

/// A native process ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pid(pub u32);

impl fmt::Display for Pid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// An opaque native start identity: two processes with the same PID and the
/// same start identity are the same process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StartTime(pub u64);

/// A process pinned to its start identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProcessIdentity {
    /// Its PID.
    pub pid: Pid,
    /// Its start identity.
    pub start: StartTime,
}

/// The run's ownership token: 128 random bits in hex, placed in the child's
/// environment as `REA_PROCESS_RUN_ID` and inherited by its descendants.
#[derive(Clone, PartialEq, Eq)]
pub struct RunToken(String);

impl RunToken {
    /// Draws a fresh token from the OS random source.
    pub fn generate() -> Result<RunToken, HostError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| HostError::Io {
            op: "read the OS random source",
            source: std::io::Error::other(e.to_string()),
        })?;
        Ok(RunToken(crate::evidence::hex(&bytes)))
    }

    /// Wraps a known token (tests, fakes).
    pub fn from_string(token: String) -> RunToken {
        RunToken(token)
    }

    /// The hex text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for RunToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RunToken({})", self.0)
    }
}

/// Terminal size in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermSize {
    /// Width.
    pub columns: u16,
    /// Height.
    pub rows: u16,
}

/// Everything needed to launch the command, built before any process exists.
#[derive(Debug, Clone)]
pub struct SpawnSpec {
    /// Absolute path of the program.
    pub program: PathBuf,
    /// `argv[0]`.
    pub argv0: String,
    /// `argv[1..]`.
    pub args: Vec<String>,
    /// Working directory.
    pub working_directory: PathBuf,
    /// The complete environment of the child.
    pub environment: Vec<(OsString, OsString)>,
    /// Initial terminal size.
    pub size: TermSize,
    /// The run's private temporary root, which a backend's keeper removes
    /// if `rea` dies before it could (`None` when the launch has none).
    pub temporary_root: Option<PathBuf>,
    /// How the launched tree is to be observed.
    pub observation: TreeObservation,
}

/// How a launch's process tree is to be observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeObservation {
    /// Sampling only (the scenario's `process_observation: "sampled"`).
    Sampled,
    /// Every fork, exec and exit, where the host can (see
    /// [`PtyProcess::process_journal`]), keeping at most `limit` rows.
    Exact {
        /// `limits.processes`.
        limit: u64,
    },
}

/// Bytes of a command line an observer keeps: a record shows at most 4096,
/// and the rest leaves room to redact a secret that starts inside them.
pub const KEPT_COMMAND_BYTES: usize = 4096 + crate::scenario::MAX_INPUT_DATA_BYTES;

/// One process image of an exact observation: from its creation (showing
/// its creator's command) or from its `exec`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracedImage {
    /// Microseconds after the launch.
    pub at_us: u64,
    /// Its PID.
    pub pid: Pid,
    /// The process that created it (0: none of the run's).
    pub parent: Pid,
    /// Its command line, arguments joined by spaces, at most
    /// [`KEPT_COMMAND_BYTES`].
    pub command: String,
    /// Bytes of the command line as read.
    pub command_bytes: usize,
    /// How it ended (`None`: not observed).
    pub exit: Option<ExitStatus>,
}

/// What exact observation of a launch produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExactJournal {
    /// Every fork, exec and exit was observed, in order; `dropped` rows did
    /// not fit the limit.
    Observed {
        /// The rows, in order of observation.
        rows: Vec<TracedImage>,
        /// Rows left out at the limit.
        dropped: u64,
    },
    /// The host could not observe exactly; the capture samples.
    Unavailable {
        /// Why (for the record).
        reason: String,
    },
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// It called `exit` with this code.
    Code(i32),
    /// A signal with this number ended it.
    Signal(i32),
}

/// A boxed future, for the one asynchronous trait method.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Launches commands in a pseudo-terminal.
pub trait PtyBackend: Send + Sync {
    /// The mechanism, recorded as `manifest.pty_backend`.
    fn name(&self) -> &'static str;
    /// Whether `path` is a regular file the current user may execute.
    fn is_executable(&self, path: &Path) -> bool;
    /// Launches `spec` as the leader of a new session whose controlling
    /// terminal is a new PTY. A failed `exec` is an error naming the program,
    /// and leaves no process behind.
    fn spawn(&self, spec: &SpawnSpec) -> Result<Box<dyn PtyProcess>, HostError>;
    /// Reaps exited children of `rea` (orphaned descendants adopted by it,
    /// and launched processes whose exit was not awaited); returns how many.
    /// Call it only when no [`PtyProcess::wait`] future is pending.
    fn reap_adopted(&self) -> usize;
    /// The permissions of the private temporary root (`0700` where the OS has
    /// modes); `None` keeps the platform default.
    fn private_dir_permissions(&self) -> Option<std::fs::Permissions> {
        None
    }
}

/// One half (reader or writer) of a terminal stream whose two halves share
/// one readiness-driven handle, such as a PTY master: backends hand these out
/// from [`PtyProcess::take_output`] and [`PtyProcess::take_input`].
pub struct SharedHalf<T>(pub Arc<async_io::Async<T>>);

impl<T> AsyncRead for SharedHalf<T>
where
    for<'a> &'a T: std::io::Read,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut [u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        Pin::new(&mut &*self.0).poll_read(cx, buf)
    }
}

impl<T> AsyncWrite for SharedHalf<T>
where
    for<'a> &'a T: std::io::Write,
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        Pin::new(&mut &*self.0).poll_write(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<std::io::Result<()>> {
        Pin::new(&mut &*self.0).poll_flush(cx)
    }
    fn poll_close(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<std::io::Result<()>> {
        Pin::new(&mut &*self.0).poll_close(cx)
    }
}

/// A launched command and its terminal.
pub trait PtyProcess: Send {
    /// The launched process's identity, read at launch.
    fn identity(&self) -> ProcessIdentity;
    /// The terminal's output stream (once).
    fn take_output(&mut self) -> Option<Box<dyn AsyncRead + Send + Unpin>>;
    /// The terminal's input stream (once).
    fn take_input(&mut self) -> Option<Box<dyn AsyncWrite + Send + Unpin>>;
    /// Sets the terminal size (the kernel signals the foreground group).
    fn resize(&self, size: TermSize) -> Result<(), HostError>;
    /// Resolves when the launched process has exited, after reaping it. The
    /// future owns what it needs, so it can be kept across event-loop turns.
    fn wait(&self) -> BoxFuture<'static, Result<ExitStatus, HostError>>;
    /// Closes both ends of the terminal.
    fn close_terminal(&mut self);
    /// Whether the terminal echoes input now (its `ECHO` flag); `None` when
    /// the backend cannot tell (the default) or the terminal is closed.
    fn echo(&self) -> Option<bool> {
        None
    }
    /// The exact journal of the launched tree (call it after cleanup, before
    /// the process is dropped). The default has no exact observation.
    fn process_journal(&self) -> ExactJournal {
        ExactJournal::Unavailable { reason: "this host observes process trees only by sampling".into() }
    }
}

/// One row of the process table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessRow {
    /// PID.
    pub pid: Pid,
    /// Parent PID (0 for none).
    pub parent: Pid,
    /// Process group.
    pub group: Pid,
    /// Session.
    pub session: Pid,
    /// Start identity.
    pub start: StartTime,
    /// Whether it has exited and awaits reaping.
    pub zombie: bool,
    /// Command line, arguments joined by spaces.
    pub command: String,
}

/// Read-only process-table inspection. It never signals. "Gone" is
/// `Ok(None)`, not an error.
pub trait ProcessInspector: Send + Sync {
    /// One process's row.
    fn process(&self, pid: Pid) -> Result<Option<ProcessRow>, HostError>;
    /// The PIDs of a process's children (all threads), sorted.
    fn children(&self, pid: Pid) -> Result<Vec<Pid>, HostError>;
    /// Every visible process. Unreadable rows are skipped and counted.
    fn table(&self) -> Result<ProcessTable, HostError>;
}

/// The visible process table.
#[derive(Debug, Clone, Default)]
pub struct ProcessTable {
    /// Readable rows, by ascending PID.
    pub rows: Vec<ProcessRow>,
    /// PIDs whose row could not be read (not counting exit races).
    pub unreadable: Vec<(Pid, String)>,
}

/// How a process was proven to belong to the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Proof {
    /// It descends from the launched process, proven race-free through
    /// `rea`'s own unreaped children; its environment does not matter.
    Lineage,
    /// It carries the run token (lineage could not show it).
    Token,
}

impl Proof {
    /// The report's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Proof::Lineage => "lineage",
            Proof::Token => "token",
        }
    }
}

/// The exact answer to "is any descendant of `rea` still alive?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Descendants {
    /// Proven: `rea` has no child at all (Linux: `waitid` reported `ECHILD`),
    /// so no descendant of the capture is alive.
    NoneAlive,
    /// Proven: a descendant of this run is still alive (or unreaped).
    SomeAlive,
    /// The host cannot answer exactly (no such primitive, or other launches
    /// share this process); fall back to observation.
    Unknown,
}

/// What ownership verification concluded about a PID.
pub enum Ownership {
    /// Proven by lineage or by the run token, with the expected identity;
    /// the handle may signal it.
    Owned(Box<dyn OwnedProcess>),
    /// No live process has that PID (or it is a zombie).
    Gone,
    /// A different process now has the PID; it was not touched.
    IdentityChanged,
    /// The process is readable and does not carry the token.
    Foreign,
    /// Ownership could not be established.
    Unverifiable {
        /// Why.
        reason: String,
    },
}

impl fmt::Debug for Ownership {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ownership::Owned(p) => write!(f, "Owned({:?})", p.identity()),
            Ownership::Gone => f.write_str("Gone"),
            Ownership::IdentityChanged => f.write_str("IdentityChanged"),
            Ownership::Foreign => f.write_str("Foreign"),
            Ownership::Unverifiable { reason } => write!(f, "Unverifiable({reason})"),
        }
    }
}

/// The proof that a process is owned: the only way to signal one.
pub trait OwnedProcess: Send {
    /// The verified identity.
    fn identity(&self) -> ProcessIdentity;
    /// Sends `signal` to exactly the verified process.
    fn signal(&self, signal: SignalName) -> Result<(), SignalError>;
    /// How ownership was proven.
    fn proof(&self) -> Proof {
        Proof::Token
    }
    /// Stops (freezes) exactly the verified process so it can no longer
    /// fork while the tree is swept. Returns whether it was stopped; a
    /// backend without the primitive returns `Ok(false)`.
    fn freeze(&self) -> Result<bool, SignalError> {
        Ok(false)
    }
    /// Kills the verified process's whole process group in one atomic kernel
    /// operation, when the backend can prove every member is the run's (the
    /// group lies in a session created inside the run) and the group cannot
    /// be a reused ID. Returns the group killed, or `None` when no such proof
    /// or primitive exists (then only the process itself is signalled).
    fn kill_group(&self) -> Result<Option<Pid>, SignalError> {
        Ok(None)
    }
}

/// Why a signal to a verified process failed.
#[derive(Debug, thiserror::Error)]
pub enum SignalError {
    /// The process exited between verification and the signal.
    #[error("the process had already exited")]
    Gone,
    /// The OS refused.
    #[error("the signal call failed: {0}")]
    Failed(std::io::Error),
}

/// What a process must show to be owned by this run.
#[derive(Debug, Clone, Copy)]
pub struct OwnershipClaim<'a> {
    /// The run token it must carry in its environment.
    pub token: &'a RunToken,
    /// The session the launched process created (for relatedness; lineage
    /// now proves descendants whatever their session or environment).
    pub session: Option<Pid>,
    /// The launched process. A process proven to descend from it (through
    /// the host's own process tree) is owned whatever its environment says.
    pub root: Option<ProcessIdentity>,
}

/// Proves ownership before any signal.
pub trait OwnershipVerifier: Send + Sync {
    /// Verifies that `pid` is a live process satisfying `claim`, whose start
    /// identity is `expected` when given. Lineage first: a process the
    /// backend proves, race-free, to descend from `claim.root` through its
    /// own process tree is owned whatever its environment says (the ancestry
    /// walk, the subreaper and `rea`'s own PID are the backend's business).
    /// Otherwise the run token proves it. The identity is read before and
    /// after so a PID reused during the checks is not adopted.
    fn verify(&self, pid: Pid, expected: Option<StartTime>, claim: &OwnershipClaim<'_>) -> Ownership;
    /// How signals reach owned processes (`pidfd` or `checked-kill`).
    fn mechanism(&self) -> SignalMechanism;
    /// The exact check that no descendant of the run is alive, reaping exited
    /// children the host may reap. Called only when no
    /// [`PtyProcess::wait`] future is pending. The default cannot prove it.
    fn descendants(&self) -> Descendants {
        Descendants::Unknown
    }
    /// [`Self::descendants`] for the run of `claim`, while other runs of
    /// this process may be alive too (a suite runs several at once): a host
    /// that can answer for one run's tree alone does so here. The default
    /// is [`Self::descendants`].
    fn descendants_of(&self, claim: &OwnershipClaim<'_>) -> Descendants {
        let _ = claim;
        self.descendants()
    }
    /// `rea`'s own live children that are proven the run's (by lineage or
    /// token): the quickest view of a tree that forks and exits faster than
    /// a scan of the whole table. The default has no such view.
    fn owned_children(&self, claim: &OwnershipClaim<'_>) -> Vec<Box<dyn OwnedProcess>> {
        let _ = claim;
        Vec::new()
    }
}

/// Errors of the host traits.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// This host cannot provide the capability.
    #[error("{capability} is not available on this host: {reason}")]
    Unsupported {
        /// The missing capability.
        capability: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// The program could not be started.
    #[error("could not start {program}: {source}")]
    Spawn {
        /// The program.
        program: PathBuf,
        /// The OS error from `exec` or setup.
        #[source]
        source: std::io::Error,
    },
    /// An OS operation failed.
    #[error("failed to {op}: {source}")]
    Io {
        /// What was being done.
        op: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

impl UserError for HostError {
    fn category(&self) -> Category {
        match self {
            HostError::Unsupported { .. } => Category::UnsupportedProvider,
            HostError::Spawn { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
                Category::PermissionRequired
            }
            HostError::Spawn { .. } => Category::InvalidInput,
            HostError::Io { .. } => Category::ExecutionFailure,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            HostError::Unsupported { .. } => "capture_unsupported",
            HostError::Spawn { .. } => "spawn_failed",
            HostError::Io { .. } => "host_io_failed",
        }
    }
    fn remediation(&self) -> String {
        match self {
            HostError::Unsupported { .. } => {
                "Capture on Linux or macOS (for Linux commands on Windows, run Linux rea inside WSL); comparing existing captures works here.".into()
            }
            HostError::Spawn { .. } => {
                "Check that the executable exists, is executable by you and is a program this OS can run. Nothing was left running.".into()
            }
            HostError::Io { .. } => "Run `rea doctor`, then try again.".into(),
        }
    }
}

/// Whether this host can capture, as `doctor` and the CLI report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureSupport {
    /// Capture works here.
    Available,
    /// Capture cannot work here; comparison still does.
    Unavailable {
        /// Why, in a sentence.
        reason: &'static str,
    },
}

/// The status of one doctor check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Classification {
    /// The check passed.
    Healthy,
    /// Capture works, with a weaker guarantee than the host could give (for
    /// example signals by checked `kill` instead of pidfds).
    Degraded,
    /// A capture prerequisite is missing or broken: capture is unavailable
    /// until it is fixed.
    MissingDependency,
    /// This host cannot capture by design (native Windows); reinstalling does
    /// not change that, and comparison still works.
    UnsupportedHost,
    /// Reported for information only; never affects availability.
    Informational,
}

impl Classification {
    /// Whether this status leaves something for the user to fix.
    pub fn needs_attention(self) -> bool {
        matches!(self, Classification::Degraded | Classification::MissingDependency)
    }
}

/// One diagnostic check reported by `rea doctor`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Check {
    /// Stable name, e.g. `pty_probe`.
    pub name: String,
    /// The check's status.
    pub classification: Classification,
    /// What was observed.
    pub detail: String,
    /// What to do when not healthy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remediation: Option<String>,
}

crate::evidence::vocabulary! {
    /// A signal to `rea` itself that cancels a running capture; the name is
    /// what the cancellation reports.
    InterruptSignal {
        /// Interrupt (Ctrl-C).
        SIGINT = "SIGINT",
        /// Termination request.
        SIGTERM = "SIGTERM",
        /// Hang-up of `rea`'s terminal.
        SIGHUP = "SIGHUP",
    }
}

/// A stream of the host's interrupt signals.
pub struct Interrupts(Pin<Box<dyn Stream<Item = InterruptSignal> + Send>>);

impl Interrupts {
    /// Wraps a stream of signals.
    pub fn new(stream: impl Stream<Item = InterruptSignal> + Send + 'static) -> Interrupts {
        Interrupts(Box::pin(stream))
    }

    /// A stream that never yields (no interrupt source).
    pub fn never() -> Interrupts {
        Interrupts(Box::pin(futures_lite::stream::pending()))
    }

    /// The next interrupt; `None` when the source ended.
    pub async fn next(&mut self) -> Option<InterruptSignal> {
        self.0.next().await
    }

    /// Polls for the next interrupt.
    pub fn poll_next(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<InterruptSignal>> {
        self.0.as_mut().poll_next(cx)
    }
}

impl fmt::Debug for Interrupts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Interrupts")
    }
}

impl Stream for Interrupts {
    type Item = InterruptSignal;

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<InterruptSignal>> {
        self.0.as_mut().poll_next(cx)
    }
}

/// Where the host's interrupt signals come from. While the stream it
/// returns lives, those signals no longer terminate `rea`; they are
/// delivered to it (and a capture that listens is cancelled).
pub trait InterruptSource: Send + Sync {
    /// Starts listening.
    fn listen(&self) -> Result<Interrupts, HostError>;
}

/// A host without interrupt signals (the unsupported-host stub, fakes).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoInterrupts;

impl InterruptSource for NoInterrupts {
    fn listen(&self) -> Result<Interrupts, HostError> {
        Ok(Interrupts::never())
    }
}

/// The host as the engine sees it: one implementation of each capability.
#[derive(Clone)]
pub struct Host {
    /// `linux`, `darwin` or `win32` (the backend that was built in).
    pub platform: &'static str,
    /// Whether capture is possible.
    pub capture: CaptureSupport,
    /// PTY launch.
    pub pty: Arc<dyn PtyBackend>,
    /// Process inspection.
    pub inspector: Arc<dyn ProcessInspector>,
    /// Ownership proof.
    pub verifier: Arc<dyn OwnershipVerifier>,
    /// Filesystem reads for snapshots.
    pub fs: Arc<dyn crate::fs::FsProbe>,
    /// Backend diagnostics for `rea doctor`.
    pub diagnose: fn() -> Vec<Check>,
    /// The interrupt signals that cancel a capture (a front end asks for
    /// them through [`crate::capture::Cancellation::on_host_signals`]).
    pub interrupts: Arc<dyn InterruptSource>,
    /// Opens an input document (scenario, capture, trace specification)
    /// only if it is a regular file, without blocking on a FIFO.
    pub open_input: crate::input::OpenInput,
}
