//! The run loop's deadline state machine: the timeout and idle timeout, the
//! finalization that follows them (SIGTERM, then SIGKILL after
//! `finalization_ms`) or the plain SIGKILL, and the bounded wait for an exit
//! after SIGKILL.

use std::future::Future;
use std::pin::Pin;
use std::task::Context;
use std::time::{Duration, Instant};

use super::clock::{add_ms, ms_between, ready};
use super::owned::{Delivery, RunOwnership, deliver_bounded};
use crate::evidence::{ExitReason, FinalizationSignal, SignalReceipt};
use crate::host::Host;
use crate::scenario::{Scenario, SignalName};

/// How long to wait for an exit after a delivered `SIGKILL` before giving up.
const KILL_WAIT: Duration = Duration::from_secs(10);

/// A signal delivery in flight.
pub(super) type DeliveryTask = Pin<Box<dyn Future<Output = Delivery> + Send>>;

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

/// A delivery's receipt as the record keeps it.
fn receipt(signal: FinalizationSignal, sent_at_ms: u64, d: &Delivery) -> SignalReceipt {
    SignalReceipt { signal, sent_at_ms, delivery: d.record(), reason: d.reason() }
}

struct Finalizing {
    start: Instant,
    requested_ms: u64,
    kill_at: Instant,
    term: Option<(u64, DeliveryTask)>,
    kill: Option<(u64, DeliveryTask)>,
    kill_requested: bool,
    kill_sent: Option<Instant>,
    receipts: Vec<(usize, SignalReceipt)>,
    elapsed_ms: Option<u64>,
}

/// Where the deadlines stand.
enum Stage {
    /// No deadline has fired.
    Watching,
    /// A deadline fired with `finalization_ms: 0`: one SIGKILL.
    Killing { sent_at: Instant, task: Option<DeliveryTask> },
    /// A deadline fired: SIGTERM, then SIGKILL after the interval.
    Finalizing(Box<Finalizing>),
}

/// Deliveries that completed during one poll.
#[derive(Default)]
pub(super) struct DeadlineWakes {
    term_done: Option<Delivery>,
    kill_done: Option<Delivery>,
}

impl DeadlineWakes {
    pub(super) fn any(&self) -> bool {
        self.term_done.is_some() || self.kill_done.is_some()
    }
}

/// The deadlines of one run.
pub(super) struct Deadlines {
    host: Host,
    run: RunOwnership,
    timeout_at: Option<Instant>,
    idle_timeout_ms: u64,
    finalization_ms: u64,
    /// When the terminal last produced output (the idle timeout's origin).
    pub(super) last_output: Instant,
    /// `timeout` or `idle_timeout` once one fired.
    pub(super) reason: Option<ExitReason>,
    stage: Stage,
}

impl Deadlines {
    pub(super) fn new(host: &Host, run: &RunOwnership, scenario: &Scenario, launch: Instant) -> Deadlines {
        Deadlines {
            host: host.clone(),
            run: run.clone(),
            timeout_at: add_ms(launch, scenario.timeout_ms),
            idle_timeout_ms: scenario.idle_timeout_ms,
            finalization_ms: scenario.finalization_ms,
            last_output: launch,
            reason: None,
            stage: Stage::Watching,
        }
    }

    /// Makes the timeout due at `now` (a live session ended by its caller),
    /// unless a deadline already fired.
    pub(super) fn expire(&mut self, now: Instant) {
        if matches!(self.stage, Stage::Watching) {
            self.timeout_at = Some(self.timeout_at.map_or(now, |t| t.min(now)));
        }
    }

    /// Fires what is due at `now`: a deadline starts the finalization or the
    /// plain SIGKILL; the finalization interval's end starts its SIGKILL (not
    /// sequenced after the SIGTERM result: independent deliveries).
    pub(super) fn advance(&mut self, now: Instant) {
        let (host, run) = (&self.host, &self.run);
        match &mut self.stage {
            Stage::Watching => {
                let idle_at = add_ms(self.last_output, self.idle_timeout_ms);
                let fired = if self.timeout_at.is_some_and(|t| now >= t) {
                    Some(ExitReason::Timeout)
                } else if idle_at.is_some_and(|t| now >= t) {
                    Some(ExitReason::IdleTimeout)
                } else {
                    None
                };
                let Some(reason) = fired else { return };
                self.reason = Some(reason);
                self.stage = if self.finalization_ms == 0 {
                    Stage::Killing {
                        sent_at: now,
                        task: Some(Box::pin(deliver_bounded(host, run, SignalName::SIGKILL))),
                    }
                } else {
                    Stage::Finalizing(Box::new(Finalizing {
                        start: now,
                        requested_ms: self.finalization_ms,
                        kill_at: add_ms(now, self.finalization_ms).unwrap_or(now),
                        term: Some((0, Box::pin(deliver_bounded(host, run, SignalName::SIGTERM)))),
                        kill: None,
                        kill_requested: false,
                        kill_sent: None,
                        receipts: Vec::new(),
                        elapsed_ms: None,
                    }))
                };
            }
            Stage::Finalizing(f) if !f.kill_requested && now >= f.kill_at => {
                f.kill_requested = true;
                f.kill_sent = Some(now);
                f.kill = Some((ms_between(now, f.start), Box::pin(deliver_bounded(host, run, SignalName::SIGKILL))));
            }
            Stage::Finalizing(_) | Stage::Killing { .. } => {}
        }
    }

