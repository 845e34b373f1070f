//! Terminal queries found in the program's output, and xterm's replies
//! (profile `xterm-v1`, see `docs/decisions.md`, "Terminal replies").
//!
//! The scanner follows the same state machine as the emulator's parser
//! (the DEC/ANSI parser of vt100.net that avt implements, with C1 controls
//! as characters and every character from U+00A0 treated as printable), so
//! a query is found exactly where the emulator finishes parsing it, across
//! chunk boundaries. avt parses queries and ignores them; it has no hook to
//! report them, so the scanner runs beside it over the same text.
//!
//! Replies are what xterm (patch 390, its default VT420 identity, default
//! colours and `allowWindowOps` defaults) sends at the scenario's size:
//! only queries answered from the size, the cursor or fixed values are
//! answered; pixel sizes and window positions, which rea does not have, are
//! not.

use crate::evidence::TerminalQuery;

/// Most replies sent in one capture; later queries go unanswered (and a
/// limitation says so), which keeps the record bounded.
pub const MAX_TERMINAL_REPLIES: usize = 4096;

/// Longest CSI parameter text or OSC text the scanner keeps; longer ones
/// are no query it answers.
const KEPT_TEXT: usize = 64;

/// Deepest kitty keyboard flag stack kept.
const KITTY_STACK: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Ground,
    Escape,
    EscapeIntermediate,
    CsiEntry,
    CsiParam,
    CsiIntermediate,
    CsiIgnore,
    DcsEntry,
    DcsParam,
    DcsIntermediate,
    DcsPassthrough,
    DcsIgnore,
    OscString,
    SosPmApcString,
}

/// A query that needs a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Query {
    /// A CSI query: its kind.
    Csi(TerminalQuery),
    /// OSC 10/11 (`index` None) or OSC 4 with the palette indexes asked.
    Osc { query: TerminalQuery, indexes: Vec<u8>, terminator: &'static str },
}

/// A reply to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reply {
    pub(crate) query: TerminalQuery,
    pub(crate) data: String,
}

/// Finds queries in a text stream.
#[derive(Debug, Default)]
pub(crate) struct QueryScanner {
    state: State,
    /// Private marker of the current CSI (`<`, `=`, `>` or `?`).
    marker: Option<char>,
    /// Parameter text of the current CSI, or the OSC text.
    text: String,
    /// The parameter or OSC text was longer than [`KEPT_TEXT`].
    overflow: bool,
    /// An intermediate byte was seen in the current CSI.
    intermediate: bool,
    /// The kitty keyboard protocol's flag stack (top last).
    kitty: Vec<u16>,
    replies: usize,
    capped: bool,
}

fn first_param(params: &str) -> Option<u16> {
    let first = params.split(';').next().unwrap_or_default();
    if first.is_empty() { Some(0) } else { first.parse().ok() }
}

impl QueryScanner {
    /// Whether replies stopped at [`MAX_TERMINAL_REPLIES`].
    pub(crate) fn capped(&self) -> bool {
        self.capped
    }

    fn clear(&mut self) {
        self.marker = None;
        self.text.clear();
        self.overflow = false;
        self.intermediate = false;
    }

    fn keep(&mut self, c: char) {
        if self.text.len() < KEPT_TEXT {
            self.text.push(c);
        } else {
            self.overflow = true;
        }
    }

    /// The next query ending in `text` at or after byte `from`: the byte
    /// offset just after it and the query. The state carries to the next call.
    pub(crate) fn next_query(&mut self, text: &str, from: usize) -> Option<(usize, Query)> {
        let mut at = from;
        while at < text.len() {
            if self.state == State::Ground {
                // Only ESC and C1 controls (U+0080..U+009F, lead byte 0xC2) leave the ground state.
                let rest = &text.as_bytes()[at..];
                match rest.iter().position(|&b| b == 0x1b || b == 0xc2) {
                    Some(skip) => at += skip,
                    None => return None,
                }
                // A cursor move, erase or rendition leaves the ground state
                // and comes back to it with no query.
                if let Some(len) = super::csi::inert_len(&text.as_bytes()[at..]) {
                    at += len;
                    continue;
                }
            }
            let c = text[at..].chars().next()?;
            at += c.len_utf8();
            if let Some(query) = self.step(c) {
                return Some((at, query));
            }
        }
        None
    }

