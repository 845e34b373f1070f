//! Malformed capture documents: each is resealed after its change (so the
//! identity holds and the shape check must catch it), none imports, and each
//! error names the exact JSON path and the rule.

use serde_json::{Value, json};

use super::import::projection_id;
use super::*;
use crate::UserError;
use crate::testing;

type Change = fn(&mut Value);

/// `(expected path, fragment of the rule, change)`.
const CASES: &[(&str, &str, Change)] = &[
    // The envelope.
    ("surprise", "unknown field", |v| v["surprise"] = json!(1)),
    ("analysis_profile", "is present", |v| v["analysis_profile"] = Value::Null),
    ("analysis_profile", "is present", |v| v["analysis_profile"] = json!({"id": "p"})),
    ("limitations[0]", "invalid type: integer `4`, expected a string", |v| v["limitations"][0] = json!(4)),
    ("limitations[0]", "invalid type: map, expected a string", |v| v["limitations"][0] = json!({})),
    ("provider.version", "invalid type: integer `5`", |v| v["provider"]["version"] = json!(5)),
    ("provider.extra", "unknown field", |v| v["provider"]["extra"] = json!("x")),
    ("provider.name", "missing field", |v| remove(&mut v["provider"], "name")),
    ("confidence", "missing field", |v| remove(v, "confidence")),
    ("evidence_links", "invalid type: string", |v| v["evidence_links"] = json!("none")),
    ("locations", "invalid type: null", |v| v["locations"] = Value::Null),
    // The record's own keys.
    ("normalized_result.surprise", "unknown field", |v| v["normalized_result"]["surprise"] = json!(true)),
    ("normalized_result.cleanup", "missing field", |v| remove(&mut v["normalized_result"], "cleanup")),
    ("normalized_result.schema_version", "invalid type: string", |v| {
        v["normalized_result"]["schema_version"] = json!("5");
    }),
    ("normalized_result.truncated", "invalid type: string", |v| v["normalized_result"]["truncated"] = json!("no")),
    ("normalized_result.frames", "invalid type: map, expected a sequence", |v| {
        v["normalized_result"]["frames"] = json!({});
    }),
    ("normalized_result.frames[0].data", "missing field", |v| remove(&mut v["normalized_result"]["frames"][0], "data")),
    ("normalized_result.frames[1].at_ms", "invalid type: floating point", |v| {
        v["normalized_result"]["frames"][1]["at_ms"] = json!(1.5);
    }),
    ("normalized_result.frames[0].sequence", "invalid value: integer `-1`", |v| {
        v["normalized_result"]["frames"][0]["sequence"] = json!(-1);
    }),
    ("normalized_result.frames[0].colour", "unknown field", |v| {
        v["normalized_result"]["frames"][0]["colour"] = json!("red");
    }),
    ("normalized_result.rendered_frames[0].columns", "invalid value: integer `70000`", |v| {
        v["normalized_result"]["rendered_frames"][0]["columns"] = json!(70000);
    }),
    ("normalized_result.rendered_frames[0].active_buffer", "unknown variant `sideways`", |v| {
        v["normalized_result"]["rendered_frames"][0]["active_buffer"] = json!("sideways");
    }),
    ("normalized_result.rendered_frames[0].lines[0]", "invalid type: integer", |v| {
        v["normalized_result"]["rendered_frames"][0]["lines"][0] = json!(7);
    }),
    ("normalized_result.interaction_events[0].type", "unknown variant `keypress`", |v| {
        v["normalized_result"]["interaction_events"][0]["type"] = json!("keypress");
    }),
    ("normalized_result.interaction_events[1].outcome", "unknown variant `maybe`", |v| {
        v["normalized_result"]["interaction_events"][1]["outcome"] = json!("maybe");
    }),
    ("normalized_result.exit.reason", "unknown variant `crashed`", |v| {
        v["normalized_result"]["exit"]["reason"] = json!("crashed");
    }),
    ("normalized_result.exit.signal", "missing field", |v| remove(&mut v["normalized_result"]["exit"], "signal")),
    ("normalized_result.exit.code", "invalid type: string", |v| v["normalized_result"]["exit"]["code"] = json!("0")),
    ("normalized_result.settlement.state", "unknown variant `asleep`", |v| {
        v["normalized_result"]["settlement"]["state"] = json!("asleep");
    }),
    ("normalized_result.settlement.cleanup_outcome", "cleaned is not allowed with state quiesced", |v| {
        v["normalized_result"]["settlement"]["cleanup_outcome"] = json!("cleaned");
    }),
    ("normalized_result.process_samples[0].pid", "invalid type: string", |v| {
        v["normalized_result"]["process_samples"][0]["pid"] = json!("1");
    }),
    ("normalized_result.event_journal[0].collection", "unknown variant `elsewhere`", |v| {
        v["normalized_result"]["event_journal"][0]["collection"] = json!("elsewhere");
    }),
    ("normalized_result.files_before[0].type", "unknown variant `socketish`", |v| {
        v["normalized_result"]["files_before"][0]["type"] = json!("socketish");
    }),
    ("normalized_result.files_after[0].sha256", "invalid type: boolean", |v| {
        v["normalized_result"]["files_after"][0]["sha256"] = json!(false);
    }),
    ("normalized_result.filesystem_effects[0].status", "unknown variant `vanished`", |v| {
        v["normalized_result"]["filesystem_effects"][0]["status"] = json!("vanished");
    }),
    ("normalized_result.truncation_details.raw_terminal.budget_bytes", "missing field", |v| {
        remove(&mut v["normalized_result"]["truncation_details"]["raw_terminal"], "budget_bytes");
    }),
    ("normalized_result.truncation_details.process.extra", "unknown field", |v| {
        v["normalized_result"]["truncation_details"]["process"]["extra"] = json!(0);
    }),
    ("normalized_result.residual_unknowns[0].reason", "missing field", |v| {
        v["normalized_result"]["residual_unknowns"] = json!([{"scope": "process"}]);
    }),
    ("normalized_result.residual_unknowns[0].scope", "unknown variant `moon`", |v| {
        v["normalized_result"]["residual_unknowns"] = json!([{"scope": "moon", "reason": "x"}]);
    }),
    ("normalized_result.cleanup.temporary_root", "unknown variant `kept`", |v| {
        v["normalized_result"]["cleanup"]["temporary_root"] = json!("kept");
    }),
    ("normalized_result.truncation_details.process.coverage", "unknown variant `traced`", |v| {
        v["normalized_result"]["truncation_details"]["process"]["coverage"] = json!("traced");
    }),
    ("normalized_result.cleanup.unverified_processes", "invalid type: null", |v| {
        v["normalized_result"]["cleanup"]["unverified_processes"] = Value::Null;
    }),
    ("normalized_result.manifest.scenario_sha", "unknown field", |v| {
        v["normalized_result"]["manifest"]["scenario_sha"] = json!("");
    }),
    ("normalized_result.limitations[1]", "invalid type: null", |v| {
        v["normalized_result"]["limitations"] = json!(["fine", null]);
    }),
    ("normalized_result.cleanup.signal_mechanism", "unknown variant `telepathy`", |v| {
        v["normalized_result"]["cleanup"]["signal_mechanism"] = json!("telepathy");
    }),
    ("normalized_result.filesystem_effects[0].reason", "unknown variant `because`", |v| {
        v["normalized_result"]["filesystem_effects"][0]["reason"] = json!("because");
    }),
    (
        "normalized_result.truncation_details.filesystem_after.hash_omissions[0].reason",
        "unknown variant `too_big`",
        |v| {
            v["normalized_result"]["truncation_details"]["filesystem_after"]["hash_omissions"] = json!([
                {"path": "root_0:a", "size": 1, "remaining_budget": 0, "reason": "too_big", "system_code": null}
            ]);
        },
    ),
    (
        "normalized_result.truncation_details.filesystem_before.enumeration_omissions[0].reason",
        "unknown variant `lost`",
        |v| {
            v["normalized_result"]["truncation_details"]["filesystem_before"]["enumeration_omissions"] = json!([
                {"path": "root_0:a", "reason": "lost", "system_code": null}
            ]);
        },
    ),
];

