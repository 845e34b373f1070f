//! The terminal emulator (avt) and the snapshot of one rendered state.

use super::super::normalize::{Normalized, Normalizer};
use crate::evidence::{ActiveBuffer, RenderedFrame};

/// Name and version of the emulator, recorded in every capture's manifest.
/// A unit test keeps it equal to the version in `Cargo.lock`.
pub const EMULATOR: &str = "avt 0.19.0";
/// The emulator's crate name, as `rea doctor` reports it.
pub const EMULATOR_NAME: &str = "avt";
/// The emulator's version, as `rea doctor` reports it.
pub const EMULATOR_VERSION: &str = "0.19.0";

/// One rendered state, its exact size when known.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    /// The frame (its `sequence` is assigned when the record is built).
    pub(crate) frame: RenderedFrame,
    /// UTF-8 bytes of `serialized_state` plus `lines`, or `None` when bounded
    /// normalization stopped before the final size was known.
    pub(crate) bytes: Option<u64>,
}

/// The emulator and the normalization applied to what it shows.
pub(crate) struct Screen {
    term: avt::Terminal,
    normalizer: Normalizer,
    bound: u64,
}

impl Screen {
    /// A screen of `columns` x `rows` (each at least 1) keeping `scrollback`
    /// lines; every normalized piece is bounded by `bound` bytes.
    pub(crate) fn new(columns: u16, rows: u16, scrollback: u16, normalizer: Normalizer, bound: u64) -> Screen {
        let term = avt::Terminal::with_scrollback(
            usize::from(columns.max(1)),
            usize::from(rows.max(1)),
            Some(usize::from(scrollback)),
        )
        .unwrap_or_else(|_| unreachable!("both dimensions are at least 1"));
        Screen { term, normalizer, bound }
    }

    /// Parses decoded terminal text.
    pub(crate) fn feed(&mut self, text: &str) {
        self.term.feed(text);
    }

    /// Changes the size (the primary screen reflows).
    pub(crate) fn resize(&mut self, columns: u16, rows: u16) {
        self.term.resize(usize::from(columns.max(1)), usize::from(rows.max(1)));
    }

    /// Normalizes one piece; the size is `None` when it is unknown.
    fn piece(&self, text: &str) -> (String, Option<u64>) {
        match self.normalizer.normalize(text, self.bound) {
            Normalized::Text(t) => {
                let n = t.len() as u64;
                (t, Some(n))
            }
            Normalized::OverBudget(size) => (String::new(), size),
        }
    }

    /// A visible row: trailing blanks are not text, so they are removed
    /// before normalization, and again from its result.
    fn line(&self, text: &str) -> (String, Option<u64>) {
        match self.normalizer.normalize(text.trim_end_matches(' '), self.bound) {
            Normalized::Text(t) => {
                let kept = t.trim_end_matches(' ').len();
                let mut t = t;
                t.truncate(kept);
                (t, Some(kept as u64))
            }
            // Trailing spaces of text that was never built are unknown.
            Normalized::OverBudget(_) => (String::new(), None),
        }
    }

    /// The current state, normalized: visible rows with trailing U+0020
    /// removed (before and after normalization), and the emulator's dump.
    pub(crate) fn snapshot(&self, at_ms: u64) -> Snapshot {
        let (columns, rows) = self.term.size();
        let cursor = self.term.cursor();
        let mut bytes = Some(0u64);
        let mut add = |n: Option<u64>| bytes = bytes.zip(n).map(|(a, b)| a + b);
        let mut lines = Vec::with_capacity(rows);
        for line in self.term.screen().visible_lines() {
            let (text, size) = self.line(&line.text());
            add(size);
            lines.push(text);
        }
        let (serialized_state, size) = self.piece(&self.term.dump());
        add(size);
        let active_buffer = match self.term.active_screen_kind() {
            avt::ScreenKind::Primary => ActiveBuffer::Normal,
            avt::ScreenKind::Alternate => ActiveBuffer::Alternate,
        };
        let to_u16 = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
        let frame = RenderedFrame {
            sequence: 0,
            at_ms,
            columns: to_u16(columns),
            rows: to_u16(rows),
            // A cursor waiting to wrap sits on the last column, as terminals show it.
            cursor_x: to_u16(cursor.col.min(columns.saturating_sub(1))),
            cursor_y: to_u16(cursor.row.min(rows.saturating_sub(1))),
            active_buffer,
            lines,
            serialized_state,
        };
        Snapshot { frame, bytes }
    }
}
