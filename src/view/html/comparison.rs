//! The page of a comparison: verdict and dimensions, the first divergence
//! with its two screens side by side (every differing cell marked on both,
//! in its own colours), each dimension's differences as a table, and the
//! timings the comparison holds (waits met, dispatches, settlement) in
//! time order, those within tolerance apart from the differences.

use rea_engine::compare::{
    CellRun, ComparisonRecord, DimensionResult, Divergence, FirstDivergence, Location, ScreenPair, ScreenView,
    TerminalLens, TimingDelta,
};
use rea_engine::report::{ComparedCaptures, Grid};

use super::screen::{Overlay, figure};
use super::{Html, Td};
use crate::view::comparison::{excerpts, screen_summary};

pub(super) fn render(
    html: &mut Html,
    mut fields: Vec<(String, Td)>,
    pair: &ComparedCaptures,
    record: &ComparisonRecord,
) {
    fields.push(("left".into(), Td::plain(&pair.left_evidence_id)));
    fields.push(("right".into(), Td::plain(&pair.right_evidence_id)));
    fields.push(("tolerance".into(), Td::plain(format!("{} ms", pair.timing_tolerance_ms))));
    if pair.terminal_lens != TerminalLens::Stream {
        fields.push(("lens".into(), Td::plain(format!("terminal decided by the {}", pair.terminal_lens))));
    }
    fields.push(("verdict".into(), Td::status(record.status.as_str())));
    html.fields(&fields);
    body(html, record, 2);
}

/// Everything below the header, headings from `level` (a suite page nests it).
pub(super) fn body(html: &mut Html, record: &ComparisonRecord, level: u8) {
    html.heading(level, None, "Dimensions");
    let rows: Vec<Vec<Td>> = record
        .dimensions
        .iter()
        .map(|d| {
            let (listed, omitted) = (d.differences.len(), d.differences_omitted);
            let count = if omitted > 0 { format!("{listed} (+{omitted} omitted)") } else { listed.to_string() };
            vec![
                Td::plain(d.dimension.as_str()),
                Td::status(d.status.as_str()),
                Td::plain(count),
                Td::plain(d.reasons.join("; ")),
            ]
        })
        .collect();
    html.table(&["dimension", "status", "differences", "reasons"], &rows);
    first_divergence(html, &record.first_divergence, level);
    for dimension in record.dimensions.iter().filter(|d| !d.differences.is_empty()) {
        differences(html, dimension, level);
    }
    timeline(html, record, level);
    if let Some(trace) = &record.trace {
        html.heading(level, None, "Trace");
        html.fields(&[("verdict".into(), Td::status(trace.verdict.as_str()))]);
    }
}

/// Where a difference lies, in words.
pub(super) fn location_words(location: &Location) -> String {
    match location {
        Location::Stream { segment, byte_offset, line, column } => {
            format!("segment {segment}, line {line}, column {column} (byte offset {byte_offset})")
        }
        Location::Screen { segment, row, column } => {
            format!("row {row}, column {column} of the screen ending segment {segment}")
        }
        Location::Index { segment, index } => format!("item {index}, in segment {segment}"),
    }
}

pub(super) fn first_divergence(html: &mut Html, divergence: &FirstDivergence, level: u8) {
    html.heading(level, None, "First divergence");
    let status = divergence.status();
    let mut fields = vec![("status".to_owned(), Td::status(status.as_str()))];
    let located = match divergence {
        FirstDivergence::Found(d) => Some(d),
        FirstDivergence::None => None,
        FirstDivergence::Unknown { reason, earliest_observed_difference } => {
            fields.push(("reason".into(), Td::plain(reason.as_str())));
            earliest_observed_difference.as_ref()
        }
    };
    match located {
        Some(d) => divergence_fields(html, fields, d),
        None => html.fields(&fields),
    }
}

fn divergence_fields(html: &mut Html, mut fields: Vec<(String, Td)>, d: &Divergence) {
    fields.push(("in".into(), Td::plain(d.dimension.as_str())));
    fields.push(("path".into(), Td::plain(&d.path)));
    if let Some(location) = &d.location {
        fields.push(("where".into(), Td::plain(location_words(location))));
    }
    let (left, right) = excerpts(&d.left, &d.right);
    fields.push(("left".into(), Td::toned(left, "bad")));
    fields.push(("right".into(), Td::toned(right, "good")));
    if let Some(i) = &d.interval {
        let text = format!(
            "since {}: left {} → {} ms, right {} → {} ms",
            i.since, i.left_since_ms, i.left_at_ms, i.right_since_ms, i.right_at_ms
        );
        fields.push(("intervals".into(), Td::plain(text)));
    }
    html.fields(&fields);
    if let Some(screens) = &d.screens {
        side_by_side(html, screens);
    }
}