fn remove(v: &mut Value, key: &str) {
    v.as_object_mut().expect("an object").remove(key);
}

fn reseal(v: &mut Value) {
    let id = projection_id(v).expect("a projection");
    v["evidence_id"] = json!(id);
}

#[test]
fn every_malformed_capture_names_its_json_path_and_none_imports() {
    assert!(CASES.len() >= 30, "only {} cases", CASES.len());
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let scenario = json!({
        "executable": "sh",
        "arguments": ["-c", "echo ready"],
        "filesystem_observation_paths": ["./state"],
        "events": [
            {"type": "input", "at_ms": 250, "data": "hunter2\r", "sensitive": true},
            {"type": "resize", "at_ms": 500, "columns": 120, "rows": 40}
        ],
        "timeout_ms": 5000
    });
    let evidence = testing::capture_of(dir.path(), scenario);
    let original = serde_json::to_value(&evidence).expect("serialize");
    import_capture("capture.json", original.clone()).expect("the unchanged capture imports");
    let mut failures = Vec::new();
    for (i, (path, rule, change)) in CASES.iter().enumerate() {
        let mut value = original.clone();
        change(&mut value);
        assert_ne!(value, original, "case {i} ({path}) changed nothing");
        reseal(&mut value);
        match import_capture("capture.json", value) {
            Ok(_) => failures.push(format!("case {i} ({path}) imported")),
            Err(e) => {
                let message = e.to_string();
                let named =
                    matches!(&e, ImportError::Malformed { path: p, reason, .. } if p == path && reason.contains(rule));
                if !named || !message.contains(&format!("capture.json: {path}: ")) || e.code() != "evidence_malformed" {
                    failures.push(format!("case {i}: expected `{path}: …{rule}…`, got {e:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_unsealed_change_of_a_present_key_is_an_identity_mismatch() {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let evidence = testing::capture_of(dir.path(), json!({"executable": "sh", "arguments": ["-c", "true"]}));
    let mut value = serde_json::to_value(&evidence).expect("serialize");
    // A null added where the record has no key is a change of the document.
    value["normalized_result"]["frames"][0]["raw_data"] = Value::Null;
    let err = import_capture("capture.json", value).expect_err("refused");
    assert!(matches!(err, ImportError::IdentityMismatch { .. }), "{err:?}");
}

#[test]
fn a_record_moved_into_a_value_equals_its_serialization() {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let evidence = testing::capture_of(dir.path(), json!({"executable": "sh", "arguments": ["-c", "true"]}));
    let (_, record) = import_capture("capture.json", serde_json::to_value(&evidence).unwrap()).expect("imports");
    assert!(!record.frames.is_empty() && !record.rendered_frames.is_empty());
    assert!(record.frames.iter().any(|f| f.raw_data.is_none()));
    let serialized = serde_json::to_value(&record).unwrap();
    let mut with_raw = record.clone();
    with_raw.frames[0].raw_data = Some("original".into());
    assert_eq!(record.into_value().unwrap(), serialized);
    assert_eq!(with_raw.clone().into_value().unwrap(), serde_json::to_value(&with_raw).unwrap());
}

/// The scenario's share of a capture at the input bounds: every input byte
/// a control character (six bytes once escaped in JSON), stored three times
/// (scenario commitment, comparison contract, interaction log), with the
/// most events a scenario may hold. The capture stays far below the 64 MiB
/// any capture must fit to be read back, and imports.
#[test]
fn a_capture_at_the_input_bounds_is_small_and_imports() {
    use crate::scenario::{MAX_EVENTS, MAX_INPUT_DATA_BYTES, MAX_TOTAL_INPUT_BYTES};
    let inputs = MAX_TOTAL_INPUT_BYTES / MAX_INPUT_DATA_BYTES;
    let mut events: Vec<Value> = (0..inputs)
        .map(|i| json!({"type": "input", "at_ms": i, "data": "\u{1}".repeat(MAX_INPUT_DATA_BYTES)}))
        .collect();
    events.extend((inputs..MAX_EVENTS).map(|i| json!({"type": "resize", "at_ms": i, "columns": 100, "rows": 30})));
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let scenario = json!({"executable": "sh", "arguments": ["-c", "true"], "events": events, "timeout_ms": 60000});
    crate::scenario::parse_scenario(scenario.clone()).expect("the scenario is at, not over, the bounds");
    let evidence = testing::capture_of(dir.path(), scenario);
    let text = serde_json::to_string_pretty(&evidence).expect("serialize");
    let input_share = 3 * 6 * MAX_TOTAL_INPUT_BYTES;
    assert!(text.len() > input_share, "the inputs are all in the capture ({} bytes)", text.len());
    assert!(text.len() < 8 * 1024 * 1024, "the scenario's share is {} bytes", text.len());
    let value = crate::input::parse_json_str(&text).expect("the capture parses as an input document");
    import_capture("capture.json", value).expect("the capture imports");
}

/// The record-only import runs the same checks as `import_capture`: the same
/// record from a good capture (its envelope without the tree), and the same
/// error, path and rule for every malformed document and for a tamper.
#[test]
fn the_record_only_import_keeps_every_check() {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let scenario = json!({
        "executable": "sh",
        "arguments": ["-c", "echo ready"],
        "filesystem_observation_paths": ["./state"],
        "events": [
            {"type": "input", "at_ms": 250, "data": "hunter2\r", "sensitive": true},
            {"type": "resize", "at_ms": 500, "columns": 120, "rows": 40}
        ],
        "timeout_ms": 5000
    });
    let evidence = testing::capture_of(dir.path(), scenario);
    let original = serde_json::to_value(&evidence).expect("serialize");
    let (full, record) = import_capture("capture.json", original.clone()).expect("imports");
    let (lean, lean_record) = import_capture_record("capture.json", original.clone()).expect("imports");
    assert_eq!(lean_record, record);
    assert_eq!(lean.normalized_result, Value::Null);
    assert_eq!(Evidence { normalized_result: full.normalized_result.clone(), ..lean }, full);
    let mut tampered = original.clone();
    tampered["normalized_result"]["frames"][0]["data"] = json!("tampered");
    let expected = import_capture("capture.json", tampered.clone()).expect_err("refused");
    let got = import_capture_record("capture.json", tampered).expect_err("refused");
    assert!(matches!(got, ImportError::IdentityMismatch { .. }), "{got:?}");
    assert_eq!(got.to_string(), expected.to_string());
    for (i, (path, _, change)) in CASES.iter().enumerate() {
        let mut value = original.clone();
        change(&mut value);
        reseal(&mut value);
        let expected = import_capture("capture.json", value.clone()).expect_err("refused");
        let got = import_capture_record("capture.json", value).expect_err("refused");
        assert_eq!(got.to_string(), expected.to_string(), "case {i} ({path})");
    }
}
