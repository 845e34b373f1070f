//! Comparison of behaviour, not transport: engine tests on built records.

use serde_json::{Value, json};

use super::CompareOptions;
use super::trace::testkit::{RecordBuilder, compare_records, compare_records_with};
use crate::evidence::{CaptureRecord, ProcessSample};

fn dimension<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["dimensions"].as_array().unwrap().iter().find(|d| d["dimension"] == name).unwrap()
}

fn status(result: &Value, name: &str) -> String {
    dimension(result, name)["status"].as_str().unwrap().to_owned()
}

#[test]
fn the_same_text_in_other_chunks_at_other_times_is_unchanged() {
    let a = RecordBuilder::new().frame(0, "hel").frame(10, "lo\r\n").frame(10, "bye\r\n").exit(0).settle(50).build();
    let b = RecordBuilder::new().frame(40, "hello\r").frame(90, "\nbye\r\n").exit(0).settle(61).build();
    let result = compare_records(&a, &b, None);
    assert_eq!(result["status"], "unchanged", "{result}");
    assert_eq!(result["first_divergence"], json!({"status": "none"}));
    assert_eq!(dimension(&result, "terminal")["differences"], json!([]));
    // The settlement delta is listed although within the tolerance.
    let deltas = &dimension(&result, "exit")["timing_deltas"];
    assert_eq!(
        deltas,
        &json!([{"path": "settlement.elapsed_ms", "left_ms": 50, "right_ms": 61, "delta_ms": 11, "within_tolerance": true}])
    );
}

fn prompt(answer: &str) -> CaptureRecord {
    RecordBuilder::new()
        .frame(0, "name? ")
        .input(100, 101, "ada\r")
        .frame(110, "ada\r\n")
        .frame(120, &format!("hello ada\r\nanswer {answer}\r\n"))
        .exit(0)
        .settle(50)
        .build()
}

#[test]
fn a_changed_byte_is_located_by_segment_line_and_column() {
    let result = compare_records(&prompt("42"), &prompt("43"), None);
    assert_eq!(result["status"], "changed");
    assert_eq!(status(&result, "terminal"), "changed");
    assert_eq!(status(&result, "interaction"), "unchanged");
    let d = &dimension(&result, "terminal")["differences"];
    assert_eq!(d.as_array().unwrap().len(), 1);
    assert_eq!(d[0]["path"], "terminal.segments[1]");
    assert_eq!(d[0]["location"], json!({"segment": 1, "byte_offset": 24, "line": 3, "column": 9}));
    assert_eq!(d[0]["left"], "ada\r\nhello ada\r\nanswer 42\r\n");
    assert_eq!(d[0]["right"], "ada\r\nhello ada\r\nanswer 43\r\n");
    let first = &result["first_divergence"];
    assert_eq!(first["status"], "found");
    assert_eq!(first["dimension"], "terminal");
    assert_eq!(first["path"], "terminal.segments[1]");
    assert_eq!(first["segment"], 1);
}

#[test]
fn a_prompt_printed_after_the_input_is_a_difference_in_the_first_segment() {
    let before = prompt("42");
    let after = RecordBuilder::new()
        .input(100, 101, "ada\r")
        .frame(110, "name? ")
        .frame(110, "ada\r\n")
        .frame(120, "hello ada\r\nanswer 42\r\n")
        .exit(0)
        .settle(50)
        .build();
    let result = compare_records(&before, &after, None);
    assert_eq!(status(&result, "terminal"), "changed");
    let first = &result["first_divergence"];
    assert_eq!(first["path"], "terminal.segments[0]", "{first}");
    assert_eq!(first["location"], json!({"segment": 0, "byte_offset": 0, "line": 1, "column": 1}));
    assert_eq!((first["left"].as_str(), first["right"].as_str()), (Some("name? "), Some("")));
}

