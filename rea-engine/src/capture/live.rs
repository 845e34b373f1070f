//! A live capture's part in the run loop: the commands a caller sends
//! (`crate::live` is the API over them), the output since the previous
//! event, the caller's own wait, and one note per live event for the
//! scenario's derivation.
//!
//! A live input or resize becomes an event of the run's own list (due at
//! once), so it is dispatched, journaled and recorded exactly as a scripted
//! one. A wait is decided by the same matchers as a scripted wait, on the
//! output since the previous event (kept here, redacted as the record is)
//! and on the screen (the renderer's watch), and it is armed only when no
//! event is in flight.

use std::collections::VecDeque;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Waker};
use std::time::{Duration, Instant};

use super::clock::{Clock, add_ms};
use super::render::PinRef;
use super::render::{Peek, ScreenCondition, ScreenView, ScreenWatch};
use super::terminal::TerminalRecorder;
use super::wait::OutputMatcher;
use crate::evidence::{InteractionEvent, WaitCondition, WaitFor};

/// Most output kept as "the output since the previous event" (its tail).
pub const MAX_OUTPUT_SINCE_BYTES: usize = 256 * 1024;
/// The screen-watch numbers of live waits (the scripted ones count up from 1).
const LIVE_WATCH_BASE: u64 = 1 << 62;

/// How a live input's text is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sensitivity {
    /// Recorded as typed.
    Plain,
    /// Secret: recorded as `<redacted-input:N-bytes>`, `sensitive: true`.
    Sensitive,
    /// Secret if the terminal's echo was off when it was typed and the
    /// program never showed it afterwards (a `read -s` password); decided
    /// when the session stops.
    IfUnshown,
}

/// How a live session stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopMode {
    /// End the program now, as the scenario's timeout would (finalization,
    /// then SIGKILL), with the verified cleanup of every capture.
    End,
    /// Wait for the program to exit (up to the scenario's deadlines).
    AwaitExit,
}

/// What the run loop answers a caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveReply {
    /// A wait ended: whether its condition held, and the output since the
    /// previous event (redacted).
    Waited {
        /// Whether the condition held.
        satisfied: bool,
        /// The output since the previous event.
        output: String,
        /// Whether `output` lost its start.
        output_truncated: bool,
    },
    /// The screen, as the renderer had it.
    Screen(ScreenView),
    /// The terminal's echo flag (`None`: unknown).
    Echo(Option<bool>),
}

/// A caller's command to the run loop.
#[derive(Debug)]
pub enum LiveCommand {
    /// Write text to the terminal (as one input event).
    Input {
        /// The text.
        data: String,
        /// How it is treated.
        sensitivity: Sensitivity,
    },
    /// Resize the terminal (as one resize event).
    Resize {
        /// Width in cells.
        columns: u16,
        /// Height in cells.
        rows: u16,
    },
    /// Wait for a condition; answered with `Waited` and `Screen`.
    Wait {
        /// The condition and its timeout (from now).
        wait_for: WaitFor,
        /// Where the answers go.
        reply: Sender<LiveReply>,
    },
    /// The screen now; answered with `Screen`.
    Screen {
        /// Where the answer goes.
        reply: Sender<LiveReply>,
    },
    /// The echo flag now; answered with `Echo`.
    Echo {
        /// Where the answer goes.
        reply: Sender<LiveReply>,
    },
    /// Stop the session.
    Stop(StopMode),
}

#[derive(Debug, Default)]
struct InboxState {
    commands: VecDeque<LiveCommand>,
    waker: Option<Waker>,
    started: bool,
    closed: bool,
}

/// Commands on their way to a run loop: any thread sends, the loop polls.
#[derive(Debug, Default)]
pub struct Inbox {
    state: Mutex<InboxState>,
    changed: std::sync::Condvar,
}

