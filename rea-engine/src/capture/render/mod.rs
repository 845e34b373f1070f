//! Rendered terminal states: an emulator (avt, chosen by measurement in
//! `docs/terminal-emulator.md`) parses every byte read from the PTY, admitted
//! to the raw budget or not, on its own thread.
//!
//! A state is produced after each admitted chunk and each resize (as the
//! specification says), and whenever the screen is pinned: before each
//! interaction event and at the end, when the screen changed since the last
//! state. So every recorded screen is the screen at that moment, built from
//! the whole stream.
//!
//! Hand-over and back-pressure (see `docs/decisions.md`, "The emulator sees
//! every byte"): the run loop appends text to one pending batch and marks
//! (state due, resize, pin) at offsets into it; the thread takes the whole
//! batch at once, feeds the text between marks in single calls, and takes a
//! state only at a mark. Parsing alone is cheap next to a state (dump, rows,
//! normalization), so text that is not admitted costs only its parse. The
//! pending batch is capped at [`PENDING_CAP`] bytes: while it is full the run
//! loop stops reading the PTY (the kernel's buffer then blocks the program,
//! as a slow terminal would) and resumes when the thread takes the batch.
//! Memory is therefore at most two batches whatever the output size, and the
//! drain is slowed only when the emulator parses slower than the program
//! writes.
//!
//! Terminal queries (`queries`) are found in the same stream order: the
//! thread feeds the text up to a query's end, answers it from the
//! emulator's state (the cursor after everything before it), pins the screen
//! and hands the reply to the run loop, which writes it.

mod queries;
mod retain;
mod screen;

#[cfg(test)]
mod capture_tests;
#[cfg(test)]
mod differential_tests;
#[cfg(test)]
mod fast_forward_tests;
#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod oracle;
#[cfg(test)]
mod pipeline_tests;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Waker};
use std::thread::JoinHandle;
use std::time::Instant;

pub use queries::MAX_TERMINAL_REPLIES;
pub use screen::{EMULATOR, EMULATOR_NAME, EMULATOR_VERSION};

use self::queries::{QueryScanner, Reply};
use self::retain::{RenderedLog, Target};
use self::screen::Screen;
use super::normalize::Normalizer;
/// The emulator lives below the capture (the comparison's screen lens
/// replays recorded states into it); the renderer's modules name it here.
use crate::emulator::{cells, csi};
use crate::evidence::{RenderedFrame, RenderedTerminalTruncation, ScreenBefore, TerminalQuery, WaitCondition};
use crate::scenario::screen_regex;
use crate::secrets::ScreenSecrets;

/// Most pending text, in bytes, before the run loop stops reading the PTY.
pub const PENDING_CAP: usize = 4 * 1024 * 1024;

/// What happens at an offset of the pending text.
#[derive(Debug)]
enum Mark {
    /// An admitted chunk ended here: a state is due.
    State { at: Instant, at_ms: u64 },
    /// A dispatched resize: a (pinned) state follows it.
    Resize { columns: u16, rows: u16, at: Instant, at_ms: u64 },
    /// A scripted event was dispatched: the screen it saw is pinned.
    Pin { at: Instant, at_ms: u64 },
    /// Text that was not admitted ended here (read at that time): no state is due.
    Read { at: Instant, at_ms: u64 },
    /// A wait on the screen starts here (or stops, with no watch).
    Watch { watch: Option<ScreenWatch>, at: Instant, at_ms: u64 },
    /// A live session asks for the screen as it is here.
    Peek { reply: Peek, at: Instant, at_ms: u64 },
}

/// Where a peeked screen goes (a live session's caller).
pub struct Peek(pub Box<dyn FnOnce(ScreenView) + Send>);

impl std::fmt::Debug for Peek {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Peek")
    }
}

/// The screen as a live session shows it: the visible rows (trailing
/// blanks removed, sensitive inputs' text replaced) and the cursor, 0-based.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ScreenView {
    /// Width in cells.
    pub columns: u16,
    /// Height in cells.
    pub rows: u16,
    /// The visible rows, top to bottom.
    pub lines: Vec<String>,
    /// The cursor's row, from 0.
    pub cursor_row: u16,
    /// The cursor's column, from 0.
    pub cursor_column: u16,
}

