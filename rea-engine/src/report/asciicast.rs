//! asciicast v2 export of a capture record (`rea export-asciicast`, the MCP
//! tool `export_asciicast`).
//!
//! One JSON header line, then one `[time, code, data]` line per event in
//! capture order: `o` for each retained output chunk (its original text,
//! `raw_data` when the record has it, else `data`), `i` for each dispatched
//! input (as recorded, so a sensitive input stays `<redacted-input:N-bytes>`),
//! `r` for each dispatched resize, and `m` markers for truncation, signals,
//! undelivered events, finalization and the exit. Format:
//! <https://docs.asciinema.org/manual/asciicast/v2/>.

use serde::Serialize;

use super::text::{CommittedScenario, JournalOrder, command_line, exit_summary, iso8601_ms};
use crate::error::{Category, UserError};
use crate::evidence::{CaptureRecord, InteractionKind, InteractionOutcome, JournalCollection};

/// Why a report of a capture cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A part of the Evidence that the report reads (a capture's committed
    /// scenario, a comparison's parameters) does not have the shape this
    /// build writes.
    #[error("{source_name}: {path}: {reason}; the report reads it")]
    Malformed {
        /// File or label.
        source_name: String,
        /// JSON path in the Evidence file.
        path: String,
        /// The broken rule.
        reason: String,
    },
    /// A line of the recording could not be written as JSON.
    #[error("{source_name}: the recording could not be written as JSON: {reason}")]
    Encoding {
        /// File or label.
        source_name: String,
        /// The serializer's message.
        reason: String,
    },
}

impl UserError for ReportError {
    fn category(&self) -> Category {
        match self {
            ReportError::Malformed { .. } => Category::InvalidInput,
            ReportError::Encoding { .. } => Category::ExecutionFailure,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            ReportError::Malformed { .. } => "report_input_malformed",
            ReportError::Encoding { .. } => "report_encoding_failed",
        }
    }
    fn remediation(&self) -> String {
        match self {
            ReportError::Malformed { .. } => {
                "Give Evidence written by this version of rea (`rea capture-process SCENARIO --json > capture.json`, `rea compare-process-captures LEFT RIGHT --json > comparison.json`).".into()
            }
            ReportError::Encoding { .. } => "Report this as a bug in rea, with the capture file.".into(),
        }
    }
    fn details(&self) -> Option<serde_json::Value> {
        Some(match self {
            ReportError::Malformed { source_name, path, .. } => serde_json::json!({"file": source_name, "path": path}),
            ReportError::Encoding { source_name, .. } => serde_json::json!({"file": source_name}),
        })
    }
}

/// One event of the cast.
struct CastEvent {
    at_ms: u64,
    /// Position in the capture's event journal (ties at the same millisecond).
    order: u64,
    code: &'static str,
    data: String,
}

/// The cast's first line.
#[derive(Serialize)]
struct Header {
    version: u8,
    width: u16,
    height: u16,
    duration: f64,
    title: String,
    env: HeaderEnv,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<i64>,
}

#[derive(Serialize)]
struct HeaderEnv {
    #[serde(rename = "TERM")]
    term: String,
}

/// The asciicast v2 text of `record`, read from `source_name` (named in errors).
pub fn export(source_name: &str, record: &CaptureRecord) -> Result<String, ReportError> {
    let scenario = CommittedScenario::of(source_name, record)?;
    let order = JournalOrder::of(record);
    let mut events = output_events(record, &order);
    events.extend(interaction_events(record, &order));
    events.sort_by_key(|e| (e.at_ms, e.order));
    // Events never dispatched (no time, sorted last) are marked at the end.
    let end_ms = events.iter().map(|e| e.at_ms).filter(|&t| t != NEVER).max().unwrap_or(0);
    events.iter_mut().filter(|e| e.at_ms == NEVER).for_each(|e| e.at_ms = end_ms);
    let opening = truncation_markers(record);
    let closing = exit_markers(record, end_ms);
    let encoding =
        |e: serde_json::Error| ReportError::Encoding { source_name: source_name.to_owned(), reason: e.to_string() };
    let mut text = serde_json::to_string(&header(record, &scenario, end_ms)).map_err(encoding)?;
    text.push('\n');
    for event in opening.into_iter().chain(events).chain(closing) {
        let line = (seconds(event.at_ms), event.code, event.data);
        text.push_str(&serde_json::to_string(&line).map_err(encoding)?);
        text.push('\n');
    }
    Ok(text)
}