    /// One character through the state machine; a finished query is returned.
    fn step(&mut self, c: char) -> Option<Query> {
        use State::*;
        // Every character from U+00A0 is printable to the parser.
        let c2 = if c >= '\u{a0}' { 'A' } else { c };
        match c2 {
            '\u{1b}' => {
                let done = self.exit(true);
                self.enter(Escape);
                return done;
            }
            '\u{18}' | '\u{1a}' => self.state = Ground,
            '\u{80}'..='\u{9f}' => return self.c1(c2),
            _ => match self.state {
                Ground | SosPmApcString => {}
                Escape | EscapeIntermediate => self.escape(c2),
                CsiEntry | CsiParam | CsiIntermediate | CsiIgnore => return self.csi_char(c2),
                DcsEntry | DcsParam | DcsIntermediate | DcsPassthrough | DcsIgnore => self.dcs(c2),
                OscString => match c2 {
                    '\u{07}' => {
                        self.state = Ground;
                        return self.osc("\u{07}");
                    }
                    '\u{20}'..='\u{7f}' => self.keep(c),
                    _ => {}
                },
            },
        }
        None
    }

    fn enter(&mut self, state: State) {
        self.state = state;
        self.clear();
    }

    /// A C1 control (U+0080..U+009F): string starts and ends, or a return to ground.
    fn c1(&mut self, c: char) -> Option<Query> {
        match c {
            '\u{90}' => self.enter(State::DcsEntry),
            '\u{9b}' => self.enter(State::CsiEntry),
            '\u{9d}' => self.enter(State::OscString),
            '\u{98}' | '\u{9e}' | '\u{9f}' => self.state = State::SosPmApcString,
            '\u{9c}' => {
                let done = self.exit(false);
                self.state = State::Ground;
                return done;
            }
            _ => self.state = State::Ground,
        }
        None
    }

    fn escape(&mut self, c: char) {
        use State::*;
        match (self.state, c) {
            (Escape, '[') => self.enter(CsiEntry),
            (Escape, ']') => self.enter(OscString),
            (Escape, 'P') => self.enter(DcsEntry),
            (Escape, 'X' | '^' | '_') => self.state = SosPmApcString,
            (Escape | EscapeIntermediate, '\u{20}'..='\u{2f}') => self.state = EscapeIntermediate,
            (EscapeIntermediate, '\u{30}'..='\u{7e}') | (Escape, '\u{30}'..='\u{7e}') => self.state = Ground,
            // Executed C0 controls and DEL leave the state as it is.
            _ => {}
        }
    }

    fn csi_char(&mut self, c: char) -> Option<Query> {
        use State::*;
        match (self.state, c) {
            (CsiIgnore, '\u{40}'..='\u{7e}') => self.state = Ground,
            (CsiIgnore, _) => {}
            (_, '\u{40}'..='\u{7e}') => {
                self.state = Ground;
                return self.csi(c);
            }
            (CsiEntry | CsiParam, '0'..='9' | ';') | (CsiParam, ':') => {
                self.state = CsiParam;
                self.keep(c);
            }
            (CsiEntry, '\u{3c}'..='\u{3f}') => {
                self.state = CsiParam;
                self.marker = Some(c);
            }
            (CsiEntry | CsiParam | CsiIntermediate, '\u{20}'..='\u{2f}') => {
                self.state = CsiIntermediate;
                self.intermediate = true;
            }
            (CsiEntry, ':') | (CsiParam, '<'..='?') | (CsiIntermediate, '\u{30}'..='\u{3f}') => self.state = CsiIgnore,
            // Executed C0 controls and DEL.
            _ => {}
        }
        None
    }

