//! Committed projections: sensitive input never appears and equal-length
//! secrets commit equally, and options at their default stay out so that
//! existing identities do not move.

use serde_json::{Value, json};

use super::{ResolvedScenario, comparison_contract, normalization_projection, scenario_commitment};
use crate::evidence::{canonical_json, digest};
use crate::testing;

/// The scenario commitment and comparison contract digests, and their
/// canonical texts.
struct Committed {
    scenario_sha256: String,
    contract_sha256: String,
    texts: String,
}

impl Committed {
    fn digests(&self) -> (&str, &str) {
        (&self.scenario_sha256, &self.contract_sha256)
    }
}

fn committed(r: &ResolvedScenario) -> Committed {
    let (scenario, contract) = (scenario_commitment(r).expect("serialize"), comparison_contract(r).expect("serialize"));
    let text = |v: &Value| String::from_utf8(canonical_json(v).expect("canonical")).expect("UTF-8");
    Committed {
        scenario_sha256: digest(&scenario).expect("digest"),
        contract_sha256: digest(&contract).expect("digest"),
        texts: format!("{}\n{}", text(&scenario), text(&contract)),
    }
}

fn with_secret(secret: &str) -> Value {
    json!({
        "executable": "sh",
        "events": [
            {"type": "input", "at_ms": 0, "data": "user\r"},
            {"type": "input", "at_ms": 100, "data": secret, "sensitive": true}
        ]
    })
}

/// The commitments of two scenarios resolved in the same directory.
fn commit_both(dir: &tempfile::TempDir, a: Value, b: Value) -> (Committed, Committed) {
    (committed(&testing::resolve(dir.path(), a)), committed(&testing::resolve(dir.path(), b)))
}

#[test]
fn equal_length_secrets_commit_equally_and_never_appear() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = commit_both(&dir, with_secret("correct horse\r"), with_secret("battery sta\u{e9}\r"));
    assert_eq!(a.digests(), b.digests());
    for (committed, secret) in [(&a, "correct horse"), (&b, "battery sta")] {
        assert!(!committed.texts.contains(secret), "the secret leaked: {}", committed.texts);
        assert!(committed.texts.contains("<redacted-input:14-bytes>"), "{}", committed.texts);
        // The non-sensitive input is committed as written.
        assert!(committed.texts.contains("user\\r"), "{}", committed.texts);
    }

    // The capture Evidence built on it does not hold the secret either.
    let evidence = testing::capture_of(dir.path(), with_secret("correct horse\r"));
    let text = serde_json::to_string(&evidence).expect("serialize");
    assert!(!text.contains("correct horse"));
    assert!(text.contains("<redacted-input:14-bytes>"));
}

#[test]
fn secrets_of_different_lengths_commit_differently() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = commit_both(&dir, with_secret("short\r"), with_secret("much longer\r"));
    assert!(a.scenario_sha256 != b.scenario_sha256 && a.contract_sha256 != b.contract_sha256);
    assert!(a.texts.contains("<redacted-input:6-bytes>") && b.texts.contains("<redacted-input:12-bytes>"));
}

#[test]
fn a_visible_input_of_the_same_length_is_a_different_commitment() {
    let dir = tempfile::tempdir().expect("tempdir");
    let visible = |data: &str| json!({"executable": "sh", "events": [{"type": "input", "at_ms": 0, "data": data}]});
    let (a, b) = commit_both(&dir, visible("aaaa"), visible("bbbb"));
    assert!(a.scenario_sha256 != b.scenario_sha256 && a.contract_sha256 != b.contract_sha256);
}

/// Every committed projection of `scenario` resolved in `dir`, with its name.
fn projections(dir: &tempfile::TempDir, scenario: Value) -> [(&'static str, Value); 3] {
    let r = testing::resolve(dir.path(), scenario);
    [
        ("scenario", scenario_commitment(&r).expect("serialize")),
        ("comparison_contract", comparison_contract(&r).expect("serialize")),
        ("normalization", normalization_projection(&r.scenario.normalization).expect("serialize")),
    ]
}

#[test]
fn default_finalization_and_patterns_are_left_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = projections(&dir, json!({"executable": "sh"}));
    let explicit = projections(
        &dir,
        json!({
            "executable": "sh",
            "finalization_ms": 0,
            "normalization": {"patterns": []}
        }),
    );
    for ((name, a), (_, b)) in plain.iter().zip(&explicit) {
        assert_eq!(digest(a).expect("digest"), digest(b).expect("digest"), "{name} moved");
        let text = a.to_string();
        assert!(!text.contains("finalization_ms"), "{name}: {text}");
        assert!(!text.contains("patterns"), "{name}: {text}");
        assert!(!text.contains("pattern_normalization_version"), "{name}: {text}");
    }
}

#[test]
fn set_finalization_and_patterns_are_committed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = projections(
        &dir,
        json!({
            "executable": "sh",
            "finalization_ms": 1500,
            "normalization": {"patterns": [{"pattern": "build-1234", "replacement": "<build>"}]}
        }),
    );
    let [(_, scenario), (_, contract), (_, normalization)] = &set;
    let pattern = json!([{"pattern": "build-1234", "replacement": "<build>"}]);
    for (name, committed) in [("scenario", scenario), ("comparison_contract", contract)] {
        assert_eq!(committed["finalization_ms"], 1500, "{name}");
        assert_eq!(committed["normalization"], *normalization, "{name}");
    }
    assert_eq!(normalization["patterns"], pattern);
    assert_eq!(normalization["pattern_normalization_version"], "literal-replacements-v1");
    // The contract names the semantics, so a capture with patterns never
    // compares as the same contract as one without.
    let plain = projections(&dir, json!({"executable": "sh"}));
    assert_ne!(digest(&plain[1].1).expect("digest"), digest(contract).expect("digest"));
}

#[test]
fn executable_and_arguments_stay_out_of_the_contract() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = testing::resolve(dir.path(), json!({"executable": "sh", "arguments": ["-c", "true"]}));
    let b = testing::resolve(dir.path(), json!({"executable": "/bin/sh", "arguments": ["-c", "false"]}));
    assert_eq!(comparison_contract(&a).expect("serialize"), comparison_contract(&b).expect("serialize"));
    assert_ne!(scenario_commitment(&a).expect("serialize"), scenario_commitment(&b).expect("serialize"));
    let contract = comparison_contract(&a).expect("serialize");
    assert!(contract.get("executable").is_none() && contract.get("arguments").is_none(), "{contract}");
    assert_eq!(contract["rendered_line_format"], "trim-trailing-spaces-v1");
    assert_eq!(contract["normalization"]["port_normalization_version"], "endpoint-ports-v1");
}