/// Exact decimal milliseconds: 1234 ms -> 1.234 (the nearest double, which
/// JSON writes as its shortest decimal).
fn seconds(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

fn header(record: &CaptureRecord, scenario: &CommittedScenario, end_ms: u64) -> Header {
    let term = scenario.environment.get("TERM").map_or("xterm-256color", String::as_str);
    let mut title = format!("rea capture: {}", command_line(scenario));
    if record.truncated {
        title.push_str(" (truncated: see the markers)");
    }
    Header {
        version: 2,
        width: scenario.terminal.columns,
        height: scenario.terminal.rows,
        duration: seconds(end_ms),
        title,
        env: HeaderEnv { term: term.to_owned() },
        timestamp: iso8601_ms(&record.manifest.started_at).map(|start| start.div_euclid(1000)),
    }
}

fn output_events(record: &CaptureRecord, order: &JournalOrder) -> Vec<CastEvent> {
    let frames = record.frames.iter().enumerate();
    frames
        .map(|(index, frame)| CastEvent {
            at_ms: frame.at_ms,
            order: order.of_entry(JournalCollection::Frames, index),
            code: "o",
            data: frame.raw_data.as_ref().unwrap_or(&frame.data).clone(),
        })
        .collect()
}

/// The sort key of an event that was never dispatched.
const NEVER: u64 = u64::MAX;

fn interaction_events(record: &CaptureRecord, order: &JournalOrder) -> Vec<CastEvent> {
    use InteractionKind::{Input, Resize, Signal, TerminalReply};
    let events = record.interaction_events.iter().enumerate();
    events
        .map(|(index, event)| {
            let (kind, data, outcome) = (event.kind, &event.data, event.outcome);
            let (code, data) = match (kind, outcome) {
                // A reply to a terminal query is input the terminal wrote, as asciinema records it.
                (Input | TerminalReply, InteractionOutcome::Dispatched) => ("i", data.clone()),
                (Resize, InteractionOutcome::Dispatched) => ("r", data.clone()),
                (Signal, InteractionOutcome::Dispatched) => ("m", format!("signal {data} sent")),
                _ => ("m", format!("{kind} {data}: {outcome}")),
            };
            CastEvent {
                at_ms: event.sent_at_ms().unwrap_or(NEVER),
                order: order.of_entry(JournalCollection::InteractionEvents, index),
                code,
                data,
            }
        })
        .collect()
}

fn marker(at_ms: u64, data: String) -> CastEvent {
    CastEvent { at_ms, order: 0, code: "m", data }
}

/// A marker at time 0 for each truncated terminal stream.
fn truncation_markers(record: &CaptureRecord) -> Vec<CastEvent> {
    let details = &record.truncation_details;
    let mut markers = Vec::new();
    let raw = &details.raw_terminal;
    if raw.truncated {
        markers.push(marker(
            0,
            format!(
                "rea: output truncated: {} of {} chunks retained ({} of {} bytes); the omitted output is not in this recording",
                raw.retained_chunks, raw.observed_chunks, raw.retained_bytes, raw.observed_bytes,
            ),
        ));
    }
    if details.normalized_terminal.as_ref().is_some_and(|n| n.truncated) {
        markers.push(marker(0, "rea: normalized output truncated".to_owned()));
    }
    markers
}

/// Markers for finalization signals and the exit, after the last event.
fn exit_markers(record: &CaptureRecord, end_ms: u64) -> Vec<CastEvent> {
    let exit = &record.exit;
    let receipts = exit.finalization.iter().flat_map(|f| &f.signals);
    let mut markers: Vec<CastEvent> = receipts
        .map(|receipt| {
            let text = format!("finalization: {} {}", receipt.signal, receipt.delivery);
            marker(receipt.sent_at_ms.max(end_ms), text)
        })
        .collect();
    markers.push(marker(end_ms, format!("exit: {}", exit_summary(exit))));
    markers
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::evidence::{
        ExitReason, Frame, InteractionEvent, JournalEntry, ScreenBefore, TerminalQuery, load_capture,
    };

    fn record() -> CaptureRecord {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/captures/authority.json");
        let (_, mut r) = load_capture(&path, crate::input::open_input_portable).unwrap();
        r.manifest.started_at = "2026-12-01T06:30:05.434Z".into();
        r.manifest.scenario["terminal"] = json!({"columns": 100, "rows": 30, "scrollback": 0});
        let frame = |sequence, at_ms, data: &str, raw: Option<&str>| Frame {
            sequence,
            at_ms,
            data: data.into(),
            raw_data: raw.map(str::to_owned),
            invalid_utf8: None,
        };
        r.frames = vec![frame(0, 0, "Name? ", None), frame(1, 1200, "hi\r\n", Some("hi\u{1b}[0m\r\n"))];
        let event = |sequence, at: u64, kind, data: &str, outcome| InteractionEvent {
            sequence,
            scheduled_at_ms: Some(at),
            dispatched_at_ms: Some(at),
            kind,
            data: data.into(),
            query: None,
            outcome,
            reason: None,
            screen_before: ScreenBefore::NotRecorded,
            wait: None,
        };
        let mut reply = event(3, 1700, InteractionKind::TerminalReply, "\u{1b}[2;1R", InteractionOutcome::Dispatched);
        (reply.scheduled_at_ms, reply.query) = (None, Some(TerminalQuery::CursorPosition));
        r.interaction_events = vec![
            event(0, 1200, InteractionKind::Input, "<redacted-input:4-bytes>", InteractionOutcome::Dispatched),
            event(1, 1500, InteractionKind::Resize, "90x20", InteractionOutcome::Dispatched),
            event(2, 1600, InteractionKind::Signal, "SIGINT", InteractionOutcome::TargetExited),
            reply,
        ];
        let journal = [(JournalCollection::Frames, 0), (JournalCollection::InteractionEvents, 0)];
        let more = [(JournalCollection::Frames, 1), (JournalCollection::InteractionEvents, 1)];
        let rest = [(JournalCollection::InteractionEvents, 2), (JournalCollection::InteractionEvents, 3)];
        let entries = journal.into_iter().chain(more).chain(rest).enumerate();
        r.event_journal = entries
            .map(|(order, (collection, index))| JournalEntry { capture_order: order as u64, collection, index })
            .collect();
        (r.exit.code, r.exit.signal, r.exit.reason) = (None, 15, ExitReason::Timeout);
        r.truncated = true;
        let raw = &mut r.truncation_details.raw_terminal;
        (raw.truncated, raw.observed_chunks, raw.retained_chunks, raw.observed_bytes, raw.retained_bytes) =
            (true, 3, 2, 30, 20);
        r
    }

    #[test]
    fn events_follow_capture_order_with_original_text() {
        let cast = export("capture.json", &record()).unwrap();
        let lines: Vec<Value> = cast.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines[0]["version"], 2);
        assert_eq!((lines[0]["width"].as_u64(), lines[0]["height"].as_u64()), (Some(100), Some(30)));
        assert_eq!(lines[0]["env"]["TERM"], "xterm-256color");
        assert_eq!(lines[0]["timestamp"], 1_796_106_605_i64);
        assert!(lines[0]["title"].as_str().unwrap().contains("truncated"));
        let events: Vec<(String, String, String)> = lines[1..]
            .iter()
            .map(|e| (e[0].to_string(), e[1].as_str().unwrap().to_owned(), e[2].as_str().unwrap().to_owned()))
            .collect();
        let expect = |t: &str, c: &str, d: &str| (t.to_owned(), c.to_owned(), d.to_owned());
        assert_eq!(events[0].1, "m");
        assert!(events[0].2.contains("2 of 3 chunks retained"), "{:?}", events[0]);
        assert_eq!(events[1], expect("0.0", "o", "Name? "));
        // The input precedes the output it caused (journal order), redacted as recorded.
        assert_eq!(events[2], expect("1.2", "i", "<redacted-input:4-bytes>"));
        assert_eq!(events[3], expect("1.2", "o", "hi\u{1b}[0m\r\n"));
        assert_eq!(events[4], expect("1.5", "r", "90x20"));
        assert_eq!(events[5], expect("1.6", "m", "signal SIGINT: target_exited"));
        // A reply to a terminal query is input the terminal wrote.
        assert_eq!(events[6], expect("1.7", "i", "\u{1b}[2;1R"));
        assert_eq!(events[7], expect("1.7", "m", "exit: signal 15 SIGTERM (timeout)"));
        assert_eq!(events.len(), 8);
    }

    #[test]
    fn seconds_are_the_decimal_milliseconds() {
        for (ms, text) in [(0, "0.0"), (1200, "1.2"), (1234, "1.234"), (61_001, "61.001")] {
            assert_eq!(serde_json::to_string(&seconds(ms)).unwrap(), text);
        }
    }

    #[test]
    fn a_scenario_without_a_terminal_is_refused_naming_its_path() {
        let mut r = record();
        r.manifest.scenario.as_object_mut().unwrap().remove("terminal");
        let err = export("capture.json", &r).unwrap_err();
        assert_eq!(err.code(), "report_input_malformed");
        assert!(err.to_string().contains("normalized_result.manifest.scenario.terminal"), "{err}");
    }
}
