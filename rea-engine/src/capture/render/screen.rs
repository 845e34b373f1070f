//! The terminal emulator (avt, with zero-width characters joined to the
//! previous cell by `cells.rs`) and the snapshot of one rendered state.

use super::super::normalize::{Normalized, Normalizer};
use super::cells::Emulator;
use crate::evidence::{ActiveBuffer, RenderedFrame, ScreenLines};

/// Name and version of the emulator, recorded in every capture's manifest:
/// avt 0.19.0 with rea's patches (`vendor/avt/REA-PATCHES.md`). A unit test
/// keeps it equal to the version in `Cargo.lock`.
pub const EMULATOR: &str = "avt 0.19.0+rea.1";
/// The emulator's crate name, as `rea doctor` reports it.
pub const EMULATOR_NAME: &str = "avt";
/// The emulator's version, as `rea doctor` reports it.
pub const EMULATOR_VERSION: &str = "0.19.0+rea.1";

/// One rendered state, its exact size when known.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    /// The frame (its `sequence` is assigned when the record is built).
    pub(crate) frame: RenderedFrame,
    /// UTF-8 bytes of `serialized_state` plus `lines`, or `None` when bounded
    /// normalization stopped before the final size was known.
    pub(crate) bytes: Option<u64>,
}

/// A piece's raw text and what normalizing it gave, kept so that an
/// unchanged row (or dump) is not normalized again: normalization is a pure
/// function of the text (the rules and bound are fixed for a capture).
#[derive(Debug, Default)]
struct Memo {
    /// The raw text last normalized here; `None` before the first.
    raw: Option<String>,
    text: String,
    size: Option<u64>,
}

impl Memo {
    /// The normalized piece for `raw`, computed by `normalize` only when
    /// `raw` differs from the text last seen here.
    fn get(&mut self, raw: &str, normalize: impl FnOnce(&str) -> (String, Option<u64>)) -> (String, Option<u64>) {
        if self.raw.as_deref() != Some(raw) {
            (self.text, self.size) = normalize(raw);
            let kept = self.raw.get_or_insert_with(String::new);
            kept.clear();
            kept.push_str(raw);
        }
        (self.text.clone(), self.size)
    }
}

/// The emulator and the normalization applied to what it shows.
pub(crate) struct Screen {
    term: Emulator,
    normalizer: Normalizer,
    bound: u64,
    /// One memo per visible row (by index), and one for the dump.
    rows: Vec<Memo>,
    dump: Memo,
    /// Reused buffer for a row's text.
    row_text: String,
}

impl Screen {
    /// A screen of the settings' size and scrollback; every normalized
    /// piece is bounded by the rendered budget.
    pub(crate) fn new(settings: &super::RenderSettings, normalizer: Normalizer) -> Screen {
        let (columns, rows) = (usize::from(settings.columns), usize::from(settings.rows));
        let term = Emulator::new(columns, rows, usize::from(settings.scrollback));
        let term = if settings.scrollback_shown { term } else { term.with_scrollback_unseen() };
        let bound = settings.budget_bytes;
        let (rows, dump, row_text) = (Vec::new(), Memo::default(), String::new());
        Screen { term, normalizer, bound, rows, dump, row_text }
    }

    /// Parses decoded terminal text.
    pub(crate) fn feed(&mut self, text: &str) {
        self.term.feed(text);
    }

    /// Changes the size (the primary screen reflows).
    pub(crate) fn resize(&mut self, columns: u16, rows: u16) {
        self.term.resize(usize::from(columns), usize::from(rows));
    }

    /// The cursor (column, row) from 0 as a terminal reports it: one waiting
    /// to wrap sits on the last column.
    pub(crate) fn cursor(&self) -> (u16, u16) {
        let ((columns, rows), cursor) = (self.term.terminal().size(), self.term.terminal().cursor());
        let to_u16 = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
        (to_u16(cursor.col.min(columns.saturating_sub(1))), to_u16(cursor.row.min(rows.saturating_sub(1))))
    }

