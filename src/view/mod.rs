//! `rea show`: a human view of a capture or a comparison.
//!
//! A capture is shown from its typed record, as the engine's loader reads
//! it (JSON or TOON); the view never changes the document. Layout: a header
//! of key/value lines, then sections under a heading.

mod capture;
mod comparison;
pub(crate) mod html;
pub(crate) mod suite;
mod truncation;

use std::fmt::Write;

use rea_engine::evidence::Encoding;
use rea_engine::report::{CommittedScenario, ComparedCaptures, ReportError};
use rea_engine::report::{Contents, Document, Identity};

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
    /// A differing screen cell: inverse red.
    Mark,
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
            Tone::Mark => "7;31",
        };
        format!("\u{1b}[{code}m{text}\u{1b}[0m")
    }

    /// Whether text is painted (otherwise marks need a line of their own).
    pub(crate) fn colour(self) -> bool {
        self.colour
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
        let mut widths: Vec<usize> = header.iter().map(|h| visible_width(h)).collect();
        for row in rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(visible_width(cell));
            }
        }
        let format_row = |cells: &mut dyn Iterator<Item = &str>| {
            let mut line = String::from(" ");
            for (cell, width) in cells.zip(&widths) {
                line.push(' ');
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', width - visible_width(cell)));
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

/// Characters of `text` a terminal shows: SGR sequences (`ESC [ ... m`) take no room.
fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            chars.by_ref().find(|c| *c == 'm');
        } else {
            width += 1;
        }
    }
    width
}

/// The whole view of a loaded document.
///
/// `screens` adds, for a capture, the screen each interaction event saw.
pub(crate) fn render(document: &Document, style: Style, screens: bool) -> Result<String, ReportError> {
    let name = document.source_name.as_str();
    let mut page = Page::new(style);
    let what = match document.contents {
        Contents::Capture(_) => "capture",
        Contents::Comparison(_) => "comparison",
    };
    let title = style.paint(Tone::Strong, &format!("rea {what} {}", document.envelope.evidence_id));
    page.line(&title);
    let encoding = match document.encoding {
        Encoding::Json => "JSON",
        Encoding::Toon => "TOON",
    };
    let identity = match (&document.identity, &document.contents) {
        (Identity::Verified, Contents::Capture(_)) => {
            style.paint(Tone::Good, "verified (evidence_id and commitments recomputed)")
        }
        (Identity::Verified, Contents::Comparison(_)) => style.paint(Tone::Good, "verified (evidence_id recomputed)"),
        (Identity::Failed(why), _) => style.paint(Tone::Bad, &format!("NOT verified: {why}")),
    };
    page.field("read as", encoding);
    page.field("identity", &identity);
    let limits = &document.envelope.limitations;
    match &document.contents {
        Contents::Capture(record) => {
            let scenario = CommittedScenario::of(name, record)?;
            capture::render(&mut page, record, &scenario, limits, screens);
        }
        Contents::Comparison(record) => {
            let pair = ComparedCaptures::of(name, &document.envelope)?;
            comparison::render(&mut page, &pair, record, limits);
        }
    }
    Ok(page.text)
}

/// Lists the envelope's limitations under a heading.
pub(crate) fn limitations(page: &mut Page, items: &[String]) {
    page.heading("Limitations");
    if items.is_empty() {
        page.line("  none recorded");
    }
    for item in items {
        page.line(&format!("  - {item}"));
    }
}

#[cfg(test)]
mod tests {
    use rea_engine::compare::ComparisonRecord;
    use rea_engine::evidence::{
        CaptureRecord, Evidence, Frame, ResidualScope, ResidualUnknown, ScreenBefore, UnverifiedProcess,
    };
    use rea_engine::report::load_document;
    use serde_json::json;

    use super::*;

    /// A view fixture (`tests/fixtures/view/captures/NAME.json`), read as `rea show` reads it.
    fn fixture(name: &str) -> Document {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/view/captures").join(name);
        load_document(&path, rea_engine::input::open_input_portable).unwrap()
    }

    fn record(document: &mut Document) -> &mut CaptureRecord {
        match &mut document.contents {
            Contents::Capture(record) => record,
            Contents::Comparison(_) => panic!("a capture fixture"),
        }
    }

