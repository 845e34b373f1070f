//! The event loop of a running capture: terminal output, scheduled
//! interactions, deadlines, finalization, exit and cancellation.
//!
//! One task polls every source in a single pass (interrupts, terminal output,
//! the launched process's exit, a pending input write, a pending signal
//! delivery, the timer) and handles all that are ready, so a chatty program
//! cannot starve the deadlines.

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_lite::{AsyncRead, AsyncWrite, future};

use super::deadline::{DeadlineWakes, Deadlines, DeliveryTask};
use super::normalize::Normalizer;
use super::owned::{Delivery, RunOwnership, deliver_bounded};
use super::progress::{Counts, Phase, ProgressReporter};
use super::redact::RedactingDecoder;
use super::render::{PinRef, TerminalReply};
use super::terminal::TerminalRecorder;
use crate::evidence::{
    ExitReason, FinalizationSignal, InteractionEvent, InteractionKind, InteractionOutcome, ScreenBefore, SignalReceipt,
};
use crate::host::{BoxFuture, ExitStatus, Host, HostError, Interrupts, PtyProcess, TermSize};
use crate::scenario::{Event, Scenario, SignalName, redacted_input};

const READ_BUFFER: usize = 64 * 1024;
/// Extra reads attempted after a successful read before other sources are polled.
const BURST_READS: usize = 16;
/// Heartbeat of progress lines while nothing else happens.
const HEARTBEAT: Duration = Duration::from_millis(1000);

/// The observed end of the running phase.
#[derive(Debug)]
pub(super) struct RunOutcome {
    /// `exited`, `timeout` or `idle_timeout`.
    pub reason: ExitReason,
    /// The exit, if observed, and when.
    pub exit: Option<(ExitStatus, Instant)>,
    /// Finalization record, when attempted.
    pub finalization: Option<FinalizationOutcome>,
    /// Set when an interrupt cancelled the run.
    pub cancelled: Option<&'static str>,
    /// Why the exit was not observed, when it was not.
    pub exit_unobserved: Option<String>,
}

/// What happened during finalization.
#[derive(Debug, Clone)]
pub(super) struct FinalizationOutcome {
    /// The scenario's `finalization_ms`.
    pub requested_ms: u64,
    /// Exit observation time relative to the start of finalization.
    pub elapsed_ms: Option<u64>,
    /// Each attempt.
    pub signals: Vec<SignalReceipt>,
}

/// Journal collections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Collection {
    /// `frames`.
    Frames,
    /// `interaction_events`.
    Interactions,
    /// `lifecycle` (0 exit, 1 settlement).
    Lifecycle,
}

/// Bytes being written to the terminal: a scripted input or a reply.
struct PendingInput {
    bytes: Vec<u8>,
    written: usize,
    event: InteractionEvent,
    pin: Option<PinRef>,
}

struct PendingSignal<'a> {
    task: DeliveryTask<'a>,
    event: InteractionEvent,
    pin: Option<PinRef>,
}

/// The scripted events' dispatch: one at a time, in scenario order, with
/// replies to terminal queries written between them as they come.
#[derive(Default)]
struct Dispatch<'a> {
    next_event: usize,
    pending_input: Option<PendingInput>,
    pending_signal: Option<PendingSignal<'a>>,
    replies: VecDeque<TerminalReply>,
}

impl Dispatch<'_> {
    fn idle(&self) -> bool {
        self.pending_input.is_none() && self.pending_signal.is_none()
    }
}

/// The running phase's state.
pub(super) struct Running<'a> {
    pub(crate) host: &'a Host,
    pub(crate) scenario: &'a Scenario,
    pub(crate) run: &'a RunOwnership,
    pub(crate) launch: Instant,
    pub(crate) process: &'a mut Box<dyn PtyProcess>,
    pub(crate) reader: Box<dyn AsyncRead + Send + Unpin>,
    pub(crate) writer: Box<dyn AsyncWrite + Send + Unpin>,
    pub(crate) exit_future: BoxFuture<'static, Result<ExitStatus, HostError>>,
    pub(crate) interrupts: &'a mut Interrupts,
    pub(crate) decoder: RedactingDecoder,
    pub(crate) recorder: TerminalRecorder,
    pub(crate) input_normalizer: Normalizer,
    pub(crate) interactions: Vec<InteractionEvent>,
    pub(crate) journal: Vec<(Instant, Collection, usize)>,
    pub(crate) progress: &'a mut ProgressReporter,
    pub(crate) sample_count: &'a dyn Fn() -> u64,
    pub(crate) output_open: bool,
    pub(crate) interrupts_open: bool,
}

