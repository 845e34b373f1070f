//! Live sessions: a capture driven by calls instead of a timeline, which
//! ends as a capture of the scenario built from the session.
//!
//! `rea record-scenario` (a person at a terminal) and the MCP session tools
//! (an agent) both drive a program through a [`LiveSession`]:
//!
//! ```text
//! let request = capture::prepare(&host, scenario, dir, env, build)?; // events: none, or a prefix
//! let session = LiveSession::start(&host, request, LiveOptions::default())?;
//! let hello = session.wait_for(WaitFor { condition: OutputContains(">>> "), timeout_ms: Some(10_000) })?;
//! session.send_input("print(1)\r", Sensitivity::Plain)?;
//! session.resize(100, 30)?;
//! let screen: ScreenView = session.screen()?;
//! let ended: LiveEnd = session.stop(StopMode::End)?; // or StopMode::AwaitExit
//! // ended.capture: the sealed capture of ended.scenario; replaying
//! // ended.scenario with `rea capture-process` compares with it.
//! ```
//!
//! What it is: the very capture of `capture-process` (same PTY, keeper,
//! exact journal, renderer, secrets, budgets and deadlines: the started
//! scenario's `timeout_ms` and `idle_timeout_ms` still end the session),
//! run on its own thread. The scenario's events run first; every
//! [`LiveSession::send_input`] / [`LiveSession::resize`] then becomes one
//! more event of the run, dispatched at once, recorded as scripted events
//! are. Inputs written one after another with no output between them (and
//! alike: same sensitivity, same echo state, no wait between) are one event.
//!
//! The calls block (the MCP server calls them from `spawn_blocking`); each
//! is safe from any thread (`LiveSession` is `Sync`):
//! - [`LiveSession::wait_for`]: a scenario's `wait_for`, decided as a
//!   scripted wait would be (output conditions on the output since the
//!   previous event, screen conditions on the screen, quiet by the clock),
//!   started once no event is in flight; its `timeout_ms` counts from the
//!   call (none: until the program ends or the deadlines end it). Answers
//!   [`WaitResult`]: whether it held, the screen, the output since the
//!   previous event (redacted as the record is; its last
//!   [`MAX_OUTPUT_SINCE_BYTES`] bytes).
//! - [`LiveSession::screen`]: the screen now (after everything read so far
//!   was parsed).
//! - [`LiveSession::echo`]: the terminal's `ECHO` flag now (`None` when the
//!   backend cannot tell).
//! - [`LiveOptions::output`]: the terminal's raw bytes as they are read, for
//!   showing them to the person (not redacted: theirs).
//! - [`LiveSession::stop`]: [`StopMode::End`] ends the program as the
//!   timeout would (SIGTERM after `finalization_ms`, SIGKILL; verified
//!   cleanup), [`StopMode::AwaitExit`] waits for it to exit. Returns
//!   [`LiveEnd`]: the scenario built from the session and its capture.
//!   Dropping a session ends it the same way.
//!
//! The scenario built from the session ([`derive`]): the started scenario
//! with one event per live event. An event's `wait_for` is the caller's
//! last satisfied wait since the previous event, or one derived from what
//! the program showed before it: the longest end of the text before the
//! cursor on its row that the output since the previous event contains, as
//! `output_contains` (or, when that text came k > 1 times, `output_matches`
//! for its k-th time), so it holds once per replay and never on stale
//! screen content; `quiet_ms` when there is no such text. A
//! [`Sensitivity::IfUnshown`] input is `sensitive: true` when the echo was
//! off as it was written and the program never showed it afterwards. The
//! capture's records of the live events are those of the derived events
//! (their wait, satisfied when it held live; no `at_ms`), and the record is
//! committed as a capture of the derived scenario.
//!
//! Sensitive inputs: a [`Sensitivity::Sensitive`] input is recorded as
//! `<redacted-input:N-bytes>`; its echo is not redacted from the terminal
//! text (the capture's secrets are fixed when it starts), so declare as
//! sensitive only what the program does not show (a password prompt).

pub mod derive;
pub mod replies;

use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

pub use crate::capture::live::{Derived, LiveNote, MAX_OUTPUT_SINCE_BYTES, NoteKind, Sensitivity, StopMode};
pub use crate::capture::render::ScreenView;
pub use derive::DerivePolicy;

use crate::capture::live::{Inbox, LiveCommand, LiveReply, LiveSetup};
use crate::capture::progress::{NullProgress, ProgressSink};
use crate::capture::{Cancellation, CaptureError, CaptureRequest, capture_live_async, retry_failed_cleanup};
use crate::evidence::{SealedCapture, WaitFor};
use crate::host::Host;
use crate::scenario::{MAX_INPUT_DATA_BYTES, MAX_TERMINAL_CELLS, MAX_TERMINAL_DIMENSION, MIN_SENSITIVE_INPUT_BYTES};

