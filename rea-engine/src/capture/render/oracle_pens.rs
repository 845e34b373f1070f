//! The pens of tmux's cells, read from `capture-pane -e`, and the same
//! names for rea's cells, so the fixture table compares colours and
//! attributes cell by cell.
//!
//! `capture-pane -e` prints each row's characters with the SGR sequences of
//! their pens, blanks included, but leaves out the blanks at a row's end
//! and the second cell of a wide character. No width table is needed to
//! place them: the columns of the other characters are known (the erase
//! probes of `oracle.rs`), so the blanks before a character sit right
//! before its column. The blanks at a row's end are read from two more
//! replays where a `Z` is written on the last column (once after deleting
//! each row's first cell, so the last column's own blank comes before it).
//! A column nothing covers is the second cell of a wide character and
//! takes its first cell's pen.

use avt::{Color, Pen};

use crate::emulator::cells::is_zero_width;

/// A pen as the table names it: `""` for the default, else a comma list.
#[derive(Debug, Clone, Default, PartialEq)]
struct Sgr {
    fg: Option<String>,
    bg: Option<String>,
    intensity: Option<&'static str>,
    italic: bool,
    underline: bool,
    blink: bool,
    inverse: bool,
    conceal: bool,
    strikethrough: bool,
}

impl Sgr {
    fn name(&self) -> String {
        let mut parts = Vec::new();
        parts.extend(self.fg.as_ref().map(|c| format!("fg={c}")));
        parts.extend(self.bg.as_ref().map(|c| format!("bg={c}")));
        parts.extend(self.intensity.map(str::to_owned));
        let flags = [
            (self.italic, "italic"),
            (self.underline, "underline"),
            (self.blink, "blink"),
            (self.inverse, "inverse"),
            (self.conceal, "conceal"),
            (self.strikethrough, "strikethrough"),
        ];
        parts.extend(flags.into_iter().filter(|(on, _)| *on).map(|(_, n)| n.to_owned()));
        parts.join(",")
    }

    /// Applies one SGR's parameters as tmux writes them.
    fn apply(&mut self, params: &str) {
        let codes: Vec<&str> = params.split(';').collect();
        let number = |i: usize| codes.get(i).and_then(|c| c.parse::<u16>().ok());
        let mut i = 0;
        while i < codes.len() {
            let code = codes[i];
            if let Some(style) = code.strip_prefix("4:") {
                self.underline = style != "0";
                i += 1;
                continue;
            }
            let n = number(i).unwrap_or(0);
            let colour = |i: usize| match number(i + 1) {
                Some(5) => (number(i + 2).map(|c| c.to_string()), 3),
                Some(2) => {
                    let rgb = (number(i + 2), number(i + 3), number(i + 4));
                    let (Some(r), Some(g), Some(b)) = rgb else { panic!("incomplete colour in {params:?}") };
                    (Some(format!("#{r:02x}{g:02x}{b:02x}")), 5)
                }
                other => panic!("unknown colour form {other:?} in {params:?}"),
            };
            let mut step = 1;
            match n {
                0 => *self = Sgr::default(),
                1 => self.intensity = Some("bold"),
                2 => self.intensity = Some("faint"),
                3 => self.italic = true,
                4 => self.underline = true,
                5 => self.blink = true,
                7 => self.inverse = true,
                8 => self.conceal = true,
                9 => self.strikethrough = true,
                22 => self.intensity = None,
                23 => self.italic = false,
                24 => self.underline = false,
                25 => self.blink = false,
                27 => self.inverse = false,
                28 => self.conceal = false,
                29 => self.strikethrough = false,
                30..=37 => self.fg = Some((n - 30).to_string()),
                40..=47 => self.bg = Some((n - 40).to_string()),
                90..=97 => self.fg = Some((n - 90 + 8).to_string()),
                100..=107 => self.bg = Some((n - 100 + 8).to_string()),
                38 => (self.fg, step) = colour(i),
                48 => (self.bg, step) = colour(i),
                39 => self.fg = None,
                49 => self.bg = None,
                other => panic!("SGR {other} in {params:?} is not read by the oracle"),
            }
            i += step;
        }
    }
}