    fn shown(document: &Document, screens: bool) -> String {
        render(document, Style::new(false), screens).unwrap()
    }

    /// A capture with every section filled: a rendered screen, a deadline
    /// with finalization, truncation, filesystem effects; here also an
    /// unverified process and a further residual unknown.
    #[test]
    fn a_full_capture_view() {
        let mut document = fixture("timeout.json");
        let r = record(&mut document);
        r.cleanup.unverified_processes.push(UnverifiedProcess { pid: 42, reason: "start time unreadable".into() });
        r.residual_unknowns.push(ResidualUnknown { scope: ResidualScope::Cleanup, reason: "Not verified.".into() });
        document.identity = Identity::Failed("changed for the test".into());
        let text = shown(&document, false);
        assert!(text.contains("; left unverified: PID 42 (start time unreadable)"), "{text}");
        assert!(text.contains("identity   NOT verified: changed for the test"), "{text}");
        insta::assert_snapshot!(text);
    }

    /// `--screens`: the screen each event saw (a frame, a blank screen, one
    /// not recorded, one the record lacks) beside the final one; a reply to a
    /// terminal query.
    #[test]
    fn a_capture_view_with_screens_at_events() {
        let mut document = fixture("interactive.json");
        assert!(!shown(&document, false).contains("Screens at events"));
        let events = &mut record(&mut document).interaction_events;
        events[1].screen_before = ScreenBefore::Blank;
        events[2].screen_before = ScreenBefore::NotRecorded;
        events[3].screen_before = ScreenBefore::Frame(99);
        let text = shown(&document, true);
        assert!(text.contains("event #1 resize \"50x12\" at "), "{text}");
        assert!(text.contains("saw a blank screen (nothing was drawn yet)"), "{text}");
        assert!(text.contains("saw a screen that is not recorded"), "{text}");
        assert!(text.contains("saw rendered frame 99, which is not in the record"), "{text}");
        insta::assert_snapshot!(text);
    }