#[derive(Default)]
struct Wakes {
    interrupt: Option<Option<&'static str>>,
    read: Option<io::Result<usize>>,
    exited: Option<Result<ExitStatus, HostError>>,
    wrote: Option<io::Result<usize>>,
    signal_done: Option<Delivery>,
    replies: Vec<TerminalReply>,
    deadlines: DeadlineWakes,
    timer: bool,
}

impl Wakes {
    fn any(&self) -> bool {
        self.interrupt.is_some()
            || self.read.is_some()
            || self.exited.is_some()
            || self.wrote.is_some()
            || self.signal_done.is_some()
            || !self.replies.is_empty()
            || self.deadlines.any()
            || self.timer
    }
}

pub(super) fn ms_between(later: Instant, earlier: Instant) -> u64 {
    later.saturating_duration_since(earlier).as_millis() as u64
}

pub(super) fn add_ms(at: Instant, ms: u64) -> Option<Instant> {
    at.checked_add(Duration::from_millis(ms))
}

/// Now, or just after `earlier` if the clock has not moved: the journal
/// orders by instant, so what is recorded later gets a later one.
fn after(earlier: Instant) -> Instant {
    Instant::now().max(earlier + Duration::from_nanos(1))
}

/// A reply to a terminal query as an interaction event.
fn reply_event(reply: &TerminalReply, dispatched_at_ms: u64) -> InteractionEvent {
    InteractionEvent {
        sequence: 0,
        scheduled_at_ms: None,
        dispatched_at_ms,
        kind: InteractionKind::TerminalReply,
        data: reply.data.clone(),
        query: Some(reply.query),
        outcome: InteractionOutcome::Dispatched,
        reason: None,
        screen_before: ScreenBefore::NotRecorded,
    }
}

impl<'a> Running<'a> {
    fn counts(&self) -> Counts {
        Counts {
            frames: self.recorder.frame_count() as u64,
            samples: (self.sample_count)(),
            interactions: self.interactions.len() as u64,
        }
    }

    /// Pins the screen an event sees now.
    fn pin(&mut self) -> (Option<PinRef>, Instant) {
        let at = Instant::now();
        (self.recorder.pin_screen(at, ms_between(at, self.launch)), at)
    }

    /// Records an event that saw the screen of `pin`, pinned at `pinned_at`;
    /// returns the instant it was journaled at.
    fn record_interaction(&mut self, mut event: InteractionEvent, pin: Option<PinRef>, pinned_at: Instant) -> Instant {
        event.sequence = self.interactions.len() as u64;
        self.recorder.record_screen(pin);
        let at = after(pinned_at);
        self.journal.push((at, Collection::Interactions, self.interactions.len()));
        self.interactions.push(event);
        at
    }

    /// Records an event that sees the screen as it is now.
    fn record_now(&mut self, event: InteractionEvent) {
        let (pin, at) = self.pin();
        self.record_interaction(event, pin, at);
    }

    fn handle_text(&mut self, text: &str, now: Instant) {
        if let Some(index) = self.recorder.offer(text, ms_between(now, self.launch)) {
            self.journal.push((now, Collection::Frames, index));
        }
    }

    fn handle_bytes(&mut self, bytes: &[u8], now: Instant) {
        let text = self.decoder.decode(bytes);
        self.recorder.invalid_utf8(self.decoder.take_invalid());
        self.handle_text(&text, now);
    }

    /// Reads everything the terminal holds right now without waiting
    /// (except for the renderer to take what it was given).
    async fn drain(&mut self, buf: &mut [u8]) {
        while self.output_open {
            future::poll_fn(|cx| if self.recorder.poll_room(cx) { Poll::Ready(()) } else { Poll::Pending }).await;
            match future::poll_once(futures_lite::AsyncReadExt::read(&mut self.reader, buf)).await {
                Some(Ok(0)) | Some(Err(_)) => self.output_open = false,
                Some(Ok(n)) => {
                    let now = Instant::now();
                    self.handle_bytes(&buf[..n], now);
                }
                None => break,
            }
        }
    }