impl Mark {
    /// When the text before the mark was read.
    fn time(&self) -> (Instant, u64) {
        match *self {
            Mark::State { at, at_ms }
            | Mark::Resize { at, at_ms, .. }
            | Mark::Pin { at, at_ms }
            | Mark::Read { at, at_ms }
            | Mark::Watch { at, at_ms, .. }
            | Mark::Peek { at, at_ms, .. } => (at, at_ms),
        }
    }
}

/// Text not yet parsed and the marks inside it (every piece of text is
/// followed by a mark that says when it was read).
#[derive(Debug, Default)]
struct Batch {
    text: String,
    marks: Vec<(usize, Mark)>,
}

impl Batch {
    fn is_empty(&self) -> bool {
        self.text.is_empty() && self.marks.is_empty()
    }
}

/// What the run loop and the thread share.
#[derive(Debug, Default)]
struct Queue {
    batch: Batch,
    /// The thread is parsing a batch it took.
    busy: bool,
    /// No more input will come.
    closed: bool,
    /// The run loop's waker, woken when room appears or a reply is ready.
    waker: Option<Waker>,
    /// Replies not yet taken by the run loop.
    replies: Vec<TerminalReply>,
    /// The screen watch that held, and the time of the read after which it did.
    hit: Option<(u64, Instant)>,
}

#[derive(Debug, Default)]
struct Shared {
    queue: Mutex<Queue>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, Queue>) -> MutexGuard<'a, Queue> {
        self.changed.wait(guard).unwrap_or_else(PoisonError::into_inner)
    }
}

/// Which screen an interaction event saw, resolved when the renderer ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinRef {
    /// The n-th pin the run loop asked for.
    Event(usize),
    /// The screen at the n-th reply the thread produced.
    Reply(usize),
}

/// A reply to a terminal query, for the run loop to write and record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalReply {
    /// What was asked.
    pub query: TerminalQuery,
    /// The bytes to write.
    pub data: String,
    /// The screen when the query was seen.
    pub pin: PinRef,
}

/// A condition on the screen (`wait_for.screen_contains` or
/// `screen_matches`) that the thread decides after each read.
#[derive(Debug)]
pub enum ScreenCondition {
    /// The screen's text contains this.
    Contains(String),
    /// The screen's text matches this.
    Matches(regex::Regex),
}

impl ScreenCondition {
    /// The screen condition of a wait; `None` for any other condition.
    pub fn of(condition: &WaitCondition) -> Option<Result<ScreenCondition, String>> {
        match condition {
            WaitCondition::ScreenContains(text) => Some(Ok(ScreenCondition::Contains(text.clone()))),
            WaitCondition::ScreenMatches(pattern) => Some(screen_regex(pattern).map(ScreenCondition::Matches)),
            _ => None,
        }
    }

    fn holds(&self, screen: &str) -> bool {
        match self {
            ScreenCondition::Contains(text) => screen.contains(text.as_str()),
            ScreenCondition::Matches(re) => re.is_match(screen),
        }
    }
}

/// A screen condition under the number the run loop knows it by.
#[derive(Debug)]
pub struct ScreenWatch {
    /// The run loop's number for this wait.
    pub id: u64,
    /// What must hold.
    pub condition: ScreenCondition,
}

/// The size and limits a renderer starts with.
#[derive(Debug, Clone)]
pub struct RenderSettings {
    /// Initial width in cells.
    pub columns: u16,
    /// Initial height in cells.
    pub rows: u16,
    /// Scrollback lines.
    pub scrollback: u16,
    /// Whether anything can show the scrollback: a scheduled resize reflows
    /// it into view. When nothing can, the redraws a full clear hides are
    /// not executed (`emulator::redraw`).
    pub scrollback_shown: bool,
    /// `limits.output_bytes`, the rendered budget.
    pub budget_bytes: u64,
    /// `limits.frames`, the rendered frame limit.
    pub frame_limit: u64,
    /// Sensitive inputs' text, replaced in every state before it is recorded.
    pub secrets: ScreenSecrets,
    /// `terminal.answer_queries`: reply to terminal queries as xterm would.
    pub answer_queries: bool,
}

/// How the renderer ended (the progress line's `terminal_renderer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RendererState {
    /// Its thread finished and was joined.
    Cleaned,
    /// Its thread panicked; its states are lost.
    Failed,
}

