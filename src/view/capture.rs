//! The view of a capture: header, final screen, timeline, filesystem
//! effects, limitations.

use serde_json::Value;

use super::fields::{JournalOrder, at, command_line, escape_excerpt, exit_summary, iso8601_ms, list, str_at, u64_at};
use super::{Page, Style, Tone, limitations};

/// Output segments shown at each end of a long timeline.
const SEGMENTS_AT_EACH_END: usize = 12;
/// Characters of an output segment shown in the timeline.
const EXCERPT_CHARS: usize = 60;

/// The capture's view; `screens` adds the screen each interaction event saw.
pub(super) fn render(page: &mut Page, envelope: &Value, screens: bool) {
    let record = &envelope["normalized_result"];
    header(page, record);
    screen(page, record);
    if screens {
        event_screens(page, record);
    }
    timeline(page, record);
    filesystem(page, record);
    limitations(page, envelope);
}

fn header(page: &mut Page, record: &Value) {
    let style = page.style();
    let scenario = &record["manifest"]["scenario"];
    page.field("command", &command_line(scenario));
    page.field("directory", str_at(scenario, &["working_directory"]).unwrap_or("(absent)"));
    let columns = u64_at(scenario, &["terminal", "columns"]);
    let rows = u64_at(scenario, &["terminal", "rows"]);
    if let (Some(c), Some(r)) = (columns, rows) {
        page.field("terminal", &format!("{c}x{r}"));
    }
    let started = str_at(record, &["manifest", "started_at"]);
    let completed = str_at(record, &["manifest", "completed_at"]);
    let duration = match (started.and_then(iso8601_ms), completed.and_then(iso8601_ms)) {
        (Some(s), Some(c)) => format!("{} ms", c - s),
        _ => "unknown".to_owned(),
    };
    page.field("started", &format!("{}, ran {duration}", started.unwrap_or("(absent)")));
    let exit = &record["exit"];
    let exit_tone = match (at(exit, &["code"]).and_then(Value::as_i64), str_at(exit, &["reason"])) {
        (Some(0), Some("exited")) => Tone::Good,
        _ => Tone::Bad,
    };
    page.field("exit", &style.paint(exit_tone, &exit_summary(exit)));
    let settlement = &record["settlement"];
    page.field(
        "settlement",
        &format!(
            "{} after {} ms, cleanup {}",
            style.status(str_at(settlement, &["state"]).unwrap_or("unknown")),
            u64_at(settlement, &["elapsed_ms"]).map_or("?".to_owned(), |v| v.to_string()),
            style.status(str_at(settlement, &["cleanup_outcome"]).unwrap_or("unknown")),
        ),
    );
    cleanup(page, &record["cleanup"]);
    truncation(page, record);
    for unknown in list(record, &["residual_unknowns"]) {
        let scope = str_at(unknown, &["scope"]).unwrap_or("?");
        let reason = str_at(unknown, &["reason"]).unwrap_or_default();
        page.field("unknown", &format!("{} {reason}", style.paint(Tone::Doubt, &format!("{scope}:"))));
    }
}

fn cleanup(page: &mut Page, cleanup: &Value) {
    let style = page.style();
    let word = |key: &str| style.status(str_at(cleanup, &[key]).unwrap_or("unknown"));
    let mut text = format!(
        "process group {}, temporary root {}, renderer {}, signals via {}",
        word("owned_process_group"),
        word("temporary_root"),
        word("terminal_renderer"),
        str_at(cleanup, &["signal_mechanism"]).unwrap_or("unknown"),
    );
    let unverified = list(cleanup, &["unverified_processes"]);
    if !unverified.is_empty() {
        let pids: Vec<String> = unverified
            .iter()
            .map(|p| {
                format!(
                    "PID {} ({})",
                    u64_at(p, &["pid"]).unwrap_or(0),
                    str_at(p, &["reason"]).unwrap_or("no reason recorded")
                )
            })
            .collect();
        text.push_str(&style.paint(Tone::Bad, &format!("; left unverified: {}", pids.join(", "))));
    }
    page.field("cleanup", &text);
}