impl Inbox {
    /// Hands `command` to the run loop; gives it back when the run ended.
    pub fn send(&self, command: LiveCommand) -> Result<(), LiveCommand> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if s.closed {
            return Err(command);
        }
        s.commands.push_back(command);
        if let Some(w) = s.waker.take() {
            w.wake();
        }
        Ok(())
    }

    /// Whether the run loop stopped taking commands.
    pub fn closed(&self) -> bool {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).closed
    }

    /// Blocks until the run loop takes commands (the program was launched)
    /// or the run ended first; says whether it runs.
    pub fn wait_started(&self) -> bool {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while !s.started && !s.closed {
            s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        !s.closed
    }

    /// The commands sent since the last call; `cx` is woken when one comes.
    pub(super) fn poll(&self, cx: &mut TaskContext<'_>) -> Vec<LiveCommand> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if !s.started {
            s.started = true;
            self.changed.notify_all();
        }
        if s.commands.is_empty() {
            s.waker = Some(cx.waker().clone());
        }
        s.commands.drain(..).collect()
    }

    /// No more commands are taken; those not taken are dropped (their
    /// reply channels close, which the caller sees as the run's end).
    pub fn close(&self) {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.closed = true;
        s.commands.clear();
        self.changed.notify_all();
    }
}

/// What a live event was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoteKind {
    /// An input, with the terminal's echo flag when it was written.
    Input {
        /// The text (inputs typed before the program answered, joined).
        data: String,
        /// How it is treated.
        sensitivity: Sensitivity,
        /// The terminal's echo flag when it was written.
        echo: Option<bool>,
    },
    /// A resize.
    Resize {
        /// Width in cells.
        columns: u16,
        /// Height in cells.
        rows: u16,
    },
}

/// One live event as the run saw it when it was dispatched.
#[derive(Debug)]
pub struct LiveNote {
    /// The event.
    pub kind: NoteKind,
    /// The output since the previous event (or launch), redacted.
    pub output_before: String,
    /// Whether `output_before` lost its start to [`MAX_OUTPUT_SINCE_BYTES`].
    pub output_truncated: bool,
    /// When each read of `output_before` came: the offset its text ends at
    /// and the milliseconds after launch.
    pub output_times: Vec<(usize, u64)>,
    /// Milliseconds after launch of the dispatch.
    pub dispatched_ms: u64,
    /// Milliseconds after launch of the last output before the dispatch.
    pub last_output_ms: Option<u64>,
    /// Milliseconds after launch of the previous event's dispatch (0: launch).
    pub since_ms: u64,
    /// The caller's last satisfied wait since the previous event, and when it held.
    pub wait_used: Option<(WaitFor, u64)>,
    /// The screen the event saw (filled by the renderer).
    pub screen: Arc<Mutex<Option<ScreenView>>>,
    /// Its record's index in `interaction_events`, once recorded.
    pub record: Option<usize>,
}

/// What a live capture starts with: where its commands come from and
/// where the terminal's bytes go as they are read.
#[derive(Debug)]
pub struct LiveSetup {
    /// The commands.
    pub inbox: Arc<Inbox>,
    /// The terminal's raw bytes, as they are read (unredacted: for the
    /// person who typed them; `None`: nowhere).
    pub output: Option<Sender<Vec<u8>>>,
}

/// The scenario of a session, as [`Derive`] builds it.
#[derive(Debug, Clone)]
pub struct Derived {
    /// The scenario: the started one's events, then one per note.
    pub scenario: crate::scenario::Scenario,
    /// For each note, when its event's wait held in the live run (ms after
    /// launch); `None` for an event without a wait.
    pub satisfied_ms: Vec<Option<u64>>,
}

/// Builds a session's scenario from the started scenario, the notes, the
/// output after the last event and the session's length in milliseconds.
pub type Derive = Box<dyn FnOnce(&crate::scenario::Scenario, &[LiveNote], &str, u64) -> Derived + Send>;

