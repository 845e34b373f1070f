//! The unsupported-host build (`--features force-stub`): capture reports why
//! it cannot run and launches nothing, while comparison and doctor work.
#![cfg(feature = "force-stub")]

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::util::rea_bin;

fn run(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = Command::new(rea_bin()).args(args).current_dir(dir).stdin(Stdio::null()).output().unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), doc, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn capture_is_unavailable_and_launches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = json!({"executable": "sh", "arguments": ["-c", "touch marker"], "timeout_ms": 1000});
    std::fs::write(dir.path().join("s.json"), scenario.to_string()).unwrap();
    let (status, doc, _) = run(dir.path(), &["capture-process", "s.json", "--json"]);
    assert_eq!(status, 1);
    assert_eq!(doc["code"], "capture_unsupported");
    assert_eq!(doc["category"], "unsupported_provider");
    let message = doc["message"].as_str().unwrap();
    assert!(message.contains("does not yet verify descendant cleanup"), "{message}");
    assert!(message.contains("WSL"), "{message}");
    assert!(!dir.path().join("marker").exists());
}

#[test]
fn comparison_still_works() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/captures");
    let (status, doc, _) =
        run(&fixtures, &["compare-process-captures", "authority.json", "reconstruction.json", "--json"]);
    assert_eq!(status, 0, "{doc}");
    assert_eq!(doc["predicate_type"], "rea.process-comparison/v5");
    let dims = doc["normalized_result"]["dimensions"].as_array().unwrap();
    let exit = dims.iter().find(|d| d["dimension"] == "exit").unwrap();
    assert_eq!(exit["status"], "changed");
}

#[test]
fn doctor_reports_capture_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let (status, doc, _) = run(dir.path(), &["doctor", "--json"]);
    assert_eq!(status, 0, "{doc}");
    assert_eq!(doc["capabilities"]["capture_process"]["available"], false);
    assert_eq!(doc["capabilities"]["compare_process_captures"]["available"], true);
    assert_eq!(doc["checks"][0]["classification"], "unsupported_host");
    assert_eq!(doc["capabilities"]["capture_process"]["cause"], "unsupported_host");
}