#[test]
fn screens_count_at_segment_ends_only_and_a_cell_is_located() {
    let a = RecordBuilder::new()
        .rendered(0, &["loading"])
        .rendered(5, &["$ ready", "value 42"])
        .input(100, 101, "q")
        .rendered(150, &["bye"])
        .exit(0)
        .build();
    // No intermediate screen, other times: the same behaviour.
    let b = RecordBuilder::new()
        .rendered(20, &["$ ready", "value 42"])
        .input(100, 130, "q")
        .rendered(170, &["bye"])
        .exit(0)
        .build();
    assert_eq!(compare_records(&a, &b, None)["status"], "unchanged");
    let c = RecordBuilder::new()
        .rendered(20, &["$ ready", "value 43"])
        .input(100, 130, "q")
        .rendered(170, &["bye"])
        .exit(0)
        .build();
    let result = compare_records(&a, &c, None);
    assert_eq!(status(&result, "terminal"), "changed");
    let first = &result["first_divergence"];
    assert_eq!(first["path"], "terminal.screens[0].lines[1]", "{first}");
    assert_eq!(first["location"], json!({"segment": 0, "row": 2, "column": 8}));
    assert_eq!((first["left"].as_str(), first["right"].as_str()), (Some("value 42"), Some("value 43")));
}

#[test]
fn a_screen_never_drawn_is_the_blank_screen_of_its_size() {
    let undrawn = RecordBuilder::new().input(100, 101, "q").rendered(150, &["bye"]).exit(0).build();
    let blank =
        RecordBuilder::new().rendered(10, &[""; 24]).input(100, 101, "q").rendered(150, &["bye"]).exit(0).build();
    let result = compare_records(&undrawn, &blank, None);
    assert_eq!(status(&result, "terminal"), "unchanged", "{result}");
    let drawn = RecordBuilder::new().rendered(10, &["x"]).input(100, 101, "q").rendered(150, &["bye"]).exit(0).build();
    let result = compare_records(&undrawn, &drawn, None);
    assert_eq!(result["first_divergence"]["path"], "terminal.screens[0].lines[0]", "{result}");
    assert_eq!(
        (result["first_divergence"]["left"].as_str(), result["first_divergence"]["right"].as_str()),
        (Some(""), Some("x"))
    );
}

#[test]
fn terminal_replies_cut_no_segment_and_compare_apart_from_scripted_events() {
    use crate::evidence::TerminalQuery::{CursorPosition, PrimaryDeviceAttributes};
    let a = RecordBuilder::new()
        .frame(0, "$ ")
        .reply(5, CursorPosition, "\x1b[1;3R")
        .frame(6, "x")
        .input(100, 101, "q")
        .frame(110, "bye")
        .exit(0)
        .build();
    // The same text in one read, the reply after it: the same behaviour.
    let b = RecordBuilder::new()
        .frame(0, "$ x")
        .reply(7, CursorPosition, "\x1b[1;3R")
        .input(100, 101, "q")
        .frame(110, "bye")
        .exit(0)
        .build();
    let result = compare_records(&a, &b, None);
    assert_eq!(result["status"], "unchanged", "{result}");
    let c = RecordBuilder::new()
        .frame(0, "$ x")
        .reply(5, PrimaryDeviceAttributes, "\x1b[?64c")
        .input(100, 101, "q")
        .frame(110, "bye")
        .exit(0)
        .build();
    let result = compare_records(&a, &c, None);
    let d = &dimension(&result, "interaction")["differences"];
    assert_eq!(d[0]["path"], "terminal_replies[0].query", "{result}");
    assert_eq!(d[0]["deciding"], false, "replies are information: {result}");
    assert_eq!(status(&result, "terminal"), "unchanged", "{result}");
    assert_eq!(status(&result, "interaction"), "unchanged", "{result}");
    assert_eq!(result["status"], "unchanged", "{result}");
}

