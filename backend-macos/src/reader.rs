//! The compiled token reader, shared for the whole run.
//!
//! A [`TokenReader`] owns the private directory holding the compiled helper.
//! Each [`TokenReader::query`] is admitted first; [`TokenReader::close`]
//! rejects new queries, waits for every admitted one (and so for its helper
//! command) to finish, and only then removes the directory. A query watches
//! its [`Cancel`] flag while the helper runs; cancelling kills the helper and
//! the query returns only after the helper has exited and been reaped.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rea_engine::host::Pid;

use crate::compile::{self, CompileError, PrivateDir};
use crate::config::CompileSettings;
use crate::protocol::{self, ProtocolError, Reading};

/// Why a query gave no readings.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The reader was closed (rea is exiting); nothing was run.
    #[error("the token reader is closed")]
    Closed,
    /// The query was cancelled; its helper command has exited.
    #[error("the token query was cancelled")]
    Cancelled,
    /// The helper did not answer in time; it was killed and has exited.
    #[error("the token reader did not answer within {0} ms and was stopped")]
    TimedOut(u128),
    /// The helper could not be run.
    #[error("could not run the token reader {path}: {source}")]
    Launch {
        /// The helper.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The helper failed as a whole (not per PID).
    #[error("the token reader failed ({status}): {output}")]
    Failed {
        /// Its exit status.
        status: String,
        /// Its output, cut to 512 bytes.
        output: String,
    },
    /// Its answer broke the protocol.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
}

/// A cancellation flag shared between a query and whoever may stop it.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag that is not set.
    pub fn new() -> Cancel {
        Cancel::default()
    }
    /// Asks the query to stop; the query returns once its helper has exited.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    /// Whether cancellation was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

#[derive(Debug, Default)]
struct Gate {
    closing: bool,
    admitted: usize,
}

#[derive(Debug)]
struct Shared {
    helper: PathBuf,
    query_timeout: Duration,
    gate: Mutex<Gate>,
    changed: Condvar,
    dir: Mutex<Option<PrivateDir>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An admitted query; dropping it lets a waiting `close` proceed.
struct Admission<'a>(&'a Shared);

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        lock(&self.0.gate).admitted -= 1;
        self.0.changed.notify_all();
    }
}

/// How long one helper command may take: reading a few `sysctl`s per PID
/// takes milliseconds, so this only bounds a helper stuck in the kernel.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(10);

/// The compiled helper and its private directory.
#[derive(Debug, Clone)]
pub struct TokenReader {
    shared: Arc<Shared>,
}

impl TokenReader {
    /// Compiles the helper under `settings` into a new private directory.
    /// On failure nothing is left behind.
    pub fn open(settings: &CompileSettings) -> Result<TokenReader, CompileError> {
        let dir = PrivateDir::new().map_err(CompileError::Prepare)?;
        let helper = compile::compile(settings, &dir)?;
        Ok(TokenReader::with_helper(dir, helper))
    }

    /// A reader over an already-built helper inside `dir`.
    pub fn with_helper(dir: PrivateDir, helper: PathBuf) -> TokenReader {
        TokenReader {
            shared: Arc::new(Shared {
                helper,
                query_timeout: QUERY_TIMEOUT,
                gate: Mutex::new(Gate::default()),
                changed: Condvar::new(),
                dir: Mutex::new(Some(dir)),
            }),
        }
    }

    /// The same reader with another bound on each helper command (tests).
    pub fn with_query_timeout(self, timeout: Duration) -> TokenReader {
        let shared = Arc::try_unwrap(self.shared).expect("set the timeout before sharing the reader");
        TokenReader { shared: Arc::new(Shared { query_timeout: timeout, ..shared }) }
    }

    /// The private directory, until the reader is closed.
    pub fn directory(&self) -> Option<PathBuf> {
        lock(&self.shared.dir).as_ref().map(|d| d.path().to_owned())
    }

    /// Whether [`TokenReader::close`] has begun.
    pub fn is_closing(&self) -> bool {
        lock(&self.shared.gate).closing
    }

    /// How many queries are admitted right now.
    pub fn admitted(&self) -> usize {
        lock(&self.shared.gate).admitted
    }

    fn admit(&self) -> Result<Admission<'_>, QueryError> {
        let mut gate = lock(&self.shared.gate);
        if gate.closing {
            return Err(QueryError::Closed);
        }
        gate.admitted += 1;
        Ok(Admission(&self.shared))
    }

    /// Reads the start identity and token of each PID, in request order.
    pub fn query(&self, pids: &[Pid], cancel: &Cancel) -> Result<Vec<(Pid, Reading)>, QueryError> {
        let _admission = self.admit()?;
        if pids.is_empty() {
            return Ok(Vec::new());
        }
        let output = run_helper(&self.shared.helper, pids, cancel, self.shared.query_timeout)?;
        Ok(protocol::parse(&output, pids)?)
    }

    /// Rejects new queries, waits for admitted ones, then removes the
    /// private directory. Idempotent.
    pub fn close(&self) {
        let mut gate = lock(&self.shared.gate);
        gate.closing = true;
        while gate.admitted > 0 {
            gate = self.shared.changed.wait(gate).unwrap_or_else(PoisonError::into_inner);
        }
        drop(gate);
        lock(&self.shared.dir).take();
    }
}

/// Why a helper command was stopped.
enum Stopped {
    Cancelled,
    TimedOut,
}

/// Runs the helper on `pids` and returns its standard output, killing it
/// (and waiting for it) when `cancel` is set or `timeout` passes.
fn run_helper(helper: &Path, pids: &[Pid], cancel: &Cancel, timeout: Duration) -> Result<String, QueryError> {
    let deadline = std::time::Instant::now() + timeout;
    let launch = |source| QueryError::Launch { path: helper.to_owned(), source };
    let mut child = Command::new(helper)
        .args(pids.iter().map(|p| p.0.to_string()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(launch)?;
    let mut stdout = child.stdout.take().ok_or_else(|| launch(std::io::Error::other("no stdout pipe")))?;
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stdout.read_to_end(&mut bytes).map(|_| bytes)
    });
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait().map_err(launch)? {
            break Ok(status);
        }
        let stop = if cancel.is_cancelled() {
            Some(Stopped::Cancelled)
        } else if std::time::Instant::now() >= deadline {
            Some(Stopped::TimedOut)
        } else {
            None
        };
        if let Some(stop) = stop {
            let _ = child.kill();
            child.wait().map_err(launch)?;
            break Err(stop);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    };
    let bytes = reader.join().unwrap_or_else(|_| Err(std::io::Error::other("the reading thread panicked")));
    let status = match status {
        Ok(status) => status,
        Err(Stopped::Cancelled) => return Err(QueryError::Cancelled),
        Err(Stopped::TimedOut) => return Err(QueryError::TimedOut(timeout.as_millis())),
    };
    let bytes = bytes.map_err(launch)?;
    if !status.success() {
        let (output, _) = compile::cut_diagnostics(&bytes);
        return Err(QueryError::Failed { status: status.to_string(), output });
    }
    String::from_utf8(bytes)
        .map_err(|_| QueryError::Protocol(ProtocolError::Incomplete("the answer is not UTF-8 text".into())))
}
