//! The scripted events' dispatch: one at a time, in scenario order, with
//! replies to terminal queries written between them as they come. Each
//! method takes the session parts it works on.

use std::collections::VecDeque;
use std::io;
use std::time::{Duration, Instant};

use super::clock::{add_ms, after};
use super::deadline::DeliveryTask;
use super::owned::{Delivery, deliver_bounded};
use super::parts::{Context, Observation, Owned};
use super::render::{PinRef, ScreenCondition, ScreenWatch, TerminalReply};
use super::wait::{Decider, OutputMatcher, Waiting};
use crate::evidence::{
    InteractionEvent, InteractionKind, InteractionOutcome, ScreenBefore, WaitCondition, WaitOutcome, WaitRecord,
};
use crate::host::TermSize;
use crate::scenario::Event;

/// Bytes being written to the terminal: a scripted input or a reply.
pub(super) struct PendingInput {
    pub(super) bytes: Vec<u8>,
    pub(super) written: usize,
    event: InteractionEvent,
    pin: Option<PinRef>,
    /// A live input: its note and whether it is declared sensitive.
    live: Option<(usize, bool)>,
}

/// A scripted signal being delivered.
pub(super) struct PendingSignal {
    pub(super) task: DeliveryTask,
    event: InteractionEvent,
    pin: Option<PinRef>,
}

/// Where the dispatch of the scripted events stands.
#[derive(Default)]
pub(super) struct Dispatch {
    /// The events: the scenario's, then those a live session adds.
    events: Vec<Event>,
    /// How many of them are the scenario's.
    scripted: usize,
    pub(super) next_event: usize,
    pub(super) pending_input: Option<PendingInput>,
    pub(super) pending_signal: Option<PendingSignal>,
    pub(super) replies: VecDeque<TerminalReply>,
    /// The wait of `events[next_event]`, once it started.
    waiting: Option<Waiting>,
    /// When the previous event was dispatched (none yet: the next wait
    /// starts at launch).
    last_dispatch: Option<Instant>,
    /// A wait timed out: the script stopped there.
    stopped: bool,
    /// The number of the latest screen watch.
    watches: u64,
}

/// What a wait decided on this turn.
enum WaitTurn {
    /// Not yet.
    Pending,
    /// The condition held (and `at_ms` passed): dispatch with this record.
    Ready(WaitRecord),
    /// The wait's timeout passed; the event was recorded and the script stopped.
    TimedOut,
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
        wait: None,
    }
}

/// What an event's interaction record shows, and its kind: a sensitive
/// input as the capture's secrets show it.
fn event_data(event: &Event, observed: &Observation) -> (String, InteractionKind) {
    match event {
        Event::Input { data, sensitive, .. } => {
            let shown = observed.secrets.input_text(data, *sensitive);
            (shown.unwrap_or_else(|| observed.input_normalizer.normalize_unbounded(data)), InteractionKind::Input)
        }
        Event::Resize { columns, rows, .. } => (format!("{columns}x{rows}"), InteractionKind::Resize),
        Event::Signal { signal, .. } => (signal.as_str().to_owned(), InteractionKind::Signal),
    }
}

/// An event that was not dispatched (found so at `at`), with `outcome`
/// and, if it had one, its wait's record.
fn undelivered(
    event: &Event,
    at: u64,
    outcome: InteractionOutcome,
    wait: Option<WaitRecord>,
    observed: &Observation,
) -> InteractionEvent {
    let data = match event {
        Event::Input { .. } => "<not-dispatched>".to_owned(),
        other => event_data(other, observed).0,
    };
    InteractionEvent {
        sequence: 0,
        scheduled_at_ms: event.at_ms(),
        dispatched_at_ms: at,
        kind: event.interaction_kind(),
        data,
        query: None,
        outcome,
        reason: None,
        screen_before: ScreenBefore::NotRecorded,
        wait,
    }
}

