//! Zero-width characters as tmux and xterm show them, on an unmodified avt.
//!
//! avt 0.19 gives every printed character a cell of its own, so a combining
//! mark, a zero-width joiner or a variation selector moves the cursor. tmux
//! and xterm join such a character to the cell left of the cursor instead.
//! This wrapper keeps avt as published (its parser, engine and dump) and
//! changes only what the engine is asked to print:
//!
//! - The text is parsed with avt's own [`avt::Parser`]; every function but
//!   `Print` is executed unchanged.
//! - A zero-width character ([`is_zero_width`]) is joined to the previous
//!   cell, found exactly as tmux 3.3a finds it (`screen_write_combine`): the
//!   first cell left of the cursor that is not the second half of a wide
//!   character, or the last cell while a wrap is pending; at column 0 there
//!   is none and the character is dropped, as tmux drops it. A cell holds at
//!   most [`CELL_BYTES`] bytes of UTF-8, as in tmux; a character that does
//!   not fit is dropped.
//! - A zero-width joiner joins the next character to the same cell, whatever
//!   its width (as tmux 3.3a does with emoji sequences); before plain ASCII
//!   tmux loses the joiner, and so does this wrapper.
//! - An avt cell holds one `char`, so a joined cell is stored as a stand-in
//!   code point from a range no program prints (planes 4–5 for one column,
//!   plane 3 above its assigned blocks for two), interned in [`Clusters`];
//!   avt moves it like any character (scrolling, insertion, reflow), and
//!   rows and dumps are read back through the table. A character a program
//!   does print from those ranges is interned too, so a stand-in is never
//!   ambiguous.
//! - The joined cell is rewritten through avt functions: the cell's own pen,
//!   a column move, the stand-in, the program's pen again, the cursor put
//!   back. The program's pen is read from a 1x1 shadow avt that is given
//!   every pen-changing function, and insert mode is tracked to be lifted
//!   for the rewrite.
//!
//! Speed (`docs/decisions.md`, "Plain text and common sequences without the
//! parser"): in the ground state a plain run (printable ASCII, CR, LF) is
//! executed as the functions the parser would dispatch, without it, and the
//! part of a long one that cannot affect the state after it is skipped;
//! common control sequences are read by `csi.rs`. Everything else goes
//! through avt's parser character by character.

use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::sync::OnceLock;

use avt::parser::{AnsiMode, AnsiModes, Function, SgrOp, SgrOps, State};
use avt::{Cell, Pen};

use super::csi;

/// The zero-width joiner.
const ZWJ: char = '\u{200D}';
/// CANCEL TAG: zero-width, invisible, four bytes of UTF-8 (see [`Emulator::dump`]).
const UNFIT: char = '\u{E007F}';
/// What one tmux cell holds (`UTF8_SIZE` in tmux 3.3a): UTF-8 bytes.
pub(crate) const CELL_BYTES: usize = 21;
/// New stand-ins handed out (or refused) between two collections of unused
/// ones: a collection scans every cell, so it is not repeated per character
/// when nearly all stand-ins are in use.
const COLLECT_EVERY: u64 = 4096;
/// Text of an unfinished escape sequence kept for the dump; avt ignores what
/// lies beyond its own bounds (1024 bytes of OSC, 32 parameters).
const UNFINISHED_LIMIT: usize = 4096;
/// Stand-ins shown one column wide: planes 4 and 5, unassigned.
const NARROW: RangeInclusive<u32> = 0x40000..=0x5FFFD;
/// Stand-ins shown two columns wide: plane 3 above the CJK extensions
/// assigned up to Unicode 17 (which end at U+3347F).
const WIDE: RangeInclusive<u32> = 0x34000..=0x3FFFD;

/// Whether `c` takes no cell, as in xterm's and glibc's `wcwidth` (Markus
/// Kuhn's rule): non-spacing and enclosing marks (Mn, Me), format characters
/// (Cf: ZWJ, ZWNJ, U+200B, U+2060, U+FEFF, …) except the soft hyphen and the
/// prepended concatenation marks, which keep a cell, and the Hangul Jamo
/// medial vowels and final consonants. Variation selectors are Mn.
pub(crate) fn is_zero_width(c: char) -> bool {
    let code = u32::from(c);
    if code < 0x300 {
        return false;
    }
    match u16::try_from(code) {
        Ok(bmp) => {
            let table = BMP.get_or_init(bmp_table);
            table[usize::from(bmp >> 6)] & (1 << (bmp & 63)) != 0
        }
        Err(_) => zero_width_rule(c),
    }
}

static BMP: OnceLock<Box<[u64; 1024]>> = OnceLock::new();

/// [`zero_width_rule`] for every code point of the Basic Multilingual Plane.
fn bmp_table() -> Box<[u64; 1024]> {
    let mut table = Box::new([0u64; 1024]);
    for code in 0..=0xFFFFu32 {
        if char::from_u32(code).is_some_and(zero_width_rule) {
            table[(code >> 6) as usize] |= 1 << (code & 63);
        }
    }
    table
}

