//! The scripted events' dispatch: one at a time, in scenario order, with
//! replies to terminal queries written between them as they come. Each
//! method takes the session parts it works on.

use std::collections::VecDeque;
use std::io;
use std::time::Instant;

use super::clock::after;
use super::deadline::DeliveryTask;
use super::owned::{Delivery, deliver_bounded};
use super::parts::{Context, Observation, Owned};
use super::render::{PinRef, TerminalReply};
use crate::evidence::{InteractionEvent, InteractionKind, InteractionOutcome, ScreenBefore};
use crate::host::TermSize;
use crate::scenario::Event;

/// Bytes being written to the terminal: a scripted input or a reply.
pub(super) struct PendingInput {
    pub(super) bytes: Vec<u8>,
    pub(super) written: usize,
    event: InteractionEvent,
    pin: Option<PinRef>,
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
    pub(super) next_event: usize,
    pub(super) pending_input: Option<PendingInput>,
    pub(super) pending_signal: Option<PendingSignal>,
    pub(super) replies: VecDeque<TerminalReply>,
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

/// An event the run ended before dispatching.
fn undelivered(event: &Event, at: u64, observed: &Observation) -> InteractionEvent {
    let data = match event {
        Event::Input { .. } => "<not-dispatched>".to_owned(),
        other => event_data(other, observed).0,
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

impl Dispatch {
    /// Whether nothing is being written or delivered.
    pub(super) fn idle(&self) -> bool {
        self.pending_input.is_none() && self.pending_signal.is_none()
    }

    /// When the next scripted event is due, while nothing is in flight.
    pub(super) fn next_due(&self, context: &Context<'_>) -> Option<Instant> {
        let events = &context.request.resolved.scenario.events;
        if !self.idle() {
            return None;
        }
        events.get(self.next_event).and_then(|e| context.clock.at(e.at_ms()))
    }

    /// Starts writing the next reply to a terminal query, when nothing else is written.
    pub(super) fn write_reply(&mut self, now: Instant, context: &Context<'_>) {
        if self.pending_input.is_some() {
            return;
        }
        if let Some(reply) = self.replies.pop_front() {
            let event = reply_event(&reply, context.clock.ms(now));
            self.pending_input =
                Some(PendingInput { bytes: reply.data.into_bytes(), written: 0, event, pin: Some(reply.pin) });
        }
    }

    /// Records the pending input once it is all written; says whether it was.
    pub(super) fn input_written(&mut self, observed: &mut Observation) -> bool {
        if self.pending_input.as_ref().is_none_or(|p| p.written < p.bytes.len()) {
            return false;
        }
        if let Some(p) = self.pending_input.take() {
            observed.record_interaction(p.event, p.pin, Instant::now());
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
        let events = &context.request.resolved.scenario.events;
        while self.idle() && self.next_event < events.len() {
            let event = &events[self.next_event];
            let Some(due) = context.clock.at(event.at_ms()) else { break };
            if now < due {
                break;
            }
            self.next_event += 1;
            let (data, kind) = event_data(event, observed);
            let record = InteractionEvent {
                sequence: 0,
                scheduled_at_ms: Some(event.at_ms()),
                dispatched_at_ms: context.clock.ms(now),
                kind,
                data,
                query: None,
                outcome: InteractionOutcome::Dispatched,
                reason: None,
                screen_before: ScreenBefore::NotRecorded,
            };
            self.start(event, record, context, owned, observed);
        }
    }

    /// Starts one due event: an input is written, a resize applied and
    /// recorded, a signal delivered.
    fn start(
        &mut self,
        event: &Event,
        mut record: InteractionEvent,
        context: &Context<'_>,
        owned: &Owned,
        observed: &mut Observation,
    ) {
        let (pin, pinned_at) = observed.pin(&context.clock);
        match event {
            Event::Input { data, .. } => {
                let bytes = data.as_bytes().to_vec();
                self.pending_input = Some(PendingInput { bytes, written: 0, event: record, pin });
            }
            Event::Resize { columns, rows, .. } => {
                let resized = owned.guard.process.resize(TermSize { columns: *columns, rows: *rows });
                if let Err(e) = &resized {
                    record.outcome = InteractionOutcome::Failed;
                    record.reason = Some(e.to_string());
                }
                // The resize's state follows its event in the journal.
                let recorded = observed.record_interaction(record, pin, pinned_at);
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
    pub(super) async fn close(mut self, end: Instant, context: &Context<'_>, observed: &mut Observation) {
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
        for event in &context.request.resolved.scenario.events[self.next_event..] {
            let record = undelivered(event, at, observed);
            observed.record_now(record, &context.clock);
        }
    }
}