/// A row of `capture-pane -e`: each character with its pen's name.
fn coded_chars(row: &str) -> Vec<(char, String)> {
    let (mut out, mut pen) = (Vec::new(), Sgr::default());
    let mut chars = row.chars().peekable();
    while let Some(c) = chars.next() {
        // Shift out and in (the line-drawing set) show nothing.
        if c == '\x0e' || c == '\x0f' {
            continue;
        }
        if c != '\x1b' {
            out.push((c, pen.name()));
            continue;
        }
        match chars.next() {
            Some('[') => {
                let params: String = std::iter::from_fn(|| chars.next_if(|c| !c.is_ascii_alphabetic())).collect();
                match chars.next() {
                    Some('m') => pen.apply(&params),
                    other => panic!("capture-pane -e wrote CSI {params:?} {other:?} in {row:?}"),
                }
            }
            // A character set designation (`ESC ( 0`, `ESC ( B`).
            Some('(' | ')') => {
                chars.next();
            }
            other => panic!("capture-pane -e wrote ESC {other:?} in {row:?}"),
        }
    }
    out
}

/// Places the characters of one coded row: each non-blank on its cell's
/// column (from `cells`), each blank right before the next cell (a cell
/// whose text starts with a zero-width character holds the blank before it).
fn place(row: &[(char, String)], cells: &[(u16, String)], pens: &mut [Option<String>]) {
    let mut blanks: Vec<&String> = Vec::new();
    let mut chars = row.iter().peekable();
    for (column, text) in cells {
        while let Some((_, pen)) = chars.next_if(|(c, _)| *c == ' ') {
            blanks.push(pen);
        }
        let own = text.chars().next().is_some_and(is_zero_width);
        let first = usize::from(*column) + usize::from(own);
        for (k, pen) in blanks.drain(..).rev().enumerate() {
            let at = first.checked_sub(k + 1).unwrap_or_else(|| panic!("more blanks than columns before {column}"));
            pens[at] = Some(pen.clone());
        }
        let mut pen = None;
        for want in text.chars() {
            let (got, p) = chars.next().unwrap_or_else(|| panic!("cell {column}:{text} missing from the coded row"));
            assert_eq!(*got, want, "cell {column}:{text}: the coded row has {got:?}");
            pen.get_or_insert(p);
        }
        pens[usize::from(*column)] = pen.cloned();
    }
}

/// The pens of the blanks right before the final `Z` of a marked row,
/// placed so the last one lands on column `last`.
fn place_trailing(row: &[(char, String)], last: usize, pens: &mut [Option<String>]) {
    let Some(((z, _), before)) = row.split_last() else { return };
    assert_eq!(*z, 'Z', "a marked row ends with its Z: {row:?}");
    let blanks = before.iter().rev().take_while(|(c, _)| *c == ' ');
    for (k, (_, pen)) in blanks.enumerate() {
        let Some(at) = last.checked_sub(k) else { break };
        pens[at].get_or_insert_with(|| pen.clone());
    }
}

/// Each row's pen names, column by column.
pub(crate) fn pen_columns(
    columns: u16,
    cells: &[Vec<(u16, String)>],
    coded: &[String],
    marked: &[String],
    shifted: &[String],
) -> Vec<Vec<String>> {
    let columns = usize::from(columns);
    let mut out = Vec::new();
    for (row, cells) in cells.iter().enumerate() {
        let mut pens: Vec<Option<String>> = vec![None; columns];
        place(&coded_chars(&coded[row]), cells, &mut pens);
        place_trailing(&coded_chars(&marked[row]), columns - 2, &mut pens);
        place_trailing(&coded_chars(&shifted[row]), columns - 1, &mut pens);
        let mut filled = Vec::with_capacity(columns);
        for pen in pens {
            let pen = pen.or_else(|| filled.last().cloned()).unwrap_or_default();
            filled.push(pen);
        }
        out.push(filled);
    }
    out
}

