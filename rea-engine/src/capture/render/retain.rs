//! Which rendered states the record keeps, and their exact accounting.
//!
//! A state is kept while it fits the frame limit and the rendered byte
//! budget, in production order. Pinned states are the screen at each
//! scripted event and at the end: when one did not fit, the most recent
//! unpinned (intermediate) states are given up, newest first, until it fits,
//! so a reader always has the screen at the boundaries and at the end when
//! it fits the budget at all. Nothing is given up unless that makes the
//! pinned state fit. Every figure stays exact: `observed_*` counts every
//! produced state (bytes only where the size was determined), `retained_*`
//! the states in the record.

use std::collections::HashMap;
use std::time::Instant;

use super::screen::Snapshot;
use crate::evidence::{RenderedFrame, RenderedTerminalTruncation, ScreenBefore};

#[derive(Debug)]
struct Kept {
    /// The state's position among all produced states.
    id: u64,
    at: Instant,
    frame: RenderedFrame,
    bytes: u64,
    pinned: bool,
}

/// The state a pin refers to, resolved to a frame sequence at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// Nothing was drawn yet.
    Blank,
    /// The produced state with this id (kept or not).
    State(u64),
    /// A state whose size was unknown, so it was not kept.
    Unknown,
}

impl Target {
    /// The recorded `screen_before`: the kept frame's sequence, null for a
    /// blank screen, absent when the state was not kept.
    pub(crate) fn resolve(self, kept: &HashMap<u64, u64>) -> ScreenBefore {
        match self {
            Target::Blank => ScreenBefore::Blank,
            Target::State(id) => kept.get(&id).map_or(ScreenBefore::NotRecorded, |s| ScreenBefore::Frame(*s)),
            Target::Unknown => ScreenBefore::NotRecorded,
        }
    }
}

/// The newest produced state, so that an event or the end can pin it.
#[derive(Debug)]
enum Latest {
    None,
    /// Kept at this index.
    Kept(usize),
    /// Not kept (over a limit); held until the next state replaces it.
    Omitted(Kept),
}

/// Retained states and the `rendered_terminal` accounting.
#[derive(Debug)]
pub(crate) struct RenderedLog {
    kept: Vec<Kept>,
    latest: Latest,
    account: RenderedTerminalTruncation,
}

impl RenderedLog {
    /// An empty log with `limits.output_bytes` and `limits.frames`.
    pub(crate) fn new(budget_bytes: u64, frame_limit: u64) -> RenderedLog {
        RenderedLog {
            kept: Vec::new(),
            latest: Latest::None,
            account: RenderedTerminalTruncation {
                truncated: false,
                budget_bytes,
                frame_limit,
                observed_bytes: 0,
                retained_bytes: 0,
                observed_frames: 0,
                retained_frames: 0,
                unknown_size_frames: 0,
            },
        }
    }

    fn fits(&self, bytes: u64) -> bool {
        (self.kept.len() as u64) < self.account.frame_limit
            && self.account.retained_bytes.saturating_add(bytes) <= self.account.budget_bytes
    }

    fn push(&mut self, kept: Kept) {
        self.account.retained_bytes += kept.bytes;
        self.latest = Latest::Kept(self.kept.len());
        self.kept.push(kept);
    }

    /// Records a produced state; `pinned` for the state after a resize or
    /// at an event. Returns the state a pin on it refers to.
    pub(crate) fn offer(&mut self, at: Instant, snapshot: Snapshot, pinned: bool) -> Target {
        let id = self.account.observed_frames;
        self.account.observed_frames += 1;
        let Some(bytes) = snapshot.bytes else {
            self.account.unknown_size_frames += 1;
            self.latest = Latest::None;
            return Target::Unknown;
        };
        self.account.observed_bytes += bytes;
        let kept = Kept { id, at, frame: snapshot.frame, bytes, pinned };
        if self.fits(bytes) {
            self.push(kept);
        } else if pinned {
            self.rescue(kept);
        } else {
            self.latest = Latest::Omitted(kept);
        }
        Target::State(id)
    }

    /// Pins the newest state (an event boundary or the end) and returns it.
    pub(crate) fn pin_latest(&mut self) -> Target {
        match std::mem::replace(&mut self.latest, Latest::None) {
            Latest::None => Target::Unknown,
            Latest::Kept(i) => {
                self.kept[i].pinned = true;
                self.latest = Latest::Kept(i);
                Target::State(self.kept[i].id)
            }
            Latest::Omitted(kept) => {
                let id = kept.id;
                self.rescue(kept);
                Target::State(id)
            }
        }
    }

    /// Keeps a pinned state by giving up the newest intermediate states, if
    /// that is enough; otherwise it stays omitted.
    fn rescue(&mut self, mut kept: Kept) {
        kept.pinned = true;
        let (pinned_count, pinned_bytes) =
            self.kept.iter().filter(|k| k.pinned).fold((0u64, 0u64), |(n, b), k| (n + 1, b + k.bytes));
        if pinned_count >= self.account.frame_limit
            || pinned_bytes.saturating_add(kept.bytes) > self.account.budget_bytes
        {
            self.latest = Latest::Omitted(kept);
            return;
        }
        while !self.fits(kept.bytes) {
            let Some(i) = self.kept.iter().rposition(|k| !k.pinned) else { break };
            let gone = self.kept.remove(i);
            self.account.retained_bytes -= gone.bytes;
        }
        self.push(kept);
    }