    /// A comparison in the agreed `differences` shape.
    #[test]
    fn a_comparison_view_lists_differences_with_locations() {
        let deltas = json!([{"path": "settlement.elapsed_ms", "left_ms": 53, "right_ms": 120,
            "delta_ms": 67, "within_tolerance": false}]);
        let record: ComparisonRecord = serde_json::from_value(json!({
            "schema_version": 5,
            "status": "changed",
            "dimensions": [
                {"dimension": "terminal", "status": "changed", "differences_omitted": 2, "timing_deltas": [],
                 "differences": [
                    {"path": "terminal.segments[1]", "left": "Total: 13.50 EUR\r\n", "right": "Total: 13.5 EUR\r\n",
                     "location": {"segment": 1, "byte_offset": 17, "line": 3, "column": 11}}]},
                {"dimension": "exit", "status": "changed", "differences_omitted": 0, "timing_deltas": deltas,
                 "differences": [{"path": "exit.code", "left": 0, "right": 1}]},
                {"dimension": "process", "status": "unknown", "reasons": ["sampled"], "differences_omitted": 0,
                 "timing_deltas": [], "differences": [
                    {"path": "process_samples[0]", "left": {"pid": 1, "command": "sh -c 'echo 13.50'"},
                     "right": {"pid": 1, "command": "sh -c 'echo 13.5'"}}]}
            ],
            "first_divergence": {"status": "found", "dimension": "terminal", "segment": 1,
                "path": "terminal.segments[1]", "left": "Total: 13.50 EUR\r\n", "right": "Total: 13.5 EUR\r\n",
                "location": {"segment": 1, "byte_offset": 17, "line": 3, "column": 11}},
            "limitations": []
        }))
        .unwrap();
        let mut envelope: Evidence = fixture("failing.json").envelope;
        envelope.evidence_id = "ev_cmp".into();
        envelope.limitations = Vec::new();
        envelope.parameters =
            json!({"left_evidence_id": "ev_l", "right_evidence_id": "ev_r", "timing_tolerance_ms": 50});
        let document = Document {
            source_name: "comparison.json".into(),
            envelope,
            contents: Contents::Comparison(Box::new(record)),
            encoding: Encoding::Json,
            identity: Identity::Verified,
        };
        let text = shown(&document, false);
        assert!(text.contains("(segment 1, byte offset 17, line 3, column 11)"), "{text}");
        // Objects show only the fields that differ.
        assert!(text.contains("- left:  command: \"sh -c 'echo 13.50'\""), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn trailing_blank_rows_of_a_screen_fold_into_one_line() {
        let text = shown(&fixture("interactive.json"), true);
        assert!(text.contains("│         Got x                                    │\n│ … 5 blank rows                                   │\n└"), "{text}");
        assert!(
            text.contains("│ rea demo                               │\n│ … 9 blank rows                         │\n└"),
            "{text}"
        );
    }

    #[test]
    fn the_timeline_is_in_capture_order_inputs_before_the_output_they_caused() {
        let text = shown(&fixture("interactive.json"), false);
        let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle} in {text}"));
        // The reply is written before its echo, though the echo's bucketed time is earlier.
        assert!(at("terminal_reply \"\\e[2;1R\"") < at("output #1 7 bytes"), "{text}");
        assert!(at("input \"x\\r\" dispatched") < at("output #6 3 bytes \"x\\r\\n\""), "{text}");
        assert!(at("resize \"50x12\"") < at("output #5 "), "{text}");
    }

    #[test]
    fn timings_within_tolerance_are_not_listed_under_differences() {
        let mut document = fixture("failing.json");
        let deltas = json!([
            {"path": "settlement.elapsed_ms", "left_ms": 53, "right_ms": 60, "delta_ms": 7, "within_tolerance": true},
            {"path": "interaction_events[0].dispatched_at_ms", "left_ms": 5, "right_ms": 90, "delta_ms": 85, "within_tolerance": false}]);
        let record: ComparisonRecord = serde_json::from_value(json!({
            "schema_version": 5, "status": "changed", "limitations": [],
            "dimensions": [{"dimension": "exit", "status": "unchanged", "differences_omitted": 0, "differences": [],
                "timing_deltas": deltas}],
            "first_divergence": {"status": "none"}
        }))
        .unwrap();
        document.envelope.parameters =
            json!({"left_evidence_id": "ev_l", "right_evidence_id": "ev_r", "timing_tolerance_ms": 50});
        document.contents = Contents::Comparison(Box::new(record));
        let text = shown(&document, false);
        let differences = &text[text.find("Differences in exit").expect("a beyond-tolerance timing is a difference")..];
        let differences = &differences[..differences.find("\n\n").unwrap()];
        assert!(differences.contains("interaction_events[0].dispatched_at_ms"), "{text}");
        assert!(!differences.contains("settlement.elapsed_ms"), "{text}");
        let within = &text[text.find("Timing within tolerance (not differences)").unwrap()..];
        assert!(
            within.contains("timing settlement.elapsed_ms: left 53 ms, right 60 ms, delta 7 ms, within tolerance"),
            "{text}"
        );
    }

    #[test]
    fn a_long_timeline_keeps_both_ends_and_counts_the_rest() {
        let mut document = fixture("failing.json");
        let r = record(&mut document);
        r.frames = (0..30)
            .map(|i| Frame {
                sequence: i,
                at_ms: i * 10,
                data: format!("line {i}\n"),
                raw_data: None,
                invalid_utf8: None,
            })
            .collect();
        r.interaction_events.clear();
        let text = shown(&document, false);
        let outputs: Vec<&str> = text.lines().filter(|l| l.contains("output #")).collect();
        assert_eq!(outputs.len(), 24, "{text}");
        assert!(outputs[11].contains("output #11 ") && outputs[12].contains("output #18 "), "{text}");
        assert!(text.contains("      120 ms  … 6 output segments not shown …"), "{text}");
    }

    #[test]
    fn colour_is_ansi_only_when_asked_and_takes_no_room_in_tables() {
        assert_eq!(Style::new(false).status("changed"), "changed");
        let red = Style::new(true).status("changed");
        assert_eq!(red, "\u{1b}[31mchanged\u{1b}[0m");
        assert_eq!(visible_width(&red), 7);
        let mut page = Page::new(Style::new(true));
        page.table(&["a", "b"], &[vec![red.clone(), "x".into()], vec!["unchanged".into(), "y".into()]]);
        let lines: Vec<&str> = page.text.lines().collect();
        assert_eq!(lines[1], format!("  {red}   x"));
        assert_eq!(lines[2], "  unchanged y");
    }
}