/// The differing cells in words: `row 3, columns 5-9; row 4, column 2`.
fn runs_in_words(runs: &[CellRun]) -> String {
    let words: Vec<String> = runs
        .iter()
        .map(|r| match r.from == r.to {
            true => format!("row {}, column {}", r.row, r.from),
            false => format!("row {}, columns {}-{}", r.row, r.from, r.to),
        })
        .collect();
    words.join("; ")
}

fn grid_of(view: &ScreenView) -> Grid {
    match &view.serialized_state {
        Some(state) => Grid::replay(view.columns, view.rows, state),
        None => Grid::of_lines(view.columns, view.rows, view.lines.iter().map(String::as_str)),
    }
}

/// The two screens of a screen-lens divergence side by side, each differing cell marked on both.
pub(super) fn side_by_side(html: &mut Html, pair: &ScreenPair) {
    html.paragraph(None, &format!("Differing cells: {}.", runs_in_words(&pair.differing_cells)));
    if pair.left.serialized_state.is_none() || pair.right.serialized_state.is_none() {
        html.paragraph(
            Some("doubt"),
            "This comparison keeps no serialized_state of a screen: that screen is drawn from its text, without colours.",
        );
    }
    let marked = |row: usize, column: usize| {
        pair.differing_cells.iter().any(|run| run.row == row + 1 && (run.from..=run.to).contains(&(column + 1)))
    };
    html.raw("<div class=\"pair\">\n");
    for (side, view) in [("left", &pair.left), ("right", &pair.right)] {
        let grid = grid_of(view);
        let cursor = view.cursor_visible.then_some((view.cursor_x, view.cursor_y));
        let caption = format!("{side}: {}", screen_summary(view));
        figure(html, &caption, &grid, &Overlay { cursor, marked: &marked });
    }
    html.raw("</div>\n");
}

fn differences(html: &mut Html, dimension: &DimensionResult, level: u8) {
    html.heading(level + 1, None, &format!("Differences in {}", dimension.dimension));
    let rows: Vec<Vec<Td>> = dimension
        .differences
        .iter()
        .map(|item| {
            let (left, right) = excerpts(&item.left, &item.right);
            let mut path = item.path.clone();
            if !item.deciding {
                path.push_str(" (stream; does not decide the verdict)");
            }
            vec![
                Td::plain(path),
                Td::plain(item.location.as_ref().map(location_words).unwrap_or_default()),
                Td::toned(left, "bad"),
                Td::toned(right, "good"),
            ]
        })
        .collect();
    html.table(&["path", "where", "left", "right"], &rows);
    if dimension.differences_omitted > 0 {
        html.paragraph(Some("quiet"), &format!("… {} more differences not listed", dimension.differences_omitted));
    }
}

/// The timings the comparison holds, in the order of the left side's times:
/// those beyond tolerance, then those within it (which are no difference).
fn timeline(html: &mut Html, record: &ComparisonRecord, level: u8) {
    let mut deltas: Vec<&TimingDelta> = record.dimensions.iter().flat_map(|d| &d.timing_deltas).collect();
    if deltas.is_empty() {
        return;
    }
    deltas.sort_by_key(|d| d.interval.as_ref().map_or(d.left_ms, |i| i.left_at_ms));
    html.heading(level, None, "Timeline");
    html.paragraph(
        Some("quiet"),
        "The times the comparison measured (waits met, dispatches, settlement), left and right; the events themselves are in each capture's page.",
    );
    for (beyond, title) in [(true, "Timing beyond tolerance"), (false, "Timing within tolerance (not a difference)")] {
        let rows: Vec<Vec<Td>> =
            deltas.iter().filter(|d| d.within_tolerance != beyond).map(|d| timing_row(d)).collect();
        if rows.is_empty() {
            continue;
        }
        html.heading(level + 1, None, title);
        html.table(&["what", "since", "left", "right", "delta"], &rows);
    }
}

fn timing_row(d: &TimingDelta) -> Vec<Td> {
    let at = |ms: u64, at: Option<u64>| at.map_or(format!("{ms} ms"), |at| format!("{ms} ms (at {at} ms)"));
    let (left_at, right_at) = d.interval.as_ref().map_or((None, None), |i| (Some(i.left_at_ms), Some(i.right_at_ms)));
    let class = if d.within_tolerance { "good" } else { "bad" };
    vec![
        Td::plain(&d.path),
        Td::plain(d.interval.as_ref().map(|i| i.since.clone()).unwrap_or_else(|| "-".into())),
        Td::plain(at(d.left_ms, left_at)),
        Td::plain(at(d.right_ms, right_at)),
        Td::toned(format!("{} ms", d.delta_ms), class),
    ]
}