impl RendererState {
    /// The progress-line value.
    pub fn as_str(self) -> &'static str {
        match self {
            RendererState::Cleaned => "cleaned",
            RendererState::Failed => "failed",
        }
    }
}

/// The rendered states of a capture and their accounting.
#[derive(Debug)]
pub struct Rendered {
    /// Kept states with the instant each was recorded.
    pub frames: Vec<(Instant, RenderedFrame)>,
    /// `truncation_details.rendered_terminal`.
    pub account: RenderedTerminalTruncation,
    /// How the renderer ended.
    pub state: RendererState,
    /// The screen each pin saw.
    pub screens: Screens,
    /// Whether queries went unanswered because [`MAX_TERMINAL_REPLIES`] were sent.
    pub replies_capped: bool,
}

/// The current state as it is recorded: secrets rebuilt on screen replaced.
fn recorded(screen: &mut Screen, secrets: &ScreenSecrets, at_ms: u64) -> screen::Snapshot {
    let mut snapshot = screen.snapshot(at_ms);
    snapshot.bytes = secrets.redact(&mut snapshot.frame, snapshot.bytes);
    snapshot
}

/// The resolved pins: the frame each one names.
#[derive(Debug, Default)]
pub struct Screens {
    events: Vec<ScreenBefore>,
    replies: Vec<ScreenBefore>,
}

impl Screens {
    /// The screen a pin saw (`NotRecorded` when it was not kept).
    pub fn get(&self, pin: PinRef) -> ScreenBefore {
        let found = match pin {
            PinRef::Event(i) => self.events.get(i),
            PinRef::Reply(i) => self.replies.get(i),
        };
        found.copied().unwrap_or(ScreenBefore::NotRecorded)
    }
}

/// What the thread hands back when it ends.
type Outcome = (Vec<(Instant, RenderedFrame)>, RenderedTerminalTruncation, Screens, bool);

struct Worker {
    screen: Screen,
    log: RenderedLog,
    scanner: Option<QueryScanner>,
    /// Anything was fed or resized: the screen is no longer the blank one.
    drawn: bool,
    /// Text was fed since the last state.
    dirty: bool,
    /// When the newest text or mark was seen, for the final state.
    last: Option<(Instant, u64)>,
    event_pins: Vec<Target>,
    reply_pins: Vec<Target>,
    shared: Arc<Shared>,
    secrets: ScreenSecrets,
    /// The screen condition being waited for.
    watch: Option<ScreenWatch>,
    /// The screen changed since the watch was last checked.
    watch_stale: bool,
    /// Reused buffer for the screen's text.
    watch_text: String,
}

impl Worker {
    fn new(settings: &RenderSettings, normalizer: Normalizer, shared: Arc<Shared>) -> Worker {
        Worker {
            screen: Screen::new(settings, normalizer),
            log: RenderedLog::new(settings.budget_bytes, settings.frame_limit),
            scanner: settings.answer_queries.then(QueryScanner::default),
            drawn: false,
            dirty: false,
            last: None,
            event_pins: Vec::new(),
            reply_pins: Vec::new(),
            shared,
            secrets: settings.secrets.clone(),
            watch: None,
            watch_stale: false,
            watch_text: String::new(),
        }
    }

    /// Checks the watched condition on the screen as it is after the text
    /// read at `at`; when it holds, hands the run loop the hit.
    fn check_watch(&mut self, at: Instant) {
        let Some(watch) = self.watch.as_ref() else { return };
        if !self.watch_stale {
            return;
        }
        self.watch_stale = false;
        self.screen.visible_text(&mut self.watch_text);
        if !watch.condition.holds(&self.watch_text) {
            return;
        }
        let id = watch.id;
        self.watch = None;
        let mut queue = self.shared.lock();
        queue.hit = Some((id, at));
        if let Some(w) = queue.waker.take() {
            w.wake();
        }
    }