/// How a live session runs and how its scenario is written.
pub struct LiveOptions {
    /// Where the terminal's raw bytes go as they are read.
    pub output: Option<Sender<Vec<u8>>>,
    /// Progress lines of the capture.
    pub progress: Arc<dyn ProgressSink>,
    /// What cancels the capture (besides [`LiveSession::stop`]).
    pub cancellation: Cancellation,
    /// How the derived scenario's deadlines and waits' timeouts are written.
    pub policy: DerivePolicy,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            output: None,
            progress: Arc::new(NullProgress),
            cancellation: Cancellation::none(),
            policy: DerivePolicy::AsStarted,
        }
    }
}

/// What a wait answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitResult {
    /// Whether the condition held (else: its timeout passed, or the run ended).
    pub satisfied: bool,
    /// The screen when the wait ended.
    pub screen: ScreenView,
    /// The output since the previous event (redacted), its last
    /// [`MAX_OUTPUT_SINCE_BYTES`] bytes.
    pub output: String,
    /// Whether `output` lost its start.
    pub output_truncated: bool,
}

/// How a session ended.
#[derive(Debug)]
pub struct LiveEnd {
    /// The scenario built from the session.
    pub scenario: crate::scenario::Scenario,
    /// The capture, committed as a capture of `scenario`.
    pub capture: SealedCapture,
}

/// Why a call on a session was refused.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The run ended (the program exited or a deadline ended it).
    #[error("the session's program has ended; stop the session to get its capture")]
    Ended,
    /// The call's arguments are not valid.
    #[error("{0}")]
    Invalid(String),
    /// The capture could not start or end.
    #[error(transparent)]
    Capture(#[from] Box<CaptureError>),
}

type Outcome = Result<(SealedCapture, crate::scenario::Scenario), CaptureError>;

/// A running live session (see the module documentation).
pub struct LiveSession {
    host: Host,
    inbox: Arc<Inbox>,
    thread: Mutex<Option<JoinHandle<Outcome>>>,
}

impl std::fmt::Debug for LiveSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSession").field("running", &!self.inbox.closed()).finish_non_exhaustive()
    }
}

impl LiveSession {
    /// Launches `request`'s program on a capture thread and returns once it
    /// runs; a launch that fails is this call's error, with nothing left.
    pub fn start(host: &Host, request: CaptureRequest, options: LiveOptions) -> Result<LiveSession, LiveError> {
        let inbox = Arc::new(Inbox::default());
        let setup = LiveSetup { inbox: Arc::clone(&inbox), output: options.output };
        let policy = options.policy;
        let derive: crate::capture::live::Derive =
            Box::new(move |started, notes, tail, elapsed| derive::derive(started, notes, tail, elapsed, &policy));
        let (thread_host, progress, cancellation) = (host.clone(), options.progress, options.cancellation);
        let spawned = std::thread::Builder::new().name("rea-live".into()).spawn(move || {
            async_io::block_on(capture_live_async(&thread_host, request, cancellation, progress, setup, derive))
        });
        let thread = spawned
            .map_err(|e| LiveError::Invalid(format!("the live session's capture thread could not be started: {e}")))?;
        let session = LiveSession { host: host.clone(), inbox, thread: Mutex::new(Some(thread)) };
        if !session.inbox.wait_started() {
            return match session.join() {
                Err(e) => Err(e),
                Ok(_) => Err(LiveError::Ended),
            };
        }
        Ok(session)
    }

    /// Whether the program still runs (commands are taken).
    pub fn running(&self) -> bool {
        !self.inbox.closed()
    }

    fn send(&self, command: LiveCommand) -> Result<(), LiveError> {
        self.inbox.send(command).map_err(|_| LiveError::Ended)
    }

    /// Writes `data` to the terminal as an input event.
    pub fn send_input(&self, data: &str, sensitivity: Sensitivity) -> Result<(), LiveError> {
        check_input(data, sensitivity)?;
        self.send(LiveCommand::Input { data: data.to_owned(), sensitivity })
    }

    /// Resizes the terminal (a resize event).
    pub fn resize(&self, columns: u16, rows: u16) -> Result<(), LiveError> {
        let max = MAX_TERMINAL_DIMENSION;
        let cells = u64::from(columns) * u64::from(rows);
        if columns == 0 || rows == 0 || u64::from(columns) > max || u64::from(rows) > max || cells > MAX_TERMINAL_CELLS
        {
            return Err(LiveError::Invalid(format!(
                "a terminal of {columns}x{rows} is not allowed: columns and rows must be 1 to {max}, at most {MAX_TERMINAL_CELLS} cells"
            )));
        }
        self.send(LiveCommand::Resize { columns, rows })
    }

