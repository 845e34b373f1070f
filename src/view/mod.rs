//! `rea show`: a human view of a capture or a comparison.
//!
//! A capture is shown from its typed record, as the engine's loader reads
//! it (JSON or TOON); the view never changes the document. Layout: a header
//! of key/value lines, then sections under a heading.

mod capture;
mod comparison;
pub(crate) mod fields;
mod truncation;

use std::fmt::Write;

use rea_engine::evidence::{Contents, Document, Encoding, Identity};
use rea_engine::report::{CommittedScenario, ReportError};

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
        Contents::Comparison(result) => comparison::render(&mut page, &document.envelope, result),
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
    use serde_json::json;

    use super::*;

    fn loaded(kind: Kind, value: serde_json::Value) -> Loaded {
        Loaded { value, encoding: Encoding::Json, kind, identity: Identity::Verified }
    }

    /// A capture with every section filled: a rendered screen, a timed-out
    /// run with finalization, truncation, filesystem effects.
    #[test]
    fn a_full_capture_view() {
        let value = json!({
            "evidence_id": "ev_test",
            "limitations": ["Process trees are sampled and may omit short-lived descendants."],
            "normalized_result": {
                "manifest": {"started_at": "2026-12-01T06:30:05.000Z", "completed_at": "2026-12-01T06:30:07.250Z",
                    "scenario": {"executable": "/usr/bin/top", "arguments": ["-b"], "working_directory": "/work",
                        "terminal": {"columns": 20, "rows": 3}, "filesystem_observation_paths": ["/work/out"]}},
                "frames": [{"sequence": 0, "at_ms": 0, "data": "\u{1b}[2Jload 0.1\r\n"}],
                "rendered_frames": [{"sequence": 0, "at_ms": 0, "columns": 20, "rows": 3, "cursor_x": 0, "cursor_y": 1,
                    "active_buffer": "alternate", "lines": ["load 0.1", ""], "serialized_state": ""}],
                "interaction_events": [{"sequence": 0, "scheduled_at_ms": 500, "dispatched_at_ms": 502, "type": "signal",
                    "data": "SIGINT", "outcome": "dispatched"}],
                "exit": {"code": null, "signal": 15, "reason": "timeout", "finalization": {"requested_ms": 1000,
                    "elapsed_ms": 1000, "exit_code": null, "signals": [{"signal": "SIGTERM", "sent_at_ms": 2000,
                    "delivery": "delivered"}]}},
                "settlement": {"state": "quiesced", "elapsed_ms": 12, "cleanup_outcome": "cleaned"},
                "filesystem_effects": [
                    {"path": "/work/out/report.txt", "status": "added", "before": null,
                     "after": {"path": "/work/out/report.txt", "mode": 33188, "size": 12, "kind": "file"}},
                    {"path": "/work/out", "status": "changed",
                     "before": {"path": "/work/out", "mode": 16877, "size": 4096, "kind": "directory"},
                     "after": {"path": "/work/out", "mode": 16832, "size": 4096, "kind": "directory"}}
                ],
                "truncated": true,
                "truncation_details": {"raw_terminal": {"truncated": true, "omitted_for_budget": 3,
                    "omitted_for_frame_limit": 0}, "process": {"truncated": false}},
                "residual_unknowns": [{"scope": "network", "reason": "Not isolated."}],
                "cleanup": {"owned_process_group": "cleaned", "terminal_renderer": "cleaned", "temporary_root": "removed",
                    "signal_mechanism": "pidfd", "unverified_processes": [{"pid": 42, "reason": "start time unreadable"}]}
            }
        });
        insta::assert_snapshot!(render(&loaded(Kind::Capture, value), Style::new(false), false));
    }

    /// `--screens`: the screen each event saw (a frame, a blank screen, one
    /// not recorded) beside the final one; a reply to a terminal query.
    #[test]
    fn a_capture_view_with_screens_at_events() {
        let frame = |sequence: u64, at_ms: u64, lines: &[&str]| {
            json!({"sequence": sequence, "at_ms": at_ms, "columns": 12, "rows": 2, "cursor_x": 3, "cursor_y": 0,
                "active_buffer": "normal", "lines": lines, "serialized_state": ""})
        };
        let value = json!({
            "evidence_id": "ev_screens",
            "limitations": [],
            "normalized_result": {
                "manifest": {"started_at": "2026-12-01T06:30:05.000Z", "completed_at": "2026-12-01T06:30:07.250Z",
                    "scenario": {"executable": "/bin/sh", "arguments": [], "working_directory": "/work",
                        "terminal": {"columns": 12, "rows": 2}}},
                "frames": [{"sequence": 0, "at_ms": 100, "data": "ok> "}],
                "rendered_frames": [frame(0, 100, &["ok>", ""]), frame(1, 200, &["ok> yes", "bye"])],
                "interaction_events": [
                    {"sequence": 0, "scheduled_at_ms": 50, "dispatched_at_ms": 50, "type": "input", "data": "x",
                     "outcome": "dispatched", "screen_before": null},
                    {"sequence": 1, "scheduled_at_ms": null, "dispatched_at_ms": 101, "type": "terminal_reply",
                     "query": "cursor_position", "data": "\u{1b}[1;5R", "outcome": "dispatched", "screen_before": 0},
                    {"sequence": 2, "scheduled_at_ms": 150, "dispatched_at_ms": 150, "type": "input", "data": "yes\r",
                     "outcome": "dispatched"}
                ],
                "exit": {"code": 0, "signal": 0, "reason": "exited"},
                "settlement": {"state": "quiesced", "elapsed_ms": 12, "cleanup_outcome": "not_required"},
                "truncated": false,
                "truncation_details": {},
                "cleanup": {"owned_process_group": "cleaned", "terminal_renderer": "disposed", "temporary_root": "removed"}
            }
        });
        let loaded = loaded(Kind::Capture, value);
        assert!(!render(&loaded, Style::new(false), false).contains("Screens at events"));
        insta::assert_snapshot!(render(&loaded, Style::new(false), true));
    }

    /// A comparison in the agreed `differences` shape.
    #[test]
    fn a_comparison_view_lists_differences_with_locations() {
        let value = json!({
            "evidence_id": "ev_cmp",
            "parameters": {"left_evidence_id": "ev_l", "right_evidence_id": "ev_r", "timing_tolerance_ms": 50},
            "limitations": [],
            "normalized_result": {
                "status": "changed",
                "dimensions": [
                    {"dimension": "terminal", "status": "changed", "differences_omitted": 2, "differences": [
                        {"path": "terminal.segments[1]", "left": "Total: 13.50 EUR\r\n", "right": "Total: 13.5 EUR\r\n",
                         "location": {"segment": 1, "byte_offset": 17, "line": 3, "column": 11}}]},
                    {"dimension": "exit", "status": "changed", "differences": [
                        {"path": "exit.code", "left": 0, "right": 1}],
                     "timing_deltas": [{"path": "settlement.elapsed_ms", "left_ms": 53, "right_ms": 120,
                        "delta_ms": 67, "within_tolerance": false}]},
                    {"dimension": "process", "status": "unknown", "reasons": ["sampled"], "differences": [
                        {"path": "process_samples[0]", "left": {"pid": 1, "command": "sh -c 'echo 13.50'"},
                         "right": {"pid": 1, "command": "sh -c 'echo 13.5'"}}]}
                ],
                "first_divergence": {"status": "found", "dimension": "terminal", "segment": 1,
                    "path": "terminal.segments[1]", "left": "Total: 13.50 EUR\r\n", "right": "Total: 13.5 EUR\r\n",
                    "location": {"segment": 1, "byte_offset": 17, "line": 3, "column": 11}}
            }
        });
        let text = render(&loaded(Kind::Comparison, value), Style::new(false), false);
        assert!(text.contains("(segment 1, byte offset 17, line 3, column 11)"), "{text}");
        // Objects show only the fields that differ.
        assert!(text.contains("- left:  command: \"sh -c 'echo 13.50'\""), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn a_long_timeline_keeps_both_ends_and_counts_the_rest() {
        let frames: Vec<_> =
            (0..30).map(|i| json!({"sequence": i, "at_ms": i * 10, "data": format!("line {i}\n")})).collect();
        let value =
            json!({"normalized_result": {"frames": frames, "exit": {"code": 0, "signal": 0, "reason": "exited"}}});
        let text = render(&loaded(Kind::Capture, value), Style::new(false), false);
        let outputs: Vec<&str> = text.lines().filter(|l| l.contains("output #")).collect();
        assert_eq!(outputs.len(), 24, "{text}");
        assert!(outputs[11].contains("output #11 ") && outputs[12].contains("output #18 "), "{text}");
        assert!(text.contains("      120 ms  … 6 output segments not shown …"), "{text}");
        // Absent sections say so instead of failing.
        assert!(text.contains("directory  (absent)") && text.contains("no paths were observed"), "{text}");
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