/// A caller's wait in progress.
struct LiveWait {
    wait_for: WaitFor,
    /// Output conditions: the matcher, fed the output since the previous event first.
    matcher: Option<OutputMatcher>,
    /// Quiet conditions: how long.
    quiet: Option<Duration>,
    /// Screen conditions: the renderer's watch number.
    watch: Option<u64>,
    started: Instant,
    timeout_at: Option<Instant>,
    satisfied: Option<Instant>,
    failure: Option<String>,
    reply: Sender<LiveReply>,
}

impl LiveWait {
    fn quiet_at(&self, last_output: Option<Instant>) -> Option<Instant> {
        self.quiet.map(|q| last_output.map_or(self.started, |o| o.max(self.started)) + q)
    }
}

/// A live input written and not yet recorded: keys typed before the
/// program answered are one event.
pub(super) struct OpenInput {
    pub(super) event: InteractionEvent,
    pub(super) pin: Option<PinRef>,
    pub(super) pinned_at: Instant,
    pub(super) data: String,
    pub(super) note: usize,
    pub(super) sensitive: bool,
}

/// The live part of an observation.
pub(super) struct LiveObserved {
    pub(super) inbox: Arc<Inbox>,
    /// Where the terminal's bytes go as they are read (the person's screen).
    output: Option<Sender<Vec<u8>>>,
    since: String,
    since_truncated: bool,
    since_times: Vec<(usize, Instant)>,
    since_at: Option<Instant>,
    pub(super) notes: Vec<LiveNote>,
    /// Live events sent and not yet dispatched, in order.
    pub(super) queued: VecDeque<NoteKind>,
    waits: VecDeque<(WaitFor, Sender<LiveReply>)>,
    wait: Option<LiveWait>,
    wait_used: Option<(WaitFor, u64)>,
    /// The last live input, until output comes or another event is dispatched.
    pub(super) open: Option<OpenInput>,
    watches: u64,
}

impl LiveObserved {
    pub(super) fn new(inbox: Arc<Inbox>, output: Option<Sender<Vec<u8>>>) -> LiveObserved {
        LiveObserved {
            inbox,
            output,
            since: String::new(),
            since_truncated: false,
            since_times: Vec::new(),
            since_at: None,
            notes: Vec::new(),
            queued: VecDeque::new(),
            waits: VecDeque::new(),
            wait: None,
            wait_used: None,
            open: None,
            watches: LIVE_WATCH_BASE,
        }
    }

    /// The output since the previous event, and whether its start was lost.
    pub(super) fn output_since(&self) -> (&str, bool) {
        (&self.since, self.since_truncated)
    }

    /// Raw bytes read from the terminal, for the caller's screen.
    pub(super) fn raw(&self, bytes: &[u8]) {
        if let Some(out) = &self.output {
            let _ = out.send(bytes.to_vec());
        }
    }

    /// Decoded (redacted) text read at `at`: kept, and fed to an output wait.
    pub(super) fn text(&mut self, text: &str, at: Instant) {
        if text.is_empty() {
            return;
        }
        self.since.push_str(text);
        self.since_times.push((self.since.len(), at));
        if self.since.len() > MAX_OUTPUT_SINCE_BYTES {
            let mut cut = self.since.len() - MAX_OUTPUT_SINCE_BYTES;
            while !self.since.is_char_boundary(cut) {
                cut += 1;
            }
            self.since.drain(..cut);
            self.since_times.retain_mut(|(end, _)| match end.checked_sub(cut) {
                Some(e) if e > 0 => {
                    *end = e;
                    true
                }
                _ => false,
            });
            self.since_truncated = true;
        }
        if let Some(w) = self.wait.as_mut() {
            feed(w, text, at);
        }
    }

    /// A wait's screen watch held after the read at `at`; says whether it was a live one.
    pub(super) fn screen_hit(&mut self, id: u64, at: Instant) -> bool {
        if id < LIVE_WATCH_BASE {
            return false;
        }
        if let Some(w) = self.wait.as_mut()
            && w.watch == Some(id)
            && w.satisfied.is_none()
        {
            w.satisfied = Some(at);
        }
        true
    }

