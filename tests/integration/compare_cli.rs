//! `rea compare-process-captures` on capture files written by
//! `rea_engine::testing`: equal records, differing observations, differing
//! contracts, and files that must be refused.

use std::fs;
use std::path::Path;

use rea_engine::evidence::{
    CAPTURE_PREDICATE, COMPARISON_PREDICATE, Evidence, capture_evidence, parse_evidence_value, seal,
};
use rea_engine::testing;
use serde_json::{Value, json};

use crate::sandbox::{Sandbox, error_document, parse_single_json, tree_changes};

fn scenario(columns: u16, app_mode: &str) -> Value {
    json!({
        "executable": "sh",
        "arguments": ["-c", "echo ready"],
        "environment": {"APP_MODE": app_mode},
        "filesystem_observation_paths": ["./state"],
        "terminal": {"columns": columns},
        "events": [{"type": "input", "at_ms": 100, "data": "y\r"}],
        "timeout_ms": 5000
    })
}

/// Writes `evidence` as `rea capture-process --json` would and returns its id.
fn write_capture(dir: &Path, name: &str, evidence: &Evidence) -> String {
    let mut text = serde_json::to_string_pretty(evidence).expect("serialize");
    text.push('\n');
    fs::write(dir.join(name), text).expect("write a capture file");
    evidence.evidence_id.clone()
}

/// Runs the comparison in `sandbox` and checks that it wrote nothing and
/// printed nothing on stderr.
fn compare(sandbox: &Sandbox, left: &str, right: &str) -> std::process::Output {
    let before = sandbox.snapshot();
    let output = sandbox.rea(&["compare-process-captures", left, right, "--json"]);
    assert_eq!(tree_changes(&before, &sandbox.snapshot()), None, "the comparison wrote files");
    assert_eq!(String::from_utf8_lossy(&output.stderr), "", "stderr");
    output
}

/// Runs a comparison that must succeed and returns its checked Evidence.
fn compare_ok(sandbox: &Sandbox, left: &str, right: &str) -> Value {
    let output = compare(sandbox, left, right);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let document = parse_single_json(&stdout).unwrap();
    // The comparison is itself Evidence whose identity holds.
    parse_evidence_value("comparison", document.clone()).expect("comparison Evidence has a valid identity");
    document
}

fn statuses(document: &Value) -> Vec<(String, String)> {
    document["normalized_result"]["dimensions"]
        .as_array()
        .expect("dimensions")
        .iter()
        .map(|d| (d["dimension"].as_str().unwrap().to_owned(), d["status"].as_str().unwrap().to_owned()))
        .collect()
}

fn all(status: &str) -> Vec<(String, String)> {
    ["terminal", "interaction", "exit", "filesystem", "process"].iter().map(|d| ((*d).into(), status.into())).collect()
}

#[test]
fn equal_captures_compare_as_unchanged() {
    let sandbox = Sandbox::new();
    let left = write_capture(&sandbox.work(), "left.json", &testing::capture_of(&sandbox.work(), scenario(80, "test")));
    // The arguments may differ between the sides (they are outside the
    // contract); the builder's process sample records only argv[0], so the
    // observations stay equal.
    let mut other = scenario(80, "test");
    other["arguments"] = json!(["-c", "echo READY"]);
    let right = write_capture(&sandbox.work(), "right.json", &testing::capture_of(&sandbox.work(), other));
    assert_ne!(left, right);

    let document = compare_ok(&sandbox, "left.json", "right.json");
    assert_eq!(document["predicate_type"], COMPARISON_PREDICATE);
    assert_eq!(document["operation"], "compare_process_captures");
    assert_eq!(document["evidence_links"], json!([left, right]));
    assert_eq!(document["parameters"]["left_evidence_id"], left);
    assert_eq!(document["parameters"]["right_evidence_id"], right);
    assert_eq!(document["confidence"], "derived");
    let result = &document["normalized_result"];
    assert_eq!(result["status"], "unchanged", "{result}");
    assert_eq!(statuses(&document), all("unchanged"));
    assert_eq!(result["first_divergence"], json!({"status": "none"}));
}