    /// Parses text; queries in it are answered where they end, at the time
    /// of the read they end in: `reads` holds each read's end offset in
    /// `text` and its time, in order, the last ending at `text.len()`.
    fn feed(&mut self, text: &str, reads: &[(usize, (Instant, u64))]) {
        if text.is_empty() {
            return;
        }
        self.drawn = true;
        self.watch_stale = true;
        let mut start = 0;
        while let Some((end, query)) = self.scanner.as_mut().and_then(|s| s.next_query(text, start)) {
            self.screen.feed(&text[start..end]);
            self.dirty = true;
            start = end;
            let read = reads.partition_point(|&(offset, _)| offset < end);
            let (at, at_ms) = reads.get(read).or(reads.last()).map_or((Instant::now(), 0), |&(_, time)| time);
            self.answer(query, at, at_ms);
        }
        if start < text.len() {
            self.screen.feed(&text[start..]);
            self.dirty = true;
        }
    }

    fn answer(&mut self, query: queries::Query, at: Instant, at_ms: u64) {
        let Some(scanner) = self.scanner.as_mut() else { return };
        let Some(Reply { query, data }) = scanner.reply(&query, self.screen.cursor(), self.screen.size()) else {
            return;
        };
        let target = self.pin_now(at, at_ms);
        let pin = PinRef::Reply(self.reply_pins.len());
        self.reply_pins.push(target);
        let mut queue = self.shared.lock();
        queue.replies.push(TerminalReply { query, data, pin });
        if let Some(w) = queue.waker.take() {
            w.wake();
        }
    }

    /// The current screen as a pinned state: a new one when text was fed
    /// since the last, else the last.
    fn pin_now(&mut self, at: Instant, at_ms: u64) -> Target {
        if !self.drawn {
            return Target::Blank;
        }
        if self.dirty {
            self.dirty = false;
            return self.log.offer(at, recorded(&mut self.screen, &self.secrets, at_ms), true);
        }
        self.log.pin_latest()
    }

    fn mark(&mut self, mark: Mark) {
        let time = mark.time();
        self.last = Some(time);
        match mark {
            Mark::State { at, at_ms } => {
                self.dirty = false;
                self.log.offer(at, recorded(&mut self.screen, &self.secrets, at_ms), false);
            }
            Mark::Resize { columns, rows, at, at_ms } => {
                self.screen.resize(columns, rows);
                self.drawn = true;
                self.dirty = false;
                self.watch_stale = true;
                self.log.offer(at, recorded(&mut self.screen, &self.secrets, at_ms), true);
            }
            Mark::Pin { at, at_ms } => {
                let target = self.pin_now(at, at_ms);
                self.event_pins.push(target);
            }
            Mark::Read { .. } => {}
            Mark::Peek { reply, .. } => (reply.0)(self.view()),
            Mark::Watch { watch, .. } => {
                // A new wait looks at the screen as it is when it starts.
                self.watch = watch;
                self.watch_stale = true;
            }
        }
        self.check_watch(time.0);
    }

    /// The screen as it is now, for a live session.
    fn view(&mut self) -> ScreenView {
        let mut text = String::new();
        self.screen.visible_text(&mut text);
        let (cursor_column, cursor_row) = self.screen.cursor();
        let (columns, rows) = self.screen.size();
        let lines = self.secrets.redact_rows(text.split('\n').map(str::to_owned).collect(), columns);
        ScreenView { columns, rows, lines, cursor_row, cursor_column }
    }

    /// Feeds the text before `mark` (read at its time), then applies it.
    fn step(&mut self, text: &str, mark: Mark) {
        self.feed(text, &[(text.len(), mark.time())]);
        self.mark(mark);
    }

    /// Parses a batch, taking a state at each mark. The text of consecutive
    /// reads that were not admitted is fed in one piece with the next
    /// mark's (nothing is observed between them), so a plain run across
    /// reads can be fast-forwarded as a whole (`cells::fast_forward_len`).
    fn process(&mut self, batch: &mut Batch) {
        let (mut from, mut reads) = (0, Vec::new());
        let mut marks = batch.marks.drain(..).peekable();
        while let Some((offset, mark)) = marks.next() {
            reads.push((offset - from, mark.time()));
            // While a screen condition is watched, each read is checked on its own.
            if matches!(mark, Mark::Read { .. }) && marks.peek().is_some() && self.watch.is_none() {
                continue;
            }
            self.feed(&batch.text[from..offset], &reads);
            self.mark(mark);
            from = offset;
            reads.clear();
        }
        batch.text.clear();
    }