/// The record of a wait that never started.
fn not_started(event: &Event) -> Option<WaitRecord> {
    event.wait_for().map(|w| WaitRecord::new(w, None, WaitOutcome::NotStarted))
}

impl Dispatch {
    /// The dispatch of `events` (the scenario's).
    pub(super) fn of(events: Vec<Event>) -> Dispatch {
        Dispatch { scripted: events.len(), events, ..Dispatch::default() }
    }

    /// Adds a live session's event, due at once.
    pub(super) fn push_live(&mut self, event: Event) {
        self.events.push(event);
    }

    /// Whether every event was dispatched and nothing is in flight.
    pub(super) fn done(&self) -> bool {
        self.idle() && (self.stopped || self.next_event >= self.events.len())
    }

    /// Whether nothing is being written or delivered.
    pub(super) fn idle(&self) -> bool {
        self.pending_input.is_none() && self.pending_signal.is_none()
    }

    /// When the loop must look at the next scripted event again, while
    /// nothing is in flight: when it is due, or, while it waits, when its
    /// timeout passes, when a quiet wait would hold, or when `at_ms` passes
    /// after the condition held. Output and screen conditions wake the loop
    /// through their sources.
    pub(super) fn next_due(&self, context: &Context<'_>, observed: &Observation) -> Option<Instant> {
        let events = &self.events;
        if !self.idle() || self.stopped {
            return None;
        }
        let event = events.get(self.next_event)?;
        let not_before = event.at_ms().and_then(|ms| context.clock.at(ms));
        let Some(waiting) = self.waiting.as_ref() else { return not_before };
        if waiting.satisfied.is_some() {
            return not_before;
        }
        let quiet = waiting.quiet_at(observed.output_watch.last_output());
        [waiting.timeout_at, quiet].into_iter().flatten().min()
    }

    /// A screen watch held after the read at `at`.
    pub(super) fn screen_hit(&mut self, id: u64, at: Instant) {
        if let Some(w) = self.waiting.as_mut()
            && w.decider == Decider::Screen(id)
            && w.satisfied.is_none()
        {
            w.satisfied = Some(at);
        }
    }

    /// Starts the wait of `events[next_event]`, if it has one, from the
    /// previous dispatch (or launch): its condition is handed to whatever
    /// decides it.
    fn arm(&mut self, now: Instant, context: &Context<'_>, observed: &mut Observation) {
        let Some(wait_for) = self.events.get(self.next_event).and_then(Event::wait_for).cloned() else { return };
        let started = self.last_dispatch.unwrap_or(context.clock.launch);
        let timeout_at = wait_for.timeout_ms.and_then(|ms| add_ms(started, ms));
        let mut failure = None;
        let decider = if let WaitCondition::QuietMs(ms) = wait_for.condition {
            Decider::Quiet(Duration::from_millis(ms))
        } else if let Some(matcher) = OutputMatcher::of(&wait_for.condition) {
            observed.output_watch.arm(matcher.map_err(|e| failure = Some(e)).ok());
            Decider::Output
        } else {
            self.watches += 1;
            let condition = ScreenCondition::of(&wait_for.condition).map(|c| c.map_err(|e| failure = Some(e)).ok());
            let watch = condition.flatten().map(|condition| ScreenWatch { id: self.watches, condition });
            if watch.is_some() && !observed.recorder.watch_screen(watch, now, context.clock.ms(now)) {
                failure = Some("no terminal renderer runs, so the screen cannot be watched".into());
            }
            Decider::Screen(self.watches)
        };
        self.waiting = Some(Waiting { wait_for, decider, started, timeout_at, satisfied: None, failure });
    }

    /// Stops whatever decides the current wait.
    fn disarm(&mut self, now: Instant, context: &Context<'_>, observed: &mut Observation) {
        if let Some(w) = self.waiting.take() {
            match w.decider {
                Decider::Output => observed.output_watch.arm(None),
                Decider::Screen(_) if w.satisfied.is_none() => {
                    observed.recorder.watch_screen(None, now, context.clock.ms(now));
                }
                Decider::Screen(_) | Decider::Quiet(_) => {}
            }
        }
    }

