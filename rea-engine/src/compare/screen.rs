//! The screen lens (`--terminal-lens screen`): the terminal dimension is
//! decided by the screens at each segment boundary and at the end, cell by
//! cell, instead of by the byte stream. Two programs that draw the same
//! screens with different escape sequences, cursor moves and queries
//! compare equal; a cell whose colour changed does not.
//!
//! **How cells are read.** The record is not extended: every rendered
//! frame keeps `serialized_state`, the emulator's own dump (escape
//! sequences that rebuild the visible buffers with every cell's pen, the
//! cursor, its visibility and the modes of a terminal of the same size).
//! It is replayed into the emulator the capture used
//! ([`crate::emulator::Emulator`], avt behind rea's zero-width wrapper), and
//! the cells are read back. Frames whose dumps are equal (and whose size,
//! cursor and buffer are equal) are equal screens and are not replayed.
//!
//! **Which screens.** The screen ending segment *k* is the screen the
//! *k*-th dispatched event saw (its `screen_before`: a frame, or blank); the
//! last segment ends on the final screen, the last rendered frame. A screen
//! is unknown when the record does not keep it: `screen_before` absent (a
//! state that did not fit the rendered budget), or, for the final screen,
//! any rendered state omitted (the record cannot tell whether the final
//! state was the one given up). A capture made before `screen_before`
//! existed falls back to the last frame of each segment when nothing was
//! omitted at all.
//!
//! **What counts as a difference** is what the screen shows: a cell's text
//! and its look, where inverse video is applied (foreground and background
//! swapped, the terminal's default colours kept apart from explicit ones)
//! and a blank cell shows only its background, underline and strike (its
//! foreground only through those lines); the cursor's visibility, and its
//! position while either side shows it; the size and the active buffer.

use std::sync::Arc;

use avt::{Color, Pen};
use serde::Serialize;
use serde_json::Value;

use super::diff::{Findings, Location, MAX_DIFFERENCES, phase};
use super::screen_view::{CellAttribute, CellRun, ScreenPair, ScreenView};
use super::terminal::{Segmented, is_boundary, segment_sizes};
use crate::emulator::Emulator;
use crate::emulator::cells::{avt_wide, is_zero_width};
use crate::evidence::{ActiveBuffer, CaptureRecord, RenderedFrame, ScreenBefore};

/// A colour as the screen paints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Paint {
    /// The terminal's default foreground.
    Foreground,
    /// The terminal's default background.
    Background,
    /// A palette entry.
    Indexed(u8),
    /// A direct colour.
    Rgb(u8, u8, u8),
}

fn paint(color: Color) -> Paint {
    match color {
        Color::Indexed(i) => Paint::Indexed(i),
        Color::RGB(c) => Paint::Rgb(c.r, c.g, c.b),
    }
}

/// What a cell's pen shows (see the module's notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Look {
    fg: Paint,
    bg: Paint,
    bold: bool,
    faint: bool,
    italic: bool,
    underline: bool,
    strikethrough: bool,
    blink: bool,
}

const PLAIN: Look = Look {
    fg: Paint::Foreground,
    bg: Paint::Background,
    bold: false,
    faint: false,
    italic: false,
    underline: false,
    strikethrough: false,
    blink: false,
};

fn look(pen: &Pen, blank: bool) -> Look {
    let fg = pen.foreground().map_or(Paint::Foreground, paint);
    let bg = pen.background().map_or(Paint::Background, paint);
    let (fg, bg) = if pen.is_inverse() { (bg, fg) } else { (fg, bg) };
    let (underline, strikethrough) = (pen.is_underline(), pen.is_strikethrough());
    if blank {
        // A blank shows its background, and its foreground only as a line.
        let fg = if underline || strikethrough { fg } else { Paint::Foreground };
        return Look { fg, bg, underline, strikethrough, ..PLAIN };
    }
    Look {
        fg,
        bg,
        bold: pen.is_bold(),
        faint: pen.is_faint(),
        italic: pen.is_italic(),
        underline,
        strikethrough,
        blink: pen.is_blink(),
    }
}

/// What a cell shows beside its text: the look of its pen, or [`PLAIN`]
/// for the second cell of a wide character (it shows nothing of its own).
fn look_of(cell: &avt::Cell) -> Look {
    if cell.width() == 0 { PLAIN } else { look(cell.pen(), cell.char() == ' ') }
}

