//! A recorded screen read back cell by cell, for views that draw it (the
//! HTML pages of `rea show --html`): a frame's `serialized_state` replayed
//! into the emulator the capture used, every cell's text, width and pen.

use crate::emulator::Emulator;

/// A colour of a cell's pen as the program set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    /// A palette entry: 0-15 the terminal's 16 colours, 16-255 the 256-colour cube and greys.
    Indexed(u8),
    /// A direct (true) colour.
    Rgb(u8, u8, u8),
}

/// A cell's pen: colours (`None`: the terminal's default) and attributes,
/// as set (inverse is not applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CellPen {
    /// Foreground.
    pub foreground: Option<Colour>,
    /// Background.
    pub background: Option<Colour>,
    /// SGR 1.
    pub bold: bool,
    /// SGR 2.
    pub faint: bool,
    /// SGR 3.
    pub italic: bool,
    /// SGR 4.
    pub underline: bool,
    /// SGR 5.
    pub blink: bool,
    /// SGR 7.
    pub inverse: bool,
    /// SGR 9.
    pub strikethrough: bool,
}

/// One cell a screen shows: a wide character is one cell of width 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridCell {
    /// First column, from 0.
    pub column: u16,
    /// 1, or 2 for a wide character.
    pub width: u8,
    /// The text shown (a joined cell's whole text; U+0020 for a blank).
    pub text: String,
    /// Its pen.
    pub pen: CellPen,
}

/// A screen's cells, row by row, and whether the cursor is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    /// Width in cells.
    pub columns: u16,
    /// Each row's cells, left to right.
    pub rows: Vec<Vec<GridCell>>,
    /// Whether the screen shows its cursor.
    pub cursor_visible: bool,
}

impl Grid {
    /// The screen a `serialized_state` rebuilds on a terminal of this size.
    pub fn replay(columns: u16, rows: u16, serialized_state: &str) -> Grid {
        let mut emulator = Emulator::new(usize::from(columns), usize::from(rows), 0);
        emulator.feed(serialized_state);
        Grid::of(&emulator, columns)
    }

    /// A screen of plain text rows (a record that keeps no state to replay):
    /// every cell in the default pen.
    pub fn of_lines<'a>(columns: u16, rows: u16, lines: impl Iterator<Item = &'a str>) -> Grid {
        let mut emulator = Emulator::new(usize::from(columns), usize::from(rows), 0);
        for (row, line) in lines.take(usize::from(rows)).enumerate() {
            let printable: String = line.chars().map(|c| if c.is_control() { '?' } else { c }).collect();
            emulator.feed(&format!("\u{1b}[{};1H{printable}", row + 1));
        }
        let mut grid = Grid::of(&emulator, columns);
        grid.cursor_visible = false;
        grid
    }

    fn of(emulator: &Emulator, columns: u16) -> Grid {
        let joined = emulator.has_joined();
        let row = |line: &avt::Line| {
            let mut cells = Vec::with_capacity(usize::from(columns));
            for (i, cell) in line.cells().iter().enumerate().filter(|(_, c)| c.width() != 0) {
                let mut text = String::new();
                if joined {
                    emulator.cell_text(cell.char(), &mut text);
                } else {
                    text.push(cell.char());
                }
                cells.push(GridCell {
                    column: u16::try_from(i).unwrap_or(u16::MAX),
                    width: if cell.width() > 1 { 2 } else { 1 },
                    text,
                    pen: pen(cell.pen()),
                });
            }
            cells
        };
        let terminal = emulator.terminal();
        Grid {
            columns,
            rows: terminal.screen().visible_lines().map(row).collect(),
            cursor_visible: terminal.cursor().visible,
        }
    }
}

fn colour(c: avt::Color) -> Colour {
    match c {
        avt::Color::Indexed(i) => Colour::Indexed(i),
        avt::Color::RGB(c) => Colour::Rgb(c.r, c.g, c.b),
    }
}

fn pen(p: &avt::Pen) -> CellPen {
    CellPen {
        foreground: p.foreground().map(colour),
        background: p.background().map(colour),
        bold: p.is_bold(),
        faint: p.is_faint(),
        italic: p.is_italic(),
        underline: p.is_underline(),
        blink: p.is_blink(),
        inverse: p.is_inverse(),
        strikethrough: p.is_strikethrough(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_keep_their_pens_and_wide_characters_take_two_columns() {
        let mut e = Emulator::new(10, 2, 0);
        e.feed("\u{1b}[31;1mR\u{1b}[0m\u{4e2d}\u{1b}[38;5;208mo\u{1b}[48;2;1;2;3mt\u{1b}[0m\u{1b}[7mv");
        let grid = Grid::replay(10, 2, &e.dump());
        let row = &grid.rows[0];
        assert_eq!(row[0].pen.foreground, Some(Colour::Indexed(1)));
        assert!(row[0].pen.bold);
        assert_eq!((row[1].column, row[1].width, row[1].text.as_str()), (1, 2, "\u{4e2d}"));
        assert_eq!((row[2].column, row[2].pen.foreground), (3, Some(Colour::Indexed(208))));
        assert_eq!(row[3].pen.background, Some(Colour::Rgb(1, 2, 3)));
        assert!(row[4].pen.inverse && row[4].text == "v");
        assert_eq!(row.len(), 9, "{row:?}");
        assert!(grid.cursor_visible);
    }

    #[test]
    fn plain_lines_become_cells_in_the_default_pen() {
        let grid = Grid::of_lines(4, 2, ["ab", "\u{4e2d}c"].into_iter());
        assert_eq!(grid.rows[1][0].width, 2);
        assert_eq!(grid.rows[1][1].text, "c");
        assert_eq!(grid.rows[0][0].pen, CellPen::default());
    }
}
