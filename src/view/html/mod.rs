//! `rea show --html`: one self-contained page (inline CSS, no script, no
//! network, no reference outside the page) for a capture, a comparison or a
//! suite record. Screens are drawn cell by cell from the record
//! (`serialized_state` replayed by the engine's emulator, [`Grid`]); text
//! stays text, in headings, tables and definition lists. The page holds only
//! what the record holds, so a redacted secret stays redacted.
//!
//! [`Grid`]: rea_engine::report::Grid

mod capture;
mod comparison;
mod screen;
mod style;
mod suite;

use std::fmt::Write;

use rea_engine::evidence::Encoding;
use rea_engine::report::{CommittedScenario, ComparedCaptures, Contents, Document, Identity, ReportError};

pub(crate) use suite::render as suite;

/// A page under construction: markup written in order, every text escaped.
pub(crate) struct Html {
    out: String,
}

/// A table cell: its text and an optional class (a status word's tone).
pub(crate) struct Td {
    text: String,
    class: Option<&'static str>,
    /// A link inside the page (`#id`).
    href: Option<String>,
}

impl Td {
    pub(crate) fn plain(text: impl Into<String>) -> Td {
        Td { text: text.into(), class: None, href: None }
    }

    /// Text in the tone `class`.
    pub(crate) fn toned(text: impl Into<String>, class: &'static str) -> Td {
        Td { text: text.into(), class: Some(class), href: None }
    }

    /// A link to `#id` on this page.
    pub(crate) fn link(text: impl Into<String>, id: &str) -> Td {
        Td { text: text.into(), class: None, href: Some(format!("#{id}")) }
    }

    /// A status word, coloured by its tone.
    pub(crate) fn status(word: &str) -> Td {
        Td { text: word.to_owned(), class: Some(tone(word)), href: None }
    }
}

/// The class of a status word from the record's vocabularies.
pub(crate) fn tone(word: &str) -> &'static str {
    match word {
        "unchanged" | "equivalent" | "quiesced" | "verified" | "cleaned" | "removed" | "not_required" | "exited"
        | "recorded" | "none" => "good",
        "changed" | "added" | "different" | "nonconforming" | "failed" | "error" | "found" => "bad",
        _ => "doubt",
    }
}

impl Html {
    /// A page titled `title`, its style sheet inline.
    pub(crate) fn new(title: &str) -> Html {
        let mut h = Html { out: String::with_capacity(64 * 1024) };
        h.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        h.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
        h.text(title);
        h.raw("</title>\n<style>\n");
        h.raw(&style::css());
        h.raw("</style>\n</head>\n<body>\n<main>\n<h1>");
        h.text(title);
        h.raw("</h1>\n");
        h
    }

    /// The finished page.
    pub(crate) fn finish(mut self) -> String {
        self.raw("</main>\n</body>\n</html>\n");
        self.out
    }

    /// Markup as given (never text from a record).
    pub(crate) fn raw(&mut self, markup: &str) {
        self.out.push_str(markup);
    }

    /// Text, escaped; control characters shown as `\xNN`.
    pub(crate) fn text(&mut self, text: &str) {
        for c in text.chars() {
            match c {
                '&' => self.out.push_str("&amp;"),
                '<' => self.out.push_str("&lt;"),
                '>' => self.out.push_str("&gt;"),
                '"' => self.out.push_str("&quot;"),
                '\'' => self.out.push_str("&#39;"),
                '\n' | '\t' => self.out.push(c),
                c if c.is_control() => {
                    let _ = write!(self.out, "\\x{:02x}", u32::from(c));
                }
                c => self.out.push(c),
            }
        }
    }

    /// `<tag class="class">text</tag>`.
    pub(crate) fn element(&mut self, tag: &str, class: Option<&str>, text: &str) {
        self.open(tag, class);
        self.text(text);
        self.raw(&format!("</{tag}>"));
    }

    fn open(&mut self, tag: &str, class: Option<&str>) {
        match class {
            Some(class) => self.raw(&format!("<{tag} class=\"{class}\">")),
            None => self.raw(&format!("<{tag}>")),
        }
    }