    fn dcs(&mut self, c: char) {
        use State::*;
        self.state = match (self.state, c) {
            (DcsPassthrough | DcsIgnore, _) => self.state,
            (_, '\u{40}'..='\u{7e}') => DcsPassthrough,
            (DcsEntry | DcsParam, '\u{20}'..='\u{2f}') => DcsIntermediate,
            (DcsEntry, '0'..='9' | ';' | '<'..='?') | (DcsParam, '0'..='9' | ';') => DcsParam,
            (DcsEntry | DcsParam, ':') | (DcsParam, '<'..='?') | (DcsIntermediate, '\u{30}'..='\u{3f}') => DcsIgnore,
            (state, _) => state,
        };
    }

    /// Leaving a state on ESC (`by_escape`) or ST: an OSC string ends.
    fn exit(&mut self, by_escape: bool) -> Option<Query> {
        if self.state != State::OscString {
            return None;
        }
        self.osc(if by_escape { "\u{1b}\\" } else { "\u{9c}" })
    }

    fn csi(&mut self, final_char: char) -> Option<Query> {
        if self.intermediate || self.overflow {
            return None;
        }
        let p = first_param(&self.text);
        let single = !self.text.contains(';');
        use TerminalQuery::*;
        let query = match (self.marker, final_char) {
            (None, 'n') if single && p == Some(5) => StatusReport,
            (None, 'n') if single && p == Some(6) => CursorPosition,
            (Some('?'), 'n') if single && p == Some(6) => ExtendedCursorPosition,
            (None, 'c') if single && p == Some(0) => PrimaryDeviceAttributes,
            (Some('>'), 'c') if single && p == Some(0) => SecondaryDeviceAttributes,
            (Some('>'), 'q') if single && p == Some(0) => TerminalVersion,
            (Some('?'), 'u') if self.text.is_empty() => KittyKeyboardFlags,
            (None, 't') if p == Some(11) => WindowState,
            (None, 't') if p == Some(18) => TextAreaSize,
            (None, 't') if p == Some(19) => ScreenSize,
            (Some('>' | '<' | '='), 'u') => {
                self.kitty_update();
                return None;
            }
            _ => return None,
        };
        Some(Query::Csi(query))
    }

    /// `CSI > flags u` pushes, `CSI < n u` pops, `CSI = flags ; mode u` sets.
    fn kitty_update(&mut self) {
        let mut params = self.text.split(';').map(|p| p.parse::<u16>().ok());
        let first = params.next().flatten();
        match self.marker {
            Some('>') => {
                if self.kitty.len() >= KITTY_STACK {
                    self.kitty.remove(0);
                }
                self.kitty.push(first.unwrap_or(0));
            }
            Some('<') => {
                let n = usize::from(first.unwrap_or(1).max(1));
                self.kitty.truncate(self.kitty.len().saturating_sub(n));
            }
            _ => {
                let flags = first.unwrap_or(0);
                let mode = params.next().flatten().unwrap_or(1);
                let current = self.kitty.last().copied().unwrap_or(0);
                let value = match mode {
                    2 => current | flags,
                    3 => current & !flags,
                    _ => flags,
                };
                match self.kitty.last_mut() {
                    Some(top) => *top = value,
                    None => self.kitty.push(value),
                }
            }
        }
    }

    fn osc(&mut self, terminator: &'static str) -> Option<Query> {
        if self.overflow {
            return None;
        }
        let query = match self.text.as_str() {
            "10;?" => TerminalQuery::ForegroundColor,
            "11;?" => TerminalQuery::BackgroundColor,
            other => {
                let pairs = other.strip_prefix("4;")?;
                let parts: Vec<&str> = pairs.split(';').collect();
                let mut indexes = Vec::new();
                for pair in parts.chunks(2) {
                    if let [index, "?"] = pair {
                        indexes.push(index.parse::<u8>().ok()?);
                    }
                }
                if indexes.is_empty() {
                    return None;
                }
                return Some(Query::Osc { query: TerminalQuery::PaletteColor, indexes, terminator });
            }
        };
        Some(Query::Osc { query, indexes: Vec::new(), terminator })
    }