/// One line per truncated observation, naming what was omitted.
fn truncation(page: &mut Page, record: &Value) {
    let style = page.style();
    let details = at(record, &["truncation_details"]).and_then(Value::as_object);
    let mut any = false;
    for (name, detail) in details.into_iter().flatten() {
        if detail["truncated"].as_bool() != Some(true) {
            continue;
        }
        any = true;
        let why: Vec<String> = detail
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(key, value)| match value {
                Value::Number(n) if (key.contains("omitted") || key.contains("unknown")) && n.as_u64() != Some(0) => {
                    Some(format!("{key}={n}"))
                }
                Value::Bool(true) if key != "truncated" => Some(key.clone()),
                Value::Array(items) if !items.is_empty() && key.contains("omission") => {
                    Some(format!("{key}: {} entries", items.len()))
                }
                _ => None,
            })
            .collect();
        let why = match (name.as_str(), why.is_empty()) {
            ("document", _) => format!(
                "{} bytes as JSON, over the {}-byte bound; {}",
                detail["observed_bytes"],
                detail["budget_bytes"],
                why.join(", ")
            ),
            (_, true) if details.is_some_and(|d| d.contains_key("document")) => {
                "its latest observations left out for the document bound".to_owned()
            }
            _ => why.join(", "),
        };
        page.field("truncated", &style.paint(Tone::Doubt, &format!("{name}: {why}")));
    }
    if !any {
        let word = if record["truncated"].as_bool() == Some(true) { "yes (no details)" } else { "nothing" };
        page.field("truncated", word);
    }
}

/// The last rendered frame in a box of its size, or the tail of the output.
fn screen(page: &mut Page, record: &Value) {
    let style = page.style();
    if let Some(frame) = list(record, &["rendered_frames"]).last() {
        page.heading(&format!("Final screen ({})", frame_summary(frame)));
        boxed_frame(page, frame);
        return;
    }
    let scenario = &record["manifest"]["scenario"];
    let columns = u64_at(scenario, &["terminal", "columns"]).unwrap_or(80) as usize;
    let rows = u64_at(scenario, &["terminal", "rows"]).unwrap_or(24) as usize;
    page.heading("Final screen");
    page.line(&style.paint(
        Tone::Doubt,
        &format!("  No rendered frames in this capture; the last {rows} lines of the normalized output follow (not a rendered screen: escape sequences shown as \\e)."),
    ));
    let text: String = list(record, &["frames"]).iter().filter_map(|f| f["data"].as_str()).collect();
    let all: Vec<String> = text.split('\n').map(|l| escape_excerpt(l.trim_end_matches('\r'), columns)).collect();
    let tail = &all[all.len().saturating_sub(rows)..];
    boxed(page, tail, columns, tail.len());
}

/// A rendered frame's sequence, time, size, cursor and buffer.
fn frame_summary(frame: &Value) -> String {
    format!(
        "rendered frame {} at {} ms, {}x{}, cursor row {} column {}, {} buffer",
        u64_at(frame, &["sequence"]).unwrap_or(0),
        u64_at(frame, &["at_ms"]).unwrap_or(0),
        u64_at(frame, &["columns"]).unwrap_or(80),
        u64_at(frame, &["rows"]).unwrap_or(24),
        u64_at(frame, &["cursor_y"]).unwrap_or(0),
        u64_at(frame, &["cursor_x"]).unwrap_or(0),
        str_at(frame, &["active_buffer"]).unwrap_or("unknown"),
    )
}

/// A rendered frame's lines in a box of its size.
fn boxed_frame(page: &mut Page, frame: &Value) {
    let columns = u64_at(frame, &["columns"]).unwrap_or(80) as usize;
    let rows = u64_at(frame, &["rows"]).unwrap_or(24) as usize;
    let lines: Vec<String> =
        list(frame, &["lines"]).iter().map(|l| l.as_str().unwrap_or_default().to_owned()).collect();
    boxed(page, &lines, columns, rows);
}