    /// A section heading (`level` 2 or 3), with an anchor `id` when given.
    pub(crate) fn heading(&mut self, level: u8, id: Option<&str>, title: &str) {
        match id {
            Some(id) => {
                self.raw(&format!("<h{level} id=\""));
                self.text(id);
                self.raw("\">");
            }
            None => self.raw(&format!("<h{level}>")),
        }
        self.text(title);
        self.raw(&format!("</h{level}>\n"));
    }

    /// A paragraph.
    pub(crate) fn paragraph(&mut self, class: Option<&str>, text: &str) {
        self.element("p", class, text);
        self.raw("\n");
    }

    /// Key and value pairs as a definition list.
    pub(crate) fn fields(&mut self, fields: &[(String, Td)]) {
        self.raw("<dl class=\"fields\">\n");
        for (key, value) in fields {
            self.element("dt", None, key);
            self.element("dd", value.class, &value.text);
            self.raw("\n");
        }
        self.raw("</dl>\n");
    }

    /// A table with a header row.
    pub(crate) fn table(&mut self, header: &[&str], rows: &[Vec<Td>]) {
        self.raw("<table>\n<thead><tr>");
        for h in header {
            self.raw("<th scope=\"col\">");
            self.text(h);
            self.raw("</th>");
        }
        self.raw("</tr></thead>\n<tbody>\n");
        for row in rows {
            self.raw("<tr>");
            for cell in row {
                match &cell.href {
                    Some(href) => {
                        self.open("td", cell.class);
                        self.raw("<a href=\"");
                        self.text(href);
                        self.raw("\">");
                        self.text(&cell.text);
                        self.raw("</a></td>");
                    }
                    None => self.element("td", cell.class, &cell.text),
                }
            }
            self.raw("</tr>\n");
        }
        self.raw("</tbody>\n</table>\n");
    }

    /// A bulleted list; `empty` when there are no items.
    pub(crate) fn list(&mut self, items: &[String], empty: &str) {
        if items.is_empty() {
            self.paragraph(Some("quiet"), empty);
            return;
        }
        self.raw("<ul>\n");
        for item in items {
            self.element("li", None, item);
            self.raw("\n");
        }
        self.raw("</ul>\n");
    }
}

/// The page of a loaded capture or comparison.
pub(crate) fn render(document: &Document) -> Result<String, ReportError> {
    let name = document.source_name.as_str();
    let (what, identity) = match (&document.contents, &document.identity) {
        (Contents::Capture(_), Identity::Verified) => {
            ("capture", Td::toned("verified (evidence_id and commitments recomputed)", "good"))
        }
        (Contents::Comparison(_), Identity::Verified) => {
            ("comparison", Td::toned("verified (evidence_id recomputed)", "good"))
        }
        (contents, Identity::Failed(why)) => (
            if matches!(contents, Contents::Capture(_)) { "capture" } else { "comparison" },
            Td::toned(format!("NOT verified: {why}"), "bad"),
        ),
    };
    let mut html = Html::new(&format!("rea {what} {}", document.envelope.evidence_id));
    let common = vec![
        ("file".to_owned(), Td::plain(name)),
        ("read as".to_owned(), Td::plain(encoding(document.encoding))),
        ("identity".to_owned(), identity),
    ];
    match &document.contents {
        Contents::Capture(record) => {
            let scenario = CommittedScenario::of(name, record)?;
            capture::render(&mut html, common, record, &scenario);
        }
        Contents::Comparison(record) => {
            let pair = ComparedCaptures::of(name, &document.envelope)?;
            comparison::render(&mut html, common, &pair, record);
        }
    }
    limitations(&mut html, &document.envelope.limitations);
    Ok(html.finish())
}

pub(crate) fn encoding(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Json => "JSON",
        Encoding::Toon => "TOON",
    }
}

/// The envelope's limitations under a heading.
pub(crate) fn limitations(html: &mut Html, items: &[String]) {
    html.heading(2, Some("limitations"), "Limitations");
    html.list(items, "none recorded");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_controls_are_shown() {
        let mut h = Html { out: String::new() };
        h.text("<a href=\"x\">&'\u{1b}[31m\n");
        assert_eq!(h.out, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\\x1b[31m\n");
    }
}