    /// xterm's reply to `query` with the cursor at (column, row) from 0 on a
    /// screen of (columns, rows); `None` once [`MAX_TERMINAL_REPLIES`] were sent.
    pub(crate) fn reply(&mut self, query: &Query, cursor: (u16, u16), size: (u16, u16)) -> Option<Reply> {
        if self.replies >= MAX_TERMINAL_REPLIES {
            self.capped = true;
            return None;
        }
        self.replies += 1;
        let ((x, y), (columns, rows)) = (cursor, size);
        use TerminalQuery::*;
        let (query, data) = match query {
            Query::Csi(q) => (
                *q,
                match q {
                    StatusReport => "\x1b[0n".to_owned(),
                    CursorPosition => format!("\x1b[{};{}R", y + 1, x + 1),
                    ExtendedCursorPosition => format!("\x1b[?{};{};1R", y + 1, x + 1),
                    PrimaryDeviceAttributes => "\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c".to_owned(),
                    SecondaryDeviceAttributes => "\x1b[>41;390;0c".to_owned(),
                    TerminalVersion => "\x1bP>|XTerm(390)\x1b\\".to_owned(),
                    KittyKeyboardFlags => format!("\x1b[?{}u", self.kitty.last().copied().unwrap_or(0)),
                    WindowState => "\x1b[1t".to_owned(),
                    TextAreaSize => format!("\x1b[8;{rows};{columns}t"),
                    ScreenSize => format!("\x1b[9;{rows};{columns}t"),
                    ForegroundColor | BackgroundColor | PaletteColor => return None,
                },
            ),
            Query::Osc { query, indexes, terminator } => {
                let data = match query {
                    ForegroundColor => format!("\x1b]10;{}{terminator}", rgb(0, 0, 0)),
                    BackgroundColor => format!("\x1b]11;{}{terminator}", rgb(255, 255, 255)),
                    _ => indexes
                        .iter()
                        .map(|&i| {
                            let (r, g, b) = palette(i);
                            format!("\x1b]4;{i};{}{terminator}", rgb(r, g, b))
                        })
                        .collect(),
                };
                (*query, data)
            }
        };
        Some(Reply { query, data })
    }
}

/// An X colour as xterm reports it: 16 bits per channel.
fn rgb(r: u8, g: u8, b: u8) -> String {
    format!("rgb:{r:02x}{r:02x}/{g:02x}{g:02x}/{b:02x}{b:02x}")
}

