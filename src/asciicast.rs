//! asciicast v2 export of a capture record (`rea export-asciicast`).
//!
//! One JSON header line, then one `[time, code, data]` line per event in
//! capture order: `o` for each retained output chunk (its original text,
//! `raw_data` when the record has it, else `data`), `i` for each dispatched
//! input (as recorded, so a sensitive input stays `<redacted-input:N-bytes>`),
//! `r` for each dispatched resize, and `m` markers for truncation, signals,
//! undelivered events, finalization and the exit. Format:
//! <https://docs.asciinema.org/manual/asciicast/v2/>.

use serde_json::{Value, json};

use crate::view::fields::{JournalOrder, iso8601_ms, str_at, u64_at};

/// One event of the cast.
struct CastEvent {
    at_ms: u64,
    /// Position in the capture's event journal (ties at the same millisecond).
    order: u64,
    code: &'static str,
    data: String,
}

/// The asciicast v2 text of `record` (a capture's `normalized_result`).
pub(crate) fn export(record: &Value) -> String {
    let order = JournalOrder::of(record);
    let mut events = Vec::new();
    output_events(record, &order, &mut events);
    interaction_events(record, &order, &mut events);
    events.sort_by_key(|e| (e.at_ms, e.order));
    let end_ms = events.last().map_or(0, |e| e.at_ms);
    let mut opening = truncation_markers(record);
    let closing = exit_markers(record, end_ms);

    let mut text = header(record, end_ms).to_string();
    text.push('\n');
    for event in opening.drain(..).chain(events).chain(closing) {
        let line = json!([seconds(event.at_ms), event.code, event.data]);
        text.push_str(&line.to_string());
        text.push('\n');
    }
    text
}

fn seconds(ms: u64) -> Value {
    // Exact decimal milliseconds: 1234 ms -> 1.234.
    serde_json::from_str(&format!("{}.{:03}", ms / 1000, ms % 1000)).unwrap_or(Value::Null)
}

fn header(record: &Value, end_ms: u64) -> Value {
    let scenario = &record["manifest"]["scenario"];
    let terminal = &scenario["terminal"];
    let term = str_at(scenario, &["environment", "TERM"]).unwrap_or("xterm-256color");
    let mut title = format!("rea capture: {}", crate::view::fields::command_line(scenario));
    if record["truncated"].as_bool() == Some(true) {
        title.push_str(" (truncated: see the markers)");
    }
    let mut header = json!({
        "version": 2,
        "width": u64_at(terminal, &["columns"]).unwrap_or(80),
        "height": u64_at(terminal, &["rows"]).unwrap_or(24),
        "duration": seconds(end_ms),
        "title": title,
        "env": {"TERM": term},
    });
    if let Some(start) = str_at(record, &["manifest", "started_at"]).and_then(iso8601_ms) {
        header["timestamp"] = json!(start.div_euclid(1000));
    }
    header
}

fn output_events(record: &Value, order: &JournalOrder, events: &mut Vec<CastEvent>) {
    let frames = record["frames"].as_array().map(Vec::as_slice).unwrap_or_default();
    for (index, frame) in frames.iter().enumerate() {
        let text = str_at(frame, &["raw_data"]).or_else(|| str_at(frame, &["data"])).unwrap_or_default();
        events.push(CastEvent {
            at_ms: u64_at(frame, &["at_ms"]).unwrap_or(0),
            order: order.of_entry("frames", index),
            code: "o",
            data: text.to_owned(),
        });
    }
}

fn interaction_events(record: &Value, order: &JournalOrder, events: &mut Vec<CastEvent>) {
    let interactions = record["interaction_events"].as_array().map(Vec::as_slice).unwrap_or_default();
    for (index, event) in interactions.iter().enumerate() {
        let kind = str_at(event, &["type"]).unwrap_or("event");
        let data = str_at(event, &["data"]).unwrap_or_default();
        let outcome = str_at(event, &["outcome"]).unwrap_or("unknown");
        let (code, data) = match (kind, outcome) {
            // A reply to a terminal query is input the terminal wrote, as asciinema records it.
            ("input" | "terminal_reply", "dispatched") => ("i", data.to_owned()),
            ("resize", "dispatched") => ("r", data.to_owned()),
            ("signal", "dispatched") => ("m", format!("signal {data} sent")),
            _ => ("m", format!("{kind} {data}: {outcome}")),
        };
        events.push(CastEvent {
            at_ms: u64_at(event, &["dispatched_at_ms"]).unwrap_or(0),
            order: order.of_entry("interaction_events", index),
            code,
            data,
        });
    }
}