#[test]
fn replies_on_one_side_only_never_decide_the_interaction() {
    use crate::evidence::TerminalQuery::CursorPosition;
    // BusyBox bc asks for the cursor before each prompt; GNU bc does not.
    let asks = RecordBuilder::new()
        .frame(0, "> ")
        .reply(2, CursorPosition, "\x1b[1;1R")
        .input(100, 101, "1+1\r")
        .frame(110, "2\r\n> ")
        .reply(111, CursorPosition, "\x1b[2;1R")
        .exit(0)
        .build();
    let silent = RecordBuilder::new().frame(0, "> ").input(100, 101, "1+1\r").frame(110, "2\r\n> ").exit(0).build();
    for (l, r) in [(&asks, &silent), (&silent, &asks)] {
        let result = compare_records(l, r, None);
        assert_eq!(status(&result, "interaction"), "unchanged", "{result}");
        assert_eq!(result["status"], "unchanged", "{result}");
        assert_eq!(result["first_divergence"]["status"], "none", "{result}");
        let d = dimension(&result, "interaction")["differences"].as_array().unwrap().clone();
        let paths: Vec<&str> = d.iter().map(|x| x["path"].as_str().unwrap()).collect();
        assert_eq!(paths, ["terminal_replies[0]", "terminal_replies[1]"], "{result}");
        assert!(d.iter().all(|x| x["deciding"] == false), "{result}");
    }
    // A scripted event on one side only still decides.
    let more = RecordBuilder::new().frame(0, "> ").input(100, 101, "1+1\r").input(200, 201, "q").exit(0).build();
    assert_eq!(status(&compare_records(&silent, &more, None), "interaction"), "changed");
}

#[test]
fn timing_differs_only_beyond_the_tolerance() {
    let a = RecordBuilder::new().input(100, 101, "x\r").exit(0).settle(50).build();
    let b = RecordBuilder::new().input(100, 180, "x\r").exit(0).settle(200).build();
    let default = compare_records(&a, &b, None);
    assert_eq!(default["status"], "unchanged", "{default}");
    let deltas = &dimension(&default, "interaction")["timing_deltas"];
    assert_eq!(deltas[0]["path"], "interaction_events[0].dispatched_at_ms");
    assert_eq!(deltas[0]["delta_ms"], 79);
    let strict =
        compare_records_with(&a, &b, None, CompareOptions { timing_tolerance_ms: 0, ..CompareOptions::default() });
    assert_eq!(status(&strict, "interaction"), "changed");
    assert_eq!(status(&strict, "exit"), "changed");
    assert_eq!(dimension(&strict, "exit")["differences"][0]["path"], "settlement.elapsed_ms");
    // The interaction happened before the exit.
    assert_eq!(strict["first_divergence"]["path"], "interaction_events[0].dispatched_at_ms");
    let tight =
        compare_records_with(&a, &b, None, CompareOptions { timing_tolerance_ms: 100, ..CompareOptions::default() });
    assert_eq!((status(&tight, "interaction"), status(&tight, "exit")), ("unchanged".into(), "changed".into()));
}

fn child(mut r: CaptureRecord, at_ms: u64, command: &str) -> CaptureRecord {
    r.process_samples.push(ProcessSample {
        at_ms,
        pid: 2,
        parent_pid: 1,
        command: Some(command.into()),
        command_unread: None,
        process_group_id: Some(1),
        session_id: Some(1),
        exit: None,
    });
    r
}

#[test]
fn process_sampling_is_honest_and_never_the_first_divergence() {
    // The root's own command line may differ.
    let a = RecordBuilder::new().sample(0, "/authority/bin/tool --x").exit(0).build();
    let b = RecordBuilder::new().sample(0, "/rewrite/tool --x").exit(0).build();
    assert_eq!(compare_records(&a, &b, None)["status"], "unchanged");
    // A child seen in one pass may have been missed on the other side.
    let once = child(b.clone(), 10, "sleep 1");
    let result = compare_records(&a, &once, None);
    assert_eq!(status(&result, "process"), "unknown");
    assert_eq!(result["status"], "unknown");
    assert_eq!(result["first_divergence"], json!({"status": "none"}));
    assert_eq!(dimension(&result, "process")["differences"][0]["right"], "seen in 1 sampling passes");
    // Seen in two passes: a proven difference, but still not the first divergence.
    let twice = child(child(b.clone(), 10, "sleep 1"), 20, "sleep 1");
    let result = compare_records(&a, &twice, None);
    assert_eq!(status(&result, "process"), "changed");
    assert_eq!(result["first_divergence"]["status"], "unknown");
    let mut with_exit = twice;
    with_exit.exit.code = Some(1);
    let result = compare_records(&a, &with_exit, None);
    assert_eq!(result["first_divergence"]["path"], "exit.code");
}