/// A screen as the lens reads it: avt's cells row by row, and the emulator
/// that resolves joined cells (none for a blank screen).
pub(super) struct Shot<'f> {
    columns: u16,
    rows: u16,
    cursor: (u16, u16),
    cursor_visible: bool,
    active_buffer: ActiveBuffer,
    cells: Vec<Vec<avt::Cell>>,
    emulator: Option<Emulator>,
    /// The `serialized_state` it was read from (empty for a blank screen).
    state: &'f str,
}

impl<'f> Shot<'f> {
    /// The frame's cells, read by replaying its `serialized_state`.
    fn read(frame: &'f RenderedFrame) -> Shot<'f> {
        let mut emulator = Emulator::new(usize::from(frame.columns), usize::from(frame.rows), 0);
        emulator.feed(&frame.serialized_state);
        // What the screen shows: a concealed cell is a blank (`Cell::shown`).
        let shown = |line: &avt::Line| line.cells().iter().map(avt::Cell::shown).collect();
        let cells = emulator.terminal().screen().visible_lines().map(shown).collect();
        let cursor_visible = emulator.terminal().cursor().visible;
        Shot {
            columns: frame.columns,
            rows: frame.rows,
            cursor: (frame.cursor_x, frame.cursor_y),
            cursor_visible,
            active_buffer: frame.active_buffer,
            cells,
            // Kept only to resolve joined cells: without them a cell's character is its text.
            emulator: emulator.has_joined().then_some(emulator),
            state: &frame.serialized_state,
        }
    }

    /// The screen of a terminal nothing was drawn on.
    fn blank((columns, rows): (u16, u16)) -> Shot<'f> {
        Shot {
            columns,
            rows,
            cursor: (0, 0),
            cursor_visible: true,
            active_buffer: ActiveBuffer::Normal,
            cells: vec![vec![avt::Cell::default(); usize::from(columns)]; usize::from(rows)],
            emulator: None,
            state: "",
        }
    }

    /// Whether a cell's character may stand for a joined cell's text.
    fn joined(&self) -> bool {
        self.emulator.as_ref().is_some_and(Emulator::has_joined)
    }

    /// Appends what `cell` shows: nothing for the second cell of a wide
    /// character, a joined cell's whole text.
    fn text(&self, cell: &avt::Cell, out: &mut String) {
        match &self.emulator {
            _ if cell.width() == 0 => {}
            Some(emulator) => emulator.cell_text(cell.char(), out),
            None => out.push(cell.char()),
        }
    }

    fn row(&self, row: usize) -> &[avt::Cell] {
        self.cells.get(row).map_or(&[][..], Vec::as_slice)
    }

    /// A row's text: cells in order, trailing U+0020 removed.
    fn line(&self, row: usize) -> String {
        let mut text = String::new();
        self.row(row).iter().for_each(|cell| self.text(cell, &mut text));
        text.truncate(text.trim_end_matches(' ').len());
        text
    }

    fn view(&self) -> ScreenView {
        ScreenView {
            columns: self.columns,
            rows: self.rows,
            cursor_x: self.cursor.0,
            cursor_y: self.cursor.1,
            cursor_visible: self.cursor_visible,
            active_buffer: self.active_buffer,
            lines: (0..self.cells.len()).map(|r| self.line(r)).collect(),
            serialized_state: (!self.state.is_empty()).then(|| self.state.to_owned()),
        }
    }
}

/// Compares cells of two screens (buffers reused for joined cells' texts).
struct Cells<'s> {
    a: &'s Shot<'s>,
    b: &'s Shot<'s>,
    /// Whether either side holds joined cells, whose characters are
    /// stand-ins private to their emulator.
    joined: bool,
    ta: String,
    tb: String,
}