fn zero_width_rule(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    match c {
        '\u{AD}' | '\u{600}'..='\u{605}' | '\u{6DD}' | '\u{70F}' | '\u{890}'..='\u{891}' | '\u{8E2}' => false,
        '\u{110BD}' | '\u{110CD}' => false,
        '\u{1160}'..='\u{11FF}' | '\u{D7B0}'..='\u{D7C6}' | '\u{D7CB}'..='\u{D7FB}' => true,
        _ => matches!(get_general_category(c), G::NonspacingMark | G::EnclosingMark | G::Format),
    }
}

/// Whether avt gives `c` two cells (its own rule, `Line::char_display_width`).
pub(crate) fn avt_wide(c: char) -> bool {
    use unicode_width::UnicodeWidthChar;
    c > '\u{7e}' && c.width() == Some(2)
}

/// Stand-ins of one width, handed out in order and reused once free.
#[derive(Debug)]
struct Pool {
    range: RangeInclusive<u32>,
    next: u32,
    free: Vec<char>,
}

impl Pool {
    fn new(range: RangeInclusive<u32>) -> Pool {
        Pool { next: *range.start(), range, free: Vec::new() }
    }

    fn take(&mut self) -> Option<char> {
        if let Some(c) = self.free.pop() {
            return Some(c);
        }
        let c = char::from_u32(self.next).filter(|_| self.range.contains(&self.next))?;
        // Skip the plane's last two code points (non-characters).
        self.next += if self.next & 0xFFFF == 0xFFFD { 3 } else { 1 };
        Some(c)
    }
}

/// The joined cells' texts by stand-in, and back.
#[derive(Debug)]
pub(crate) struct Clusters {
    text: HashMap<char, Box<str>>,
    ids: HashMap<Box<str>, char>,
    narrow: Pool,
    wide: Pool,
}

impl Clusters {
    fn new() -> Clusters {
        Clusters { text: HashMap::new(), ids: HashMap::new(), narrow: Pool::new(NARROW), wide: Pool::new(WIDE) }
    }

    /// Whether `c` is in a stand-in range.
    fn is_id(c: char) -> bool {
        let code = u32::from(c);
        NARROW.contains(&code) || WIDE.contains(&code)
    }

    /// The stand-in of `text` (shown `wide` or not), or `None` when every
    /// stand-in of that width is in use.
    fn intern(&mut self, text: &str, wide: bool) -> Option<char> {
        if let Some(&id) = self.ids.get(text) {
            return Some(id);
        }
        let id = if wide { self.wide.take() } else { self.narrow.take() }?;
        self.text.insert(id, text.into());
        self.ids.insert(text.into(), id);
        Some(id)
    }

    /// Appends what a cell holding `c` shows.
    fn push(&self, c: char, out: &mut String) {
        match Clusters::is_id(c).then(|| self.text.get(&c)).flatten() {
            Some(text) => out.push_str(text),
            None => out.push(c),
        }
    }

    /// Frees every stand-in that `in_use` does not name; returns how many.
    fn collect(&mut self, in_use: impl Iterator<Item = char>) -> usize {
        let mut live: std::collections::HashSet<char> = in_use.filter(|&c| Clusters::is_id(c)).collect();
        live.retain(|c| self.text.contains_key(c));
        let dead: Vec<char> = self.text.keys().copied().filter(|c| !live.contains(c)).collect();
        for id in &dead {
            if let Some(text) = self.text.remove(id) {
                self.ids.remove(&text);
            }
            let pool = if WIDE.contains(&u32::from(*id)) { &mut self.wide } else { &mut self.narrow };
            pool.free.push(*id);
        }
        dead.len()
    }
}

/// avt with zero-width characters joined to the previous cell.
pub(crate) struct Emulator {
    term: avt::Terminal,
    parser: avt::Parser,
    /// A 2x1 terminal given every function that changes the pen.
    pens: avt::Terminal,
    insert: bool,
    /// A zero-width joiner was printed: the next character joins.
    joiner: bool,
    /// The printable ASCII character printed by the last function, which
    /// `REP` repeats (tmux repeats nothing after anything else).
    last_ascii: Option<char>,
    /// The text of an escape sequence not yet complete (for the dump).
    unfinished: String,
    clusters: Clusters,
    /// Characters not shown because every stand-in was in use.
    unrepresented: u64,
    /// Stand-ins handed out or refused since unused ones were last collected.
    since_collect: u64,
    /// Reused buffer for a joined cell's text.
    text: String,
    /// Scrollback lines kept (the fast-forward's horizon depends on it).
    scrollback: usize,
    /// The scrolling margins are the whole screen (mirrors avt's DECSTBM,
    /// resize and reset rules; see [`Emulator::track_margins`]).
    full_margins: bool,
    /// Nothing will show the scrollback, so redraws a full clear hides are
    /// skipped ([`super::redraw`]).
    skip_redraws: bool,
    /// Every character goes through the parser and none is skipped: the
    /// reference the fast paths are tested against.
    #[cfg(test)]
    reference: bool,
}

