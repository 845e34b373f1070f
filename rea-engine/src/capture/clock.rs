//! The capture's clock: the launch instant every recorded time is relative
//! to, and the time and readiness helpers the run loop and the deadlines
//! share (they sit here, below both, so neither imports the other for them).

use std::task::Poll;
use std::time::{Duration, Instant};

/// When the command was launched, as an instant and as the wall-clock time
/// the manifest records.
#[derive(Debug, Clone)]
pub(super) struct Clock {
    /// The launch instant.
    pub(super) launch: Instant,
    /// The wall-clock time just before launch (`manifest.started_at`).
    pub(super) started_at: String,
}

impl Clock {
    /// Milliseconds from launch to `at`.
    pub(super) fn ms(&self, at: Instant) -> u64 {
        ms_between(at, self.launch)
    }

    /// The instant `ms` milliseconds after launch.
    pub(super) fn at(&self, ms: u64) -> Option<Instant> {
        add_ms(self.launch, ms)
    }
}

/// Milliseconds from `earlier` to `later` (0 when `later` is not later).
pub(super) fn ms_between(later: Instant, earlier: Instant) -> u64 {
    later.saturating_duration_since(earlier).as_millis() as u64
}

/// `at` plus `ms` milliseconds, when representable.
pub(super) fn add_ms(at: Instant, ms: u64) -> Option<Instant> {
    at.checked_add(Duration::from_millis(ms))
}

/// Now, or just after `earlier` if the clock has not moved: the journal
/// orders by instant, so what is recorded later gets a later one.
pub(super) fn after(earlier: Instant) -> Instant {
    Instant::now().max(earlier + Duration::from_nanos(1))
}

/// A poll's value when it is ready.
pub(super) fn ready<T>(poll: Poll<T>) -> Option<T> {
    match poll {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}