    fn event_data(&self, event: &Event) -> (String, InteractionKind) {
        match event {
            Event::Input { data, sensitive: true, .. } => (redacted_input(data.len()), InteractionKind::Input),
            Event::Input { data, .. } => (self.input_normalizer.normalize_unbounded(data), InteractionKind::Input),
            Event::Resize { columns, rows, .. } => (format!("{columns}x{rows}"), InteractionKind::Resize),
            Event::Signal { signal, .. } => (signal.as_str().to_owned(), InteractionKind::Signal),
        }
    }

    fn undelivered(&self, event: &Event, at: u64) -> InteractionEvent {
        let data = match event {
            Event::Input { .. } => "<not-dispatched>".to_owned(),
            other => self.event_data(other).0,
        };
        InteractionEvent {
            sequence: 0,
            scheduled_at_ms: Some(event.at_ms()),
            dispatched_at_ms: at,
            kind: event.interaction_kind(),
            data,
            query: None,
            outcome: InteractionOutcome::TargetExited,
            reason: None,
            screen_before: ScreenBefore::NotRecorded,
        }
    }

    /// Starts writing the next reply to a terminal query, when nothing else is written.
    fn write_reply(&mut self, d: &mut Dispatch<'a>, now: Instant) {
        if d.pending_input.is_some() {
            return;
        }
        if let Some(reply) = d.replies.pop_front() {
            let event = reply_event(&reply, ms_between(now, self.launch));
            d.pending_input =
                Some(PendingInput { bytes: reply.data.into_bytes(), written: 0, event, pin: Some(reply.pin) });
        }
    }

    /// Starts every scripted event that is due at `now`, one at a time.
    fn dispatch_due(&mut self, d: &mut Dispatch<'a>, now: Instant) {
        let s = self.scenario;
        while d.idle() && d.next_event < s.events.len() {
            let event = &s.events[d.next_event];
            let Some(due) = add_ms(self.launch, event.at_ms()) else { break };
            if now < due {
                break;
            }
            d.next_event += 1;
            let (data, kind) = self.event_data(event);
            let record = InteractionEvent {
                sequence: 0,
                scheduled_at_ms: Some(event.at_ms()),
                dispatched_at_ms: ms_between(now, self.launch),
                kind,
                data,
                query: None,
                outcome: InteractionOutcome::Dispatched,
                reason: None,
                screen_before: ScreenBefore::NotRecorded,
            };
            let (pin, pinned_at) = self.pin();
            match event {
                Event::Input { data, .. } => {
                    let bytes = data.as_bytes().to_vec();
                    d.pending_input = Some(PendingInput { bytes, written: 0, event: record, pin });
                }
                Event::Resize { columns, rows, .. } => {
                    let mut record = record;
                    let resized = self.process.resize(TermSize { columns: *columns, rows: *rows });
                    if let Err(e) = &resized {
                        record.outcome = InteractionOutcome::Failed;
                        record.reason = Some(e.to_string());
                    }
                    // The resize's state follows its event in the journal.
                    let recorded = self.record_interaction(record, pin, pinned_at);
                    if resized.is_ok() {
                        let at = after(recorded);
                        self.recorder.resize(*columns, *rows, at, ms_between(at, self.launch));
                    }
                }
                Event::Signal { signal, .. } => {
                    d.pending_signal = Some(PendingSignal {
                        task: Box::pin(deliver_bounded(self.host, self.run, *signal)),
                        event: record,
                        pin,
                    });
                }
            }
        }
    }