impl Emulator {
    /// An emulator of `columns` x `rows` (each at least 1) keeping `scrollback` lines.
    pub(crate) fn new(columns: usize, rows: usize, scrollback: usize) -> Emulator {
        let term = avt::Terminal::with_scrollback(columns.max(1), rows.max(1), Some(scrollback))
            .unwrap_or_else(|_| unreachable!("both dimensions are at least 1"));
        let pens = avt::Terminal::new(2, 1).unwrap_or_else(|_| unreachable!("2x1 is a valid size"));
        Emulator {
            term,
            parser: avt::Parser::new(),
            pens,
            insert: false,
            joiner: false,
            last_ascii: None,
            unfinished: String::new(),
            clusters: Clusters::new(),
            unrepresented: 0,
            since_collect: COLLECT_EVERY,
            text: String::new(),
            scrollback,
            full_margins: true,
            skip_redraws: false,
            #[cfg(test)]
            reference: false,
        }
    }

    /// This emulator, told that nothing will ever show its scrollback (no
    /// resize will reflow it into view): the redraws a full clear hides are
    /// then skipped ([`super::redraw`]).
    pub(crate) fn with_scrollback_unseen(self) -> Emulator {
        Emulator { skip_redraws: true, ..self }
    }

    /// An emulator that parses every character (no plain-text fast path).
    #[cfg(test)]
    pub(crate) fn reference(columns: usize, rows: usize, scrollback: usize) -> Emulator {
        Emulator { reference: true, ..Emulator::new(columns, rows, scrollback) }
    }

    /// The emulator underneath (size, cursor, screens).
    pub(crate) fn terminal(&self) -> &avt::Terminal {
        &self.term
    }

