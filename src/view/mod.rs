//! `rea show`: a human view of a capture or a comparison.
//!
//! The view reads the document as written (through [`fields`]), so it shows
//! whatever a record holds and says "absent" for what it does not, and it
//! never changes the document. Layout: a header of key/value lines, then
//! sections under a heading.

mod capture;
mod comparison;
pub(crate) mod fields;

use std::fmt::Write;

use crate::document::{Encoding, Identity, Kind, Loaded};

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    colour: bool,
}

/// What a word means, for its colour.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Tone {
    Good,
    Bad,
    Doubt,
    Quiet,
    Strong,
}

impl Style {
    pub(crate) fn new(colour: bool) -> Style {
        Style { colour }
    }

    /// `text` in the colour of `tone`.
    pub(crate) fn paint(self, tone: Tone, text: &str) -> String {
        if !self.colour {
            return text.to_owned();
        }
        let code = match tone {
            Tone::Good => "32",
            Tone::Bad => "31",
            Tone::Doubt => "33",
            Tone::Quiet => "2",
            Tone::Strong => "1",
        };
        format!("\u{1b}[{code}m{text}\u{1b}[0m")
    }

    /// The tone of a status word from the record's vocabularies.
    pub(crate) fn status(self, status: &str) -> String {
        let tone = match status {
            "unchanged" | "equivalent" | "quiesced" | "verified" | "cleaned" | "removed" | "not_required"
            | "exited" => Tone::Good,
            "changed" | "added" | "different" | "nonconforming" | "failed" => Tone::Bad,
            _ => Tone::Doubt,
        };
        self.paint(tone, status)
    }
}

/// A view under construction.
pub(crate) struct Page {
    text: String,
    style: Style,
}

impl Page {
    fn new(style: Style) -> Page {
        Page { text: String::new(), style }
    }

    /// A section heading, after a blank line.
    pub(crate) fn heading(&mut self, title: &str) {
        let title = self.style.paint(Tone::Strong, title);
        let _ = write!(self.text, "\n{title}\n");
    }

    /// A `key  value` line of a header, keys aligned.
    pub(crate) fn field(&mut self, key: &str, value: &str) {
        let _ = writeln!(self.text, "{key:<11}{value}");
    }

    /// A line as given.
    pub(crate) fn line(&mut self, text: &str) {
        self.text.push_str(text);
        self.text.push('\n');
    }

    pub(crate) fn style(&self) -> Style {
        self.style
    }

    /// Rows of cells with aligned columns, indented by two spaces.
    pub(crate) fn table(&mut self, header: &[&str], rows: &[Vec<String>]) {
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for row in rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let format_row = |cells: &mut dyn Iterator<Item = &str>| {
            let mut line = String::from(" ");
            for (cell, width) in cells.zip(&widths) {
                let _ = write!(line, " {cell:<width$}");
            }
            line.trim_end().to_owned()
        };
        let head = format_row(&mut header.iter().copied());
        let head = self.style.paint(Tone::Quiet, &head);
        self.line(&head);
        for row in rows {
            let line = format_row(&mut row.iter().map(String::as_str));
            self.line(&line);
        }
    }
}

/// The whole view of a loaded document.
pub(crate) fn render(loaded: &Loaded, style: Style) -> String {
    let mut page = Page::new(style);
    let what = match loaded.kind {
        Kind::Capture => "capture",
        Kind::Comparison => "comparison",
    };
    let id = fields::str_at(&loaded.value, &["evidence_id"]).unwrap_or("(no evidence_id)");
    let title = style.paint(Tone::Strong, &format!("rea {what} {id}"));
    page.line(&title);
    let encoding = match loaded.encoding {
        Encoding::Json => "JSON",
        Encoding::Toon => "TOON",
    };
    let identity = match &loaded.identity {
        Identity::Verified if loaded.kind == Kind::Capture => {
            style.paint(Tone::Good, "verified (evidence_id and commitments recomputed)")
        }
        Identity::Verified => style.paint(Tone::Good, "verified (evidence_id recomputed)"),
        Identity::Failed(why) => style.paint(Tone::Bad, &format!("NOT verified: {why}")),
    };
    page.field("read as", encoding);
    page.field("identity", &identity);
    match loaded.kind {
        Kind::Capture => capture::render(&mut page, &loaded.value),
        Kind::Comparison => comparison::render(&mut page, &loaded.value),
    }
    page.text
}

/// Lists the envelope's limitations under a heading.
pub(crate) fn limitations(page: &mut Page, envelope: &serde_json::Value) {
    page.heading("Limitations");
    let items = fields::list(envelope, &["limitations"]);
    if items.is_empty() {
        page.line("  none recorded");
    }
    for item in items {
        page.line(&format!("  - {}", item.as_str().unwrap_or_default()));
    }
}
