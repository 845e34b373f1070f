//! The event loop of a running capture: terminal output, scheduled
//! interactions, deadlines, finalization, exit and cancellation.
//!
//! One task polls every source in a single pass (cancellation, terminal
//! output, the launched process's exit, a pending input write, a pending
//! signal delivery, the timer) and handles all that are ready, so a chatty
//! program cannot starve the deadlines. The loop borrows the session's parts
//! ([`Running`]); its own state is a [`Loop`].

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use futures_lite::{AsyncRead, AsyncWrite, future};

use super::cancel::CancelCause;
use super::clock::ready;
use super::deadline::{DeadlineWakes, Deadlines, FinalizationOutcome};
use super::dispatch::Dispatch;
use super::live::{LiveCommand, LiveReply, NoteKind, Sensitivity, StopMode};
use super::owned::{Delivery, deliver_bounded};
use super::parts::{Collection, Context, Observation, Owned};
use super::progress::Phase;
use super::render::TerminalReply;
use crate::evidence::ExitReason;
use crate::host::{ExitStatus, HostError};
use crate::scenario::{Event, SignalName};

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
    /// Set when the capture was cancelled.
    pub cancelled: Option<CancelCause>,
    /// Why the exit was not observed, when it was not.
    pub exit_unobserved: Option<String>,
}

/// The running phase: the session's parts, borrowed.
pub(super) struct Running<'s, 'a> {
    context: &'s mut Context<'a>,
    owned: &'s mut Owned,
    observed: &'s mut Observation,
}

/// The loop's own state.
struct Loop {
    deadlines: Deadlines,
    dispatch: Dispatch,
    exit: Option<(ExitStatus, Instant)>,
    exit_unobserved: Option<String>,
    last_heartbeat: Instant,
    timer: async_io::Timer,
    timer_at: Option<Instant>,
    buf: Vec<u8>,
    output_open: bool,
    cancel_open: bool,
    /// When a live session's wait must be looked at again.
    live_wake: Option<Instant>,
}

/// What one turn of the loop decided.
enum Turn {
    /// Go round again.
    Again,
    /// The run ended (exit observed, or given up on).
    End,
    /// The capture was cancelled.
    Cancelled(CancelCause),
}

/// The sources that were ready in one poll.
#[derive(Default)]
struct Wakes {
    cancel: Option<Option<CancelCause>>,
    read: Option<io::Result<usize>>,
    exited: Option<Result<ExitStatus, HostError>>,
    wrote: Option<io::Result<usize>>,
    signal_done: Option<Delivery>,
    replies: Vec<TerminalReply>,
    screen_hit: Option<(u64, Instant)>,
    deadlines: DeadlineWakes,
    timer: bool,
    live: Vec<LiveCommand>,
}

impl Wakes {
    fn any(&self) -> bool {
        self.cancel.is_some()
            || self.read.is_some()
            || self.exited.is_some()
            || self.wrote.is_some()
            || self.signal_done.is_some()
            || !self.replies.is_empty()
            || self.screen_hit.is_some()
            || self.deadlines.any()
            || self.timer
            || !self.live.is_empty()
    }
}

impl<'s, 'a> Running<'s, 'a> {
    /// Borrows the session's parts for the running phase.
    pub(super) fn new(context: &'s mut Context<'a>, owned: &'s mut Owned, observed: &'s mut Observation) -> Self {
        Running { context, owned, observed }
    }

    /// Runs until the launched process exits, a deadline's escalation gives
    /// up, or the capture is cancelled.
    pub(super) async fn run(mut self) -> RunOutcome {
        let scenario = &self.context.request.resolved.scenario;
        let launch = self.context.clock.launch;
        let mut l = Loop {
            deadlines: Deadlines::new(self.context.host, &self.owned.guard.run, scenario, launch),
            dispatch: Dispatch::of(scenario.events.clone()),
            live_wake: None,
            exit: None,
            exit_unobserved: None,
            last_heartbeat: Instant::now(),
            timer: async_io::Timer::never(),
            timer_at: None,
            buf: vec![0u8; READ_BUFFER],
            output_open: true,
            cancel_open: true,
        };
        loop {
            match self.turn(&mut l).await {
                Turn::Again => {}
                Turn::End => break,
                Turn::Cancelled(cause) => return self.cancelled(&l, cause).await,
            }
        }
        self.finish(l).await
    }

    /// Cancellation is never delayed: SIGKILL at once, also during finalization.
    async fn cancelled(&mut self, l: &Loop, cause: CancelCause) -> RunOutcome {
        let _ = deliver_bounded(self.context.host, &self.owned.guard.run, SignalName::SIGKILL).await;
        RunOutcome {
            reason: l.deadlines.reason.unwrap_or(ExitReason::Exited),
            exit: l.exit,
            finalization: None,
            cancelled: Some(cause),
            exit_unobserved: None,
        }
    }