    /// Looks at the wait of `event` (started here if it was not yet).
    fn wait_turn(
        &mut self,
        event: &Event,
        now: Instant,
        context: &Context<'_>,
        observed: &mut Observation,
    ) -> WaitTurn {
        if self.waiting.is_none() {
            self.arm(now, context, observed);
        }
        let Some(waiting) = self.waiting.as_mut() else { return WaitTurn::Pending };
        if waiting.satisfied.is_none() {
            waiting.satisfied = match waiting.decider {
                Decider::Output => observed.output_watch.hit(),
                Decider::Quiet(_) => waiting.quiet_at(observed.output_watch.last_output()).filter(|t| *t <= now),
                Decider::Screen(_) => None,
            };
        }
        if let Some(at) = waiting.satisfied {
            if event.at_ms().and_then(|ms| context.clock.at(ms)).is_some_and(|t| now < t) {
                return WaitTurn::Pending;
            }
            let record = WaitRecord::new(&waiting.wait_for, Some(context.clock.ms(at)), WaitOutcome::Satisfied);
            self.disarm(now, context, observed);
            return WaitTurn::Ready(record);
        }
        if waiting.decider == Decider::Output && waiting.failure.is_none() {
            waiting.failure = observed.output_watch.failure().map(str::to_owned);
        }
        if let Some(reason) = waiting.failure.clone() {
            self.time_out(event, now, Some(reason), context, observed);
            return WaitTurn::TimedOut;
        }
        match waiting.timeout_at {
            Some(t) if now >= t => {
                self.time_out(event, t, None, context, observed);
                WaitTurn::TimedOut
            }
            _ => WaitTurn::Pending,
        }
    }

    /// Records `event` as `wait_timed_out` at `at` and stops the script.
    fn time_out(
        &mut self,
        event: &Event,
        at: Instant,
        reason: Option<String>,
        context: &Context<'_>,
        observed: &mut Observation,
    ) {
        let wait = self.waiting.as_ref().map(|w| WaitRecord::new(&w.wait_for, None, WaitOutcome::TimedOut));
        self.disarm(at, context, observed);
        let mut record = undelivered(event, context.clock.ms(at), InteractionOutcome::WaitTimedOut, wait, observed);
        record.reason = reason;
        observed.record_now(record, &context.clock);
        self.next_event += 1;
        self.stopped = true;
    }

    /// Starts writing the next reply to a terminal query, when nothing else is written.
    pub(super) fn write_reply(&mut self, now: Instant, context: &Context<'_>) {
        if self.pending_input.is_some() {
            return;
        }
        if let Some(reply) = self.replies.pop_front() {
            let event = reply_event(&reply, context.clock.ms(now));
            self.pending_input = Some(PendingInput {
                bytes: reply.data.into_bytes(),
                written: 0,
                event,
                pin: Some(reply.pin),
                live: None,
            });
        }
    }

    /// Records the pending input once it is all written; says whether it was.
    pub(super) fn input_written(&mut self, observed: &mut Observation) -> bool {
        if self.pending_input.as_ref().is_none_or(|p| p.written < p.bytes.len()) {
            return false;
        }
        if let Some(p) = self.pending_input.take() {
            match p.live {
                Some((note, sensitive)) => {
                    let data = String::from_utf8_lossy(&p.bytes).into_owned();
                    observed.live_input_written(p.event, p.pin, (data, note, sensitive), Instant::now());
                }
                None => {
                    observed.record_interaction(p.event, p.pin, Instant::now());
                }
            }
        }
        true
    }