/// The screen each interaction event saw (`screen_before`), in event order.
fn event_screens(page: &mut Page, record: &Value) {
    let style = page.style();
    page.heading("Screens at events");
    let events = list(record, &["interaction_events"]);
    if events.is_empty() {
        page.line(&style.paint(Tone::Quiet, "  No interaction events."));
    }
    let frames = list(record, &["rendered_frames"]);
    for (index, event) in events.iter().enumerate() {
        let kind = str_at(event, &["type"]).unwrap_or("event");
        let data = escape_excerpt(str_at(event, &["data"]).unwrap_or_default(), EXCERPT_CHARS);
        let at_ms = u64_at(event, &["dispatched_at_ms"]).unwrap_or(0);
        let title = format!("  event #{index} {kind} \"{data}\" at {at_ms} ms saw");
        match event.get("screen_before") {
            Some(Value::Null) => page.line(&format!("{title} a blank screen (nothing was drawn yet)")),
            Some(n) => match n.as_u64().and_then(|n| frames.get(n as usize)) {
                Some(frame) => {
                    page.line(&format!("{title} {}", frame_summary(frame)));
                    boxed_frame(page, frame);
                }
                None => page.line(&style.paint(Tone::Bad, &format!("{title} rendered frame {n}, which is not in the record"))),
            },
            None => page.line(&style.paint(
                Tone::Doubt,
                &format!("{title} a screen that is not recorded (not kept within the rendered budget, or a capture from before screen_before)"),
            )),
        }
    }
}

/// `lines` in a box `columns` wide and `rows` high.
fn boxed(page: &mut Page, lines: &[String], columns: usize, rows: usize) {
    page.line(&format!("┌{}┐", "─".repeat(columns)));
    for row in 0..rows {
        let line = lines.get(row).map_or("", String::as_str);
        let cut: String = line.chars().take(columns).collect();
        let pad = columns - cut.chars().count();
        page.line(&format!("│{cut}{}│", " ".repeat(pad)));
    }
    page.line(&format!("└{}┘", "─".repeat(columns)));
}

/// One timeline entry.
struct Entry {
    at_ms: u64,
    order: u64,
    text: String,
}

fn timeline(page: &mut Page, record: &Value) {
    page.heading("Timeline");
    let journal = JournalOrder::of(record);
    let mut entries = output_entries(page.style(), record, &journal);
    entries.extend(interaction_entries(page.style(), record, &journal));
    let finalization = &record["exit"]["finalization"];
    entries.extend(list(finalization, &["signals"]).iter().map(|receipt| Entry {
        at_ms: u64_at(receipt, &["sent_at_ms"]).unwrap_or(0),
        order: u64::MAX,
        text: format!(
            "finalization {} {}{}",
            str_at(receipt, &["signal"]).unwrap_or("signal"),
            str_at(receipt, &["delivery"]).unwrap_or("unknown"),
            str_at(receipt, &["reason"]).map(|r| format!(": {r}")).unwrap_or_default()
        ),
    }));
    entries.sort_by_key(|e| (e.at_ms, e.order));
    for entry in &entries {
        page.line(&format!("  {:>7} ms  {}", entry.at_ms, entry.text));
    }
    if let Some(requested) = u64_at(finalization, &["requested_ms"]) {
        let elapsed = u64_at(finalization, &["elapsed_ms"]).map_or("unknown".to_owned(), |e| format!("{e} ms"));
        page.line(&format!("  finalization: {requested} ms granted, took {elapsed}"));
    }
    page.line(&format!("  end: exit {}", exit_summary(&record["exit"])));
}