fn truncated_text(text: &str) -> CaptureRecord {
    RecordBuilder::new().frame(0, text).dropped_frame().exit(0).build()
}

#[test]
fn a_difference_in_the_retained_part_of_a_truncated_terminal_is_changed() {
    let body = "0123456789abcdef\r\n".repeat(20_000);
    let same = compare_records(&truncated_text(&body), &truncated_text(&body), None);
    assert_eq!(status(&same, "terminal"), "truncated");
    let changed = body.replacen("0123", "0124", 1);
    let result = compare_records(&truncated_text(&body), &truncated_text(&changed), None);
    assert_eq!(status(&result, "terminal"), "changed");
    assert_eq!(result["status"], "changed");
    // Near the end, later chunks may follow an omission: not proof.
    let mut tail = body.clone();
    tail.replace_range(body.len() - 4..body.len() - 3, "X");
    let result = compare_records(&truncated_text(&body), &truncated_text(&tail), None);
    assert_eq!(status(&result, "terminal"), "truncated");
    assert_eq!(dimension(&result, "terminal")["differences"][0]["path"], "terminal.segments[0]");
}

#[test]
fn differences_are_bounded_and_counted() {
    let mut a = RecordBuilder::new().exit(0);
    let mut b = RecordBuilder::new().exit(0);
    for i in 0..25 {
        a = a.created_file(&format!("f{i:02}"), "aa");
        b = b.created_file(&format!("f{i:02}"), "bb");
    }
    let result = compare_records(&a.build(), &b.build(), None);
    let fs = dimension(&result, "filesystem");
    assert_eq!(fs["status"], "changed");
    // Only the digest differs: one difference per file.
    assert_eq!(fs["differences"].as_array().unwrap().len(), 20);
    assert_eq!(fs["differences_omitted"], 5);
    assert_eq!(fs["differences"][0]["path"], "files_after[\"root_0:f00\"].sha256");
    assert_eq!(fs["differences"][0]["left"], "aa");
}

#[test]
fn outputs_differing_only_in_an_invalid_byte_are_changed() {
    let with = |hex: &str| {
        let mut r = RecordBuilder::new().frame(0, "a\u{FFFD}b\r\n").exit(0).build();
        r.frames[0].invalid_utf8 = Some(hex.into());
        r
    };
    assert_eq!(compare_records(&with("ff"), &with("ff"), None)["status"], "unchanged");
    let result = compare_records(&with("ff"), &with("fe"), None);
    assert_eq!(status(&result, "terminal"), "changed");
    assert_eq!(result["first_divergence"]["path"], "terminal.segments[0].invalid_utf8");
    assert_eq!(
        (result["first_divergence"]["left"].as_str(), result["first_divergence"]["right"].as_str()),
        (Some("ff"), Some("fe"))
    );
    // A real U+FFFD printed by the program is not an invalid byte.
    let printed = RecordBuilder::new().frame(0, "a\u{FFFD}b\r\n").exit(0).build();
    assert_eq!(status(&compare_records(&printed, &with("ff"), None), "terminal"), "changed");
}

/// `r` as the document bound leaves it: its process samples left out.
fn samples_left_out(mut r: CaptureRecord) -> CaptureRecord {
    let omitted = r.process_samples.len() as u64;
    r.process_samples.clear();
    r.truncation_details.process.truncated = true;
    r.truncation_details.document = Some(crate::evidence::DocumentTruncation {
        truncated: true,
        budget_bytes: 62_914_560,
        observed_bytes: 70_000_000,
        omitted_rendered_frames: 0,
        omitted_process_samples: omitted,
        omitted_paths: 0,
        omitted_frames: 0,
    });
    r
}