    /// Waits for `wait_for` (see the module documentation).
    pub fn wait_for(&self, wait_for: WaitFor) -> Result<WaitResult, LiveError> {
        check_wait_for(&wait_for)?;
        let (reply, answers) = channel();
        self.send(LiveCommand::Wait { wait_for, reply })?;
        let (mut waited, mut screen) = (None, None);
        while waited.is_none() || screen.is_none() {
            match answers.recv().map_err(|_| LiveError::Ended)? {
                LiveReply::Waited { satisfied, output, output_truncated } => {
                    waited = Some((satisfied, output, output_truncated));
                }
                LiveReply::Screen(view) => screen = Some(view),
                LiveReply::Echo(_) => {}
            }
        }
        let ((satisfied, output, output_truncated), Some(screen)) = (waited.unwrap_or_default(), screen) else {
            return Err(LiveError::Ended);
        };
        Ok(WaitResult { satisfied, screen, output, output_truncated })
    }

    /// The screen now.
    pub fn screen(&self) -> Result<ScreenView, LiveError> {
        let (reply, answers) = channel();
        self.send(LiveCommand::Screen { reply })?;
        match answers.recv() {
            Ok(LiveReply::Screen(view)) => Ok(view),
            _ => Err(LiveError::Ended),
        }
    }

    /// The terminal's echo flag now (`None`: the backend cannot tell).
    pub fn echo(&self) -> Result<Option<bool>, LiveError> {
        let (reply, answers) = channel();
        self.send(LiveCommand::Echo { reply })?;
        match answers.recv() {
            Ok(LiveReply::Echo(echo)) => Ok(echo),
            _ => Err(LiveError::Ended),
        }
    }

    /// Stops the session (see [`StopMode`]) and returns its scenario and
    /// capture; a second call (from another thread) is [`LiveError::Ended`].
    pub fn stop(&self, mode: StopMode) -> Result<LiveEnd, LiveError> {
        self.request_stop(mode);
        self.join().map(|(capture, scenario)| LiveEnd { scenario, capture })
    }

    /// Asks the session to stop without waiting for it (a signal handler's
    /// way); the thread blocked in [`LiveSession::stop`] gets the result.
    pub fn request_stop(&self, mode: StopMode) {
        let _ = self.inbox.send(LiveCommand::Stop(mode));
    }

    fn join(&self) -> Result<(SealedCapture, crate::scenario::Scenario), LiveError> {
        let thread = self.thread.lock().unwrap_or_else(PoisonError::into_inner).take();
        let Some(thread) = thread else { return Err(LiveError::Ended) };
        match thread.join() {
            Ok(Ok(done)) => Ok(done),
            Ok(Err(e)) => Err(LiveError::Capture(Box::new(retry_failed_cleanup(&self.host, e)))),
            Err(_) => Err(LiveError::Invalid("the live session's capture thread panicked".into())),
        }
    }
}

impl Drop for LiveSession {
    /// A session dropped unstopped ends its program as [`StopMode::End`] does.
    fn drop(&mut self) {
        let _ = self.inbox.send(LiveCommand::Stop(StopMode::End));
        let _ = self.join();
    }
}

/// Refuses an input the scenario format could not hold.
fn check_input(data: &str, sensitivity: Sensitivity) -> Result<(), LiveError> {
    if data.is_empty() || data.len() > MAX_INPUT_DATA_BYTES {
        return Err(LiveError::Invalid(format!(
            "an input has {} UTF-8 bytes; 1 to {MAX_INPUT_DATA_BYTES} are allowed",
            data.len()
        )));
    }
    let secret = crate::secrets::secret_part(data).len();
    if sensitivity == Sensitivity::Sensitive && secret < MIN_SENSITIVE_INPUT_BYTES {
        return Err(LiveError::Invalid(format!(
            "a sensitive input needs at least {MIN_SENSITIVE_INPUT_BYTES} bytes besides its line terminator (this one has {secret})"
        )));
    }
    Ok(())
}

/// Refuses a wait the scenario format could not hold (as validation would).
fn check_wait_for(wait_for: &WaitFor) -> Result<(), LiveError> {
    use crate::evidence::{MAX_WAIT_TEXT_BYTES, WaitCondition};
    let invalid = |why: String| Err(LiveError::Invalid(format!("wait_for.{}: {why}", wait_for.condition.key())));
    if wait_for.timeout_ms == Some(0) {
        return Err(LiveError::Invalid("wait_for.timeout_ms: must be at least 1".into()));
    }
    match &wait_for.condition {
        WaitCondition::QuietMs(0) => invalid("must be at least 1".into()),
        WaitCondition::QuietMs(_) => Ok(()),
        WaitCondition::ScreenContains(t)
        | WaitCondition::OutputContains(t)
        | WaitCondition::ScreenMatches(t)
        | WaitCondition::OutputMatches(t)
            if t.is_empty() || t.len() > MAX_WAIT_TEXT_BYTES =>
        {
            invalid(format!("has {} UTF-8 bytes; 1 to {MAX_WAIT_TEXT_BYTES} are allowed", t.len()))
        }
        WaitCondition::ScreenMatches(p) => crate::scenario::screen_regex(p).map(drop).or_else(invalid),
        WaitCondition::OutputMatches(p) => crate::scenario::output_dfa(p).map(drop).or_else(invalid),
        WaitCondition::ScreenContains(_) | WaitCondition::OutputContains(_) => Ok(()),
    }
}