/// One entry per output segment; a long capture keeps the first and last
/// [`SEGMENTS_AT_EACH_END`] and says how many it left out.
fn output_entries(style: Style, record: &Value, journal: &JournalOrder) -> Vec<Entry> {
    let frames = list(record, &["frames"]);
    let skip = frames.len().saturating_sub(2 * SEGMENTS_AT_EACH_END);
    let hidden = SEGMENTS_AT_EACH_END..SEGMENTS_AT_EACH_END + skip;
    let mut entries = Vec::new();
    for (index, frame) in frames.iter().enumerate() {
        let at_ms = u64_at(frame, &["at_ms"]).unwrap_or(0);
        let order = journal.of_entry("frames", index);
        if skip > 0 && index == hidden.start {
            let text = style.paint(Tone::Quiet, &format!("… {skip} output segments not shown …"));
            entries.push(Entry { at_ms, order, text });
        }
        if hidden.contains(&index) {
            continue;
        }
        let data = str_at(frame, &["data"]).unwrap_or_default();
        let sequence = u64_at(frame, &["sequence"]).unwrap_or(index as u64);
        let text = format!("output #{sequence} {} bytes \"{}\"", data.len(), escape_excerpt(data, EXCERPT_CHARS));
        entries.push(Entry { at_ms, order, text });
    }
    entries
}

/// One entry per interaction event (input, resize, signal, terminal reply) with its outcome.
fn interaction_entries(style: Style, record: &Value, journal: &JournalOrder) -> Vec<Entry> {
    let events = list(record, &["interaction_events"]).iter().enumerate();
    events
        .map(|(index, event)| {
            let kind = str_at(event, &["type"]).unwrap_or("event");
            let data = escape_excerpt(str_at(event, &["data"]).unwrap_or_default(), EXCERPT_CHARS);
            let outcome = style.status(str_at(event, &["outcome"]).unwrap_or("unknown"));
            let reason = str_at(event, &["reason"]).map(|r| format!(": {r}")).unwrap_or_default();
            let when = match (u64_at(event, &["scheduled_at_ms"]), str_at(event, &["query"])) {
                (Some(scheduled), _) => format!("scheduled {scheduled} ms"),
                (None, Some(query)) => format!("reply to {query}"),
                (None, None) => "not scheduled".to_owned(),
            };
            Entry {
                at_ms: u64_at(event, &["dispatched_at_ms"]).unwrap_or(0),
                order: journal.of_entry("interaction_events", index),
                text: format!("{kind} \"{data}\" {outcome}{reason} ({when})"),
            }
        })
        .collect()
}

fn filesystem(page: &mut Page, record: &Value) {
    page.heading("Filesystem effects");
    let effects = list(record, &["filesystem_effects"]);
    if effects.is_empty() {
        let observed = !list(record, &["manifest", "scenario", "filesystem_observation_paths"]).is_empty();
        page.line(if observed { "  no changes under the observed paths" } else { "  no paths were observed" });
        return;
    }
    let state = |effect: &Value, side: &str, key: &str| -> String {
        match at(effect, &[side, key]) {
            Some(Value::Number(n)) if key == "mode" => n.as_u64().map_or(n.to_string(), |m| format!("{m:06o}")),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.clone(),
            _ => "-".to_owned(),
        }
    };
    let rows: Vec<Vec<String>> = effects
        .iter()
        .map(|e| {
            let before = (state(e, "before", "kind"), state(e, "before", "mode"), state(e, "before", "size"));
            let after = (state(e, "after", "kind"), state(e, "after", "mode"), state(e, "after", "size"));
            vec![
                str_at(e, &["status"]).unwrap_or("?").to_owned(),
                str_at(e, &["path"]).unwrap_or("?").to_owned(),
                if before.0 == after.0 { after.0 } else { format!("{} -> {}", before.0, after.0) },
                format!("{} -> {}", before.1, after.1),
                format!("{} -> {}", before.2, after.2),
                str_at(e, &["reason"]).unwrap_or_default().to_owned(),
            ]
        })
        .collect();
    page.table(&["status", "path", "kind", "mode (octal)", "size", "note"], &rows);
}
