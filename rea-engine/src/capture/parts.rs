//! The parts of a capture session (see [`super::session`]): what the run
//! owns, what it observes, and the context it runs in. Each phase borrows
//! the parts it works on; nothing is handed over field by field.

use std::time::Instant;

use futures_lite::{AsyncRead, AsyncWrite};

use super::cancel::Cancel;
use super::clock::{Clock, after};
use super::decoder::RedactingDecoder;
use super::guard::TreeGuard;
use super::live::LiveObserved;
use super::normalize::Normalizer;
use super::progress::{Counts, Disposition, ProgressReporter, Released, RootState};
use super::redact_names::Checkpoint;
use super::render::{PinRef, RendererState};
use super::request::CaptureRequest;
use super::sampler::Sampler;
use super::terminal::TerminalRecorder;
use super::wait::OutputWatch;
use crate::evidence::InteractionEvent;
use crate::host::{BoxFuture, ExitStatus, Host, HostError};
use crate::secrets::Secrets;

/// Where the capture runs: the host, the request, what cancels it, its
/// clock, and where its progress goes.
pub(super) struct Context<'a> {
    /// The host.
    pub(super) host: &'a Host,
    /// The prepared request (resolved scenario, environment, secrets).
    pub(super) request: &'a CaptureRequest,
    /// The listened cancellation.
    pub(super) cancel: Cancel,
    /// The launch instant and time.
    pub(super) clock: Clock,
    /// Progress lines.
    pub(super) progress: &'a mut ProgressReporter,
    /// What the one final progress line will say.
    pub(super) ending: &'a mut Ending,
}

/// What the one final progress line will say; every phase updates it.
pub(super) struct Ending {
    /// The counts.
    pub(super) counts: Counts,
    /// The states.
    pub(super) states: FinalStates,
}

impl Ending {
    /// A run that has launched nothing yet and would fail if it ended now.
    pub(super) fn new() -> Ending {
        Ending { counts: Counts::default(), states: FinalStates::before_launch(Disposition::Failed) }
    }
}

impl From<RendererState> for Released {
    fn from(state: RendererState) -> Released {
        match state {
            RendererState::Cleaned => Released::Cleaned,
            RendererState::Failed => Released::Failed,
        }
    }
}

/// Final states for the terminal progress line.
pub(super) struct FinalStates {
    pub(super) disposition: Disposition,
    pub(super) owned_process_group: Released,
    pub(super) terminal_renderer: Released,
    pub(super) temporary_root: RootState,
}

impl FinalStates {
    /// States of a run that ended before anything was launched.
    pub(super) fn before_launch(disposition: Disposition) -> FinalStates {
        FinalStates {
            disposition,
            owned_process_group: Released::NotStarted,
            terminal_renderer: Released::NotStarted,
            temporary_root: RootState::NotCreated,
        }
    }

    /// The line's text.
    pub(super) fn text(&self) -> String {
        format!(
            "disposition={} owned_process_group={} terminal_renderer={} temporary_root={}",
            self.disposition, self.owned_process_group, self.terminal_renderer, self.temporary_root
        )
    }
}

/// What the run owns until cleanup proves it released: the launched tree
/// (behind its kill-on-drop guard), the terminal's streams, the process
/// observer and the private temporary root.
pub(super) struct Owned {
    /// The launched tree.
    pub(super) guard: TreeGuard,
    /// The terminal's streams and the launched process's exit.
    pub(super) terminal: Terminal,
    /// The process-tree sampler.
    pub(super) sampler: Sampler,
    /// The private temporary root.
    pub(super) temp: tempfile::TempDir,
}

/// The terminal's streams, as the run loop polls them.
pub(super) struct Terminal {
    /// The terminal's output.
    pub(super) reader: Box<dyn AsyncRead + Send + Unpin>,
    /// The terminal's input.
    pub(super) writer: Box<dyn AsyncWrite + Send + Unpin>,
    /// The launched process's exit.
    pub(super) exit: BoxFuture<'static, Result<ExitStatus, HostError>>,
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

/// What the run observes and records, secrets replaced on the way in.
pub(super) struct Observation {
    /// The capture's secrets, the one tally of replacements.
    pub(super) secrets: Secrets,
    /// The record's normalizer.
    pub(super) normalizer: Normalizer,
    /// The normalizer of recorded inputs (no temporary root, no PID).
    pub(super) input_normalizer: Normalizer,
    /// The terminal's decoded, redacted text.
    pub(super) decoder: RedactingDecoder,
    /// Frames, budgets and the renderer.
    pub(super) recorder: TerminalRecorder,
    /// Interaction events in recording order.
    pub(super) interactions: Vec<InteractionEvent>,
    /// Frames, interactions and lifecycle marks as they were recorded.
    pub(super) journal: Vec<(Instant, Collection, usize)>,
    /// The filesystem before launch.
    pub(super) before: Checkpoint,
    /// The output side of the next event's wait, fed every read.
    pub(super) output_watch: OutputWatch,
    /// A live session's part, when the capture is driven by calls.
    pub(super) live: Option<Box<LiveObserved>>,
}

impl Observation {
    /// What progress reports, with the sampler's count.
    pub(super) fn counts(&self, samples: u64) -> Counts {
        Counts { frames: self.recorder.frame_count() as u64, samples, interactions: self.interactions.len() as u64 }
    }

    /// Pins the screen an event sees now.
    pub(super) fn pin(&mut self, clock: &Clock) -> (Option<PinRef>, Instant) {
        let at = Instant::now();
        (self.recorder.pin_screen(at, clock.ms(at)), at)
    }

