//! The page's style sheet and how a cell's pen becomes classes and an
//! inline colour: the 16 terminal colours are classes (`f1`, `g1`), the
//! 256-colour entries and direct colours an inline `color`/`background`;
//! inverse swaps the two, the terminal's defaults included.

use std::fmt::Write;

use rea_engine::report::{CellPen, Colour};

/// The terminal's default foreground and background.
pub(super) const DEFAULT_FG: &str = "#d4d4d4";
pub(super) const DEFAULT_BG: &str = "#1e1e1e";

/// xterm's 16 colours.
const PALETTE: [&str; 16] = [
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5", "#7f7f7f", "#ff0000",
    "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
];

const SHEET: &str = "\
body{font-family:system-ui,sans-serif;margin:0;background:#fafafa;color:#1a1a1a}
main{max-width:none;padding:1rem 2rem}
h1{font-size:1.3rem;word-break:break-all}h2{font-size:1.1rem;margin-top:1.6rem;border-bottom:1px solid #ccc}
h3{font-size:1rem}
dl.fields{display:grid;grid-template-columns:max-content auto;gap:.15rem 1rem;margin:0}
dl.fields dt{font-weight:600}dl.fields dd{margin:0;word-break:break-word}
table{border-collapse:collapse;margin:.4rem 0;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.15rem .4rem;text-align:left;vertical-align:top}
th{background:#eee}td{font-family:ui-monospace,'DejaVu Sans Mono',monospace;white-space:pre-wrap;word-break:break-all}
.good{color:#146c2e}.bad{color:#b00020;font-weight:600}.doubt{color:#8a5a00}.quiet{color:#666}
.pair{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start}
figure{margin:.5rem 0}figcaption{font-size:.85rem;color:#444;margin-bottom:.2rem}
pre.term{font-family:'DejaVu Sans Mono',ui-monospace,monospace;font-size:14px;line-height:1.2;margin:0;
padding:4px;box-sizing:content-box;overflow:hidden;white-space:pre}
.w{display:inline-block;width:2ch;text-align:center}
.b{font-weight:bold}.h{opacity:.6}.i{font-style:italic}.u{text-decoration:underline}.s{text-decoration:line-through}
.u.s{text-decoration:underline line-through}
mark{color:inherit;background:transparent}
mark.d{outline:1px solid #2f9bff;outline-offset:0;box-shadow:inset 0 -2px 0 #2f9bff}
.cur{outline:1px solid #ffb000;outline-offset:0;box-shadow:inset 0 -2px 0 #ffb000}
.fold{color:#888;font-style:italic}
";

/// The style sheet: the fixed rules, the terminal's colours and the 16-colour classes.
pub(super) fn css() -> String {
    let mut css = String::from(SHEET);
    let _ = writeln!(css, "pre.term{{color:{DEFAULT_FG};background:{DEFAULT_BG}}}");
    let _ = writeln!(css, ".fB{{color:{DEFAULT_BG}}}.gF{{background:{DEFAULT_FG}}}");
    for (i, c) in PALETTE.iter().enumerate() {
        let _ = write!(css, ".f{i}{{color:{c}}}.g{i}{{background:{c}}}");
    }
    css.push('\n');
    css
}

/// A colour as the page paints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Paint {
    DefaultFg,
    DefaultBg,
    Palette(u8),
    Rgb(u8, u8, u8),
}

/// The RGB of a 256-colour entry from 16 on (the 6x6x6 cube, then 24 greys).
pub(super) fn indexed_rgb(i: u8) -> (u8, u8, u8) {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    if i >= 232 {
        let v = 8 + 10 * (i - 232);
        return (v, v, v);
    }
    let n = i.saturating_sub(16);
    (LEVELS[usize::from(n / 36)], LEVELS[usize::from(n / 6 % 6)], LEVELS[usize::from(n % 6)])
}

fn paint(colour: Option<Colour>, default: Paint) -> Paint {
    match colour {
        None => default,
        Some(Colour::Indexed(i)) if i < 16 => Paint::Palette(i),
        Some(Colour::Indexed(i)) => {
            let (r, g, b) = indexed_rgb(i);
            Paint::Rgb(r, g, b)
        }
        Some(Colour::Rgb(r, g, b)) => Paint::Rgb(r, g, b),
    }
}

/// The classes and inline style of a cell's pen.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Look {
    pub(super) classes: String,
    pub(super) style: String,
}

impl Look {
    pub(super) fn of(pen: &CellPen) -> Look {
        let (mut fg, mut bg) = (paint(pen.foreground, Paint::DefaultFg), paint(pen.background, Paint::DefaultBg));
        if pen.inverse {
            std::mem::swap(&mut fg, &mut bg);
        }
        let mut look = Look::default();
        let mut class = |c: &str| {
            if !look.classes.is_empty() {
                look.classes.push(' ');
            }
            look.classes.push_str(c);
        };
        match fg {
            Paint::DefaultFg | Paint::Rgb(..) => {}
            Paint::DefaultBg => class("fB"),
            Paint::Palette(i) => class(&format!("f{i}")),
        }
        match bg {
            Paint::DefaultBg | Paint::Rgb(..) => {}
            Paint::DefaultFg => class("gF"),
            Paint::Palette(i) => class(&format!("g{i}")),
        }
        let flags = [
            (pen.bold, "b"),
            (pen.faint, "h"),
            (pen.italic, "i"),
            (pen.underline, "u"),
            (pen.strikethrough, "s"),
            (pen.blink, "k"),
            (pen.inverse, "v"),
        ];
        flags.iter().filter(|(on, _)| *on).for_each(|(_, c)| class(c));
        if let Paint::Rgb(r, g, b) = fg {
            let _ = write!(look.style, "color:#{r:02x}{g:02x}{b:02x};");
        }
        if let Paint::Rgb(r, g, b) = bg {
            let _ = write!(look.style, "background:#{r:02x}{g:02x}{b:02x};");
        }
        look
    }

    /// Whether a blank cell of this look shows nothing (it may be left out
    /// at the end of a row).
    pub(super) fn is_plain(&self) -> bool {
        self.classes.is_empty() && self.style.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pens_become_classes_and_inline_colours() {
        let red_bold = CellPen { foreground: Some(Colour::Indexed(1)), bold: true, ..CellPen::default() };
        assert_eq!(Look::of(&red_bold), Look { classes: "f1 b".into(), style: String::new() });
        let inverse = CellPen { inverse: true, ..CellPen::default() };
        assert_eq!(Look::of(&inverse).classes, "fB gF v");
        let cube = CellPen { foreground: Some(Colour::Indexed(208)), ..CellPen::default() };
        assert_eq!(Look::of(&cube).style, "color:#ff8700;");
        let direct = CellPen { background: Some(Colour::Rgb(1, 2, 3)), ..CellPen::default() };
        assert_eq!(Look::of(&direct).style, "background:#010203;");
        assert_eq!(indexed_rgb(232), (8, 8, 8));
        assert!(Look::of(&CellPen::default()).is_plain());
    }
}
