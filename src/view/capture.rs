//! The view of a capture: header, final screen, timeline, filesystem
//! effects, limitations; read from the typed record.

use rea_engine::evidence::{
    CaptureRecord, Cleanup, ExitReason, FileEffect, FileState, Frame, JournalCollection, RenderedFrame, ScreenBefore,
    WaitCondition, WaitOutcome, WaitRecord,
};
use rea_engine::report::{CommittedScenario, JournalOrder, command_line, escape_excerpt, exit_summary, iso8601_ms};

use super::truncation::truncation;
use super::{Page, Style, Tone, limitations};

/// Output segments shown at each end of a long timeline.
const SEGMENTS_AT_EACH_END: usize = 12;
/// Characters of an output segment shown in the timeline.
const EXCERPT_CHARS: usize = 60;

/// The capture's view; `screens` adds the screen each interaction event saw.
pub(super) fn render(
    page: &mut Page,
    record: &CaptureRecord,
    scenario: &CommittedScenario,
    limits: &[String],
    screens: bool,
) {
    header(page, record, scenario);
    screen(page, record, scenario);
    if screens {
        event_screens(page, record);
    }
    timeline(page, record);
    filesystem(page, record, scenario);
    limitations(page, limits);
}

pub(super) fn header(page: &mut Page, record: &CaptureRecord, scenario: &CommittedScenario) {
    let style = page.style();
    page.field("command", &command_line(scenario));
    page.field("directory", &scenario.working_directory);
    page.field("terminal", &format!("{}x{}", scenario.terminal.columns, scenario.terminal.rows));
    let manifest = &record.manifest;
    let duration = match (iso8601_ms(&manifest.started_at), iso8601_ms(&manifest.completed_at)) {
        (Some(s), Some(c)) => format!("{} ms", c - s),
        _ => "unknown".to_owned(),
    };
    page.field("started", &format!("{}, ran {duration}", manifest.started_at));
    let exit = &record.exit;
    let exit_tone = match (exit.code, exit.reason) {
        (Some(0), ExitReason::Exited) => Tone::Good,
        _ => Tone::Bad,
    };
    page.field("exit", &style.paint(exit_tone, &exit_summary(exit)));
    let settlement = &record.settlement;
    page.field(
        "settlement",
        &format!(
            "{} after {} ms, cleanup {}",
            style.status(settlement.state.as_str()),
            settlement.elapsed_ms,
            style.status(settlement.cleanup_outcome.as_str()),
        ),
    );
    cleanup(page, &record.cleanup);
    truncation(page, record);
    for unknown in &record.residual_unknowns {
        let scope = style.paint(Tone::Doubt, &format!("{}:", unknown.scope));
        page.field("unknown", &format!("{scope} {}", unknown.reason));
    }
}

fn cleanup(page: &mut Page, cleanup: &Cleanup) {
    let style = page.style();
    let mut text = format!(
        "process group {}, temporary root {}, renderer {}, signals via {}",
        style.status(cleanup.owned_process_group.as_str()),
        style.status(cleanup.temporary_root.as_str()),
        style.status(cleanup.terminal_renderer.as_str()),
        cleanup.signal_mechanism,
    );
    if !cleanup.unverified_processes.is_empty() {
        let pids: Vec<String> =
            cleanup.unverified_processes.iter().map(|p| format!("PID {} ({})", p.pid, p.reason)).collect();
        text.push_str(&style.paint(Tone::Bad, &format!("; left unverified: {}", pids.join(", "))));
    }
    page.field("cleanup", &text);
}