    /// An event is dispatched at `now`: the output since the previous one
    /// starts again; a live one (`note`: what it is, when, the last output
    /// before it) gets its note.
    pub(super) fn dispatched(&mut self, note: Option<(NoteKind, u64, Option<u64>)>, now: Instant, clock: &Clock) {
        let (before, truncated) = (std::mem::take(&mut self.since), std::mem::take(&mut self.since_truncated));
        let times = std::mem::take(&mut self.since_times).into_iter().map(|(end, at)| (end, clock.ms(at))).collect();
        self.since_at = Some(now);
        let Some((kind, dispatched_ms, last_output_ms)) = note else { return };
        let since_ms = self.notes.last().map_or(0, |n| n.dispatched_ms);
        self.notes.push(LiveNote {
            kind,
            output_before: before,
            output_truncated: truncated,
            output_times: times,
            dispatched_ms,
            last_output_ms,
            since_ms,
            wait_used: self.wait_used.take(),
            screen: Arc::default(),
            record: None,
        });
    }

    /// Whether live note `next` joins the open input of note `open`: both
    /// inputs of one kind, typed under one echo state, no output and no
    /// caller's wait between them.
    pub(super) fn joins(&self, open: usize, next: usize) -> bool {
        let (Some(a), Some(b)) = (self.notes.get(open), self.notes.get(next)) else { return false };
        let alike = match (&a.kind, &b.kind) {
            (NoteKind::Input { sensitivity: s, echo: e, .. }, NoteKind::Input { sensitivity: t, echo: f, .. }) => {
                s == t && e == f
            }
            _ => false,
        };
        alike && next == open + 1 && b.output_before.is_empty() && b.wait_used.is_none()
    }

    /// The last note's input joins note `open`'s.
    /// The event is complete when its last part is written: that is its dispatch.
    pub(super) fn join_last(&mut self, open: usize, data: &str) {
        if self.notes.len() == open + 2
            && let Some(last) = self.notes.pop()
            && let Some(first) = self.notes.get_mut(open)
        {
            first.dispatched_ms = last.dispatched_ms;
        }
        if let Some(NoteKind::Input { data: d, .. }) = self.notes.get_mut(open).map(|n| &mut n.kind) {
            d.push_str(data);
        }
    }

    /// Queues a caller's wait; it starts once no event is in flight.
    pub(super) fn queue_wait(&mut self, wait_for: WaitFor, reply: Sender<LiveReply>) {
        self.waits.push_back((wait_for, reply));
    }

    /// Starts the next queued wait (when `idle`: nothing in flight), decides
    /// the current one at `now`; returns when the loop must look again.
    pub(super) fn turn(
        &mut self,
        idle: bool,
        now: Instant,
        launch: Instant,
        last_output: Option<Instant>,
        recorder: &mut TerminalRecorder,
        clock: &Clock,
    ) -> Option<Instant> {
        if self.wait.is_none()
            && idle
            && let Some((wait_for, reply)) = self.waits.pop_front()
        {
            self.arm(wait_for, reply, now, launch, recorder, clock);
        }
        let w = self.wait.as_mut()?;
        if w.satisfied.is_none() {
            w.satisfied = w.quiet_at(last_output).filter(|t| *t <= now);
        }
        let timed_out = w.timeout_at.is_some_and(|t| now >= t);
        if w.satisfied.is_some() || w.failure.is_some() || timed_out {
            self.end_wait(now, recorder, clock);
            return Some(now);
        }
        [w.timeout_at, w.quiet_at(last_output)].into_iter().flatten().min()
    }