    /// The visible rows as a terminal shows them (before normalization),
    /// each without trailing U+0020, joined with `\n`, into `out`.
    pub(crate) fn visible_text(&mut self, out: &mut String) {
        out.clear();
        for (i, line) in self.term.terminal().screen().visible_lines().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            self.term.row_text(line, &mut self.row_text);
            out.push_str(&self.row_text);
        }
    }

    /// The size (columns, rows).
    pub(crate) fn size(&self) -> (u16, u16) {
        let (columns, rows) = self.term.terminal().size();
        (u16::try_from(columns).unwrap_or(u16::MAX), u16::try_from(rows).unwrap_or(u16::MAX))
    }

    /// Normalizes one piece; the size is `None` when it is unknown.
    fn piece(normalizer: &Normalizer, bound: u64, text: &str) -> (String, Option<u64>) {
        match normalizer.normalize(text, bound) {
            Normalized::Text(t) => {
                let n = t.len() as u64;
                (t, Some(n))
            }
            Normalized::OverBudget(size) => (String::new(), size),
        }
    }

    /// A visible row: trailing blanks are not text, so they are removed
    /// before normalization, and again from its result.
    fn line(normalizer: &Normalizer, bound: u64, text: &str) -> (String, Option<u64>) {
        match normalizer.normalize(text.trim_end_matches(' '), bound) {
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
    /// Rows and dumps equal to the previous state's are not normalized again.
    pub(crate) fn snapshot(&mut self, at_ms: u64) -> Snapshot {
        let (normalizer, bound) = (&self.normalizer, self.bound);
        let visible = self.term.terminal().screen().visible_lines();
        self.rows.resize_with(visible.len(), Memo::default);
        let mut sizes = Some(0u64);
        let mut lines = ScreenLines::new();
        for (line, memo) in visible.zip(&mut self.rows) {
            self.term.row_text(line, &mut self.row_text);
            let (text, size) = memo.get(&self.row_text, |raw| Screen::line(normalizer, bound, raw));
            sizes = sizes.zip(size).map(|(a, b)| a + b);
            lines.push(&text);
        }
        let (serialized_state, size) = self.dump.get(&self.term.dump(), |raw| Screen::piece(normalizer, bound, raw));
        let bytes = sizes.zip(size).map(|(a, b)| a + b);
        Snapshot { frame: self.frame(at_ms, lines, serialized_state), bytes }
    }

    /// The straightforward snapshot (no memo, every piece built and
    /// normalized afresh): the reference the memoized one is tested against.
    #[cfg(test)]
    pub(crate) fn snapshot_reference(&self, at_ms: u64) -> Snapshot {
        let mut bytes = Some(0u64);
        let mut add = |n: Option<u64>| bytes = bytes.zip(n).map(|(a, b)| a + b);
        let mut lines = ScreenLines::new();
        for line in self.term.terminal().screen().visible_lines() {
            // What each cell shows (a concealed cell a blank), as avt lays the row out.
            let shown = line.cells().iter().map(avt::Cell::shown).filter(|c| c.width() != 0);
            let text = self.term.resolve(shown.map(|c| c.char()).collect());
            let (text, size) = Screen::line(&self.normalizer, self.bound, &text);
            add(size);
            lines.push(&text);
        }
        let (serialized_state, size) = Screen::piece(&self.normalizer, self.bound, &self.term.dump());
        add(size);
        Snapshot { frame: self.frame(at_ms, lines, serialized_state), bytes }
    }

    /// The frame of the current state with its normalized pieces.
    fn frame(&self, at_ms: u64, mut lines: ScreenLines, serialized_state: String) -> RenderedFrame {
        lines.shrink_to_fit();
        let term = self.term.terminal();
        let (columns, rows) = term.size();
        let cursor = term.cursor();
        let active_buffer = match term.active_screen_kind() {
            avt::ScreenKind::Primary => ActiveBuffer::Normal,
            avt::ScreenKind::Alternate => ActiveBuffer::Alternate,
        };
        let to_u16 = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
        RenderedFrame {
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
        }
    }
}
