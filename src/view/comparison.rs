//! The view of a comparison: verdict, dimensions, differences, the first
//! divergence, the trace verdict, limitations; read from the typed record.
//!
//! A difference's `left` and `right` are whatever values the two captures
//! held, so they are shown as values: two texts (or frames) are cut around
//! their first differing character, two objects show only the fields that
//! differ.

use rea_engine::compare::{
    ComparisonRecord, DimensionResult, Divergence, FirstDivergence, Interval, Location, ScreenPair, ScreenView,
    TerminalLens, TimingDelta, row_cells,
};
use rea_engine::report::{ComparedCaptures, escape_excerpt};
use serde_json::Value;

use super::{Page, Tone, limitations};

/// Characters of each side of an excerpt.
const EXCERPT_CHARS: usize = 72;

pub(super) fn render(page: &mut Page, pair: &ComparedCaptures, record: &ComparisonRecord, limits: &[String]) {
    let style = page.style();
    page.field("left", &pair.left_evidence_id);
    page.field("right", &pair.right_evidence_id);
    page.field("tolerance", &format!("{} ms", pair.timing_tolerance_ms));
    if pair.terminal_lens != TerminalLens::Stream {
        page.field("lens", &format!("terminal decided by the {}", pair.terminal_lens));
    }
    if let Some(sides) = &pair.side_commands {
        let named = format!("`{}` (left) and `{}` (right) as <side> in process command lines", sides.left, sides.right);
        page.field("sides", &named);
    }
    page.field("verdict", &style.status(record.status.as_str()));
    page.heading("Dimensions");
    let rows: Vec<Vec<String>> = record
        .dimensions
        .iter()
        .map(|d| {
            vec![d.dimension.to_string(), style.status(d.status.as_str()), count_differences(d), d.reasons.join("; ")]
        })
        .collect();
    page.table(&["dimension", "status", "differences", "reasons"], &rows);
    for dimension in &record.dimensions {
        differences(page, dimension);
    }
    within_tolerance(page, record);
    first_divergence(page, &record.first_divergence);
    if let Some(trace) = &record.trace {
        page.heading("Trace");
        page.field("  verdict", &style.status(trace.verdict.as_str()));
    }
    limitations(page, limits);
}

fn count_differences(dimension: &DimensionResult) -> String {
    let (listed, omitted) = (dimension.differences.len(), dimension.differences_omitted);
    if omitted > 0 { format!("{listed} (+{omitted} omitted)") } else { listed.to_string() }
}

fn differences(page: &mut Page, dimension: &DimensionResult) {
    let style = page.style();
    let beyond = || dimension.timing_deltas.iter().filter(|d| !d.within_tolerance);
    if dimension.differences.is_empty() && beyond().next().is_none() {
        return;
    }
    page.heading(&format!("Differences in {}", dimension.dimension));
    for item in &dimension.differences {
        let location = item.location.as_ref().map(location_text).unwrap_or_default();
        let deciding = match (item.deciding, item.path.starts_with("terminal_replies")) {
            (true, _) => "",
            (false, true) => " [rea's reply to a terminal query; information, does not decide the verdict]",
            (false, false) => " [stream; does not decide the verdict]",
        };
        page.line(&format!("  {}{location}{deciding}", style.paint(Tone::Strong, &item.path)));
        sides(page, &item.left, &item.right);
        if let Some(interval) = &item.interval {
            page.line(&interval_text(interval));
        }
    }
    if dimension.differences_omitted > 0 {
        page.line(&format!("  … {} more differences not listed", dimension.differences_omitted));
    }
    for delta in beyond() {
        page.line(&timing(page, delta));
    }
}

/// Timings within tolerance: measured, and no difference.
fn within_tolerance(page: &mut Page, record: &ComparisonRecord) {
    let within: Vec<&TimingDelta> =
        record.dimensions.iter().flat_map(|d| &d.timing_deltas).filter(|d| d.within_tolerance).collect();
    if within.is_empty() {
        return;
    }
    page.heading("Timing within tolerance (not differences)");
    for delta in within {
        page.line(&timing(page, delta));
    }
}