    fn arm(
        &mut self,
        wait_for: WaitFor,
        reply: Sender<LiveReply>,
        now: Instant,
        launch: Instant,
        recorder: &mut TerminalRecorder,
        clock: &Clock,
    ) {
        let started = self.since_at.unwrap_or(launch);
        let timeout_at = wait_for.timeout_ms.and_then(|ms| add_ms(now, ms));
        let mut w = LiveWait {
            wait_for,
            matcher: None,
            quiet: None,
            watch: None,
            started,
            timeout_at,
            satisfied: None,
            failure: None,
            reply,
        };
        if let WaitCondition::QuietMs(ms) = w.wait_for.condition {
            w.quiet = Some(Duration::from_millis(ms));
        } else if let Some(matcher) = OutputMatcher::of(&w.wait_for.condition) {
            match matcher {
                Ok(m) => w.matcher = Some(m),
                Err(e) => w.failure = Some(e),
            }
            let since = std::mem::take(&mut self.since);
            feed(&mut w, &since, now);
            self.since = since;
        } else if let Some(condition) = ScreenCondition::of(&w.wait_for.condition) {
            self.watches += 1;
            match condition {
                Ok(condition) => {
                    let watch = ScreenWatch { id: self.watches, condition };
                    w.watch = Some(self.watches);
                    if !recorder.watch_screen(Some(watch), now, clock.ms(now)) {
                        w.failure = Some("no terminal renderer runs, so the screen cannot be watched".into());
                    }
                }
                Err(e) => w.failure = Some(e),
            }
        }
        self.wait = Some(w);
    }

    /// Answers the current wait: whether it held, the output since the
    /// previous event, then the screen.
    fn end_wait(&mut self, now: Instant, recorder: &mut TerminalRecorder, clock: &Clock) {
        let Some(w) = self.wait.take() else { return };
        if w.watch.is_some() && w.satisfied.is_none() {
            recorder.watch_screen(None, now, clock.ms(now));
        }
        if let Some(at) = w.satisfied {
            self.wait_used = Some((w.wait_for.clone(), clock.ms(at)));
        }
        let output = self.since.clone();
        let reply =
            LiveReply::Waited { satisfied: w.satisfied.is_some(), output, output_truncated: self.since_truncated };
        let _ = w.reply.send(reply);
        peek(recorder, w.reply, now, clock);
    }

    /// The run ended: every wait still open or queued is answered unsatisfied.
    pub(super) fn close(&mut self, now: Instant, recorder: &mut TerminalRecorder, clock: &Clock) {
        self.inbox.close();
        self.end_wait(now, recorder, clock);
        while let Some((wait_for, reply)) = self.waits.pop_front() {
            let w = LiveWait {
                wait_for,
                matcher: None,
                quiet: None,
                watch: None,
                started: now,
                timeout_at: None,
                satisfied: None,
                failure: None,
                reply,
            };
            self.wait = Some(w);
            self.end_wait(now, recorder, clock);
        }
    }
}

/// Feeds a wait's output matcher.
fn feed(w: &mut LiveWait, text: &str, at: Instant) {
    if w.satisfied.is_some() || text.is_empty() {
        return;
    }
    let Some(m) = w.matcher.as_mut() else { return };
    match m.feed(text) {
        Ok(true) => {
            w.satisfied = Some(at);
            w.matcher = None;
        }
        Ok(false) => {}
        Err(e) => {
            w.failure = Some(format!("the output condition could not be evaluated: {e}"));
            w.matcher = None;
        }
    }
}

/// Sends the screen, once the renderer parsed what came before, to `reply`.
pub(super) fn peek(recorder: &mut TerminalRecorder, reply: Sender<LiveReply>, now: Instant, clock: &Clock) {
    let to = Peek(Box::new(move |view| {
        let _ = reply.send(LiveReply::Screen(view));
    }));
    recorder.peek_screen(to, now, clock.ms(now));
}

/// Fills `slot` with the screen, once the renderer parsed what came before.
pub(super) fn peek_into(
    recorder: &mut TerminalRecorder,
    slot: Arc<Mutex<Option<ScreenView>>>,
    now: Instant,
    clock: &Clock,
) {
    let to = Peek(Box::new(move |view| {
        *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(view);
    }));
    recorder.peek_screen(to, now, clock.ms(now));
}
