//! Settlement: what the launched command's process group does after the
//! command ended.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use super::cancel::{Cancel, CancelCause};
use super::owned::{self, GroupObservation, RunOwnership};
use crate::evidence::SettlementState;
use crate::host::Host;

/// Interval between settlement observations.
const SETTLE_INTERVAL: Duration = Duration::from_millis(50);

/// Settles: `quiesced` at once when the host proves exactly that no
/// descendant is alive; otherwise observes the run's processes until two
/// consecutive observations find none, or `settle_ms` has passed (at least
/// two observations are always taken, so a group that is already quiet is
/// reported `quiesced`). A cancellation ends it at once.
pub(super) async fn settle(
    host: &Host,
    run: &RunOwnership,
    groups: &BTreeSet<u32>,
    settle_ms: u64,
    cancel: &mut Cancel,
) -> Result<(SettlementState, u64), CancelCause> {
    let start = Instant::now();
    let mut empty_streak = 0;
    let mut observations = 0u32;
    loop {
        let (h, r, g) = (host.clone(), run.clone(), groups.clone());
        let observation = blocking::unblock(move || owned::observe(&h, &r, &g)).await;
        observations += 1;
        match observation {
            // Exact: no descendant is alive, no need to watch any longer.
            GroupObservation::Proven => return Ok((SettlementState::Quiesced, elapsed_ms(start))),
            GroupObservation::Unverifiable(_) => return Ok((SettlementState::Unverifiable, elapsed_ms(start))),
            GroupObservation::Empty => empty_streak += 1,
            GroupObservation::Alive(_) => empty_streak = 0,
        }
        if empty_streak >= 2 {
            return Ok((SettlementState::Quiesced, elapsed_ms(start)));
        }
        let deadline_passed = elapsed_ms(start) >= settle_ms;
        if deadline_passed && observations >= 2 {
            return Ok((SettlementState::AliveAtDeadline, elapsed_ms(start)));
        }
        let wait = if deadline_passed {
            Duration::ZERO
        } else {
            SETTLE_INTERVAL.min(Duration::from_millis(settle_ms - elapsed_ms(start)))
        };
        let cancelled = futures_lite::future::or(
            async {
                async_io::Timer::after(wait).await;
                None
            },
            async { Some(cancel.fired().await) },
        )
        .await;
        if let Some(cause) = cancelled {
            return Err(cause);
        }
    }
}

fn elapsed_ms(since: Instant) -> u64 {
    since.elapsed().as_millis() as u64
}