fn timing(page: &Page, delta: &TimingDelta) -> String {
    let style = page.style();
    let within = if delta.within_tolerance {
        style.paint(Tone::Good, "within tolerance")
    } else {
        style.paint(Tone::Bad, "beyond tolerance")
    };
    let since = delta.interval.as_ref().map(|i| format!(" since {}", i.since)).unwrap_or_default();
    let at = |ms: Option<u64>| ms.map(|ms| format!(" (at {ms} ms)")).unwrap_or_default();
    let (left_at, right_at) = match &delta.interval {
        Some(i) => (at(Some(i.left_at_ms)), at(Some(i.right_at_ms))),
        None => (String::new(), String::new()),
    };
    format!(
        "  timing {}{since}: left {} ms{left_at}, right {} ms{right_at}, delta {} ms, {within}",
        delta.path, delta.left_ms, delta.right_ms, delta.delta_ms
    )
}

/// What two intervals were measured from, under their difference.
fn interval_text(i: &Interval) -> String {
    format!(
        "    intervals since {}: left {} → {} ms, right {} → {} ms",
        i.since, i.left_since_ms, i.left_at_ms, i.right_since_ms, i.right_at_ms
    )
}

/// The two excerpts of a difference, left in red, right in green.
fn sides(page: &mut Page, left: &Value, right: &Value) {
    let style = page.style();
    let (left, right) = excerpts(left, right);
    page.line(&style.paint(Tone::Bad, &format!("    - left:  {left}")));
    page.line(&style.paint(Tone::Good, &format!("    + right: {right}")));
}

/// ` (segment 1, line 2, column 5)`, in the order the format writes the location.
fn location_text(location: &Location) -> String {
    let parts = match location {
        Location::Stream { segment, byte_offset, line, column } => {
            format!("segment {segment}, byte offset {byte_offset}, line {line}, column {column}")
        }
        Location::Screen { segment, row, column } => format!("segment {segment}, row {row}, column {column}"),
        Location::Index { segment, index } => format!("segment {segment}, index {index}"),
    };
    format!(" ({parts})")
}

/// Short excerpts of two values: two strings (or frames) are cut around
/// their first differing character; two objects show only the fields that
/// differ.
pub(super) fn excerpts(left: &Value, right: &Value) -> (String, String) {
    if let (Some(l), Some(r)) = (text_of(left), text_of(right)) {
        return text_excerpts(l, r);
    }
    if let (Some(l), Some(r)) = (left.as_object(), right.as_object()) {
        let keys = l.keys().chain(r.keys().filter(|k| !l.contains_key(*k)));
        let differing: Vec<&String> = keys.filter(|k| l.get(*k) != r.get(*k)).collect();
        let absent = Value::Null;
        let field = |k: &String| {
            let (a, b) = excerpts(l.get(k).unwrap_or(&absent), r.get(k).unwrap_or(&absent));
            (format!("{k}: {a}"), format!("{k}: {b}"))
        };
        let (a, b): (Vec<String>, Vec<String>) = differing.into_iter().map(field).unzip();
        return (a.join(", "), b.join(", "));
    }
    (value_excerpt(left), value_excerpt(right))
}

fn text_excerpts(l: &str, r: &str) -> (String, String) {
    let start = l.chars().zip(r.chars()).take_while(|(a, b)| a == b).count().saturating_sub(EXCERPT_CHARS / 3);
    let cut = |s: &str| {
        let body: String = s.chars().skip(start).collect();
        let lead = if start > 0 { "…" } else { "" };
        format!("{lead}\"{}\"", escape_excerpt(&body, EXCERPT_CHARS))
    };
    (cut(l), cut(r))
}