    /// Records the outcome of a write or a signal delivery that completed.
    fn dispatch_progress(
        &mut self,
        d: &mut Dispatch<'a>,
        wrote: Option<io::Result<usize>>,
        signal_done: Option<Delivery>,
    ) {
        match (wrote, d.pending_input.as_mut()) {
            (Some(Ok(n)), Some(p)) => p.written += n,
            (Some(Err(e)), Some(_)) => {
                if let Some(p) = d.pending_input.take() {
                    let mut event = p.event;
                    event.outcome = InteractionOutcome::Failed;
                    event.reason = Some(format!("terminal write failed: {e}"));
                    self.record_interaction(event, p.pin, Instant::now());
                }
            }
            _ => {}
        }
        if let Some(done) = signal_done
            && let Some(p) = d.pending_signal.take()
        {
            let mut event = p.event;
            match done {
                Delivery::Signaled => {}
                Delivery::Gone => event.outcome = InteractionOutcome::TargetExited,
                other => {
                    event.outcome = InteractionOutcome::Failed;
                    event.reason = Some(match other.reason() {
                        Some(r) => r,
                        None => "the launched process's identity changed; it was not signalled".into(),
                    });
                }
            }
            self.record_interaction(event, p.pin, Instant::now());
        }
    }

    /// Records events not yet dispatched when the run ended as undeliverable.
    /// Replies not written before the end (the program had exited) are
    /// recorded `target_exited`, after the renderer parsed all output.
    async fn close_dispatch(&mut self, mut d: Dispatch<'a>, end: Instant) {
        let at = ms_between(end, self.launch);
        if let Some(p) = d.pending_input.take() {
            let mut e = p.event;
            e.outcome = InteractionOutcome::TargetExited;
            if e.kind != InteractionKind::TerminalReply {
                e.data = "<not-dispatched>".into();
            }
            self.record_interaction(e, p.pin, Instant::now());
        }
        if let Some(p) = d.pending_signal.take() {
            let done = p.task.await;
            let mut e = p.event;
            if !matches!(done, Delivery::Signaled) {
                e.outcome = InteractionOutcome::TargetExited;
            }
            self.record_interaction(e, p.pin, Instant::now());
        }
        d.replies.extend(self.recorder.settle_renderer());
        for reply in std::mem::take(&mut d.replies) {
            let mut e = reply_event(&reply, at);
            e.outcome = InteractionOutcome::TargetExited;
            self.record_interaction(e, Some(reply.pin), Instant::now());
        }
        for event in &self.scenario.events[d.next_event..] {
            let record = self.undelivered(event, at);
            self.record_now(record);
        }
    }