#[test]
fn a_different_exit_is_a_successful_comparison_that_names_it() {
    let sandbox = Sandbox::new();
    let resolved = testing::resolve(&sandbox.work(), scenario(80, "test"));
    let left = write_capture(&sandbox.work(), "left.json", &testing::capture(&resolved));
    let mut record = testing::capture_record(&resolved);
    record.exit.code = Some(3);
    let changed = capture_evidence(&record, testing::capture_parameters(&resolved)).unwrap();
    let right = write_capture(&sandbox.work(), "right.json", &changed);

    let document = compare_ok(&sandbox, "left.json", "right.json");
    assert_eq!(document["evidence_links"], json!([left, right]));
    let result = &document["normalized_result"];
    assert_eq!(result["status"], "changed");
    let mut expected = all("unchanged");
    expected[2].1 = "changed".into();
    assert_eq!(statuses(&document), expected);
    assert_eq!(result["first_divergence"]["status"], "found");
    assert_eq!(result["first_divergence"]["dimension"], "exit");
    assert_eq!(result["first_divergence"]["path"], "exit.code");
    assert_eq!(result["first_divergence"]["left"], 0);
    assert_eq!(result["first_divergence"]["right"], 3);
    let exit = &result["dimensions"][2];
    assert_eq!(exit["differences"], json!([{"path": "exit.code", "left": 0, "right": 3}]));
    assert_eq!(exit["differences_omitted"], 0);
    assert_eq!(exit["timing_deltas"][0]["path"], "settlement.elapsed_ms");
}

/// Compares captures of two scenarios that must not share a contract.
fn contract_mismatch(left: Value, right: Value) -> Value {
    let sandbox = Sandbox::new();
    write_capture(&sandbox.work(), "left.json", &testing::capture_of(&sandbox.work(), left));
    write_capture(&sandbox.work(), "right.json", &testing::capture_of(&sandbox.work(), right));
    let document = error_document(&compare(&sandbox, "left.json", "right.json")).unwrap();
    assert_eq!(document["code"], "contract_mismatch", "{document}");
    assert_eq!(document["category"], "invalid_input");
    assert!(document["remediation"]["action"].as_str().unwrap().contains("only the executable and its arguments"));
    document
}

#[test]
fn different_contracts_are_refused_naming_exactly_the_differing_fields() {
    let cases = [
        (scenario(80, "test"), scenario(100, "test"), vec!["terminal.columns"]),
        (scenario(80, "test"), scenario(80, "prod"), vec!["environment.APP_MODE"]),
        (scenario(80, "test"), scenario(100, "prod"), vec!["environment.APP_MODE", "terminal.columns"]),
    ];
    for (left, right, fields) in cases {
        let document = contract_mismatch(left, right);
        assert_eq!(document["details"]["differing_fields"], json!(fields), "{document}");
        let message = document["message"].as_str().unwrap();
        assert!(message.ends_with(&format!("differing fields: {}", fields.join(", "))), "{message}");
    }
}

#[test]
fn a_custom_pattern_on_one_side_is_a_contract_difference() {
    let mut right = scenario(80, "test");
    right["normalization"] = json!({"patterns": [{"pattern": "ready", "replacement": "<state>"}]});
    let document = contract_mismatch(scenario(80, "test"), right);
    assert_eq!(
        document["details"]["differing_fields"],
        json!(["normalization.pattern_normalization_version", "normalization.patterns"])
    );
}

/// Runs a comparison whose right side is refused on import, and returns the
/// error document after checking it names the file.
fn refused_right(sandbox: &Sandbox, code: &str) -> Value {
    write_capture(&sandbox.work(), "left.json", &testing::capture_of(&sandbox.work(), scenario(80, "test")));
    let document = error_document(&compare(sandbox, "left.json", "right.json")).unwrap();
    assert_eq!(document["code"], code, "{document}");
    assert_eq!(document["category"], "invalid_input");
    assert_eq!(document["details"]["file"], "right.json");
    document
}

#[test]
fn a_changed_capture_file_is_refused() {
    let sandbox = Sandbox::new();
    write_capture(&sandbox.work(), "right.json", &testing::capture_of(&sandbox.work(), scenario(80, "test")));
    let path = sandbox.work().join("right.json");
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches("\"done\\r\\n\"").count(), 1);
    fs::write(&path, text.replace("\"done\\r\\n\"", "\"Done\\r\\n\"")).unwrap();
    let document = refused_right(&sandbox, "evidence_identity_mismatch");
    let message = document["message"].as_str().unwrap();
    assert!(message.contains("does not match its record") && message.contains("changed after capture"), "{message}");
}