/// The text a value stands for: a string, or a frame's `data`.
fn text_of(value: &Value) -> Option<&str> {
    value.as_str().or_else(|| value.get("data")?.as_str())
}

/// A value in one line; a side that holds nothing (null) is `(absent)`.
fn value_excerpt(value: &Value) -> String {
    match value {
        Value::Null => "(absent)".to_owned(),
        other => escape_excerpt(&other.to_string(), EXCERPT_CHARS),
    }
}

fn first_divergence(page: &mut Page, divergence: &FirstDivergence) {
    let style = page.style();
    page.heading("First divergence");
    page.field("  status", &style.status(divergence.status().as_str()));
    let located = match divergence {
        FirstDivergence::Found(d) => Some(d),
        FirstDivergence::None => return,
        FirstDivergence::Unknown { reason, earliest_observed_difference } => {
            page.field("  reason", reason.as_str());
            earliest_observed_difference.as_ref()
        }
    };
    match located {
        Some(d) => divergence_lines(page, d),
        // No earliest difference: shown as it always was, every part unknown.
        None => {
            page.field("  in", "?");
            page.field("  where", &style.paint(Tone::Strong, "?"));
            sides(page, &Value::Null, &Value::Null);
        }
    }
}

pub(super) fn divergence_lines(page: &mut Page, d: &Divergence) {
    let style = page.style();
    let location = d.location.as_ref().map(location_text).unwrap_or_default();
    page.field("  in", d.dimension.as_str());
    page.field("  where", &format!("{}{location}", style.paint(Tone::Strong, &d.path)));
    sides(page, &d.left, &d.right);
    if let Some(interval) = &d.interval {
        page.line(&interval_text(interval));
    }
    if let Some(screens) = &d.screens {
        side_by_side(page, screens);
    }
}

/// The two screens of a screen-lens divergence side by side, the differing
/// cells marked: painted where the view is coloured, else by `^` on a line
/// under each row that differs.
fn side_by_side(page: &mut Page, pair: &ScreenPair) {
    let style = page.style();
    page.line("");
    page.line(&format!("  left:  {}", screen_summary(&pair.left)));
    page.line(&format!("  right: {}", screen_summary(&pair.right)));
    let (lw, rw) = (usize::from(pair.left.columns), usize::from(pair.right.columns));
    page.line(&format!("  ┌{}┐ ┌{}┐", "─".repeat(lw), "─".repeat(rw)));
    let rows = usize::from(pair.left.rows.max(pair.right.rows));
    // Blank rows at the bottom of both screens, none of them differing, fold into one line.
    let blank = |screen: &ScreenView, row: usize| screen.lines.get(row).is_none_or(|l| l.trim_end().is_empty());
    let quiet = |row: usize| {
        blank(&pair.left, row) && blank(&pair.right, row) && !pair.differing_cells.iter().any(|r| r.row == row + 1)
    };
    let shown = (0..rows).rposition(|row| !quiet(row)).map_or(0, |row| row + 1);
    let folded = if rows - shown >= 2 { shown } else { rows };
    for row in 0..folded {
        let marked = |column: usize| {
            pair.differing_cells.iter().any(|run| run.row == row + 1 && (run.from..=run.to).contains(&(column + 1)))
        };
        let (l, r) = (screen_row(&pair.left, row, &marked, style), screen_row(&pair.right, row, &marked, style));
        page.line(&format!("  │{l}│ │{r}│"));
        if !style.colour() && (0..lw.max(rw)).any(marked) {
            let carets = |width: usize| (0..width).map(|c| if marked(c) { '^' } else { ' ' }).collect::<String>();
            page.line(format!("   {}   {}", carets(lw), carets(rw)).trim_end());
        }
    }
    if folded < rows {
        let (l, r) = (super::capture::fold_line(rows - folded, lw), super::capture::fold_line(rows - folded, rw));
        page.line(&format!("  {l} {r}"));
    }
    page.line(&format!("  └{}┘ └{}┘", "─".repeat(lw), "─".repeat(rw)));
}