    fn kill_sent_at(&self) -> Option<Instant> {
        match &self.stage {
            Stage::Killing { sent_at, .. } => Some(*sent_at),
            Stage::Finalizing(f) => f.kill_sent,
            Stage::Watching => None,
        }
    }

    /// Why the exit is given up on: no exit within [`KILL_WAIT`] of SIGKILL.
    pub(super) fn kill_wait_expired(&self, now: Instant) -> Option<String> {
        self.kill_sent_at()
            .filter(|k| now >= *k + KILL_WAIT)
            .map(|_| format!("the launched process did not exit within {} s of SIGKILL", KILL_WAIT.as_secs()))
    }

    /// The instants at which the loop must wake for the deadlines.
    pub(super) fn wake_times(&self) -> [Option<Instant>; 3] {
        match &self.stage {
            Stage::Watching => [self.timeout_at, add_ms(self.last_output, self.idle_timeout_ms), None],
            Stage::Finalizing(f) if !f.kill_requested => [Some(f.kill_at), None, None],
            _ => [self.kill_sent_at().map(|k| k + KILL_WAIT), None, None],
        }
    }

    /// Polls the deliveries in flight.
    pub(super) fn poll(&mut self, cx: &mut Context<'_>) -> DeadlineWakes {
        let mut w = DeadlineWakes::default();
        match &mut self.stage {
            Stage::Watching => {}
            Stage::Killing { task, .. } => w.kill_done = task.as_mut().and_then(|t| ready(t.as_mut().poll(cx))),
            Stage::Finalizing(f) => {
                w.term_done = f.term.as_mut().and_then(|(_, t)| ready(t.as_mut().poll(cx)));
                w.kill_done = f.kill.as_mut().and_then(|(_, t)| ready(t.as_mut().poll(cx)));
            }
        }
        w
    }

    /// Records completed deliveries; returns why the exit cannot be
    /// observed when a SIGKILL could not be delivered to a running process.
    pub(super) fn delivered(&mut self, w: DeadlineWakes, exited: bool) -> Option<String> {
        match &mut self.stage {
            Stage::Watching => None,
            Stage::Killing { task, .. } => {
                let d = w.kill_done?;
                *task = None;
                (!matches!(d, Delivery::Signaled | Delivery::Gone) && !exited).then(|| {
                    format!(
                        "the deadline's SIGKILL could not be delivered ({}{})",
                        d.as_str(),
                        d.reason().map(|r| format!(": {r}")).unwrap_or_default()
                    )
                })
            }
            Stage::Finalizing(f) => {
                if let Some(d) = w.term_done
                    && let Some((at, _)) = f.term.take()
                {
                    f.receipts.push((0, receipt(FinalizationSignal::SIGTERM, at, &d)));
                }
                let d = w.kill_done?;
                let (at, _) = f.kill.take()?;
                f.receipts.push((1, receipt(FinalizationSignal::SIGKILL, at, &d)));
                (!matches!(d, Delivery::Signaled | Delivery::Gone) && !exited)
                    .then(|| format!("SIGKILL could not be delivered ({})", d.as_str()))
            }
        }
    }

    /// Notes the exit, for the finalization's elapsed time.
    pub(super) fn exited(&mut self, now: Instant) {
        if let Stage::Finalizing(f) = &mut self.stage {
            f.elapsed_ms = Some(ms_between(now, f.start));
        }
    }

    /// Lets in-flight finalization deliveries finish (each is bounded) and
    /// returns the finalization record, when one was attempted.
    pub(super) async fn finish(self) -> Option<FinalizationOutcome> {
        let Stage::Finalizing(mut f) = self.stage else { return None };
        if let Some((at, t)) = f.term.take() {
            let d = t.await;
            f.receipts.push((0, receipt(FinalizationSignal::SIGTERM, at, &d)));
        }
        if let Some((at, t)) = f.kill.take() {
            let d = t.await;
            f.receipts.push((1, receipt(FinalizationSignal::SIGKILL, at, &d)));
        }
        f.receipts.sort_by_key(|(order, _)| *order);
        Some(FinalizationOutcome {
            requested_ms: f.requested_ms,
            elapsed_ms: f.elapsed_ms,
            signals: f.receipts.into_iter().map(|(_, r)| r).collect(),
        })
    }
}