/// The last rendered frame in a box of its size, or the tail of the output.
fn screen(page: &mut Page, record: &CaptureRecord, scenario: &CommittedScenario) {
    let style = page.style();
    if let Some(frame) = record.rendered_frames.last() {
        page.heading(&format!("Final screen ({})", frame_summary(frame)));
        boxed_frame(page, frame);
        return;
    }
    let columns = usize::from(scenario.terminal.columns);
    let rows = usize::from(scenario.terminal.rows);
    page.heading("Final screen");
    page.line(&style.paint(
        Tone::Doubt,
        &format!("  No rendered frames in this capture; the last {rows} lines of the normalized output follow (not a rendered screen: escape sequences shown as \\e)."),
    ));
    let text: String = record.frames.iter().map(|f| f.data.as_str()).collect();
    let all: Vec<String> = text.split('\n').map(|l| escape_excerpt(l.trim_end_matches('\r'), columns)).collect();
    let tail = &all[all.len().saturating_sub(rows)..];
    boxed(page, tail, columns, tail.len());
}

/// A rendered frame's sequence, time, size, cursor and buffer.
pub(super) fn frame_summary(frame: &RenderedFrame) -> String {
    format!(
        "rendered frame {} at {} ms, {}x{}, cursor row {} column {}, {} buffer",
        frame.sequence, frame.at_ms, frame.columns, frame.rows, frame.cursor_y, frame.cursor_x, frame.active_buffer,
    )
}

/// A rendered frame's lines in a box of its size.
fn boxed_frame(page: &mut Page, frame: &RenderedFrame) {
    let lines: Vec<String> = frame.lines.iter().map(str::to_owned).collect();
    boxed(page, &lines, usize::from(frame.columns), usize::from(frame.rows));
}

/// The screen each interaction event saw (`screen_before`), in event order.
fn event_screens(page: &mut Page, record: &CaptureRecord) {
    let style = page.style();
    page.heading("Screens at events");
    if record.interaction_events.is_empty() {
        page.line(&style.paint(Tone::Quiet, "  No interaction events."));
    }
    for (index, event) in record.interaction_events.iter().enumerate() {
        let data = escape_excerpt(&event.data, EXCERPT_CHARS);
        let at = event.sent_at_ms().map_or("never sent".to_owned(), |ms| format!("at {ms} ms"));
        let title = format!("  event #{index} {} \"{data}\" {at} saw", event.kind);
        match event.screen_before {
            ScreenBefore::Blank => page.line(&format!("{title} a blank screen (nothing was drawn yet)")),
            ScreenBefore::Frame(n) => match usize::try_from(n).ok().and_then(|n| record.rendered_frames.get(n)) {
                Some(frame) => {
                    page.line(&format!("{title} {}", frame_summary(frame)));
                    boxed_frame(page, frame);
                }
                None => page.line(&style.paint(Tone::Bad, &format!("{title} rendered frame {n}, which is not in the record"))),
            },
            ScreenBefore::NotRecorded => page.line(&style.paint(
                Tone::Doubt,
                &format!("{title} a screen that is not recorded (not kept within the rendered budget, or a capture from before screen_before)"),
            )),
        }
    }
}

/// `lines` in a box `columns` wide and `rows` high; two or more blank rows
/// at the bottom are folded into one line that counts them.
fn boxed(page: &mut Page, lines: &[String], columns: usize, rows: usize) {
    let blank = |row: usize| lines.get(row).is_none_or(|l| l.trim_end_matches(' ').is_empty());
    let shown = (0..rows).rposition(|row| !blank(row)).map_or(0, |row| row + 1);
    let folded = if rows - shown >= 2 { shown } else { rows };
    page.line(&format!("┌{}┐", "─".repeat(columns)));
    for row in 0..folded {
        let line = lines.get(row).map_or("", String::as_str);
        let cut: String = line.chars().take(columns).collect();
        let pad = columns - cut.chars().count();
        page.line(&format!("│{cut}{}│", " ".repeat(pad)));
    }
    if folded < rows {
        page.line(&fold_line(rows - folded, columns));
    }
    page.line(&format!("└{}┘", "─".repeat(columns)));
}

/// The line that stands for `count` blank rows at the bottom of a box `columns` wide.
pub(super) fn fold_line(count: usize, columns: usize) -> String {
    let text = format!(" … {count} blank rows");
    let cut: String = text.chars().take(columns).collect();
    let pad = columns - cut.chars().count();
    format!("│{cut}{}│", " ".repeat(pad))
}