#[test]
fn what_the_document_bound_left_out_is_named_even_where_the_dimension_is_unknown() {
    let full = child(child(RecordBuilder::new().sample(0, "tool").exit(0).build(), 10, "sleep 1"), 20, "sleep 1");
    let fitted = samples_left_out(full.clone());
    let bound = "Right capture left out its latest 3 process samples to keep its document within 62914560 bytes.";
    let result = compare_records(&full, &fitted, None);
    assert_eq!(status(&result, "process"), "truncated", "{result}");
    assert!(dimension(&result, "process")["reasons"].as_array().unwrap().iter().any(|r| r == bound), "{result}");
    // A residual unknown makes the dimension unknown; the reason for what
    // was left out is still given beside it.
    let mut sampled = fitted;
    sampled.residual_unknowns.push(crate::evidence::ResidualUnknown {
        scope: crate::evidence::ResidualScope::Process,
        reason: "Process trees are sampled and may omit short-lived descendants.".into(),
    });
    let result = compare_records(&full, &sampled, None);
    assert_eq!(status(&result, "process"), "unknown");
    let reasons = &dimension(&result, "process")["reasons"];
    assert_eq!(reasons[0], "Process trees are sampled and may omit short-lived descendants.");
    assert!(reasons.as_array().unwrap().iter().any(|r| r == bound), "{reasons}");
}

/// A record whose process rows are an exact journal: the root, then
/// `(pid, parent, command, exit code)` rows.
fn journaled(rows: &[(u64, u64, &str, i64)]) -> CaptureRecord {
    let mut r = RecordBuilder::new().sample(0, "sh -c script").exit(0).build();
    r.truncation_details.process.coverage = crate::evidence::ProcessCoverage::Exact;
    r.residual_unknowns.retain(|u| u.scope != crate::evidence::ResidualScope::Process);
    r.process_samples[0].exit = Some(crate::evidence::ProcessExit { code: Some(0), signal: 0 });
    for &(pid, parent_pid, command, code) in rows {
        r.process_samples.push(ProcessSample {
            at_ms: pid * 7,
            pid,
            parent_pid,
            command: Some(command.into()),
            command_unread: None,
            process_group_id: None,
            session_id: None,
            exit: Some(crate::evidence::ProcessExit { code: Some(code), signal: 0 }),
        });
    }
    r
}

#[test]
fn exact_journals_compare_structurally_and_name_the_command() {
    let a = journaled(&[(2, 1, "date", 0), (3, 1, "sleep 0.05", 0), (4, 1, "sleep 0.05", 0)]);
    // Other PIDs, other times, one loop iteration less: the same behaviour.
    let b = journaled(&[(5, 1, "sleep 0.05", 0), (2, 1, "date", 0)]);
    let same = compare_records(&a, &b, None);
    assert_eq!(status(&same, "process"), "unchanged", "{same}");
    assert_eq!(same["status"], "unchanged", "{same}");
    // No date: changed, and the difference names it.
    let c = journaled(&[(2, 1, "sleep 0.05", 0)]);
    let result = compare_records(&a, &c, None);
    assert_eq!(status(&result, "process"), "changed");
    let difference = &dimension(&result, "process")["differences"][0];
    assert_eq!(difference["path"], "process_samples[command=\"date\", parent=\"<root>\"]");
    assert_eq!((&difference["left"], &difference["right"]), (&json!(["exit 0"]), &Value::Null));
    // The same command ending otherwise, or under another parent, is changed.
    let d = journaled(&[(2, 1, "date", 1), (3, 1, "sleep 0.05", 0)]);
    assert_eq!(status(&compare_records(&a, &d, None), "process"), "changed");
    let e = journaled(&[(2, 1, "sleep 0.05", 0), (3, 2, "date", 0)]);
    assert_eq!(status(&compare_records(&a, &e, None), "process"), "changed");
}

fn screen_lens() -> CompareOptions {
    CompareOptions { terminal_lens: super::TerminalLens::Screen, ..CompareOptions::default() }
}