    /// Characters not shown because every stand-in of their width was in use.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn unrepresented(&self) -> u64 {
        self.unrepresented
    }

    /// Parses decoded terminal text. A plain run (printable ASCII, CR, LF)
    /// is executed without the parser, and the part of it that cannot
    /// affect the state after the run is not executed at all
    /// ([`fast_forward_len`]); the common control sequences are read by
    /// [`csi::parse`], the rest by avt's parser.
    pub(crate) fn feed(&mut self, text: &str) {
        #[cfg(test)]
        if self.reference {
            let mut at = 0;
            while at < text.len() {
                at += self.feed_until_ground(&text[at..]);
            }
            return;
        }
        let bytes = text.as_bytes();
        // Text before `scanned` was already scanned for hidden redraws; none
        // can be skipped past the last `ESC [ 2 J` (every clear starts at or
        // before its erase), found once by a SIMD search instead of a scan
        // of every byte of a piece without one.
        let (mut at, mut scanned) = (0, 0);
        let last_erase = if self.skip_redraws { memchr::memmem::rfind(bytes, b"\x1b[2J") } else { None };
        while at < text.len() {
            if self.parser.state == State::Ground {
                if at >= scanned && last_erase.is_some_and(|e| at <= e) && self.may_skip_redraws() {
                    let skip = super::redraw::scan(&text[at..], skippable);
                    scanned = at + skip.stop.max(1);
                    skip.pens.into_iter().for_each(|ops| self.apply(Function::Sgr(ops)));
                    at += skip.resume;
                }
                let run = plain_len(&bytes[at..]);
                if run > 0 {
                    let skip = if self.may_skip() { fast_forward_len(&bytes[at..at + run], self.horizon()) } else { 0 };
                    self.feed_plain(&bytes[at + skip..at + run]);
                    at += run;
                    continue;
                }
                if let Some((len, function)) = csi::parse(&bytes[at..]) {
                    self.apply(function);
                    at += len;
                    continue;
                }
            }
            at += self.feed_until_ground(&text[at..]);
        }
    }

    /// Feeds characters through the parser until it is back in the ground
    /// state with plain text or an ESC next (or `text` ends); returns the
    /// bytes fed.
    fn feed_until_ground(&mut self, text: &str) -> usize {
        for (i, c) in text.char_indices() {
            let function = self.parser.feed(c);
            let ground = self.parser.state == State::Ground;
            if ground {
                self.unfinished.clear();
            } else if function.is_none() && self.unfinished.len() < UNFINISHED_LIMIT {
                self.unfinished.push(c);
            }
            if let Some(function) = function {
                self.apply(function);
            }
            let next = i + c.len_utf8();
            if ground && text.as_bytes().get(next).is_some_and(|&b| is_plain(b) || b == 0x1b) {
                return next;
            }
        }
        text.len()
    }

    /// Plain text (printable ASCII, CR, LF) in the ground state, executed
    /// as the parser would dispatch it: `Print`, `Cr`, `Lf`. Nothing in it
    /// goes through the wrapper's joining (ASCII is never zero-width nor a
    /// stand-in) except that a pending joiner is dropped by the first print.
    fn feed_plain(&mut self, run: &[u8]) {
        if run.is_empty() {
            return;
        }
        if self.joiner && run.iter().any(|&b| b >= 0x20) {
            self.joiner = false;
        }
        // Each stretch of printable ASCII is printed a row's cells at a time
        // (`avt::Terminal::print_ascii`, vendored); CR and LF are executed.
        let mut rest = run;
        while !rest.is_empty() {
            let text = memchr::memchr2(b'\r', b'\n', rest).unwrap_or(rest.len());
            self.term.print_ascii(&rest[..text]);
            let Some(&control) = rest.get(text) else { break };
            self.term.execute(if control == b'\r' { Function::Cr } else { Function::Lf });
            rest = &rest[text + 1..];
        }
        self.last_ascii = run.last().filter(|b| b.is_ascii_graphic() || **b == b' ').map(|&b| char::from(b));
    }

    /// Whether the state allows skipping plain text: nothing pending in the
    /// wrapper and the scrolling margins the whole screen.
    fn may_skip(&self) -> bool {
        self.full_margins && !self.joiner && self.unfinished.is_empty()
    }

    /// Whether hidden redraws may be skipped here: the scrollback is never
    /// shown, and nothing is pending in the wrapper (the parser is in the
    /// ground state).
    fn may_skip_redraws(&self) -> bool {
        self.skip_redraws && !self.joiner && self.unfinished.is_empty()
    }

    /// Line feeds that must follow a skipped part within the same run.
    fn horizon(&self) -> usize {
        let (_, rows) = self.term.size();
        2 * rows + self.scrollback + 1
    }

    /// Changes the size (the primary screen reflows).
    pub(crate) fn resize(&mut self, columns: usize, rows: usize) {
        let (columns, rows) = (columns.max(1), rows.max(1));
        // avt resets the margins when the number of rows changes.
        if rows != self.term.size().1 {
            self.full_margins = true;
        }
        self.term.resize(columns, rows);
    }

    /// Follows the scrolling margins as avt sets them: DECSTBM takes effect
    /// only when top < bottom <= rows (0 meaning the default), RIS and
    /// DECSTR reset them.
    fn track_margins(&mut self, function: &Function) {
        match *function {
            Function::Decstbm(top, bottom) => {
                let rows = self.term.size().1;
                let top = if top == 0 { 1 } else { usize::from(top) } - 1;
                let bottom = if bottom == 0 { rows } else { usize::from(bottom) } - 1;
                if top < bottom && bottom < rows {
                    self.full_margins = top == 0 && bottom == rows - 1;
                }
            }
            Function::Ris | Function::Decstr => self.full_margins = true,
            _ => {}
        }
    }

    fn apply(&mut self, function: Function) {
        let last_ascii = self.last_ascii.take();
        match function {
            Function::Print(c) => {
                self.print(c);
                self.last_ascii = (c.is_ascii_graphic() || c == ' ').then_some(c);
            }
            Function::Rep(n) => self.repeat(last_ascii, n),
            function => {
                self.track_margins(&function);
                match &function {
                    Function::Sm(modes) if modes.as_slice().contains(&AnsiMode::Insert) => self.insert = true,
                    Function::Rm(modes) if modes.as_slice().contains(&AnsiMode::Insert) => self.insert = false,
                    Function::Ris | Function::Decstr => self.insert = false,
                    _ => {}
                }
                if changes_pen(&function) {
                    self.pens.execute(function.clone());
                }
                self.term.execute(function);
            }
        }
    }

    /// `REP` as tmux 3.3a executes it: the printable ASCII character the
    /// previous function printed, if any, `n` times (at least once) but no
    /// further than the end of the row (it never wraps).
    fn repeat(&mut self, last: Option<char>, n: u16) {
        let Some(c) = last else { return };
        let (columns, _) = self.term.size();
        let n = usize::from(n.max(1)).min(columns.saturating_sub(self.term.cursor().col));
        self.term.execute(std::iter::repeat_n(Function::Print(c), n));
    }

    fn print(&mut self, c: char) {
        if c == ZWJ {
            self.joiner = true;
            return;
        }
        if std::mem::take(&mut self.joiner) && !c.is_ascii() {
            self.join(ZWJ);
            self.join(c);
        } else if is_zero_width(c) {
            self.join(c);
        } else if Clusters::is_id(c) {
            let id = self.stand_in(&c.to_string(), avt_wide(c));
            self.term.execute(Function::Print(id.unwrap_or('\u{FFFD}')));
        } else {
            self.term.execute(Function::Print(c));
        }
    }

    /// The stand-in for `text`, freeing unused ones when a pool is empty.
    fn stand_in(&mut self, text: &str, wide: bool) -> Option<char> {
        let known = self.clusters.text.len();
        if let Some(id) = self.clusters.intern(text, wide) {
            self.since_collect += u64::from(self.clusters.text.len() > known);
            return Some(id);
        }
        self.since_collect += 1;
        if self.since_collect < COLLECT_EVERY {
            self.unrepresented += 1;
            return None;
        }
        self.since_collect = 0;
        let term = &self.term;
        let primary = term.primary_screen().all_lines();
        let active = term.screen().visible_lines();
        let in_use = primary.chain(active).flat_map(|l| l.cells().iter().map(Cell::char));
        self.clusters.collect(in_use);
        let id = self.clusters.intern(text, wide);
        self.unrepresented += u64::from(id.is_none());
        id
    }

    /// Joins `z` to the cell left of the cursor, as tmux does.
    fn join(&mut self, z: char) {
        let (columns, _) = self.term.size();
        let cursor = self.term.cursor();
        let Some(line) = self.term.screen().line(cursor.row) else { return };
        let cells = line.cells();
        let Some(at) = (0..cursor.col.min(columns).min(cells.len())).rev().find(|&i| cells[i].width() != 0) else {
            return;
        };
        let cell = cells[at];
        let mut text = std::mem::take(&mut self.text);
        text.clear();
        self.clusters.push(cell.char(), &mut text);
        if text.len() + z.len_utf8() <= CELL_BYTES {
            text.push(z);
            if let Some(id) = self.stand_in(&text, cell.width() == 2) {
                self.rewrite(at, *cell.pen(), id, cursor);
            }
        }
        self.text = text;
    }

    /// Prints `id` at column `at` of the cursor's row with `pen`, leaving the
    /// cursor, the program's pen and insert mode as they were.
    fn rewrite(&mut self, at: usize, pen: Pen, id: char, cursor: avt::Cursor) {
        let current = self.pen();
        let insert = |on: bool| {
            let modes = AnsiModes::from(&[AnsiMode::Insert][..]);
            if on { Function::Sm(modes) } else { Function::Rm(modes) }
        };
        let column = |col: usize| Function::Cha(u16::try_from(col + 1).unwrap_or(u16::MAX));
        let differs = pen != current;
        if self.insert {
            self.term.execute(insert(false));
        }
        if differs {
            self.term.execute(Function::Sgr(sgr(&pen)));
        }
        self.term.execute(column(at));
        self.term.execute(Function::Print(id));
        if differs {
            self.term.execute(Function::Sgr(sgr(&current)));
        }
        if self.insert {
            self.term.execute(insert(true));
        }
        if self.term.cursor().col != cursor.col {
            self.term.execute(column(cursor.col));
        }
    }

    /// The program's current pen, read from the shadow terminal (a blank
    /// printed in its first cell takes it).
    fn pen(&mut self) -> Pen {
        self.pens.execute(Function::Cr);
        self.pens.execute(Function::Print(' '));
        let cell = self.pens.screen().line(0).and_then(|l| l.cells().first().copied());
        cell.map(|c| *c.pen()).unwrap_or_else(|| unreachable!("a 2x1 terminal has a first cell"))
    }

    /// Appends a row's text without its trailing U+0020 to `out` (cleared
    /// first); a joined cell shows its whole text, a wide character's second
    /// cell nothing, a concealed cell (SGR 8) a blank ([`Cell::shown`]).
    pub(crate) fn row_text(&self, line: &avt::Line, out: &mut String) {
        out.clear();
        let cells = line.cells();
        let visible = |c: &Cell| c.width() != 0 && c.char() != ' ' && !c.pen().is_conceal();
        let end = cells.iter().rposition(visible).map_or(0, |i| i + 1);
        let shown = cells[..end].iter().map(Cell::shown).filter(|c| c.width() != 0);
        if self.clusters.text.is_empty() {
            out.extend(shown.map(|c| c.char()));
        } else {
            shown.for_each(|cell| self.clusters.push(cell.char(), out));
        }
    }

    /// Whether any cell may hold a joined cell's stand-in: while none does,
    /// a cell's character is its whole text.
    pub(crate) fn has_joined(&self) -> bool {
        !self.clusters.text.is_empty()
    }

    /// Appends the text a cell holding `c` shows (a joined cell's whole text).
    pub(crate) fn cell_text(&self, c: char, out: &mut String) {
        self.clusters.push(c, out);
    }

    /// avt's dump (escape sequences that rebuild the screen) with joined
    /// cells written out as their characters, then the unfinished sequence.
    /// Replayed into an [`Emulator`] of the same size it shows the same screen.
    pub(crate) fn dump(&self) -> String {
        let raw = self.term.dump();
        if self.clusters.text.is_empty() {
            let mut out = raw;
            if self.joiner {
                out.push(ZWJ);
            }
            out.push_str(&unfinished_dump(&self.unfinished));
            return out;
        }
        let mut out = String::with_capacity(raw.len() + self.unfinished.len());
        for c in raw.chars() {
            self.clusters.push(c, &mut out);
            // A cell ends with a joiner only when what followed it did not
            // fit (18 bytes or more); a 4-byte tag then cannot fit either,
            // so the joiner is kept and the tag dropped, as they were.
            if Clusters::is_id(c) && out.ends_with(ZWJ) {
                out.push(UNFIT);
            }
        }
        if self.joiner {
            out.push(ZWJ);
        }
        out.push_str(&unfinished_dump(&self.unfinished));
        out
    }

    /// `text` read from avt's cells with every stand-in written out.
    #[cfg(test)]
    pub(crate) fn resolve(&self, text: String) -> String {
        if self.clusters.text.is_empty() {
            return text;
        }
        let mut out = String::with_capacity(text.len());
        text.chars().for_each(|c| self.clusters.push(c, &mut out));
        out
    }

    /// Each visible row's non-blank cells: the column and the text it shows,
    /// without U+0020 and concealed text (the comparison with tmux's screen,
    /// `oracle.rs`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn cells(&self) -> Vec<Vec<(u16, String)>> {
        let column = |i: usize| u16::try_from(i).unwrap_or(u16::MAX);
        let row = |line: &avt::Line| {
            let mut out = Vec::new();
            let shown = line.cells().iter().map(Cell::shown);
            for (i, cell) in shown.enumerate().filter(|(_, c)| c.width() != 0) {
                let mut text = String::new();
                self.clusters.push(cell.char(), &mut text);
                text.retain(|c| c != ' ');
                if !text.is_empty() {
                    out.push((column(i), text));
                }
            }
            out
        };
        self.term.screen().visible_lines().map(row).collect()
    }
}