    /// Records an event that saw the screen of `pin`, pinned at `pinned_at`;
    /// returns the instant it was journaled at.
    pub(super) fn record_interaction(
        &mut self,
        mut event: InteractionEvent,
        pin: Option<PinRef>,
        pinned_at: Instant,
    ) -> Instant {
        event.sequence = self.interactions.len() as u64;
        self.recorder.record_screen(pin);
        let at = after(pinned_at);
        self.journal.push((at, Collection::Interactions, self.interactions.len()));
        self.interactions.push(event);
        at
    }

    /// Records an event that sees the screen as it is now.
    pub(super) fn record_now(&mut self, event: InteractionEvent, clock: &Clock) {
        let (pin, at) = self.pin(clock);
        self.record_interaction(event, pin, at);
    }

    /// Offers decoded text to the recorder, journaling a retained frame.
    pub(super) fn text(&mut self, text: &str, now: Instant, clock: &Clock) {
        if let Some(index) = self.recorder.offer(text, clock.ms(now)) {
            self.journal.push((now, Collection::Frames, index));
        }
    }

    /// Decodes terminal bytes read at `now` and records their text.
    pub(super) fn bytes(&mut self, bytes: &[u8], now: Instant, clock: &Clock) {
        if let Some(live) = self.live.as_deref() {
            live.raw(bytes);
        }
        if !bytes.is_empty() {
            self.commit_open_input();
        }
        let text = self.decoder.decode(bytes);
        self.recorder.invalid_utf8(self.decoder.take_invalid());
        self.output_watch.text(&text, now);
        if let Some(live) = self.live.as_deref_mut() {
            live.text(&text, now);
        }
        self.text(&text, now, clock);
    }

    /// Makes the live events' records those of the derived scenario's
    /// events (`scripted` events came first): when their wait held, no
    /// `at_ms`, a sensitive input's text redacted.
    pub(super) fn apply_derived(&mut self, derived: &super::live::Derived, scripted: usize) {
        let Some(live) = self.live.as_deref() else { return };
        for (i, note) in live.notes.iter().enumerate() {
            let (Some(record), Some(event)) = (note.record, derived.scenario.events.get(scripted + i)) else {
                continue;
            };
            let Some(r) = self.interactions.get_mut(record) else { continue };
            r.scheduled_at_ms = event.at_ms();
            r.wait = event.wait_for().map(|w| {
                let at = derived.satisfied_ms.get(i).copied().flatten();
                crate::evidence::WaitRecord::new(w, at, crate::evidence::WaitOutcome::Satisfied)
            });
            if let crate::scenario::Event::Input { data, sensitive: true, .. } = event {
                r.data = crate::secrets::redacted_input(data.len());
            }
        }
    }

    /// Live note `note`'s event is the last interaction recorded.
    pub(super) fn live_recorded(&mut self, note: usize) {
        let index = self.interactions.len().checked_sub(1);
        if let Some(n) = self.live.as_deref_mut().and_then(|l| l.notes.get_mut(note)) {
            n.record = index;
        }
    }

    /// Records the open live input (see [`LiveObserved::open`]), if any.
    pub(super) fn commit_open_input(&mut self) {
        let Some(open) = self.live.as_deref_mut().and_then(|l| l.open.take()) else { return };
        let mut event = open.event;
        let shown = self.secrets.input_text(&open.data, open.sensitive);
        event.data = shown.unwrap_or_else(|| self.input_normalizer.normalize_unbounded(&open.data));
        let index = self.interactions.len();
        // Journaled when it was written, before the output that ends it.
        event.sequence = index as u64;
        self.recorder.record_screen(open.pin);
        self.journal.push((open.pinned_at, Collection::Interactions, index));
        self.interactions.push(event);
        if let Some(note) = self.live.as_deref_mut().and_then(|l| l.notes.get_mut(open.note)) {
            note.record = Some(index);
        }
    }

    /// A live input (its text, note and whether it is declared sensitive) was written at `at`: it
    /// joins the open one when nothing came between them and they are
    /// alike, or it becomes the open one.
    pub(super) fn live_input_written(
        &mut self,
        event: InteractionEvent,
        pin: Option<PinRef>,
        (data, note, sensitive): (String, usize, bool),
        at: Instant,
    ) {
        let Some(live) = self.live.as_deref_mut() else { return };
        let fits = |o: &super::live::OpenInput| o.data.len() + data.len() <= crate::scenario::MAX_INPUT_DATA_BYTES;
        let joins = live.open.as_ref().is_some_and(|o| fits(o) && live.joins(o.note, note));
        if joins && let Some(open) = live.open.as_mut() {
            open.data.push_str(&data);
            open.event.dispatched_at_ms = event.dispatched_at_ms;
            let into = open.note;
            live.join_last(into, &data);
            return;
        }
        self.commit_open_input();
        let Some(live) = self.live.as_deref_mut() else { return };
        live.open = Some(super::live::OpenInput { event, pin, pinned_at: at, data, note, sensitive });
    }

    /// Ends the terminal stream at `end`: the decoder's held tail is recorded.
    pub(super) fn end_of_stream(&mut self, end: Instant, clock: &Clock) {
        let tail = self.decoder.finish();
        self.recorder.invalid_utf8(self.decoder.take_invalid());
        if !tail.is_empty() {
            self.output_watch.text(&tail, end);
            self.text(&tail, end, clock);
        }
    }
}