#[test]
fn the_screen_lens_reads_the_screens_at_segment_ends_and_lists_the_stream_without_deciding() {
    // Records from before `screen_before`, nothing omitted: each segment ends
    // on its last frame, as in the stream lens.
    let a = RecordBuilder::new()
        .frame(0, "draw 1")
        .rendered(5, &["$ ready", "value 42"])
        .input(100, 101, "q")
        .rendered(150, &["bye"])
        .exit(0)
        .build();
    let b = RecordBuilder::new()
        .frame(0, "draw 2")
        .rendered(20, &["$ ready", "value 43"])
        .input(100, 130, "q")
        .rendered(170, &["bye"])
        .exit(0)
        .build();
    let result = compare_records_with(&a, &b, None, screen_lens());
    let terminal = dimension(&result, "terminal");
    assert_eq!(terminal["status"], "changed", "{terminal}");
    let paths: Vec<&str> =
        terminal["differences"].as_array().unwrap().iter().map(|d| d["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["terminal.screens[0].rows[1]", "terminal.segments[0]"]);
    assert_eq!(terminal["differences"][1]["deciding"], false);
    let first = &result["first_divergence"];
    assert_eq!(first["path"], "terminal.screens[0].rows[1]", "{first}");
    assert_eq!(first["location"], json!({"segment": 0, "row": 2, "column": 8}));
    assert_eq!(first["screens"]["left"]["lines"][1], "value 42");

    // Only the stream differs: the lens says unchanged, the stream lens changed.
    let c = RecordBuilder::new()
        .frame(0, "draw 2")
        .rendered(20, &["$ ready", "value 42"])
        .input(100, 130, "q")
        .rendered(170, &["bye"])
        .exit(0)
        .build();
    assert_eq!(status(&compare_records(&a, &c, None), "terminal"), "changed");
    let result = compare_records_with(&a, &c, None, screen_lens());
    assert_eq!(status(&result, "terminal"), "unchanged", "{result}");
    assert_eq!(result["first_divergence"], json!({"status": "none"}));
}

#[test]
fn under_the_screen_lens_an_omitted_state_leaves_the_final_screen_unknown_and_a_raw_omission_does_not() {
    let a = RecordBuilder::new().rendered(5, &["one"]).rendered(9, &["done"]).exit(0).build();
    let raw_cut = RecordBuilder::new().frame(0, "x").dropped_frame().rendered(5, &["done"]).exit(0).build();
    let result = compare_records_with(&a, &raw_cut, None, screen_lens());
    assert_eq!(status(&result, "terminal"), "unchanged", "{result}");
    assert_eq!(status(&compare_records(&a, &raw_cut, None), "terminal"), "truncated");

    let cut = RecordBuilder::new().rendered(5, &["done"]).dropped_rendered().exit(0).build();
    let result = compare_records_with(&a, &cut, None, screen_lens());
    let terminal = dimension(&result, "terminal");
    assert_eq!(terminal["status"], "truncated", "{terminal}");
    assert!(terminal["reasons"][0].as_str().unwrap().starts_with("Right capture did not keep the final screen"));
    // A difference through the last frame kept is listed, but it is no proof.
    let other = RecordBuilder::new().rendered(5, &["other"]).dropped_rendered().exit(0).build();
    let result = compare_records_with(&a, &other, None, screen_lens());
    assert_eq!(status(&result, "terminal"), "truncated");
    assert_eq!(dimension(&result, "terminal")["differences"][0]["path"], "terminal.screens[0].rows[0]");
    assert_ne!(result["status"], "unchanged");
}

#[test]
fn under_the_screen_lens_differences_past_the_listed_ones_are_counted_and_the_first_keeps_its_screens() {
    // 30 segments whose screens all differ in one row.
    let mut a = RecordBuilder::new();
    let mut b = RecordBuilder::new();
    for i in 0..30u64 {
        a = a.rendered(i * 10, &[&format!("left {i}")]).input(i * 10 + 5, i * 10 + 5, "x");
        b = b.rendered(i * 10, &[&format!("right {i}")]).input(i * 10 + 5, i * 10 + 5, "x");
    }
    let (a, b) = (a.exit(0).build(), b.exit(0).build());
    let result = compare_records_with(&a, &b, None, screen_lens());
    let terminal = dimension(&result, "terminal");
    assert_eq!(terminal["status"], "changed");
    let listed = terminal["differences"].as_array().unwrap();
    assert_eq!(listed.len(), 20);
    // The screens ending segments 0..=29 and the final screen (segment 30).
    assert_eq!(terminal["differences_omitted"].as_u64().unwrap() + 20, 31, "{terminal}");
    assert!(listed.iter().all(|d| d["left"]["text"].is_string() && d["deciding"].is_null()), "{terminal}");
    assert_eq!(listed[19]["path"], "terminal.screens[19].rows[0]");
    let first = &result["first_divergence"];
    assert_eq!(first["left"]["text"], "left 0");
    assert_eq!(first["screens"]["right"]["lines"][0], "right 0");
}

/// A prompt, two waited answers: the program answers the first input
/// `answer_ms` after it arrives; `think_ms` is the driver's lag from each
/// satisfied wait to its input.
fn conversation(think_ms: u64, answer_ms: u64) -> CaptureRecord {
    let first = 100 + think_ms;
    let second_held = first + answer_ms;
    RecordBuilder::new()
        .frame(100, "> ")
        .waited(100, first, "a\r")
        .frame(first + 5, "a\r\n")
        .frame(second_held, "ok\r\n> ")
        .waited(second_held, second_held + think_ms, "b\r")
        .frame(second_held + think_ms + 5, "b\r\nbye\r\n")
        .exit(0)
        .settle(40)
        .build()
}

#[test]
fn a_person_like_lag_between_a_satisfied_wait_and_its_input_is_not_behaviour() {
    // rea's replay answers within a millisecond; a person 3 s later.
    let (replay, person) = (conversation(1, 200), conversation(3000, 200));
    let result = compare_records(&replay, &person, None);
    assert_eq!(result["status"], "unchanged", "{result}");
    let deltas = dimension(&result, "interaction")["timing_deltas"].as_array().unwrap().clone();
    // Only the waits are timed: each as the interval since the previous dispatch (or launch).
    assert_eq!(deltas.len(), 2, "{deltas:?}");
    assert_eq!(
        deltas[1],
        json!({"path": "interaction_events[1].wait.satisfied_at_ms", "left_ms": 200, "right_ms": 200, "delta_ms": 0,
               "within_tolerance": true,
               "interval": {"since": "interaction_events[0].dispatched_at_ms", "left_since_ms": 101,
                            "right_since_ms": 3100, "left_at_ms": 301, "right_at_ms": 3300}})
    );
    assert_eq!(deltas[0]["interval"]["since"], "launch", "{deltas:?}");
}

#[test]
fn a_program_that_answers_one_second_later_is_changed_at_that_wait() {
    let (quick, slow) = (conversation(1, 200), conversation(1, 1200));
    let result = compare_records(&quick, &slow, None);
    assert_eq!(status(&result, "interaction"), "changed", "{result}");
    let first = &result["first_divergence"];
    assert_eq!(first["path"], "interaction_events[1].wait.satisfied_at_ms", "{result}");
    assert_eq!((first["left"].clone(), first["right"].clone()), (json!(200), json!(1200)));
    assert_eq!(first["interval"]["since"], "interaction_events[0].dispatched_at_ms", "{first}");
    assert_eq!(
        (first["interval"]["left_at_ms"].clone(), first["interval"]["right_at_ms"].clone()),
        (json!(301), json!(1301))
    );
    // The same slower answer with a person's lag on the right: still the program's second.
    let result = compare_records(&quick, &conversation(3000, 1200), None);
    assert_eq!(result["first_divergence"]["path"], "interaction_events[1].wait.satisfied_at_ms", "{result}");
    assert_eq!(result["first_divergence"]["right"], 1200, "{result}");
}

#[test]
fn a_waited_event_with_at_ms_keeps_its_dispatch_compared() {
    let with_at = |dispatched: u64| {
        let mut r = conversation(1, 200);
        r.interaction_events[0].scheduled_at_ms = Some(50);
        r.interaction_events[0].dispatched_at_ms = Some(dispatched);
        r
    };
    let result = compare_records(&with_at(101), &with_at(3100), None);
    let d = &dimension(&result, "interaction")["differences"];
    assert_eq!(d[0]["path"], "interaction_events[0].dispatched_at_ms", "{result}");
    assert!(d[0].get("interval").is_none(), "{result}");
}