#[test]
fn a_v4_capture_is_refused_with_recapture_guidance() {
    let sandbox = Sandbox::new();
    let mut value = serde_json::to_value(testing::capture_of(&sandbox.work(), scenario(80, "test"))).unwrap();
    value["predicate_type"] = "rea.process-capture/v4".into();
    fs::write(sandbox.work().join("right.json"), serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let document = refused_right(&sandbox, "evidence_legacy_version");
    let message = document["message"].as_str().unwrap();
    assert!(message.contains("rea.process-capture/v4") && message.contains(CAPTURE_PREDICATE), "{message}");
    let action = document["remediation"]["action"].as_str().unwrap();
    assert!(action.starts_with("Recapture the scenario with this version of rea"), "{action}");
}

#[test]
fn a_capture_without_truncation_details_is_refused() {
    let sandbox = Sandbox::new();
    let mut evidence = testing::capture_of(&sandbox.work(), scenario(80, "test"));
    evidence.normalized_result.as_object_mut().unwrap().remove("truncation_details");
    write_capture(&sandbox.work(), "right.json", &seal(evidence).unwrap());
    let document = refused_right(&sandbox, "evidence_missing_truncation_details");
    assert!(document["remediation"]["action"].as_str().unwrap().starts_with("Recapture"));
}

#[test]
fn comparison_evidence_is_not_a_capture() {
    let sandbox = Sandbox::new();
    let capture = testing::capture_of(&sandbox.work(), scenario(80, "test"));
    write_capture(&sandbox.work(), "a.json", &capture);
    let comparison = compare_ok(&sandbox, "a.json", "a.json");
    fs::write(sandbox.work().join("right.json"), serde_json::to_string_pretty(&comparison).unwrap()).unwrap();
    let document = refused_right(&sandbox, "evidence_wrong_workflow");
    assert!(document["message"].as_str().unwrap().contains(COMPARISON_PREDICATE), "{document}");
}

/// Captures `bytes` bytes of repeated text with `rea capture-process --json`
/// into `work/<name>` (a file of several MiB: the host maps it to read it).
#[cfg(not(feature = "force-stub"))]
fn large_capture(sandbox: &Sandbox, name: &str, bytes: u64) -> String {
    let scenario = json!({
        "executable": "sh",
        "arguments": ["-c", format!("yes 'a line of terminal text 0123456789' | head -c {bytes}")],
        "limits": {"output_bytes": 10_000_000, "frames": 100_000},
        "timeout_ms": 60_000
    });
    sandbox.put("large.scenario.json", scenario.to_string().as_bytes());
    let output = sandbox.rea(&["capture-process", "large.scenario.json", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    fs::write(sandbox.work().join(name), &output.stdout).expect("write the capture");
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// Large captures are mapped and their pages given back as they are parsed
/// (`evidence::behind`): the comparison still verifies both identities, and
/// a change anywhere in the file, in pages given back before the change is
/// found, is refused as a changed file (the strict path reads those pages
/// again and finds the same bytes, not holes). Capturing needs a native
/// backend; the stub host reads every file.
#[cfg(not(feature = "force-stub"))]
#[test]
fn large_mapped_captures_compare_and_a_change_anywhere_in_them_is_refused() {
    let sandbox = Sandbox::new();
    let left = large_capture(&sandbox, "left.json", 6_000_000);
    let right = large_capture(&sandbox, "right.json", 6_000_000);
    assert!(left.len() > 4 << 20 && right.len() > 4 << 20, "{} {}", left.len(), right.len());
    let document = compare_ok(&sandbox, "left.json", "right.json");
    let terminal = statuses(&document).into_iter().find(|(d, _)| d == "terminal").expect("terminal");
    assert_eq!(terminal.1, "unchanged", "{document}");
    let id = |text: &str| parse_single_json(text).unwrap()["evidence_id"].clone();
    assert_eq!(document["parameters"]["left_evidence_id"], id(&left), "{}", document["parameters"]);
    assert_eq!(document["parameters"]["right_evidence_id"], id(&right));

    let first = right.find("a line of").expect("text");
    let last = right.rfind("a line of").expect("text");
    assert!(last > first + (3 << 20));
    for at in [first, last] {
        let mut changed = right.clone().into_bytes();
        changed[at] = b'A';
        fs::write(sandbox.work().join("right.json"), &changed).unwrap();
        let document = error_document(&compare(&sandbox, "left.json", "right.json")).unwrap();
        assert_eq!(document["code"], "evidence_identity_mismatch", "change at byte {at}: {document}");
        assert_eq!(document["details"]["file"], "right.json");
    }
}