/// Whether a non-ASCII character may be skipped in a hidden redraw: one
/// that only prints into a cell (not a zero-width character, a joiner or a
/// stand-in, which the wrapper keeps state for).
fn skippable(c: char) -> bool {
    c != ZWJ && !is_zero_width(c) && !Clusters::is_id(c)
}

/// Printable ASCII, CR or LF: text that, in the ground state, only prints,
/// returns or feeds lines.
fn is_plain(b: u8) -> bool {
    matches!(b, 0x20..=0x7e | b'\r' | b'\n')
}

/// Length of the plain prefix of `bytes`.
fn plain_len(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| !is_plain(b)).unwrap_or(bytes.len())
}

/// How much of the plain `run` need not be executed: everything before the
/// last carriage return that is followed, within the run, by at least
/// `horizon` line feeds; 0 when there is none. The proof is in
/// `docs/decisions.md`, "Fast-forward over plain text".
pub(crate) fn fast_forward_len(run: &[u8], horizon: usize) -> usize {
    if run.len() < horizon {
        return 0;
    }
    // The latest point of `run` with `horizon` line feeds from it to its end.
    let mut from = run.len();
    for _ in 0..horizon {
        let Some(lf) = run[..from].iter().rposition(|&b| b == b'\n') else { return 0 };
        from = lf;
    }
    run[..from].iter().rposition(|&b| b == b'\r').unwrap_or(0)
}