    /// Pins the final screen and resolves every pin.
    fn finish(mut self) -> Outcome {
        let (at, at_ms) = self.last.unwrap_or((Instant::now(), 0));
        self.pin_now(at, at_ms);
        let capped = self.scanner.as_ref().is_some_and(QueryScanner::capped);
        let (frames, account, kept) = self.log.finish();
        let resolve = |pins: Vec<Target>| pins.into_iter().map(|t| t.resolve(&kept)).collect();
        let screens = Screens { events: resolve(self.event_pins), replies: resolve(self.reply_pins) };
        (frames, account, screens, capped)
    }

    fn run(mut self) -> Outcome {
        let shared = Arc::clone(&self.shared);
        let mut taken = Batch::default();
        loop {
            {
                let mut queue = shared.lock();
                queue.busy = false;
                shared.changed.notify_all();
                while queue.batch.is_empty() && !queue.closed {
                    queue = shared.wait(queue);
                }
                if queue.batch.is_empty() {
                    break;
                }
                let was_full = queue.batch.text.len() >= PENDING_CAP;
                std::mem::swap(&mut queue.batch, &mut taken);
                queue.busy = true;
                if was_full && let Some(w) = queue.waker.take() {
                    w.wake();
                }
            }
            self.process(&mut taken);
        }
        self.finish()
    }
}

enum Mode {
    Thread(JoinHandle<Outcome>),
    /// Used when no thread could be started (and by tests): same work, in line.
    Inline(Box<Worker>),
}

/// The running renderer. Dropping it closes the queue and joins the thread.
pub struct Renderer {
    mode: Option<Mode>,
    shared: Arc<Shared>,
    settings: RenderSettings,
    pins: usize,
    /// A screen watch was handed over and has not held yet.
    watching: bool,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer").field("settings", &self.settings).finish_non_exhaustive()
    }
}

impl Renderer {
    /// Starts the emulator thread; if no thread can be started the same work
    /// runs in line on the caller's thread.
    pub fn start(settings: RenderSettings, normalizer: Normalizer) -> Renderer {
        let shared = Arc::new(Shared::default());
        let worker = Worker::new(&settings, normalizer.clone(), Arc::clone(&shared));
        let mode = match std::thread::Builder::new().name("rea-renderer".into()).spawn(move || worker.run()) {
            Ok(handle) => Mode::Thread(handle),
            Err(_) => Mode::Inline(Box::new(Worker::new(&settings, normalizer, Arc::clone(&shared)))),
        };
        Renderer { mode: Some(mode), shared, settings, pins: 0, watching: false }
    }

    /// A renderer doing its work on the caller's thread.
    #[cfg(test)]
    pub(crate) fn inline(settings: RenderSettings, normalizer: Normalizer) -> Renderer {
        let shared = Arc::new(Shared::default());
        let worker = Worker::new(&settings, normalizer, Arc::clone(&shared));
        Renderer { mode: Some(Mode::Inline(Box::new(worker))), shared, settings, pins: 0, watching: false }
    }

    /// Appends text and the mark after it.
    fn send(&mut self, text: &str, mark: Mark) {
        match &mut self.mode {
            Some(Mode::Thread(handle)) => {
                // A finished thread (it panicked) takes nothing; `finish` reports it.
                if handle.is_finished() {
                    return;
                }
                let mut queue = self.shared.lock();
                let batch = &mut queue.batch;
                batch.text.push_str(text);
                batch.marks.push((batch.text.len(), mark));
                self.shared.changed.notify_all();
            }
            Some(Mode::Inline(worker)) => worker.step(text, mark),
            None => {}
        }
    }

    /// An admitted chunk's original text, read at `at` (`at_ms` bucketed): a state follows it.
    pub fn chunk(&mut self, text: &str, at: Instant, at_ms: u64) {
        self.send(text, Mark::State { at, at_ms });
    }

    /// Text that was not admitted: parsed, with no state of its own.
    pub fn text(&mut self, text: &str, at: Instant, at_ms: u64) {
        self.send(text, Mark::Read { at, at_ms });
    }

    /// A dispatched resize.
    pub fn resize(&mut self, columns: u16, rows: u16, at: Instant, at_ms: u64) {
        self.send("", Mark::Resize { columns, rows, at, at_ms });
    }