    /// One turn: start what is due, wait for a source, handle what woke.
    async fn turn(&mut self, l: &mut Loop) -> Turn {
        let now = Instant::now();
        if l.exit.is_none() {
            l.dispatch.write_reply(now, self.context);
        }
        l.dispatch.dispatch_due(now, self.context, self.owned, self.observed);
        if l.dispatch.input_written(self.observed) {
            return Turn::Again;
        }
        self.live_turn(l, now);
        l.deadlines.advance(now);
        if l.exit.is_none()
            && let Some(why) = l.deadlines.kill_wait_expired(now)
        {
            l.exit_unobserved = Some(why);
            return Turn::End;
        }
        self.arm_timer(l, now);
        let wakes = self.poll_sources(l).await;
        self.handle(l, wakes).await
    }

    /// Arms the timer for the next heartbeat, due event or deadline. A later
    /// target keeps the earlier timer: it fires early and the loop re-arms
    /// it, instead of re-arming on every output chunk.
    fn arm_timer(&self, l: &mut Loop, now: Instant) {
        let mut next = l.last_heartbeat + HEARTBEAT;
        let wakes = l.deadlines.wake_times();
        let due = [l.dispatch.next_due(self.context, self.observed), l.live_wake];
        for t in due.into_iter().chain(wakes).flatten() {
            next = next.min(t);
        }
        if l.timer_at.is_none_or(|t| next < t || t <= now) {
            l.timer.set_at(next);
            l.timer_at = Some(next);
        }
    }

