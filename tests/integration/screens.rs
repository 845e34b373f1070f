//! Screens are the truth of a terminal (issue 19): every byte rendered,
//! terminal queries answered, screens tied to events.
#![cfg(not(feature = "force-stub"))]

use serde_json::{Value, json};

use crate::util::capture;

fn rendered(r: &Value) -> &Vec<Value> {
    r["rendered_frames"].as_array().expect("rendered_frames")
}

fn lines(frame: &Value) -> Vec<&str> {
    frame["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect()
}

fn events(r: &Value) -> &Vec<Value> {
    r["interaction_events"].as_array().expect("interaction_events")
}

/// Position of an observation in the event journal.
fn journal_position(r: &Value, collection: &str, index: u64) -> usize {
    r["event_journal"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| e["collection"] == collection && e["index"] == index)
        .unwrap_or_else(|| panic!("{collection}[{index}] is not in the journal"))
}

/// Whether `line` is the start of a row `frame NNNNNN row NN`.
fn is_row_prefix(line: &str) -> bool {
    let template = "frame DDDDDD row DD";
    line.len() <= template.len()
        && line.chars().zip(template.chars()).all(|(c, t)| if t == 'D' { c.is_ascii_digit() } else { c == t })
}

#[test]
fn a_capture_over_the_raw_budget_keeps_a_true_final_screen_without_escape_fragments() {
    // 3000 full-screen redraws in colour (about 1.4 MB) against a 100 kB budget.
    let script = r#"
import sys
out = sys.stdout
for n in range(3000):
    frame = "".join("\x1b[%d;1H\x1b[32;1mframe %06d row %02d\x1b[0m" % (row + 1, n, row) for row in range(10))
    out.write("\x1b[H\x1b[2J" + frame)
out.write("\x1b[11;1Hdone")
out.flush()
"#;
    let c = capture(json!({
        "executable": "python3",
        "arguments": ["-c", script],
        "terminal": {"columns": 40, "rows": 12},
        "limits": {"output_bytes": 100000},
        "timeout_ms": 60000
    }));
    assert_eq!(c.status, 0, "stderr: {}", c.stderr);
    let r = &c.document["normalized_result"];
    let raw = &r["truncation_details"]["raw_terminal"];
    assert_eq!(raw["truncated"], true, "the raw budget must be exceeded: {raw}");
    assert!(raw["observed_bytes"].as_u64().unwrap() > 1_000_000, "{raw}");
    let frames = rendered(r);
    let last = frames.last().expect("a final screen");
    let want: Vec<String> = (0..10).map(|row| format!("frame 002999 row {row:02}")).collect();
    assert_eq!(lines(last)[..10], want.iter().map(String::as_str).collect::<Vec<_>>()[..]);
    assert_eq!(lines(last)[10], "done");
    for (i, f) in frames.iter().enumerate() {
        for line in lines(f) {
            assert!(!line.contains('\u{1b}') && !line.contains(";1m") && !line.contains("[0m"), "frame {i}: {line:?}");
            // A state taken mid-redraw shows part of a row, never part of a sequence.
            assert!(line == "done" || is_row_prefix(line), "frame {i}: {line:?}");
        }
    }
    assert!(!r["limitations"].to_string().contains("retained chunks only"));
}

/// A program that asks its terminal for the cursor position and the device
/// attributes, each with a 2 s deadline, and prints what it got.
const ASKER: &str = r#"
import os, select, sys, termios, tty
fd = sys.stdin.fileno()
tty.setraw(fd)
def ask(query, end):
    os.write(1, query)
    got = b""
    while not got.endswith(end):
        ready, _, _ = select.select([fd], [], [], 2.0)
        if not ready:
            return "timeout"
        got += os.read(fd, 64)
    return repr(got)
os.write(1, b"abc")
cursor = ask(b"\x1b[6n", b"R")
attributes = ask(b"\x1b[c", b"c")
os.write(1, ("\r\ncursor=%s\r\nda=%s\r\n" % (cursor, attributes)).encode())
"#;

#[test]
fn a_program_that_queries_the_terminal_gets_xterms_replies_and_the_capture_records_them() {
    let c = capture(json!({
        "executable": "python3",
        "arguments": ["-c", ASKER],
        "terminal": {"columns": 50, "rows": 8},
        "timeout_ms": 20000
    }));
    assert_eq!(c.status, 0, "stderr: {}", c.stderr);
    let r = &c.document["normalized_result"];
    let last = lines(rendered(r).last().unwrap()).join("\n");
    assert!(last.contains(r"cursor=b'\x1b[1;4R'"), "{last}");
    assert!(last.contains(r"da=b'\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c'"), "{last}");
    let replies: Vec<&Value> = events(r).iter().filter(|e| e["type"] == "terminal_reply").collect();
    assert_eq!(replies.len(), 2, "{:#}", r["interaction_events"]);
    assert_eq!(
        (replies[0]["query"].as_str(), replies[0]["data"].as_str()),
        (Some("cursor_position"), Some("\x1b[1;4R"))
    );
    assert_eq!(replies[1]["query"], "primary_device_attributes");
    for reply in &replies {
        assert_eq!(reply["scheduled_at_ms"], Value::Null);
        assert_eq!(reply["outcome"], "dispatched");
        // The screen at the query shows what was printed before it.
        let seen = &rendered(r)[reply["screen_before"].as_u64().expect("a frame") as usize];
        assert_eq!(lines(seen)[0], "abc");
        assert_eq!(seen["cursor_x"], 3);
    }
    assert_eq!(r["manifest"]["comparison_contract"]["terminal_query_replies"], "xterm-v1");
    assert_eq!(r["manifest"]["scenario"]["terminal_query_replies"], "xterm-v1");
}

#[test]
fn answer_queries_false_sends_nothing_and_leaves_the_contract_as_before() {
    let c = capture(json!({
        "executable": "python3",
        "arguments": ["-c", ASKER.replace("2.0", "0.3")],
        "terminal": {"columns": 50, "rows": 8, "answer_queries": false},
        "timeout_ms": 20000
    }));
    assert_eq!(c.status, 0, "stderr: {}", c.stderr);
    let r = &c.document["normalized_result"];
    let last = lines(rendered(r).last().unwrap()).join("\n");
    assert!(last.contains("cursor=timeout") && last.contains("da=timeout"), "{last}");
    assert!(events(r).is_empty());
    let contract = &r["manifest"]["comparison_contract"];
    assert!(contract.get("terminal_query_replies").is_none(), "{contract}");
    assert_eq!(contract["terminal"], json!({"columns": 50, "rows": 8, "scrollback": 1000}));
}

#[test]
fn screen_before_names_the_frame_each_event_saw_and_a_resize_frame_follows_its_event() {
    // Prints a prompt, echoes its input after a newline, reports its size on SIGWINCH.
    let script = r#"
trap 'set -- $(stty size); printf "size %sx%s\n" "$1" "$2"' WINCH
printf 'prompt> '
read line
printf 'got %s\n' "$line"
while :; do sleep 0.05; done
"#;
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", script],
        "terminal": {"columns": 30, "rows": 5},
        "events": [
            {"type": "input", "at_ms": 1000, "data": "hello\r"},
            {"type": "resize", "at_ms": 2500, "columns": 40, "rows": 6},
            {"type": "signal", "at_ms": 4000, "signal": "SIGTERM"}
        ],
        "timeout_ms": 20000
    }));
    let r = &c.document["normalized_result"];
    let frames = rendered(r);
    let ev = events(r);
    assert_eq!(ev.len(), 3, "{:#}", r["interaction_events"]);
    let seen = |i: usize| &frames[ev[i]["screen_before"].as_u64().expect("a frame") as usize];
    assert_eq!(lines(seen(0))[0], "prompt>");
    assert_eq!(lines(seen(1))[..2], ["prompt> hello", "got hello"]);
    assert_eq!((seen(1)["columns"].as_u64(), seen(1)["rows"].as_u64()), (Some(30), Some(5)));
    // The first frame at the new size comes after the resize event.
    let resized = frames.iter().position(|f| f["columns"] == 40).expect("a frame at 40x6");
    assert!(journal_position(r, "interaction_events", 1) < journal_position(r, "rendered_frames", resized as u64));
    assert!(resized as u64 > ev[1]["screen_before"].as_u64().unwrap());
    let after_resize = seen(2);
    assert!(lines(after_resize).contains(&"size 6x40"), "{after_resize:#}");
}