    /// Pins the final state and returns the kept states (with their
    /// recording instants, sequences assigned), the accounting, and each
    /// kept state's sequence by id.
    pub(crate) fn finish(mut self) -> (Vec<(Instant, RenderedFrame)>, RenderedTerminalTruncation, HashMap<u64, u64>) {
        self.pin_latest();
        let mut account = self.account;
        account.retained_frames = self.kept.len() as u64;
        account.truncated = account.retained_frames < account.observed_frames;
        let mut ids = HashMap::with_capacity(self.kept.len());
        let frames = self
            .kept
            .into_iter()
            .enumerate()
            .map(|(i, mut k)| {
                k.frame.sequence = i as u64;
                ids.insert(k.id, i as u64);
                (k.at, k.frame)
            })
            .collect();
        (frames, account, ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(at_ms: u64, bytes: Option<u64>) -> Snapshot {
        let frame = RenderedFrame {
            sequence: 0,
            at_ms,
            columns: 1,
            rows: 1,
            cursor_x: 0,
            cursor_y: 0,
            active_buffer: crate::evidence::ActiveBuffer::Normal,
            lines: crate::evidence::ScreenLines::new(),
            serialized_state: String::new(),
        };
        Snapshot { frame, bytes }
    }

    fn kept(log: RenderedLog) -> (Vec<u64>, RenderedTerminalTruncation) {
        let (frames, account, _) = log.finish();
        assert!(frames.iter().enumerate().all(|(i, (_, f))| f.sequence == i as u64));
        (frames.iter().map(|(_, f)| f.at_ms).collect(), account)
    }

    #[test]
    fn the_final_state_displaces_the_newest_intermediate_ones() {
        let now = Instant::now();
        let mut log = RenderedLog::new(100, 1000);
        for (at, bytes) in [(0, 40), (1, 40), (2, 15), (3, 30), (4, 50)] {
            log.offer(now, snap(at, Some(bytes)), false);
        }
        let (ats, a) = kept(log);
        // 0 and 1 fit (80), 2 fits (95), 3 does not; the final 50 needs 2 and 1 gone.
        assert_eq!(ats, [0, 4]);
        assert_eq!((a.observed_frames, a.retained_frames, a.observed_bytes, a.retained_bytes), (5, 2, 175, 90));
        assert!(a.truncated);
    }

    #[test]
    fn event_boundaries_stay_and_are_never_displaced() {
        let now = Instant::now();
        let mut log = RenderedLog::new(100, 3);
        log.offer(now, snap(0, Some(30)), false);
        log.offer(now, snap(1, Some(30)), false);
        log.offer(now, snap(2, Some(30)), false);
        log.offer(now, snap(3, Some(30)), false);
        log.pin_latest(); // an input event: the screen at 3 is its boundary
        log.offer(now, snap(4, Some(30)), true); // a resize
        log.offer(now, snap(5, Some(10)), false);
        let (ats, a) = kept(log);
        // The boundary (3) and the resize (4) displaced 2 and 1; the end (5) displaced 0.
        assert_eq!(ats, [3, 4, 5]);
        assert_eq!((a.retained_frames, a.retained_bytes, a.observed_frames, a.observed_bytes), (3, 70, 6, 160));
    }

    #[test]
    fn a_pinned_state_larger_than_what_pins_leave_displaces_nothing() {
        let now = Instant::now();
        let mut log = RenderedLog::new(100, 10);
        log.offer(now, snap(0, Some(60)), true);
        log.offer(now, snap(1, Some(20)), false);
        log.offer(now, snap(2, Some(50)), false);
        let (ats, a) = kept(log);
        assert_eq!(ats, [0, 1]);
        assert_eq!((a.retained_bytes, a.observed_bytes, a.truncated), (80, 130, true));
    }

    #[test]
    fn unknown_sizes_are_counted_apart_and_not_in_observed_bytes() {
        let now = Instant::now();
        let mut log = RenderedLog::new(100, 10);
        log.offer(now, snap(0, Some(10)), false);
        log.offer(now, snap(1, None), false);
        let (ats, a) = kept(log);
        assert_eq!(ats, [0]);
        assert_eq!((a.observed_frames, a.unknown_size_frames, a.observed_bytes, a.truncated), (2, 1, 10, true));
    }

    #[test]
    fn everything_fits_nothing_is_truncated() {
        let now = Instant::now();
        let mut log = RenderedLog::new(100, 10);
        log.offer(now, snap(0, Some(10)), false);
        log.pin_latest();
        log.offer(now, snap(1, Some(10)), false);
        let (ats, a) = kept(log);
        assert_eq!(ats, [0, 1]);
        assert!(!a.truncated);
    }
}