    /// Runs until the launched process exits, a deadline's escalation gives
    /// up, or an interrupt cancels the run.
    pub(super) async fn run(&mut self) -> RunOutcome {
        let s = self.scenario;
        let mut deadlines = Deadlines::new(self.host, self.run, s, self.launch);
        let mut dispatch = Dispatch::default();
        let mut exit: Option<(ExitStatus, Instant)> = None;
        let mut exit_unobserved: Option<String> = None;
        let mut last_heartbeat = Instant::now();
        let mut timer = async_io::Timer::never();
        let mut timer_at: Option<Instant> = None;
        let mut buf = vec![0u8; READ_BUFFER];

        loop {
            let now = Instant::now();
            if exit.is_none() {
                self.write_reply(&mut dispatch, now);
            }
            self.dispatch_due(&mut dispatch, now);
            if dispatch.pending_input.as_ref().is_some_and(|p| p.written >= p.bytes.len()) {
                if let Some(p) = dispatch.pending_input.take() {
                    self.record_interaction(p.event, p.pin, Instant::now());
                }
                continue;
            }
            deadlines.advance(now);
            if exit.is_none()
                && let Some(why) = deadlines.kill_wait_expired(now)
            {
                exit_unobserved = Some(why);
                break;
            }

            // Next timer.
            let mut next = last_heartbeat + HEARTBEAT;
            let mut consider = |t: Option<Instant>| {
                if let Some(t) = t {
                    next = next.min(t);
                }
            };
            if dispatch.idle() {
                consider(s.events.get(dispatch.next_event).and_then(|e| add_ms(self.launch, e.at_ms())));
            }
            deadlines.wake_times().into_iter().for_each(consider);
            // A later target keeps the earlier timer: it fires early and the
            // loop re-arms it, instead of re-arming on every output chunk.
            if timer_at.is_none_or(|t| next < t || t <= now) {
                timer.set_at(next);
                timer_at = Some(next);
            }

            let output_open = self.output_open;
            let interrupts_open = self.interrupts_open;
            let wakes = future::poll_fn(|cx: &mut Context<'_>| {
                let mut w = Wakes::default();
                if interrupts_open {
                    w.interrupt = ready(self.interrupts.poll_next(cx));
                }
                if output_open && self.recorder.poll_room(cx) {
                    w.read = ready(Pin::new(&mut self.reader).poll_read(cx, &mut buf));
                }
                w.replies = self.recorder.poll_replies(cx);
                w.exited = ready(self.exit_future.as_mut().poll(cx));
                let writer = &mut self.writer;
                w.wrote = dispatch
                    .pending_input
                    .as_mut()
                    .and_then(|p| ready(Pin::new(&mut *writer).poll_write(cx, &p.bytes[p.written..])));
                w.signal_done = dispatch.pending_signal.as_mut().and_then(|p| ready(p.task.as_mut().poll(cx)));
                w.deadlines = deadlines.poll(cx);
                w.timer = Pin::new(&mut timer).poll(cx).is_ready();
                if w.any() { Poll::Ready(w) } else { Poll::Pending }
            })
            .await;
            let now = Instant::now();

            if let Some(None) = wakes.interrupt {
                self.interrupts_open = false;
            }
            if let Some(Some(signal)) = wakes.interrupt {
                // Cancellation is never delayed: SIGKILL at once, also during finalization.
                let _ = deliver_bounded(self.host, self.run, SignalName::SIGKILL).await;
                return RunOutcome {
                    reason: deadlines.reason.unwrap_or(ExitReason::Exited),
                    exit,
                    finalization: None,
                    cancelled: Some(signal),
                    exit_unobserved: None,
                };
            }
            match wakes.read {
                Some(Ok(0)) | Some(Err(_)) => self.output_open = false,
                Some(Ok(n)) => {
                    deadlines.last_output = now;
                    self.handle_bytes(&buf[..n], now);
                    // A busy terminal: read on before polling every other
                    // source again (deadlines are re-checked each turn).
                    for _ in 0..BURST_READS {
                        if !self.recorder.has_room() {
                            break;
                        }
                        match future::poll_once(futures_lite::AsyncReadExt::read(&mut self.reader, &mut buf)).await {
                            Some(Ok(0)) | Some(Err(_)) => {
                                self.output_open = false;
                                break;
                            }
                            Some(Ok(n)) => {
                                let at = Instant::now();
                                deadlines.last_output = at;
                                self.handle_bytes(&buf[..n], at);
                            }
                            None => break,
                        }
                    }
                }
                None => {}
            }
            dispatch.replies.extend(wakes.replies);
            self.dispatch_progress(&mut dispatch, wakes.wrote, wakes.signal_done);
            if let Some(why) = deadlines.delivered(wakes.deadlines, exit.is_some()) {
                exit_unobserved = Some(why);
            }
            if let Some(result) = wakes.exited {
                match result {
                    Ok(status) => {
                        // Report the exit only after the output is drained.
                        self.drain(&mut buf).await;
                        exit = Some((status, Instant::now()));
                        deadlines.exited(now);
                    }
                    Err(e) => exit_unobserved = Some(format!("waiting for the exit failed: {e}")),
                }
            }
            if exit.is_some() || exit_unobserved.is_some() {
                break;
            }
            if now >= last_heartbeat + HEARTBEAT {
                last_heartbeat = now;
            }
            self.progress.update(Phase::Running, self.counts());
        }

        let reason = deadlines.reason;
        let finalization = deadlines.finish().await;
        let tail = self.decoder.finish();
        self.recorder.invalid_utf8(self.decoder.take_invalid());
        let end = exit.map_or_else(Instant::now, |(_, at)| at);
        if !tail.is_empty() {
            self.handle_text(&tail, end);
        }
        self.close_dispatch(dispatch, end).await;
        self.journal.push((end, Collection::Lifecycle, 0));
        RunOutcome {
            reason: reason.unwrap_or(ExitReason::Exited),
            exit,
            finalization,
            cancelled: None,
            exit_unobserved,
        }
    }
}

pub(super) fn ready<T>(poll: Poll<T>) -> Option<T> {
    match poll {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}

pub(super) fn receipt(signal: FinalizationSignal, sent_at_ms: u64, d: &Delivery) -> SignalReceipt {
    SignalReceipt { signal, sent_at_ms, delivery: d.record(), reason: d.reason() }
}