    /// Starts every scripted event that is due at `now`, one at a time.
    pub(super) fn dispatch_due(
        &mut self,
        now: Instant,
        context: &Context<'_>,
        owned: &Owned,
        observed: &mut Observation,
    ) {
        while self.idle() && !self.stopped && self.next_event < self.events.len() {
            let event = self.events[self.next_event].clone();
            let event = &event;
            let wait = match event.wait_for() {
                Some(_) => match self.wait_turn(event, now, context, observed) {
                    WaitTurn::Pending => break,
                    WaitTurn::TimedOut => continue,
                    WaitTurn::Ready(record) => Some(record),
                },
                // Validation gives every event without `wait_for` an `at_ms`.
                None => match event.at_ms().and_then(|ms| context.clock.at(ms)) {
                    Some(due) if now >= due => None,
                    _ => break,
                },
            };
            self.next_event += 1;
            let (data, kind) = event_data(event, observed);
            let record = InteractionEvent {
                sequence: 0,
                scheduled_at_ms: event.at_ms(),
                dispatched_at_ms: context.clock.ms(now),
                kind,
                data,
                query: None,
                outcome: InteractionOutcome::Dispatched,
                reason: None,
                screen_before: ScreenBefore::NotRecorded,
                wait,
            };
            let live = self.live_note(event, now, context, owned, observed);
            self.start(event, record, live, context, owned, observed);
            if let (Some(note), Some(l)) = (live, observed.live.as_deref()) {
                let slot = std::sync::Arc::clone(&l.notes[note.0].screen);
                super::live::peek_into(&mut observed.recorder, slot, now, &context.clock);
            }
            // The next event's wait starts at this dispatch.
            self.last_dispatch = Some(now);
            self.arm(now, context, observed);
        }
    }

    /// The note of a live event being dispatched at `now` (its index, and
    /// whether it is a declared-sensitive input); the output since the
    /// previous event starts again either way.
    fn live_note(
        &mut self,
        event: &Event,
        now: Instant,
        context: &Context<'_>,
        owned: &Owned,
        observed: &mut Observation,
    ) -> Option<(usize, bool)> {
        let last_output = observed.output_watch.last_output().map(|t| context.clock.ms(t));
        let live = observed.live.as_deref_mut()?;
        if self.next_event <= self.scripted {
            live.dispatched(None, now, &context.clock);
            return None;
        }
        let mut kind = live.queued.pop_front()?;
        if let super::live::NoteKind::Input { echo, .. } = &mut kind {
            *echo = owned.guard.process.echo();
        }
        let sensitive = matches!(event, Event::Input { sensitive: true, .. });
        live.dispatched(Some((kind, context.clock.ms(now), last_output)), now, &context.clock);
        Some((live.notes.len() - 1, sensitive))
    }

    /// Starts one due event: an input is written, a resize applied and
    /// recorded, a signal delivered.
    fn start(
        &mut self,
        event: &Event,
        mut record: InteractionEvent,
        live: Option<(usize, bool)>,
        context: &Context<'_>,
        owned: &Owned,
        observed: &mut Observation,
    ) {
        if !matches!(event, Event::Input { .. }) || live.is_none() {
            observed.commit_open_input();
        }
        let (pin, pinned_at) = observed.pin(&context.clock);
        match event {
            Event::Input { data, .. } => {
                let bytes = data.as_bytes().to_vec();
                self.pending_input = Some(PendingInput { bytes, written: 0, event: record, pin, live });
            }
            Event::Resize { columns, rows, .. } => {
                let resized = owned.guard.process.resize(TermSize { columns: *columns, rows: *rows });
                if let Err(e) = &resized {
                    record.outcome = InteractionOutcome::Failed;
                    record.reason = Some(e.to_string());
                }
                // The resize's state follows its event in the journal.
                let recorded = observed.record_interaction(record, pin, pinned_at);
                if let Some((note, _)) = live {
                    observed.live_recorded(note);
                }
                if resized.is_ok() {
                    let at = after(recorded);
                    observed.recorder.resize(*columns, *rows, at, context.clock.ms(at));
                }
            }
            Event::Signal { signal, .. } => {
                let task = Box::pin(deliver_bounded(context.host, &owned.guard.run, *signal));
                self.pending_signal = Some(PendingSignal { task, event: record, pin });
            }
        }
    }

