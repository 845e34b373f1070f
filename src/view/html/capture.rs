//! The page of a capture: the header the text view shows, the final screen
//! drawn cell by cell, the timeline and the filesystem effects as tables.

use rea_engine::evidence::{CaptureRecord, RenderedFrame};
use rea_engine::report::{CommittedScenario, Grid};

use super::screen::{Overlay, figure};
use super::{Html, Td};
use crate::view::{Page, Style};

pub(super) fn render(
    html: &mut Html,
    mut fields: Vec<(String, Td)>,
    record: &CaptureRecord,
    scenario: &CommittedScenario,
) {
    fields.extend(header_fields(record, scenario));
    html.fields(&fields);
    html.heading(2, Some("final-screen"), "Final screen");
    match record.rendered_frames.last() {
        Some(frame) => frame_figure(html, frame, &crate::view::capture::frame_summary(frame)),
        None => html.paragraph(
            Some("doubt"),
            "No rendered frames in this capture: there is no screen to draw (the output is in the timeline).",
        ),
    }
    timeline(html, record);
    filesystem(html, record, scenario);
}

/// The text view's header lines (`key  value`) as fields.
fn header_fields(record: &CaptureRecord, scenario: &CommittedScenario) -> Vec<(String, Td)> {
    let mut page = Page::new(Style::new(false));
    crate::view::capture::header(&mut page, record, scenario);
    page.text
        .lines()
        .map(|line| {
            let (key, value) = line.split_at(line.char_indices().nth(11).map_or(line.len(), |(i, _)| i));
            let value = value.to_owned();
            let class = match key.trim() {
                "exit" if value.starts_with("code 0 ") => Some("good"),
                "exit" | "unknown" => Some("bad"),
                "truncated" => Some("doubt"),
                _ => None,
            };
            (key.trim().to_owned(), Td { text: value, class, href: None })
        })
        .collect()
}

/// A rendered frame drawn from its `serialized_state`, with its cursor.
pub(super) fn frame_figure(html: &mut Html, frame: &RenderedFrame, caption: &str) {
    let grid = Grid::replay(frame.columns, frame.rows, &frame.serialized_state);
    let cursor = grid.cursor_visible.then_some((frame.cursor_x, frame.cursor_y));
    figure(html, caption, &grid, &Overlay { cursor, marked: &|_, _| false });
}

use crate::view::capture::When;

fn timeline(html: &mut Html, record: &CaptureRecord) {
    html.heading(2, Some("timeline"), "Timeline");
    html.paragraph(Some("quiet"), "In capture order: an input comes before the output it caused.");
    timeline_table(html, record);
}

/// The timeline's rows as a table.
pub(super) fn timeline_table(html: &mut Html, record: &CaptureRecord) {
    let rows: Vec<Vec<Td>> = crate::view::capture::timeline_rows(Style::new(false), record)
        .into_iter()
        .map(|(when, text)| {
            let at = match when {
                When::At(ms) => format!("{ms} ms"),
                When::NeverSent => "never sent".to_owned(),
                When::Closing => String::new(),
            };
            vec![Td::plain(at), Td::plain(text)]
        })
        .collect();
    html.table(&["at", "what"], &rows);
}

fn filesystem(html: &mut Html, record: &CaptureRecord, scenario: &CommittedScenario) {
    html.heading(2, Some("filesystem"), "Filesystem effects");
    if record.filesystem_effects.is_empty() {
        let observed = !scenario.filesystem_observation_paths.is_empty();
        html.paragraph(None, if observed { "no changes under the observed paths" } else { "no paths were observed" });
        return;
    }
    let rows: Vec<Vec<Td>> = record
        .filesystem_effects
        .iter()
        .map(|e| {
            let mut row: Vec<Td> = crate::view::capture::effect_row(e).into_iter().map(Td::plain).collect();
            row[0] = Td::status(&row[0].text);
            row
        })
        .collect();
    html.table(&["status", "path", "kind", "mode (octal)", "size", "note"], &rows);
}
