//! The document bound, end to end: a capture whose observations would make
//! a document too large to read back is fitted, says what it left out, and
//! imports; a long sampled command line is cut with a marker.

#![cfg(not(feature = "force-stub"))]

use serde_json::{Value, json};

use crate::util::{capture, rea};

/// The bound `rea` keeps a capture's `--json` document within (60 MiB).
const DOCUMENT_BUDGET_BYTES: usize = 60 * 1024 * 1024;

#[test]
fn ten_megabytes_of_control_characters_are_fitted_and_the_capture_imports() {
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "head -c 10000000 /dev/zero | tr '\\000' '\\001'"],
        "limits": {"output_bytes": 10_000_000, "frames": 100_000},
        // Normalization changes every chunk, so each keeps its original text too.
        "normalization": {"patterns": [{"pattern": "\u{1}", "replacement": "\u{2}"}]},
        "timeout_ms": 120_000,
    }));
    assert_eq!(c.status, 0, "stderr: {}", c.stderr);
    assert!(c.stdout.len() <= DOCUMENT_BUDGET_BYTES, "{} bytes written", c.stdout.len());
    let record = &c.document["normalized_result"];
    let document = &record["truncation_details"]["document"];
    let observed = document["observed_bytes"].as_u64().expect("observed_bytes");
    // All ten million bytes were retained by the terminal budget, twice
    // (normalized and original); as JSON each is six bytes.
    assert!(observed > 120_000_000, "{document}");
    assert_eq!(document["budget_bytes"], json!(DOCUMENT_BUDGET_BYTES));
    assert_eq!(record["truncated"], json!(true));
    let raw = &record["truncation_details"]["raw_terminal"];
    let frames = record["frames"].as_array().expect("frames");
    assert_eq!(raw["retained_chunks"], json!(frames.len()));
    let omitted = document["omitted_frames"].as_u64().unwrap() + document["omitted_rendered_frames"].as_u64().unwrap();
    assert!(omitted > 0, "{document}");
    let limitation = record["limitations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|l| l.contains("document bound"));
    assert!(limitation.is_some_and(|l| l.contains(&observed.to_string())), "{limitation:?}");
    // Every capture rea writes, rea reads back.
    std::fs::write(c.dir.path().join("big.json"), &c.stdout).expect("write the capture");
    let out = rea(c.dir.path(), &["compare-process-captures", "big.json", "big.json", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // And `rea show` says which areas gave way and why.
    let out = rea(c.dir.path(), &["show", "big.json"]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("raw_terminal: its latest observations left out for the document bound"), "{shown}");
    assert!(
        shown.contains(&format!("document: {observed} bytes as JSON, over the {DOCUMENT_BUDGET_BYTES}-byte bound"))
    );
}

#[test]
fn a_long_sampled_command_line_is_cut_with_a_marker() {
    let long = "x".repeat(20_000);
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "sleep 0.4", long],
        "timeout_ms": 10_000,
    }));
    assert_eq!(c.status, 0, "stderr: {}", c.stderr);
    let samples = c.document["normalized_result"]["process_samples"].as_array().expect("samples");
    let sh =
        samples.iter().find_map(|s| s["command"].as_str().filter(|c| c.starts_with("sh -c"))).expect("sh was sampled");
    // The length read from the host: `sh`, `-c`, `sleep 0.4` and the argument, separated.
    let (kept, marker) = sh.rsplit_once(' ').expect("a marker");
    assert!(marker.starts_with("<truncated-command:2001") && marker.ends_with("-bytes>"), "{marker}");
    assert_eq!(kept.len(), 4096, "the command keeps 4096 bytes");
    assert!(kept.starts_with("sh -c sleep 0.4 xxx") && kept.ends_with("xxx"));
}