/// What tmux's screen shows where its cells are concealed (SGR 8): its
/// `capture-pane` prints their text, a terminal shows blanks (rea's rows
/// and cells leave them out).
pub(crate) fn hide_concealed(
    pens: &[Vec<String>],
    coded: &[String],
    lines: &mut [String],
    cells: &mut [Vec<(u16, String)>],
) {
    let concealed = |pen: &String| pen.split(',').any(|p| p == "conceal");
    for (row, pens) in pens.iter().enumerate() {
        if !pens.iter().any(concealed) {
            continue;
        }
        cells[row].retain(|(x, _)| !concealed(&pens[usize::from(*x)]));
        let shown: String =
            coded_chars(&coded[row]).into_iter().map(|(c, p)| if concealed(&p) { ' ' } else { c }).collect();
        lines[row] = shown.trim_end_matches(' ').to_owned();
    }
}

/// `first-last:pen` runs of equal, non-default pens, space separated.
pub(crate) fn runs(pens: &[String]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut start = 0;
    for i in 1..=pens.len() {
        if i == pens.len() || pens[i] != pens[start] {
            if !pens[start].is_empty() {
                out.push(format!("{}-{}:{}", start, i - 1, pens[start]));
            }
            start = i;
        }
    }
    out.join(" ")
}

fn colour(c: Color) -> String {
    match c {
        Color::Indexed(i) => i.to_string(),
        Color::RGB(c) => format!("#{:02x}{:02x}{:02x}", c.r, c.g, c.b),
    }
}

fn name(pen: &Pen) -> String {
    let intensity = if pen.is_bold() {
        Some("bold")
    } else if pen.is_faint() {
        Some("faint")
    } else {
        None
    };
    Sgr {
        fg: pen.foreground().map(colour),
        bg: pen.background().map(colour),
        intensity,
        italic: pen.is_italic(),
        underline: pen.is_underline(),
        blink: pen.is_blink(),
        inverse: pen.is_inverse(),
        conceal: pen.is_conceal(),
        strikethrough: pen.is_strikethrough(),
    }
    .name()
}

/// The same runs for rea's cells (a wide character's second cell takes the
/// first's pen, as on tmux's side).
pub(crate) fn rea_runs(line: &avt::Line) -> String {
    let mut pens: Vec<String> = Vec::new();
    for cell in line.cells() {
        let pen = if cell.width() == 0 { pens.last().cloned().unwrap_or_default() } else { name(cell.pen()) };
        pens.push(pen);
    }
    runs(&pens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coded_rows_are_read_as_tmux_writes_them() {
        let row = "\x1b[7m\x1b[38;5;196mX\x1b[48;2;1;2;3m\u{65E5}\x1b[0m\x1b[39m\x1b[49m \x1b[4mu\x1b[8mh";
        let chars = coded_chars(row);
        let names: Vec<&str> = chars.iter().map(|(_, p)| p.as_str()).collect();
        assert_eq!(names, ["fg=196,inverse", "fg=196,bg=#010203,inverse", "", "underline", "underline,conceal"]);
        let cells = [(0, "X".to_owned()), (1, "\u{65E5}".to_owned()), (4, "u".to_owned()), (5, "h".to_owned())];
        let mut pens = vec![None; 8];
        place(&chars, &cells, &mut pens);
        assert_eq!(pens[3].as_deref(), Some(""), "the blank sits right before column 4");
        assert_eq!(pens[2], None, "the wide character's second cell is not printed");
        let marked = coded_chars("ab\x1b[41m  \x1b[0mZ");
        place_trailing(&marked, 6, &mut pens);
        assert_eq!(pens[6].as_deref(), Some("bg=1"));
        assert_eq!(pens[5].as_deref(), Some("underline,conceal"), "a placed column keeps its pen");
    }

    #[test]
    fn runs_leave_the_default_pen_out() {
        let pens: Vec<String> = ["", "bg=1", "bg=1", "", "bold"].map(str::to_owned).to_vec();
        assert_eq!(runs(&pens), "1-2:bg=1 4-4:bold");
    }
}