impl<'s> Cells<'s> {
    fn new(a: &'s Shot<'s>, b: &'s Shot<'s>) -> Cells<'s> {
        Cells { a, b, joined: a.joined() || b.joined(), ta: String::new(), tb: String::new() }
    }

    /// Whether two rows are equal cell for cell without reading texts.
    fn rows_equal(&self, x: &[avt::Cell], y: &[avt::Cell]) -> bool {
        !self.joined && x == y
    }

    /// Whether two cells show the same: the same text, and the same pen or
    /// the same look.
    fn same(&mut self, x: &avt::Cell, y: &avt::Cell) -> bool {
        if x.width() != y.width() {
            return false;
        }
        let text_same = if x.width() == 0 {
            true
        } else if !self.joined {
            x.char() == y.char()
        } else {
            self.ta.clear();
            self.tb.clear();
            self.a.text(x, &mut self.ta);
            self.b.text(y, &mut self.tb);
            self.ta == self.tb
        };
        text_same && (x.pen() == y.pen() || look_of(x) == look_of(y))
    }
}

/// The screen ending a segment, as one side's record keeps it.
#[derive(Debug, Clone, Copy)]
enum Kept<'a> {
    Frame(&'a RenderedFrame),
    Blank((u16, u16)),
    /// Not kept: why, and the last frame recorded before it in the segment
    /// (compared and listed, but never proof).
    Unknown(Gap, Option<&'a RenderedFrame>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gap {
    /// The event's `screen_before` is absent.
    NotKept,
    /// The frame holds no `serialized_state` to read its cells from.
    NoState,
}

/// One side's screens, one per segment.
pub(super) struct Screens<'a> {
    kept: Vec<Kept<'a>>,
    /// The size during the last segment (a missing segment's blank).
    last_size: (u16, u16),
}

impl<'a> Screens<'a> {
    pub(super) fn new(r: &'a CaptureRecord, segmented: &Segmented<'a>) -> Screens<'a> {
        let td = &r.truncation_details;
        let omitted_by_document = td.document.as_ref().is_some_and(|d| d.omitted_rendered_frames > 0);
        let all_states = !td.rendered_terminal.truncated && !omitted_by_document;
        let whole_stream = !td.raw_terminal.truncated && !td.normalized_terminal.as_ref().is_some_and(|n| n.truncated);
        let sizes = segment_sizes(r);
        let size = |k: usize| sizes.get(k).or(sizes.last()).copied().unwrap_or((80, 24));
        let frame = |f: Option<&'a RenderedFrame>, k: usize| match f {
            Some(f) if f.serialized_state.is_empty() && (0..f.lines.len()).any(|i| f.lines.get(i) != Some("")) => {
                Kept::Unknown(Gap::NoState, None)
            }
            Some(f) => Kept::Frame(f),
            None => Kept::Blank(size(k)),
        };
        let boundaries = r.interaction_events.iter().filter(|e| is_boundary(e));
        let mut kept: Vec<Kept<'a>> = boundaries
            .enumerate()
            .map(|(k, e)| match e.screen_before {
                ScreenBefore::Frame(n) => match r.rendered_frames.get(n as usize) {
                    Some(f) => frame(Some(f), k),
                    None => Kept::Unknown(Gap::NotKept, segmented.screen(k)),
                },
                ScreenBefore::Blank => Kept::Blank(size(k)),
                // A capture from before `screen_before`: the segment's last frame, if nothing was left out.
                ScreenBefore::NotRecorded if all_states && whole_stream => frame(segmented.screen(k), k),
                ScreenBefore::NotRecorded => Kept::Unknown(Gap::NotKept, segmented.screen(k)),
            })
            .collect();
        let last = kept.len();
        let final_screen = r.rendered_frames.last();
        kept.push(if all_states { frame(final_screen, last) } else { Kept::Unknown(Gap::NotKept, final_screen) });
        Screens { kept, last_size: size(last) }
    }

    /// Why screens are unknown, for the dimension's reasons.
    pub(super) fn reasons(&self, side: &str) -> Vec<String> {
        let last = self.kept.len() - 1;
        let name =
            |k: usize| if k == last { "the final screen".to_owned() } else { format!("the screen ending segment {k}") };
        self.kept
            .iter()
            .enumerate()
            .filter_map(|(k, s)| match s {
                Kept::Unknown(Gap::NotKept, _) => Some(format!(
                    "{side} capture did not keep {} (rendered states were omitted), so the screen lens cannot compare it.",
                    name(k)
                )),
                Kept::Unknown(Gap::NoState, _) => Some(format!(
                    "{side} capture's frame for {} has no serialized_state to read its cells from.",
                    name(k)
                )),
                Kept::Frame(_) | Kept::Blank(_) => None,
            })
            .collect()
    }

    fn get(&self, k: usize) -> Kept<'a> {
        self.kept.get(k).copied().unwrap_or(Kept::Blank(self.last_size))
    }

    fn len(&self) -> usize {
        self.kept.len()
    }
}