/// xterm's default 256-colour palette.
fn palette(i: u8) -> (u8, u8, u8) {
    const BASE: [(u8, u8, u8); 16] = [
        (0x00, 0x00, 0x00),
        (0xcd, 0x00, 0x00),
        (0x00, 0xcd, 0x00),
        (0xcd, 0xcd, 0x00),
        (0x00, 0x00, 0xee),
        (0xcd, 0x00, 0xcd),
        (0x00, 0xcd, 0xcd),
        (0xe5, 0xe5, 0xe5),
        (0x7f, 0x7f, 0x7f),
        (0xff, 0x00, 0x00),
        (0x00, 0xff, 0x00),
        (0xff, 0xff, 0x00),
        (0x5c, 0x5c, 0xff),
        (0xff, 0x00, 0xff),
        (0x00, 0xff, 0xff),
        (0xff, 0xff, 0xff),
    ];
    match i {
        0..=15 => BASE[usize::from(i)],
        16..=231 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let n = i - 16;
            (level(n / 36), level(n / 6 % 6), level(n % 6))
        }
        _ => {
            let v = 8 + 10 * (i - 232);
            (v, v, v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every query in `chunks` fed in order, with the offset (in its chunk) where each ends.
    fn scan(chunks: &[&str]) -> Vec<(usize, usize, Query)> {
        let mut s = QueryScanner::default();
        let mut found = Vec::new();
        for (n, chunk) in chunks.iter().enumerate() {
            let mut from = 0;
            while let Some((end, q)) = s.next_query(chunk, from) {
                found.push((n, end, q));
                from = end;
            }
        }
        found
    }

    fn csi(q: TerminalQuery) -> Query {
        Query::Csi(q)
    }

    #[test]
    fn queries_are_found_where_they_end_across_chunks() {
        use TerminalQuery::*;
        let found = scan(&["ab\x1b[6", "nxy\x1b[c\x1b[>c", "\x1b[>0q\x1b[?6n\x1b[5n\x1b[18t"]);
        assert_eq!(
            found,
            [
                (1, 1, csi(CursorPosition)),
                (1, 6, csi(PrimaryDeviceAttributes)),
                (1, 10, csi(SecondaryDeviceAttributes)),
                (2, 5, csi(TerminalVersion)),
                (2, 10, csi(ExtendedCursorPosition)),
                (2, 14, csi(StatusReport)),
                (2, 19, csi(TextAreaSize)),
            ]
        );
    }

    #[test]
    fn sequences_that_are_no_query_are_not_answered() {
        // Cursor moves, SGR, a query cancelled by CAN, one with an
        // intermediate byte, and text inside an OSC title and a DCS string.
        let quiet = scan(&["\x1b[6H\x1b[1;6n\x1b[6\x18n\x1b[6 n\x1b]0;\x1b[6n", "\x1bP\x1b[c", "\x1b[14t"]);
        // The ESC inside the OSC title ends it and starts a real CSI 6 n;
        // the ESC inside the DCS string does too.
        let kinds: Vec<Query> = quiet.into_iter().map(|(_, _, q)| q).collect();
        assert_eq!(kinds, [csi(TerminalQuery::CursorPosition), csi(TerminalQuery::PrimaryDeviceAttributes)]);
        assert!(scan(&["plain text € and \u{9b}"]).is_empty());
    }

    #[test]
    fn osc_colour_queries_keep_their_terminator() {
        let found = scan(&["\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]4;1;?;200;?\x07\x1b]4;1;red\x07"]);
        let mut s = QueryScanner::default();
        let replies: Vec<String> =
            found.iter().map(|(_, _, q)| s.reply(q, (0, 0), (80, 24)).expect("a reply").data).collect();
        assert_eq!(
            replies,
            [
                "\x1b]10;rgb:0000/0000/0000\x07",
                "\x1b]11;rgb:ffff/ffff/ffff\x1b\\",
                "\x1b]4;1;rgb:cdcd/0000/0000\x07\x1b]4;200;rgb:ffff/0000/d7d7\x07",
            ]
        );
    }

    #[test]
    fn replies_use_the_cursor_and_size_and_kitty_flags_follow_the_stack() {
        let mut s = QueryScanner::default();
        let reply = |s: &mut QueryScanner, q: TerminalQuery| s.reply(&csi(q), (4, 2), (100, 30)).expect("reply").data;
        assert_eq!(reply(&mut s, TerminalQuery::CursorPosition), "\x1b[3;5R");
        assert_eq!(reply(&mut s, TerminalQuery::ExtendedCursorPosition), "\x1b[?3;5;1R");
        assert_eq!(reply(&mut s, TerminalQuery::TextAreaSize), "\x1b[8;30;100t");
        assert_eq!(reply(&mut s, TerminalQuery::KittyKeyboardFlags), "\x1b[?0u");
        let mut from = 0;
        let text = "\x1b[>1u\x1b[>3u\x1b[=4;2u\x1b[?u";
        let (end, q) = s.next_query(text, from).expect("the query");
        from = end;
        assert_eq!(from, text.len());
        assert_eq!(s.reply(&q, (0, 0), (1, 1)).expect("reply").data, "\x1b[?7u");
        assert!(s.next_query("\x1b[<u\x1b[<u", 0).is_none());
        assert_eq!(reply(&mut s, TerminalQuery::KittyKeyboardFlags), "\x1b[?0u");
    }

    #[test]
    fn replies_stop_at_the_cap() {
        let mut s = QueryScanner::default();
        for _ in 0..MAX_TERMINAL_REPLIES {
            assert!(s.reply(&csi(TerminalQuery::StatusReport), (0, 0), (1, 1)).is_some());
        }
        assert!(!s.capped());
        assert!(s.reply(&csi(TerminalQuery::StatusReport), (0, 0), (1, 1)).is_none());
        assert!(s.capped());
    }
}