    /// Waits until at least one source is ready, and takes what each has.
    async fn poll_sources(&mut self, l: &mut Loop) -> Wakes {
        let (output_open, cancel_open) = (l.output_open, l.cancel_open);
        let cancel = &mut self.context.cancel;
        let recorder = &mut self.observed.recorder;
        let terminal = &mut self.owned.terminal;
        let inbox = self.observed.live.as_deref().map(|l| std::sync::Arc::clone(&l.inbox));
        future::poll_fn(|cx: &mut TaskContext<'_>| {
            let mut w = Wakes::default();
            if let Some(inbox) = &inbox {
                w.live = inbox.poll(cx);
            }
            if cancel_open {
                w.cancel = ready(cancel.poll_next(cx));
            }
            if output_open && recorder.poll_room(cx) {
                w.read = ready(Pin::new(&mut terminal.reader).poll_read(cx, &mut l.buf));
            }
            w.replies = recorder.poll_replies(cx);
            w.screen_hit = recorder.poll_screen_hit(cx);
            w.exited = ready(terminal.exit.as_mut().poll(cx));
            let writer = &mut terminal.writer;
            w.wrote = l
                .dispatch
                .pending_input
                .as_mut()
                .and_then(|p| ready(Pin::new(&mut *writer).poll_write(cx, &p.bytes[p.written..])));
            w.signal_done = l.dispatch.pending_signal.as_mut().and_then(|p| ready(p.task.as_mut().poll(cx)));
            w.deadlines = l.deadlines.poll(cx);
            w.timer = Pin::new(&mut l.timer).poll(cx).is_ready();
            if w.any() { Poll::Ready(w) } else { Poll::Pending }
        })
        .await
    }

    /// Handles what woke, in a fixed order.
    async fn handle(&mut self, l: &mut Loop, wakes: Wakes) -> Turn {
        let now = Instant::now();
        match wakes.cancel {
            Some(None) => l.cancel_open = false,
            Some(Some(cause)) => return Turn::Cancelled(cause),
            None => {}
        }
        self.output(l, wakes.read, now).await;
        l.dispatch.replies.extend(wakes.replies);
        if let Some((id, at)) = wakes.screen_hit
            && !self.observed.live.as_deref_mut().is_some_and(|live| live.screen_hit(id, at))
        {
            l.dispatch.screen_hit(id, at);
        }
        for command in wakes.live {
            self.live_command(l, command, now);
        }
        l.dispatch.progress(wakes.wrote, wakes.signal_done, self.observed);
        if let Some(why) = l.deadlines.delivered(wakes.deadlines, l.exit.is_some()) {
            l.exit_unobserved = Some(why);
        }
        if let Some(result) = wakes.exited {
            match result {
                Ok(status) => {
                    // Report the exit only after the output is drained.
                    self.drain(l).await;
                    l.exit = Some((status, Instant::now()));
                    l.deadlines.exited(now);
                }
                Err(e) => l.exit_unobserved = Some(format!("waiting for the exit failed: {e}")),
            }
        }
        if l.exit.is_some() || l.exit_unobserved.is_some() {
            return Turn::End;
        }
        if now >= l.last_heartbeat + HEARTBEAT {
            l.last_heartbeat = now;
        }
        let counts = self.observed.counts(self.owned.sampler.count());
        self.context.progress.update(Phase::Running, counts);
        Turn::Again
    }

    /// Records a read; a busy terminal is read on (up to [`BURST_READS`])
    /// before every other source is polled again (deadlines are re-checked
    /// each turn).
    async fn output(&mut self, l: &mut Loop, read: Option<io::Result<usize>>, now: Instant) {
        match read {
            Some(Ok(0)) | Some(Err(_)) => l.output_open = false,
            Some(Ok(n)) => {
                l.deadlines.last_output = now;
                self.observed.bytes(&l.buf[..n], now, &self.context.clock);
                for _ in 0..BURST_READS {
                    if !self.observed.recorder.has_room() {
                        break;
                    }
                    match self.read_now(l).await {
                        Some(at) => l.deadlines.last_output = at,
                        None => break,
                    }
                }
            }
            None => {}
        }
    }

    /// Reads what the terminal holds right now, without waiting; returns
    /// when the read text was recorded, `None` when nothing was read.
    async fn read_now(&mut self, l: &mut Loop) -> Option<Instant> {
        let reader = &mut self.owned.terminal.reader;
        match future::poll_once(futures_lite::AsyncReadExt::read(reader, &mut l.buf)).await {
            Some(Ok(0)) | Some(Err(_)) => {
                l.output_open = false;
                None
            }
            Some(Ok(n)) => {
                let at = Instant::now();
                self.observed.bytes(&l.buf[..n], at, &self.context.clock);
                Some(at)
            }
            None => None,
        }
    }

    /// Reads everything the terminal holds right now without waiting
    /// (except for the renderer to take what it was given).
    async fn drain(&mut self, l: &mut Loop) {
        while l.output_open {
            let recorder = &mut self.observed.recorder;
            future::poll_fn(|cx| if recorder.poll_room(cx) { Poll::Ready(()) } else { Poll::Pending }).await;
            if self.read_now(l).await.is_none() {
                break;
            }
        }
    }

    /// Decides a live session's wait (started once nothing is in flight).
    fn live_turn(&mut self, l: &mut Loop, now: Instant) {
        let Some(live) = self.observed.live.as_deref_mut() else { return };
        let (launch, last_output) = (self.context.clock.launch, self.observed.output_watch.last_output());
        let (recorder, clock) = (&mut self.observed.recorder, &self.context.clock);
        l.live_wake = live.turn(l.dispatch.done(), now, launch, last_output, recorder, clock);
    }

    /// Applies a live session's command.
    fn live_command(&mut self, l: &mut Loop, command: LiveCommand, now: Instant) {
        let Some(live) = self.observed.live.as_deref_mut() else { return };
        match command {
            LiveCommand::Input { data, sensitivity } => {
                let sensitive = sensitivity == Sensitivity::Sensitive;
                let event = Event::Input { at_ms: Some(0), wait_for: None, data: data.clone(), sensitive };
                live.queued.push_back(NoteKind::Input { data, sensitivity, echo: None });
                l.dispatch.push_live(event);
            }
            LiveCommand::Resize { columns, rows } => {
                live.queued.push_back(NoteKind::Resize { columns, rows });
                l.dispatch.push_live(Event::Resize { at_ms: Some(0), wait_for: None, columns, rows });
            }
            LiveCommand::Wait { wait_for, reply } => live.queue_wait(wait_for, reply),
            LiveCommand::Screen { reply } => {
                super::live::peek(&mut self.observed.recorder, reply, now, &self.context.clock);
            }
            LiveCommand::Echo { reply } => {
                let _ = reply.send(LiveReply::Echo(self.owned.guard.process.echo()));
            }
            LiveCommand::Stop(StopMode::End) => l.deadlines.expire(now),
            LiveCommand::Stop(StopMode::AwaitExit) => {}
        }
    }

    /// Ends the run: finalization deliveries finish, the decoder's tail is
    /// recorded, undispatched events are recorded, the exit is journaled.
    async fn finish(self, l: Loop) -> RunOutcome {
        let Loop { deadlines, dispatch, exit, exit_unobserved, .. } = l;
        let reason = deadlines.reason;
        let finalization = deadlines.finish().await;
        let end = exit.map_or_else(Instant::now, |(_, at)| at);
        self.observed.end_of_stream(end, &self.context.clock);
        self.observed.commit_open_input();
        if let Some(live) = self.observed.live.as_deref_mut() {
            live.close(Instant::now(), &mut self.observed.recorder, &self.context.clock);
        }
        let by_deadline = matches!(reason, Some(ExitReason::Timeout | ExitReason::IdleTimeout));
        dispatch.close(end, by_deadline, self.context, self.observed).await;
        self.observed.journal.push((end, Collection::Lifecycle, 0));
        RunOutcome {
            reason: reason.unwrap_or(ExitReason::Exited),
            exit,
            finalization,
            cancelled: None,
            exit_unobserved,
        }
    }
}