    /// Records the outcome of a write or a signal delivery that completed.
    pub(super) fn progress(
        &mut self,
        wrote: Option<io::Result<usize>>,
        signal_done: Option<Delivery>,
        observed: &mut Observation,
    ) {
        match (wrote, self.pending_input.as_mut()) {
            (Some(Ok(n)), Some(p)) => p.written += n,
            (Some(Err(e)), Some(_)) => {
                if let Some(p) = self.pending_input.take() {
                    let mut event = p.event;
                    event.outcome = InteractionOutcome::Failed;
                    event.reason = Some(format!("terminal write failed: {e}"));
                    observed.record_interaction(event, p.pin, Instant::now());
                }
            }
            _ => {}
        }
        if let Some(done) = signal_done
            && let Some(p) = self.pending_signal.take()
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
            observed.record_interaction(event, p.pin, Instant::now());
        }
    }

    /// Records events not yet dispatched when the run ended as undeliverable.
    /// Replies not written before the end (the program had exited) are
    /// recorded `target_exited`, after the renderer parsed all output.
    /// An event still waiting when a deadline ended the run (`by_deadline`)
    /// timed out; after a timed-out wait, every later event is
    /// `not_dispatched`.
    pub(super) async fn close(
        mut self,
        end: Instant,
        by_deadline: bool,
        context: &Context<'_>,
        observed: &mut Observation,
    ) {
        let at = context.clock.ms(end);
        if let Some(p) = self.pending_input.take() {
            let mut e = p.event;
            e.outcome = InteractionOutcome::TargetExited;
            if e.kind != InteractionKind::TerminalReply {
                e.data = "<not-dispatched>".into();
            }
            observed.record_interaction(e, p.pin, Instant::now());
        }
        if let Some(p) = self.pending_signal.take() {
            let done = p.task.await;
            let mut e = p.event;
            if !matches!(done, Delivery::Signaled) {
                e.outcome = InteractionOutcome::TargetExited;
            }
            observed.record_interaction(e, p.pin, Instant::now());
        }
        self.replies.extend(observed.recorder.settle_renderer());
        for reply in std::mem::take(&mut self.replies) {
            let mut e = reply_event(&reply, at);
            e.outcome = InteractionOutcome::TargetExited;
            observed.record_interaction(e, Some(reply.pin), Instant::now());
        }
        let events = std::mem::take(&mut self.events);
        if !self.stopped
            && let Some(event) = events.get(self.next_event)
            && let Some(waiting) = self.waiting.take()
        {
            let satisfied = waiting.satisfied.map(|t| context.clock.ms(t));
            let (outcome, wait_outcome) = match satisfied {
                Some(_) => (InteractionOutcome::TargetExited, WaitOutcome::Satisfied),
                None if by_deadline => (InteractionOutcome::WaitTimedOut, WaitOutcome::TimedOut),
                None => (InteractionOutcome::TargetExited, WaitOutcome::TargetExited),
            };
            let wait = Some(WaitRecord::new(&waiting.wait_for, satisfied, wait_outcome));
            observed.record_now(undelivered(event, at, outcome, wait, observed), &context.clock);
            self.stopped = outcome == InteractionOutcome::WaitTimedOut;
            self.next_event += 1;
        }
        let outcome = if self.stopped { InteractionOutcome::NotDispatched } else { InteractionOutcome::TargetExited };
        // Live events not dispatched are no part of the session's scenario.
        for event in events.get(self.next_event..self.scripted).unwrap_or_default() {
            let record = undelivered(event, at, outcome, not_started(event), observed);
            observed.record_now(record, &context.clock);
        }
    }
}