/// What avt's own dump writes for a parser left in the middle of `text` (an
/// unfinished sequence dispatches nothing, so a fresh terminal fed it differs
/// from an unfed one only by that part).
fn unfinished_dump(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut t = avt::Terminal::new(1, 1).unwrap_or_else(|_| unreachable!("1x1 is a valid size"));
    let fresh = t.dump();
    t.feed(text);
    let dump = t.dump();
    match dump.strip_prefix(fresh.as_str()) {
        Some(parser) => parser.to_owned(),
        None => text.to_owned(),
    }
}

/// Whether `function` changes the pen or what a restore brings back.
fn changes_pen(function: &Function) -> bool {
    matches!(
        function,
        Function::Sgr(_)
            | Function::Decsc
            | Function::Decrc
            | Function::Scosc
            | Function::Scorc
            | Function::Ris
            | Function::Decstr
            | Function::Decset(_)
            | Function::Decrst(_)
    )
}

/// The SGR that sets exactly `pen`.
fn sgr(pen: &Pen) -> SgrOps {
    let mut ops = vec![SgrOp::Reset];
    let flags = [
        (pen.is_bold(), SgrOp::SetBoldIntensity),
        (pen.is_faint(), SgrOp::SetFaintIntensity),
        (pen.is_italic(), SgrOp::SetItalic),
        (pen.is_underline(), SgrOp::SetUnderline),
        (pen.is_blink(), SgrOp::SetBlink),
        (pen.is_inverse(), SgrOp::SetInverse),
        (pen.is_conceal(), SgrOp::SetConceal),
        (pen.is_strikethrough(), SgrOp::SetStrikethrough),
    ];
    ops.extend(flags.into_iter().filter(|(on, _)| *on).map(|(_, op)| op));
    ops.extend(pen.foreground().map(SgrOp::SetForegroundColor));
    ops.extend(pen.background().map(SgrOp::SetBackgroundColor));
    SgrOps::from(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(columns: usize, rows: usize, text: &str) -> Emulator {
        let mut e = Emulator::new(columns, rows, 100);
        e.feed(text);
        e
    }

    fn rows(e: &Emulator) -> Vec<String> {
        let mut out = Vec::new();
        for line in e.terminal().screen().visible_lines() {
            let mut text = String::new();
            e.row_text(line, &mut text);
            out.push(text);
        }
        out
    }

    fn cursor(e: &Emulator) -> (usize, usize) {
        let c = e.terminal().cursor();
        (c.col, c.row)
    }

    fn cells_of(e: &Emulator, row: usize) -> Vec<(u16, String)> {
        e.cells().swap_remove(row)
    }

    fn cell(col: u16, text: &str) -> (u16, String) {
        (col, text.to_owned())
    }

    #[test]
    fn a_combining_mark_joins_the_previous_cell_and_keeps_the_cursor() {
        let e = fed(12, 2, "e\u{301}\x1b[1;10HZ");
        assert_eq!(rows(&e), ["e\u{301}        Z", ""]);
        assert_eq!(cells_of(&e, 0), [cell(0, "e\u{301}"), cell(9, "Z")]);
        assert_eq!(cursor(&e), (10, 0));
        let e = fed(12, 2, "cafe\u{301}!");
        assert_eq!(cells_of(&e, 0).last(), Some(&cell(4, "!")));
    }

    #[test]
    fn marks_stack_up_to_what_a_tmux_cell_holds() {
        let marks: String = ('\u{301}'..='\u{30B}').collect();
        let e = fed(12, 2, &format!("a{marks}Z"));
        // 'a' and ten two-byte marks fill 21 bytes; the eleventh is dropped.
        let kept: String = ('\u{301}'..='\u{30A}').collect();
        assert_eq!(cells_of(&e, 0), [cell(0, &format!("a{kept}")), cell(1, "Z")]);
    }

    #[test]
    fn no_previous_cell_at_column_zero_and_the_last_cell_while_a_wrap_is_pending() {
        let e = fed(5, 3, "\u{301}ab\r\n0123e\u{301}X");
        assert_eq!(rows(&e), ["ab", "0123e\u{301}", "X"]);
        assert_eq!(cursor(&e), (1, 2));
        let e = fed(5, 2, "0123e\u{301}");
        assert_eq!(cursor(&e), (5, 0), "the wrap is still pending");
    }

    #[test]
    fn a_mark_after_a_wide_character_joins_both_of_its_cells() {
        let e = fed(12, 2, "\u{65E5}\u{301}Z\r\n\u{65E5}\x1b[2;2H\u{302}");
        assert_eq!(cells_of(&e, 0), [cell(0, "\u{65E5}\u{301}"), cell(2, "Z")]);
        assert_eq!(cells_of(&e, 1), [cell(0, "\u{65E5}\u{302}")]);
        assert_eq!(cursor(&e), (1, 1), "the cursor stays on the second half");
    }

    #[test]
    fn a_joiner_joins_the_next_character_except_plain_ascii() {
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}";
        let e = fed(12, 3, &format!("{family}Z\r\n\u{1F469}\u{200D}aZ\r\n\u{200D}\u{1F469}Z"));
        assert_eq!(cells_of(&e, 0), [cell(0, family), cell(2, "Z")]);
        assert_eq!(cells_of(&e, 1), [cell(0, "\u{1F469}"), cell(2, "a"), cell(3, "Z")]);
        assert_eq!(cells_of(&e, 2), [cell(0, "Z")], "at column 0 the joiner and what it joins are dropped");
    }

    #[test]
    fn a_mark_after_a_cursor_move_joins_the_cell_left_of_the_cursor() {
        let e = fed(12, 2, "x\x1b[1;5H\u{301}Z");
        assert_eq!(rows(&e), ["x   \u{301}Z", ""]);
        assert_eq!(cells_of(&e, 0), [cell(0, "x"), cell(3, "\u{301}"), cell(4, "Z")]);
    }

    #[test]
    fn the_joined_cell_keeps_its_pen_and_the_program_keeps_its_own() {
        let e = fed(12, 2, "\x1b[31me\x1b[1;32m\u{301}X");
        let line = e.terminal().screen().line(0).expect("row 0");
        let pens: Vec<Pen> = line.cells()[..2].iter().map(|c| *c.pen()).collect();
        assert_eq!(pens[0].foreground(), Some(avt::Color::Indexed(1)));
        assert!(!pens[0].is_bold());
        assert_eq!(pens[1].foreground(), Some(avt::Color::Indexed(2)));
        assert!(pens[1].is_bold());
    }

    #[test]
    fn insert_mode_does_not_shift_the_row_when_a_cell_is_joined() {
        let e = fed(12, 2, "\x1b[4hab\x1b[1;2H\u{301}c");
        assert_eq!(rows(&e), ["a\u{301}cb", ""]);
    }

    #[test]
    fn the_dump_rebuilds_the_same_screen_with_the_joined_cells() {
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}";
        let text = &format!(
            "{family}\r\n\u{200D}\x1b[1;33mcafe\u{301}\x1b[m na\u{303}o\r\n\u{65E5}\u{301}\u{1F468}\u{200D}\u{1F469} \u{2764}\u{FE0F}\r\n\
                    x\x1b[3;6H\u{301}\x1b[?1049h\x1b[2;2Hv\u{323}\u{302}i\u{1EC7}t\u{200D}\x1b[3"
        );
        let e = fed(10, 4, text);
        let dump = e.dump();
        assert!(dump.contains("cafe\u{301}") && dump.contains("\u{1F468}\u{200D}\u{1F469}"), "{dump:?}");
        assert!(dump.ends_with("\u{9b}3"), "the unfinished sequence is kept, as avt dumps it: {dump:?}");
        let replayed = fed(10, 4, &dump);
        assert_eq!((rows(&replayed), replayed.cells(), cursor(&replayed)), (rows(&e), e.cells(), cursor(&e)));
        let back = fed(10, 4, &format!("{dump}m\u{1F469}\x1b[?1049l"));
        assert_eq!(rows(&back)[..2], ["\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}", "cafe\u{301} na\u{303}o"]);
    }

    #[test]
    fn a_control_inside_an_unfinished_sequence_is_not_replayed() {
        let e = fed(10, 3, "a\x1b[1\n");
        assert_eq!(cursor(&e), (1, 1));
        assert_eq!(cursor(&fed(10, 3, &e.dump())), (1, 1));
    }

    #[test]
    fn a_character_printed_from_a_stand_in_range_stays_itself() {
        let e = fed(12, 2, "\u{40000}\u{34001}e\u{301}!");
        assert_eq!(rows(&e), ["\u{40000}\u{34001}e\u{301}!", ""]);
        assert_eq!(cells_of(&e, 0), [cell(0, "\u{40000}"), cell(1, "\u{34001}"), cell(3, "e\u{301}"), cell(4, "!")]);
    }

    #[test]
    fn unused_stand_ins_are_collected_and_reused() {
        let mut e = Emulator::new(4, 1, 0);
        for i in 0..3u32 {
            let mark = char::from_u32(0x300 + i).expect("a mark");
            e.feed(&format!("\re{mark}"));
        }
        assert_eq!(e.clusters.text.len(), 3);
        let screen = e.terminal().screen();
        let in_use: Vec<char> = screen.visible_lines().flat_map(|l| l.cells().iter().map(Cell::char)).collect();
        assert_eq!(e.clusters.collect(in_use.into_iter()), 2, "only the cell on screen keeps its stand-in");
        assert_eq!(rows(&e), ["e\u{302}"]);
        assert_eq!(e.clusters.narrow.free.len(), 2);
        e.feed("a\u{301}");
        assert_eq!((rows(&e)[0].as_str(), e.clusters.narrow.free.len()), ("e\u{302}a\u{301}", 1));
        assert_eq!(e.unrepresented(), 0);
    }

    #[test]
    fn zero_width_follows_wcwidth() {
        for c in
            ['\u{301}', '\u{20DD}', '\u{200B}', '\u{200C}', '\u{200D}', '\u{FE0E}', '\u{FE0F}', '\u{1160}', '\u{E0100}']
        {
            assert!(is_zero_width(c), "U+{:04X}", u32::from(c));
        }
        for c in ['a', ' ', '\u{AD}', '\u{600}', '\u{65E5}', '\u{1F600}', '\u{1F3FD}', '\u{9BE}', '\u{1F1EB}'] {
            assert!(!is_zero_width(c), "U+{:04X}", u32::from(c));
        }
        for c in ('\u{0}'..='\u{10FFFF}').step_by(7) {
            assert_eq!(is_zero_width(c), u32::from(c) >= 0x300 && zero_width_rule(c), "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn every_stand_in_has_the_width_avt_gives_it() {
        let pool = |range: RangeInclusive<u32>| range.filter(|c| c & 0xFFFF < 0xFFFE).filter_map(char::from_u32);
        assert!(pool(NARROW).all(|c| !avt_wide(c) && !is_zero_width(c)));
        assert!(pool(WIDE).all(|c| avt_wide(c) && !is_zero_width(c)));
        let mut taken = Pool::new(0x4FFFC..=0x50001);
        let codes: Vec<u32> = std::iter::from_fn(|| taken.take()).map(u32::from).collect();
        assert_eq!(codes, [0x4FFFC, 0x4FFFD, 0x50000, 0x50001]);
    }
}