/// Whether two kept frames are the same screen without reading cells.
fn identical(a: &RenderedFrame, b: &RenderedFrame) -> bool {
    a.serialized_state == b.serialized_state
        && (a.columns, a.rows, a.cursor_x, a.cursor_y) == (b.columns, b.rows, b.cursor_x, b.cursor_y)
        && a.active_buffer == b.active_buffer
}

/// Left screens handed from the replaying thread at once.
const HANDOVER_BATCH: usize = 32;

/// The screen to compare and whether it is the one the segment ended on.
fn shot(kept: Kept<'_>) -> Option<(Shot<'_>, bool)> {
    match kept {
        Kept::Frame(f) => Some((Shot::read(f), true)),
        Kept::Blank(size) => Some((Shot::blank(size), true)),
        Kept::Unknown(_, guess) => guess.map(|f| (Shot::read(f), false)),
    }
}

/// Compares the screens ending each segment. Returns whether any
/// difference lies between two known screens (a seen change).
///
/// Differences come out in the order they are reported (segment, then
/// size and buffer, rows, cursor), so only the first
/// [`MAX_DIFFERENCES`] (and every one of the segment that reaches them)
/// carry their rows and screens; later ones are counted with their path
/// and location only, as the record lists no more.
pub(super) fn compare<'a>(f: &mut Findings, l: &Screens<'a>, r: &Screens<'a>) -> bool {
    let differing: Vec<usize> = (0..l.len().max(r.len()))
        .filter(|&k| match (l.get(k), r.get(k)) {
            (Kept::Frame(x), Kept::Frame(y)) => !identical(x, y),
            (Kept::Blank(x), Kept::Blank(y)) => x != y,
            _ => true,
        })
        .collect();
    let mut observed = false;
    let mut detailed = 0;
    let mut each = |k: usize, a: Option<(Shot<'a>, bool)>, b: Option<(Shot<'a>, bool)>| {
        // An unknown screen is compared through the last frame recorded
        // before it, if any: its differences are listed but are no proof.
        let (Some((a, known_a)), Some((b, known_b))) = (a, b) else { return };
        let found = screens(f, k, &a, &b, detailed < MAX_DIFFERENCES);
        detailed += found;
        observed |= found > 0 && known_a && known_b;
    };
    // The left screens are replayed on a second thread while the right ones
    // are replayed and compared here, in segment order; without a thread,
    // both are replayed here.
    // They are handed over in batches: one wake-up per batch, and at most
    // three batches of screens held at once.
    std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::sync_channel::<Vec<Option<(Shot<'a>, bool)>>>(1);
        let left = |send: std::sync::mpsc::SyncSender<Vec<Option<(Shot<'a>, bool)>>>| {
            for batch in differing.chunks(HANDOVER_BATCH) {
                if send.send(batch.iter().map(|&k| shot(l.get(k))).collect()).is_err() {
                    return;
                }
            }
        };
        let worker = std::thread::Builder::new().name("rea-screen-lens".into()).spawn_scoped(scope, move || left(send));
        match worker {
            Ok(_) => {
                for batch in differing.chunks(HANDOVER_BATCH) {
                    let Ok(shots) = receive.recv() else { break };
                    for (&k, a) in batch.iter().zip(shots) {
                        each(k, a, shot(r.get(k)));
                    }
                }
            }
            Err(_) => differing.iter().for_each(|&k| each(k, shot(l.get(k)), shot(r.get(k)))),
        }
    });
    observed
}

/// A row of one side as a difference shows it: its text and the first
/// differing cell.
#[derive(Serialize)]
struct RowView {
    text: String,
    cell: Option<CellView>,
}

/// A cell's text and pen as recorded (inverse and all).
#[derive(Serialize)]
struct CellView {
    text: String,
    foreground: String,
    background: String,
    attributes: Vec<CellAttribute>,
}

fn color_name(color: Option<Color>) -> String {
    match color {
        None => "default".into(),
        Some(Color::Indexed(i)) => i.to_string(),
        Some(Color::RGB(c)) => format!("#{:02x}{:02x}{:02x}", c.r, c.g, c.b),
    }
}

