//! Filesystem observation through the real binary: the report-digest example
//! and every effect status on a real tree.
#![cfg(not(feature = "force-stub"))]

use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::util::{capture, capture_in, frames_text};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn file<'a>(list: &'a Value, path: &str) -> &'a Value {
    list.as_array().unwrap().iter().find(|f| f["path"] == path).unwrap_or_else(|| panic!("{path} not in {list}"))
}

#[test]
fn the_report_digest_example_hashes_the_whole_report_while_the_terminal_is_truncated() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/report-digest.json");
    let scenario: Value = serde_json::from_str(&std::fs::read_to_string(example).unwrap()).unwrap();
    let c = capture(scenario);
    assert_eq!(c.status, 0, "{}", c.stdout);
    let r = &c.document["normalized_result"];

    let report = format!("{{\"status\":\"complete\",\"data\":\"{}\"}}", "X".repeat(131_072));
    assert_eq!(std::fs::read_to_string(c.dir.path().join("reports/final.json")).unwrap(), report);
    let expected = hex(&Sha256::digest(report.as_bytes()));
    let after = file(&r["files_after"], "root_0:final.json");
    assert_eq!(after["sha256"], expected.as_str());
    assert_eq!(after["size"], report.len());
    assert_eq!(after["type"], "file");

    let fs_after = &r["truncation_details"]["filesystem_after"];
    assert_eq!(fs_after["truncated"], false);
    assert_eq!(fs_after["bytes_hashed"], report.len());
    assert_eq!(fs_after["hash_omissions"], json!([]));
    assert_eq!(fs_after["roots"], json!([{"root": "root_0", "complete": true}]));

    let raw = &r["truncation_details"]["raw_terminal"];
    assert_eq!(raw["truncated"], true);
    assert!(raw["retained_bytes"].as_u64().unwrap() <= 1024);
    assert!(raw["observed_bytes"].as_u64().unwrap() >= 8192);
    assert!(frames_text(r).len() <= 1024);
    assert_eq!(r["truncated"], true);

    let effects = r["filesystem_effects"].as_array().unwrap();
    let effect = effects.iter().find(|e| e["path"] == "root_0:final.json").unwrap();
    assert_eq!(effect["status"], "created");
    assert_eq!(effect["before"], Value::Null);
}

#[test]
fn effects_created_deleted_modified_unchanged_on_a_real_tree() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    std::fs::write(state.join("keep.txt"), "same\n").unwrap();
    std::fs::write(state.join("edit.txt"), "old\n").unwrap();
    std::fs::write(state.join("gone.txt"), "bye\n").unwrap();
    let c = capture_in(
        dir,
        json!({
            "executable": "sh",
            "arguments": ["-c", "echo new > state/edit.txt; rm state/gone.txt; echo hi > state/made.txt"],
            "filesystem_observation_paths": ["./state"],
            "timeout_ms": 5000
        }),
    );
    assert_eq!(c.status, 0, "{}", c.stdout);
    let r = &c.document["normalized_result"];
    let statuses: Vec<(String, String)> = r["filesystem_effects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["path"].as_str().unwrap().to_owned(), e["status"].as_str().unwrap().to_owned()))
        .collect();
    let expected = [
        ("root_0:.", "modified"),
        ("root_0:edit.txt", "modified"),
        ("root_0:gone.txt", "deleted"),
        ("root_0:keep.txt", "unchanged"),
        ("root_0:made.txt", "created"),
    ];
    let expected: Vec<(String, String)> = expected.iter().map(|(p, s)| (p.to_string(), s.to_string())).collect();
    // The root directory's own entry changes only if its size or mode did;
    // compare the file entries exactly and allow the directory either way.
    assert_eq!(statuses[1..], expected[1..], "{statuses:?}");
    assert!(["modified", "unchanged"].contains(&statuses[0].1.as_str()));
    let edit_after = file(&r["files_after"], "root_0:edit.txt");
    assert_eq!(edit_after["sha256"], hex(&Sha256::digest(b"new\n")).as_str());
    assert_eq!(file(&r["files_before"], "root_0:edit.txt")["sha256"], hex(&Sha256::digest(b"old\n")).as_str());
}

#[test]
fn without_observation_paths_filesystem_effects_are_unknown() {
    let c = capture(json!({"executable": "true", "timeout_ms": 5000}));
    let r = &c.document["normalized_result"];
    assert_eq!(r["files_before"], json!([]));
    assert_eq!(r["filesystem_effects"], json!([]));
    let unknowns = r["residual_unknowns"].as_array().unwrap();
    assert!(unknowns.iter().any(|u| u["scope"] == "filesystem"), "{unknowns:?}");
}