/// One timeline entry (`at_ms` none: an event never sent).
struct Entry {
    at_ms: Option<u64>,
    order: u64,
    text: String,
}

fn timeline(page: &mut Page, record: &CaptureRecord) {
    page.heading("Timeline");
    for (when, text) in timeline_rows(page.style(), record) {
        match when {
            When::At(at_ms) => page.line(&format!("  {at_ms:>7} ms  {text}")),
            When::NeverSent => page.line(&format!("  {:>7}     {text}", "-")),
            When::Closing => page.line(&format!("  {text}")),
        }
    }
}

/// When a timeline row happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum When {
    /// At this time after launch.
    At(u64),
    /// An event that was never sent.
    NeverSent,
    /// The closing lines (finalization, end).
    Closing,
}

/// The timeline's rows in capture order: the time (none for the closing
/// lines) and what happened.
pub(super) fn timeline_rows(style: Style, record: &CaptureRecord) -> Vec<(When, String)> {
    let journal = JournalOrder::of(record);
    let mut entries = output_entries(style, &record.frames, &journal);
    entries.extend(interaction_entries(style, record, &journal));
    // Capture order is the truth (output times are bucketed, event times
    // are not, so sorting by time can show an echo before its input).
    entries.sort_by_key(|e| (e.order, e.at_ms));
    let finalization = record.exit.finalization.as_ref();
    let signals = finalization.iter().flat_map(|f| &f.signals).map(|receipt| Entry {
        at_ms: Some(receipt.sent_at_ms),
        order: u64::MAX,
        text: format!(
            "finalization {} {}{}",
            receipt.signal,
            receipt.delivery,
            receipt.reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default()
        ),
    });
    // Finalization signals are not journaled: each goes before the first
    // entry recorded after it was sent.
    for signal in signals {
        let at = entries.iter().position(|e| e.at_ms.is_none_or(|t| Some(t) > signal.at_ms)).unwrap_or(entries.len());
        entries.insert(at, signal);
    }
    let mut rows: Vec<(When, String)> =
        entries.into_iter().map(|e| (e.at_ms.map_or(When::NeverSent, When::At), e.text)).collect();
    if let Some(f) = finalization {
        let elapsed = f.elapsed_ms.map_or("unknown".to_owned(), |e| format!("{e} ms"));
        rows.push((When::Closing, format!("finalization: {} ms granted, took {elapsed}", f.requested_ms)));
    }
    rows.push((When::Closing, format!("end: exit {}", exit_summary(&record.exit))));
    rows
}

/// One entry per output segment; a long capture keeps the first and last
/// [`SEGMENTS_AT_EACH_END`] and says how many it left out.
fn output_entries(style: Style, frames: &[Frame], journal: &JournalOrder) -> Vec<Entry> {
    let skip = frames.len().saturating_sub(2 * SEGMENTS_AT_EACH_END);
    let hidden = SEGMENTS_AT_EACH_END..SEGMENTS_AT_EACH_END + skip;
    let mut entries = Vec::new();
    for (index, frame) in frames.iter().enumerate() {
        let at_ms = Some(frame.at_ms);
        let order = journal.of_entry(JournalCollection::Frames, index);
        if skip > 0 && index == hidden.start {
            let text = style.paint(Tone::Quiet, &format!("… {skip} output segments not shown …"));
            entries.push(Entry { at_ms, order, text });
        }
        if hidden.contains(&index) {
            continue;
        }
        let data = &frame.data;
        let text =
            format!("output #{} {} bytes \"{}\"", frame.sequence, data.len(), escape_excerpt(data, EXCERPT_CHARS));
        entries.push(Entry { at_ms, order, text });
    }
    entries
}