fn cell_view(shot: &Shot<'_>, cell: &avt::Cell) -> CellView {
    let p = cell.pen();
    let attributes = [
        (p.is_bold(), CellAttribute::Bold),
        (p.is_faint(), CellAttribute::Faint),
        (p.is_italic(), CellAttribute::Italic),
        (p.is_underline(), CellAttribute::Underline),
        (p.is_blink(), CellAttribute::Blink),
        (p.is_inverse(), CellAttribute::Inverse),
        (p.is_strikethrough(), CellAttribute::Strikethrough),
    ];
    let mut text = String::new();
    shot.text(cell, &mut text);
    CellView {
        text,
        foreground: color_name(p.foreground()),
        background: color_name(p.background()),
        attributes: attributes.into_iter().filter(|(on, _)| *on).map(|(_, a)| a).collect(),
    }
}

/// Records the differences between two screens ending segment `k` and
/// returns how many. With `detail` they carry both rows and both screens;
/// without, their path and location only (they are counted, not listed).
fn screens(f: &mut Findings, k: usize, a: &Shot<'_>, b: &Shot<'_>, detail: bool) -> usize {
    let before = f.differences.len();
    let path = format!("terminal.screens[{k}]");
    let order = |position: usize| (k, phase::SCREEN, position);
    f.field(&format!("{path}.size"), &(a.columns, a.rows), &(b.columns, b.rows), order(0));
    f.field(&format!("{path}.active_buffer"), &a.active_buffer, &b.active_buffer, order(0));
    let rows = a.cells.len().max(b.cells.len());
    let mut runs: Vec<CellRun> = Vec::new();
    let mut cells = Cells::new(a, b);
    for row in 0..rows {
        let (ra, rb) = (a.row(row), b.row(row));
        if cells.rows_equal(ra, rb) {
            continue;
        }
        let mut first = None;
        for column in 0..ra.len().max(rb.len()) {
            let same = match (ra.get(column), rb.get(column)) {
                (Some(x), Some(y)) => cells.same(x, y),
                _ => false,
            };
            if same {
                continue;
            }
            first.get_or_insert(column);
            match runs.last_mut() {
                Some(run) if run.row == row + 1 && run.to == column => run.to = column + 1,
                _ => runs.push(CellRun { row: row + 1, from: column + 1, to: column + 1 }),
            }
        }
        let Some(column) = first else { continue };
        let location = Some(Location::Screen { segment: k, row: row + 1, column: column + 1 });
        let row_path = format!("{path}.rows[{row}]");
        if detail {
            let va = RowView { text: a.line(row), cell: ra.get(column).map(|c| cell_view(a, c)) };
            let vb = RowView { text: b.line(row), cell: rb.get(column).map(|c| cell_view(b, c)) };
            f.values(row_path, &va, &vb, location, order(row + 1));
        } else {
            f.push(row_path, Value::Null, Value::Null, location, order(row + 1));
        }
    }
    f.field(&format!("{path}.cursor_visible"), &a.cursor_visible, &b.cursor_visible, order(rows + 1));
    if a.cursor_visible || b.cursor_visible {
        f.field(&format!("{path}.cursor"), &a.cursor, &b.cursor, order(rows + 1));
    }
    let found = f.differences.len() - before;
    if found > 0 && detail {
        let pair = Arc::new(ScreenPair { left: a.view(), right: b.view(), differing_cells: runs });
        f.differences[before..].iter_mut().for_each(|d| d.screens = Some(Arc::clone(&pair)));
    }
    found
}