pub(super) fn screen_summary(screen: &ScreenView) -> String {
    let cursor = if screen.cursor_visible { "shown" } else { "hidden" };
    format!(
        "{}x{}, cursor row {} column {} ({cursor}), {} buffer",
        screen.columns, screen.rows, screen.cursor_y, screen.cursor_x, screen.active_buffer
    )
}

/// One row of a screen, padded to its width; marked cells painted when coloured.
fn screen_row(screen: &ScreenView, row: usize, marked: &dyn Fn(usize) -> bool, style: super::Style) -> String {
    let width = usize::from(screen.columns);
    let line = screen.lines.get(row).map_or("", String::as_str);
    let mut out = String::new();
    let mut column = 0;
    let mut cells = row_cells(line).into_iter().peekable();
    while column < width {
        let (text, span) = match cells.peek() {
            Some(&(at, span, text)) if at == column && column + span <= width => {
                cells.next();
                (text, span)
            }
            Some(&(at, ..)) if at <= column => {
                cells.next();
                continue;
            }
            _ => (" ", 1),
        };
        let shown = if text.chars().any(char::is_control) { "?" } else { text };
        if style.colour() && (column..column + span).any(marked) {
            out.push_str(&style.paint(Tone::Mark, shown));
        } else {
            out.push_str(shown);
        }
        column += span;
    }
    out
}

#[cfg(test)]
mod tests {
    use rea_engine::compare::{CellRun, ScreenPair, ScreenView};
    use rea_engine::evidence::ActiveBuffer;

    use super::*;
    use crate::view::Style;

    fn screen(lines: &[&str]) -> ScreenView {
        ScreenView {
            columns: 6,
            rows: 2,
            cursor_x: 0,
            cursor_y: 1,
            cursor_visible: true,
            active_buffer: ActiveBuffer::Normal,
            lines: lines.iter().map(|l| (*l).to_owned()).collect(),
            serialized_state: None,
        }
    }

    fn drawn(colour: bool) -> String {
        let pair = ScreenPair {
            left: screen(&["a\u{4e2d}b", "ok"]),
            right: screen(&["a\u{4e2d}c", "ok"]),
            differing_cells: vec![CellRun { row: 1, from: 4, to: 4 }],
        };
        let mut page = Page::new(Style::new(colour));
        side_by_side(&mut page, &pair);
        page.text
    }

    #[test]
    fn a_timing_taken_as_an_interval_says_since_what() {
        let interval =
            Interval { since: "launch".into(), left_since_ms: 0, right_since_ms: 0, left_at_ms: 5, right_at_ms: 9 };
        let delta = TimingDelta {
            path: "interaction_events[0].wait.satisfied_at_ms".into(),
            left_ms: 5,
            right_ms: 9,
            delta_ms: 4,
            within_tolerance: true,
            interval: Some(interval.clone()),
        };
        let page = Page::new(Style::new(false));
        assert_eq!(
            timing(&page, &delta),
            "  timing interaction_events[0].wait.satisfied_at_ms since launch: left 5 ms (at 5 ms), right 9 ms (at 9 ms), delta 4 ms, within tolerance"
        );
        assert_eq!(interval_text(&interval), "    intervals since launch: left 0 → 5 ms, right 0 → 9 ms");
    }

    #[test]
    fn two_screens_side_by_side_mark_the_differing_cells() {
        // A wide character takes two columns; the marker line sits under the cell.
        let plain = drawn(false);
        assert!(plain.contains("  │a\u{4e2d}b  │ │a\u{4e2d}c  │\n      ^        ^\n  │ok    │ │ok    │\n"), "{plain}");
        let coloured = drawn(true);
        assert!(coloured.contains("  │a\u{4e2d}\u{1b}[7;31mb\u{1b}[0m  │"), "{coloured}");
        assert!(!coloured.contains('^'), "{coloured}");
    }
}
