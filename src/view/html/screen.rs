//! A screen drawn as text: a `<pre>` of rows, runs of cells with the same
//! pen in one `<span>` (its first column in `data-x`, from 0), a wide
//! character in a span two columns wide, the cursor's cell and each marked
//! (differing) cell an element of its own with its own colours.

use rea_engine::report::{Grid, GridCell};

use super::Html;
use super::style::Look;

/// What to draw beside the cells: where the cursor is (when shown) and
/// which cells are marked (row and column from 0).
pub(super) struct Overlay<'a> {
    pub(super) cursor: Option<(u16, u16)>,
    pub(super) marked: &'a dyn Fn(usize, usize) -> bool,
}

/// A screen in a `<figure>` under `caption`.
pub(super) fn figure(html: &mut Html, caption: &str, grid: &Grid, overlay: &Overlay<'_>) {
    html.raw("<figure class=\"screen\">\n");
    html.element("figcaption", None, caption);
    html.raw(&format!("\n<pre class=\"term\" style=\"width:{}ch\">", grid.columns));
    for (row, cells) in grid.rows.iter().enumerate() {
        if row > 0 {
            html.raw("\n");
        }
        html.raw(&format!("<span class=\"row\" data-row=\"{}\">", row + 1));
        draw_row(html, row, cells, overlay);
        html.raw("</span>");
    }
    html.raw("</pre>\n</figure>\n");
}

/// A run of plain cells being gathered.
struct Run {
    column: u16,
    look: Look,
    text: String,
}

fn draw_row(html: &mut Html, row: usize, cells: &[GridCell], overlay: &Overlay<'_>) {
    let cursor_at = |cell: &GridCell| {
        overlay.cursor.is_some_and(|(x, y)| {
            usize::from(y) == row && (cell.column..cell.column + u16::from(cell.width)).contains(&x)
        })
    };
    let marked = |cell: &GridCell| {
        (cell.column..cell.column + u16::from(cell.width)).any(|c| (overlay.marked)(row, usize::from(c)))
    };
    let looks: Vec<Look> = cells.iter().map(|c| Look::of(&c.pen)).collect();
    // Blank cells at the end of the row that show nothing are left out.
    let end = cells
        .iter()
        .zip(&looks)
        .rposition(|(c, l)| c.text != " " || !l.is_plain() || marked(c) || cursor_at(c))
        .map_or(0, |i| i + 1);
    let mut run: Option<Run> = None;
    for (cell, look) in cells[..end].iter().zip(&looks) {
        let (mark, cursor) = (marked(cell), cursor_at(cell));
        if cell.width == 1 && !mark && !cursor {
            match &mut run {
                Some(r) if r.look == *look => r.text.push_str(&cell.text),
                _ => {
                    flush(html, run.take());
                    run = Some(Run { column: cell.column, look: look.clone(), text: cell.text.clone() });
                }
            }
            continue;
        }
        flush(html, run.take());
        single(html, row, cell, look, mark, cursor);
    }
    flush(html, run);
}

fn flush(html: &mut Html, run: Option<Run>) {
    let Some(run) = run else { return };
    open(html, "span", run.column, &run.look, "", None);
    html.text(&run.text);
    html.raw("</span>");
}

/// A cell of its own: wide, under the cursor or marked.
fn single(html: &mut Html, row: usize, cell: &GridCell, look: &Look, mark: bool, cursor: bool) {
    let mut extra = String::new();
    if cell.width == 2 {
        extra.push_str(" w");
    }
    if cursor {
        extra.push_str(" cur");
    }
    let (tag, title) = if mark {
        extra.insert_str(0, " d");
        ("mark", Some(format!("differs: row {}, column {}", row + 1, cell.column + 1)))
    } else if cursor {
        ("span", Some("cursor".to_owned()))
    } else {
        ("span", None)
    };
    open(html, tag, cell.column, look, &extra, title.as_deref());
    html.text(&cell.text);
    html.raw(&format!("</{tag}>"));
}

fn open(html: &mut Html, tag: &str, column: u16, look: &Look, extra: &str, title: Option<&str>) {
    html.raw(&format!("<{tag} data-x=\"{column}\""));
    let classes = format!("{}{extra}", look.classes);
    let classes = classes.trim_start();
    if !classes.is_empty() {
        html.raw(&format!(" class=\"{classes}\""));
    }
    if !look.style.is_empty() {
        html.raw(&format!(" style=\"{}\"", look.style));
    }
    if let Some(title) = title {
        html.raw(&format!(" title=\"{title}\""));
    }
    html.raw(">");
}

#[cfg(test)]
mod tests {
    use rea_engine::report::{CellPen, Colour};

    use super::*;

    fn cell(column: u16, width: u8, text: &str, pen: CellPen) -> GridCell {
        GridCell { column, width, text: text.into(), pen }
    }

    #[test]
    fn runs_share_a_span_and_marked_wide_and_cursor_cells_have_their_own() {
        let red = CellPen { foreground: Some(Colour::Indexed(1)), ..CellPen::default() };
        let plain = CellPen::default();
        let cells = vec![
            cell(0, 1, "a", plain),
            cell(1, 1, "b", plain),
            cell(2, 2, "\u{4e2d}", plain),
            cell(4, 1, "c", red),
            cell(5, 1, " ", plain),
            cell(6, 1, " ", plain),
        ];
        let grid = Grid { columns: 7, rows: vec![cells], cursor_visible: true };
        let mut html = Html { out: String::new() };
        let marked = |r: usize, c: usize| r == 0 && c == 4;
        figure(&mut html, "s", &grid, &Overlay { cursor: Some((5, 0)), marked: &marked });
        assert!(
            html.out.contains(concat!(
                "<span class=\"row\" data-row=\"1\"><span data-x=\"0\">ab</span>",
                "<span data-x=\"2\" class=\"w\">\u{4e2d}</span>",
                "<mark data-x=\"4\" class=\"f1 d\" title=\"differs: row 1, column 5\">c</mark>",
                "<span data-x=\"5\" class=\"cur\" title=\"cursor\"> </span></span>"
            )),
            "{}",
            html.out
        );
    }
}