/// One entry per interaction event (input, resize, signal, terminal reply) with its outcome.
fn interaction_entries(style: Style, record: &CaptureRecord, journal: &JournalOrder) -> Vec<Entry> {
    let events = record.interaction_events.iter().enumerate();
    events
        .map(|(index, event)| {
            let data = escape_excerpt(&event.data, EXCERPT_CHARS);
            let outcome = style.status(event.outcome.as_str());
            let reason = event.reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default();
            let when = match (event.scheduled_at_ms, event.query, event.wait.as_ref()) {
                (scheduled, _, Some(wait)) => waited(scheduled, wait),
                (Some(scheduled), _, None) => format!("scheduled {scheduled} ms"),
                (None, Some(query), None) => format!("rea's reply to {query}, information only"),
                (None, None, None) => "not scheduled".to_owned(),
            };
            let when = if event.sent_at_ms().is_none() { format!("never sent; {when}") } else { when };
            Entry {
                at_ms: event.sent_at_ms(),
                order: journal.of_entry(JournalCollection::InteractionEvents, index),
                text: format!("{} \"{data}\" {outcome}{reason} ({when})", event.kind),
            }
        })
        .collect()
}

/// What an event waited for and how the wait ended, e.g. `waited for
/// screen_contains "$" up to 5000 ms, met at 412 ms`.
fn waited(not_before: Option<u64>, wait: &WaitRecord) -> String {
    let condition = match &wait.condition {
        WaitCondition::QuietMs(ms) => format!("{ms} ms of quiet"),
        WaitCondition::ScreenContains(text)
        | WaitCondition::ScreenMatches(text)
        | WaitCondition::OutputContains(text)
        | WaitCondition::OutputMatches(text) => {
            format!("{} \"{}\"", wait.condition.key(), escape_excerpt(text, EXCERPT_CHARS))
        }
    };
    let within = wait.timeout_ms.map(|ms| format!(" up to {ms} ms")).unwrap_or_default();
    let ended = match (wait.outcome, wait.satisfied_at_ms) {
        (WaitOutcome::Satisfied, Some(at)) => format!("met at {at} ms"),
        (WaitOutcome::Satisfied, None) => "met".to_owned(),
        (WaitOutcome::TimedOut, _) => "timed out".to_owned(),
        (WaitOutcome::TargetExited, _) => "the program ended first".to_owned(),
        (WaitOutcome::NotStarted, _) => "never started".to_owned(),
    };
    let floor = not_before.map(|ms| format!(", not before {ms} ms")).unwrap_or_default();
    format!("waited for {condition}{within}{floor}, {ended}")
}

fn filesystem(page: &mut Page, record: &CaptureRecord, scenario: &CommittedScenario) {
    page.heading("Filesystem effects");
    let effects = &record.filesystem_effects;
    if effects.is_empty() {
        let observed = !scenario.filesystem_observation_paths.is_empty();
        page.line(if observed { "  no changes under the observed paths" } else { "  no paths were observed" });
        return;
    }
    let rows: Vec<Vec<String>> = effects.iter().map(effect_row).collect();
    page.table(&["status", "path", "kind", "mode (octal)", "size", "note"], &rows);
}

/// A row of the effects table: status, path, kind, mode, size and note.
///
/// The kind column shows "-": the printer before the typed record read a
/// `kind` key, which file states do not have (theirs is `type`), and this
/// keeps its output byte for byte; showing the kind is a separate, deliberate
/// change of the output.
pub(super) fn effect_row(effect: &FileEffect) -> Vec<String> {
    let (before, after) = (effect.before.as_ref(), effect.after.as_ref());
    let side = |state: Option<&FileState>, part: fn(&FileState) -> String| state.map_or("-".to_owned(), part);
    let mode = |s: &FileState| format!("{:06o}", s.mode);
    let size = |s: &FileState| s.size.to_string();
    vec![
        effect.status.to_string(),
        effect.path.clone(),
        "-".to_owned(),
        format!("{} -> {}", side(before, mode), side(after, mode)),
        format!("{} -> {}", side(before, size), side(after, size)),
        effect.reason.map(|r| r.to_string()).unwrap_or_default(),
    ]
}
