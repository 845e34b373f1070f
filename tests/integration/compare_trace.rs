//! `rea compare-process-captures LEFT RIGHT TRACE` on real captures.
//!
//! The trace asserts only the interaction and lifecycle sources: the program
//! blocks in `read` until the scripted input arrives, so the input is always
//! dispatched before the exit, and the exit always precedes the settlement.
//! Raw terminal chunking can differ between runs and is not asserted;
//! timing fields are ignored.
#![cfg(not(feature = "force-stub"))]

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::util::{capture_in, rea_bin};

fn scenario(script: &str) -> Value {
    json!({
        "executable": "sh",
        "arguments": ["-c", script],
        "events": [{"type": "input", "at_ms": 150, "data": "hello\r"}],
        "timeout_ms": 10000,
        "settle_ms": 0
    })
}

fn trace_spec() -> Value {
    json!({
        "version": 1,
        "events": [
            {"id": "typed", "source": "interaction",
             "exact": {"type": "input", "scheduled_at_ms": 150, "data": "hello\r", "outcome": "dispatched"},
             "ignore_fields": ["sequence", "dispatched_at_ms"]},
            {"id": "exit", "source": "lifecycle",
             "exact": {"event": "exit", "code": 0, "signal": 0, "reason": "exited"},
             "ignore_fields": ["elapsed_ms"]},
            {"id": "settled", "source": "lifecycle",
             "exact": {"event": "settlement", "state": "quiesced", "cleanup_outcome": "not_required"},
             "ignore_fields": ["elapsed_ms"]}
        ],
        "language": {
            "kind": "partial_order",
            "happens_before": [{"before": "typed", "after": "exit"}, {"before": "exit", "after": "settled"}],
            "prefix": ["typed"],
            "suffix": ["settled"]
        }
    })
}

/// Captures both scripts in one directory (the working directory is part of
/// the comparison contract) and writes `left.json` and `right.json` there.
fn capture_pair(left: &str, right: &str) -> TempDir {
    let l = capture_in(tempfile::tempdir().expect("temp dir"), scenario(left));
    assert_eq!(l.status, 0, "left capture: {}", l.stdout);
    let r = capture_in(l.dir, scenario(right));
    assert_eq!(r.status, 0, "right capture: {}", r.stdout);
    std::fs::write(r.dir.path().join("left.json"), &l.stdout).expect("write left");
    std::fs::write(r.dir.path().join("right.json"), &r.stdout).expect("write right");
    r.dir
}

fn compare(dir: &Path, trace: &str) -> (i32, Value) {
    let out = Command::new(rea_bin())
        .args(["compare-process-captures", "left.json", "right.json", trace, "--json"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run rea");
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap_or(-1), doc)
}

fn dimension<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["normalized_result"]["dimensions"]
        .as_array()
        .expect("dimensions")
        .iter()
        .find(|d| d["dimension"] == name)
        .unwrap_or_else(|| panic!("no {name} dimension"))
}

#[test]
fn programs_with_the_same_traced_behaviour_are_equivalent() {
    let dir = capture_pair("read line; echo \"got $line\"", "read line; printf 'got %s\\n' \"$line\"");
    std::fs::write(dir.path().join("trace.json"), trace_spec().to_string()).unwrap();
    let (status, doc) = compare(dir.path(), "trace.json");
    assert_eq!(status, 0, "{doc:#}");
    assert_eq!(doc["predicate_type"], "rea.process-comparison/v5");
    assert_eq!(doc["parameters"]["trace_spec"], trace_spec());
    let trace = &doc["normalized_result"]["trace"];
    assert_eq!(trace["verdict"], "equivalent", "{trace:#}");
    assert!(trace.get("diagnostic").is_none(), "{trace:#}");
    for side in ["left", "right"] {
        assert_eq!(trace[side]["status"], "pass");
        let ids: Vec<&str> =
            trace[side]["raw_trace"].as_array().unwrap().iter().map(|m| m["event_id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["typed", "exit", "settled"]);
        assert_eq!(
            trace[side]["satisfied_constraints"],
            json!(["happens_before:typed:exit", "happens_before:exit:settled", "prefix:typed", "suffix:settled"])
        );
    }
    // The trace covers the interaction and exit dimensions completely.
    assert_eq!(dimension(&doc, "interaction")["status"], "unchanged");
    assert_eq!(dimension(&doc, "exit")["status"], "unchanged");
}

#[test]
fn a_different_exit_is_a_different_trace_confined_to_the_exit_dimension() {
    let dir = capture_pair("read line; echo \"got $line\"", "read line; exit 3");
    std::fs::write(dir.path().join("trace.json"), trace_spec().to_string()).unwrap();
    let (status, doc) = compare(dir.path(), "trace.json");
    assert_eq!(status, 0, "a difference is a successful comparison: {doc:#}");
    let trace = &doc["normalized_result"]["trace"];
    assert_eq!(trace["verdict"], "different", "{trace:#}");
    assert_eq!(trace["left"]["status"], "pass");
    assert_eq!(trace["right"]["status"], "fail");
    let diag = &trace["diagnostic"];
    assert_eq!(diag["kind"], "predicate");
    assert_eq!(diag["side"], "right");
    assert_eq!(diag["event_ids"], json!(["obs.lifecycle.0"]));
    assert_eq!(diag["locations"][0]["collection"], "lifecycle");
    assert_eq!(diag["locations"][0]["index"], 0);
    assert_eq!(diag["dimensions"], json!(["exit"]));
    assert!(diag["message"].as_str().unwrap().contains("does not match any declared exact predicate"), "{diag}");
    assert_eq!(dimension(&doc, "exit")["status"], "changed");
    // The interaction dimension is not in the diagnostic: the trace left it alone.
    assert!(dimension(&doc, "interaction").get("exact_status").is_none(), "{doc:#}");
    assert_eq!(doc["normalized_result"]["status"], "changed");
}

#[test]
fn an_invalid_trace_specification_is_an_error_naming_path_and_rule() {
    let dir = capture_pair("read line", "read line");
    let mut bad = trace_spec();
    bad["events"][1]["source"] = json!("http");
    bad["language"]["happens_before"][0]["after"] = json!("nowhere");
    std::fs::write(dir.path().join("trace.json"), bad.to_string()).unwrap();
    let (status, doc) = compare(dir.path(), "trace.json");
    assert_eq!(status, 1, "{doc:#}");
    assert_eq!(doc["code"], "invalid_trace_specification");
    assert_eq!(doc["category"], "invalid_input");
    let message = doc["message"].as_str().unwrap();
    assert!(message.starts_with("trace specification trace.json is invalid: "), "{message}");
    assert!(message.contains("events[1].source: unknown source \"http\""), "{message}");
    assert_eq!(doc["details"]["file"], "trace.json");
    assert_eq!(doc["details"]["issues"][0]["path"], "events[1].source");

    std::fs::write(dir.path().join("broken.json"), "{\"version\": 1,").unwrap();
    let (status, doc) = compare(dir.path(), "broken.json");
    assert_eq!(status, 1);
    assert_eq!(doc["code"], "input_invalid_json");
    assert!(doc["message"].as_str().unwrap().starts_with("trace specification file broken.json"), "{doc:#}");
}