/// A row of a [`ScreenView`] cut into cells: each cell's first column
/// (from 0), its width and its text, with the emulator's widths (a wide
/// character takes two columns, a zero-width character joins the cell
/// before it, and so does the character after a zero-width joiner). What
/// `rea show` uses to mark [`CellRun`]s.
pub fn row_cells(line: &str) -> Vec<(usize, usize, &str)> {
    let mut out: Vec<(usize, usize, &str)> = Vec::new();
    let mut column = 0;
    let mut join = false;
    for (i, c) in line.char_indices() {
        let end = i + c.len_utf8();
        if (is_zero_width(c) || join)
            && let Some(last) = out.last_mut()
        {
            let start = last.2.as_ptr() as usize - line.as_ptr() as usize;
            last.2 = &line[start..end];
            join = c == '\u{200D}';
            continue;
        }
        join = false;
        let width = if avt_wide(c) { 2 } else { 1 };
        out.push((column, width, &line[i..end]));
        column += width;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(columns: u16, rows: u16, bytes: &str) -> RenderedFrame {
        let mut e = Emulator::new(usize::from(columns), usize::from(rows), 0);
        e.feed(bytes);
        let (x, y) = (e.terminal().cursor().col as u16, e.terminal().cursor().row as u16);
        RenderedFrame {
            sequence: 0,
            at_ms: 0,
            columns,
            rows,
            cursor_x: x.min(columns - 1),
            cursor_y: y,
            active_buffer: ActiveBuffer::Normal,
            lines: crate::evidence::ScreenLines::new(),
            serialized_state: e.dump(),
        }
    }

    fn diff(a: &str, b: &str) -> Findings {
        let mut f = Findings::default();
        screens(&mut f, 0, &Shot::read(&frame(20, 4, a)), &Shot::read(&frame(20, 4, b)), true);
        f
    }

    #[test]
    fn the_same_screen_from_different_bytes_is_no_difference() {
        let f = diff("\x1b[2J\x1b[HHello\x1b[3;5HWorld", "\x1b[H\x1b[JHello\r\n\r\n    World");
        assert!(f.differences.is_empty(), "{:?}", f.differences);
        // Colours set and reset around blanks do not show.
        let f = diff("a\x1b[31m   \x1b[0mb", "a   b");
        assert!(f.differences.is_empty(), "{:?}", f.differences);
        // Inverse video of explicit colours is the swapped colours.
        let f = diff("\x1b[7;31;42mX", "\x1b[32;41mX");
        assert!(f.differences.is_empty(), "{:?}", f.differences);
    }

    #[test]
    fn a_colour_change_names_the_row_and_column_and_shows_both_rows() {
        let f = diff("ok\r\n  \x1b[31mERROR\x1b[0m here", "ok\r\n  \x1b[32mERROR\x1b[0m here");
        assert_eq!(f.differences.len(), 1, "{:?}", f.differences);
        let d = &f.differences[0];
        assert_eq!(d.path, "terminal.screens[0].rows[1]");
        assert_eq!(d.location, Some(Location::Screen { segment: 0, row: 2, column: 3 }));
        assert_eq!(d.left["text"], "  ERROR here");
        assert_eq!(d.left["cell"]["foreground"], "1");
        assert_eq!(d.right["cell"]["foreground"], "2");
        let pair = d.screens.as_deref().expect("screens");
        assert_eq!(pair.differing_cells, [CellRun { row: 2, from: 3, to: 7 }]);
        assert_eq!(pair.left.lines[1], "  ERROR here");
        // Inverse with default colours is not the plain cell; a coloured blank shows.
        assert_eq!(diff("\x1b[7mX", "X").differences.len(), 1);
        assert_eq!(diff("a\x1b[41m \x1b[0mb", "a b").differences[0].left["cell"]["background"], "1");
        assert_eq!(diff("\x1b[1mX", "X").differences[0].left["cell"]["attributes"], serde_json::json!(["bold"]));
    }

    #[test]
    fn the_cursor_counts_by_its_visibility_and_where_it_is_shown() {
        let f = diff("abc\x1b[?25l", "abc");
        let paths: Vec<&str> = f.differences.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["terminal.screens[0].cursor_visible"]);
        // A hidden cursor's position is not shown.
        assert!(diff("abc\x1b[?25l", "abc\x1b[H\x1b[?25l").differences.is_empty());
        let f = diff("abc", "abc\x1b[H");
        assert_eq!(f.differences[0].path, "terminal.screens[0].cursor");
    }

    #[test]
    fn wide_and_joined_cells_are_read_as_the_emulator_shows_them() {
        let f = diff("a\u{4e2d}e\u{301}x", "a\u{4e2d}e\u{301}y");
        assert_eq!(f.differences[0].location, Some(Location::Screen { segment: 0, row: 1, column: 5 }));
        assert_eq!(row_cells("a\u{4e2d}e\u{301}x"), [(0, 1, "a"), (1, 2, "\u{4e2d}"), (3, 1, "e\u{301}"), (4, 1, "x")]);
    }
}