fn marker(at_ms: u64, data: String) -> CastEvent {
    CastEvent { at_ms, order: 0, code: "m", data }
}

/// A marker at time 0 for each truncated terminal stream.
fn truncation_markers(record: &Value) -> Vec<CastEvent> {
    let details = &record["truncation_details"];
    let mut markers = Vec::new();
    let raw = &details["raw_terminal"];
    if raw["truncated"].as_bool() == Some(true) {
        markers.push(marker(
            0,
            format!(
                "rea: output truncated: {} of {} chunks retained ({} of {} bytes); the omitted output is not in this recording",
                u64_at(raw, &["retained_chunks"]).unwrap_or(0),
                u64_at(raw, &["observed_chunks"]).unwrap_or(0),
                u64_at(raw, &["retained_bytes"]).unwrap_or(0),
                u64_at(raw, &["observed_bytes"]).unwrap_or(0),
            ),
        ));
    }
    if details["normalized_terminal"]["truncated"].as_bool() == Some(true) {
        markers.push(marker(0, "rea: normalized output truncated".to_owned()));
    }
    markers
}

/// Markers for finalization signals and the exit, after the last event.
fn exit_markers(record: &Value, end_ms: u64) -> Vec<CastEvent> {
    let exit = &record["exit"];
    let mut markers = Vec::new();
    let receipts = exit["finalization"]["signals"].as_array().map(Vec::as_slice).unwrap_or_default();
    for receipt in receipts {
        let at = u64_at(receipt, &["sent_at_ms"]).unwrap_or(end_ms);
        let signal = str_at(receipt, &["signal"]).unwrap_or("signal");
        let delivery = str_at(receipt, &["delivery"]).unwrap_or("unknown");
        markers.push(marker(at.max(end_ms), format!("finalization: {signal} {delivery}")));
    }
    markers.push(marker(end_ms, format!("exit: {}", crate::view::fields::exit_summary(exit))));
    markers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Value {
        json!({
            "manifest": {"started_at": "2026-12-01T06:30:05.434Z",
                "scenario": {"executable": "/bin/sh", "arguments": ["-c", "x"], "environment": {},
                    "terminal": {"columns": 100, "rows": 30}}},
            "frames": [
                {"sequence": 0, "at_ms": 0, "data": "Name? "},
                {"sequence": 1, "at_ms": 1200, "data": "hi\r\n", "raw_data": "hi\u{1b}[0m\r\n"}
            ],
            "interaction_events": [
                {"sequence": 0, "scheduled_at_ms": 1200, "dispatched_at_ms": 1200, "type": "input",
                 "data": "<redacted-input:4-bytes>", "outcome": "dispatched"},
                {"sequence": 1, "scheduled_at_ms": 1500, "dispatched_at_ms": 1500, "type": "resize",
                 "data": "90x20", "outcome": "dispatched"},
                {"sequence": 2, "scheduled_at_ms": 1600, "dispatched_at_ms": 1600, "type": "signal",
                 "data": "SIGINT", "outcome": "target_exited"},
                {"sequence": 3, "scheduled_at_ms": null, "dispatched_at_ms": 1700, "type": "terminal_reply",
                 "query": "cursor_position", "data": "\u{1b}[2;1R", "outcome": "dispatched", "screen_before": 1}
            ],
            "event_journal": [
                {"capture_order": 0, "collection": "frames", "index": 0},
                {"capture_order": 1, "collection": "interaction_events", "index": 0},
                {"capture_order": 2, "collection": "frames", "index": 1},
                {"capture_order": 3, "collection": "interaction_events", "index": 1},
                {"capture_order": 4, "collection": "interaction_events", "index": 2},
                {"capture_order": 5, "collection": "interaction_events", "index": 3}
            ],
            "exit": {"code": null, "signal": 15, "reason": "timeout"},
            "truncated": true,
            "truncation_details": {"raw_terminal": {"truncated": true, "observed_chunks": 3, "retained_chunks": 2,
                "observed_bytes": 30, "retained_bytes": 20}}
        })
    }

    #[test]
    fn events_follow_capture_order_with_original_text() {
        let cast = export(&record());
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
}