    /// Pins the screen an event sees now; the state is recorded at `at`.
    pub fn pin(&mut self, at: Instant, at_ms: u64) -> PinRef {
        self.send("", Mark::Pin { at, at_ms });
        self.pins += 1;
        PinRef::Event(self.pins - 1)
    }

    /// Hands the screen, once everything handed over before is parsed, to `reply`.
    pub fn peek(&mut self, reply: Peek, at: Instant, at_ms: u64) {
        self.send("", Mark::Peek { reply, at, at_ms });
    }

    /// Starts deciding `watch` on the screen from now on, in place of any
    /// earlier one; `None` stops watching.
    pub fn watch(&mut self, watch: Option<ScreenWatch>, at: Instant, at_ms: u64) {
        self.watching = watch.is_some();
        self.send("", Mark::Watch { watch, at, at_ms });
    }

    /// The watch that held (its number and the time of the read after
    /// which it did); while one is watched and none held, `cx` is woken
    /// when one does.
    pub fn poll_hit(&mut self, cx: &mut Context<'_>) -> Option<(u64, Instant)> {
        // Polled every turn of the run loop: without a watch, no lock (a
        // hit of a watch already stopped would be stale anyway).
        if !self.watching {
            return None;
        }
        let mut queue = self.shared.lock();
        let hit = queue.hit.take();
        match hit {
            Some(_) => self.watching = false,
            None => queue.waker = Some(cx.waker().clone()),
        }
        hit
    }

    /// Whether more text may be handed over; when not, `cx` is woken once
    /// the thread has taken the pending batch.
    pub fn poll_room(&mut self, cx: &mut Context<'_>) -> bool {
        if !matches!(&self.mode, Some(Mode::Thread(h)) if !h.is_finished()) {
            return true;
        }
        let mut queue = self.shared.lock();
        if queue.batch.text.len() < PENDING_CAP {
            return true;
        }
        queue.waker = Some(cx.waker().clone());
        false
    }

    /// Whether more text may be handed over now.
    pub fn has_room(&self) -> bool {
        !matches!(&self.mode, Some(Mode::Thread(h)) if !h.is_finished())
            || self.shared.lock().batch.text.len() < PENDING_CAP
    }

    /// Replies produced since the last call; when there are none, `cx` is
    /// woken when one is.
    pub fn poll_replies(&mut self, cx: &mut Context<'_>) -> Vec<TerminalReply> {
        let mut queue = self.shared.lock();
        if queue.replies.is_empty() {
            if self.settings.answer_queries {
                queue.waker = Some(cx.waker().clone());
            }
            return Vec::new();
        }
        std::mem::take(&mut queue.replies)
    }

    /// Waits until everything handed over is parsed, then returns the
    /// replies not yet taken.
    pub fn settle(&mut self) -> Vec<TerminalReply> {
        if let Some(Mode::Thread(handle)) = &self.mode {
            let mut queue = self.shared.lock();
            while (!queue.batch.is_empty() || queue.busy) && !handle.is_finished() {
                queue = self.shared.wait(queue);
            }
        }
        std::mem::take(&mut self.shared.lock().replies)
    }

    fn close(&self) {
        self.shared.lock().closed = true;
        self.shared.changed.notify_all();
    }

    /// Pins the final screen, stops the thread and returns the states.
    pub fn finish(mut self) -> Rendered {
        let (outcome, state) = match self.mode.take() {
            Some(Mode::Thread(handle)) => {
                self.close();
                match handle.join() {
                    Ok(r) => (r, RendererState::Cleaned),
                    Err(_) => (self.failed(), RendererState::Failed),
                }
            }
            Some(Mode::Inline(worker)) => (worker.finish(), RendererState::Cleaned),
            None => (self.failed(), RendererState::Failed),
        };
        let (frames, account, screens, replies_capped) = outcome;
        Rendered { frames, account, state, screens, replies_capped }
    }

    fn failed(&self) -> Outcome {
        let (frames, mut account, _) = RenderedLog::new(self.settings.budget_bytes, self.settings.frame_limit).finish();
        account.truncated = true;
        (frames, account, Screens::default(), false)
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        if let Some(Mode::Thread(handle)) = self.mode.take() {
            self.close();
            let _ = handle.join();
        }
    }
}
