//! Evidence identity of capture records: a saved record reads back with the
//! same `evidence_id`, any change to its bytes is refused on import, and
//! records of older or foreign workflows are refused with guidance.

use serde_json::{Value, json};

use super::*;
use crate::UserError;
use crate::input::parse_json_str;
use crate::testing;

/// A scenario that fills every part of the record: events of each kind
/// (one sensitive), an observation path, custom patterns and finalization.
fn rich_scenario() -> Value {
    json!({
        "executable": "sh",
        "arguments": ["-c", "echo ready"],
        "environment": {"APP_MODE": "test"},
        "filesystem_observation_paths": ["./state"],
        "terminal": {"columns": 100, "rows": 30, "scrollback": 500},
        "events": [
            {"type": "input", "at_ms": 250, "data": "hunter2\r", "sensitive": true},
            {"type": "resize", "at_ms": 500, "columns": 120, "rows": 40},
            {"type": "signal", "at_ms": 1000, "signal": "SIGINT"}
        ],
        "timeout_ms": 5000,
        "finalization_ms": 1500,
        "normalization": {"patterns": [{"pattern": "build-1234", "replacement": "<build>"}]}
    })
}

fn rich_capture() -> (tempfile::TempDir, Evidence) {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let evidence = testing::capture_of(dir.path(), rich_scenario());
    (dir, evidence)
}

fn import_text(text: &str) -> Result<(Evidence, CaptureRecord), ImportError> {
    let value = parse_json_str(text).map_err(|reason| ImportError::NotEvidence { source_name: "t".into(), reason })?;
    import_capture("capture.json", value)
}

#[test]
fn a_saved_capture_reads_back_with_its_identity() {
    let (_dir, evidence) = rich_capture();
    let text = serde_json::to_string_pretty(&evidence).expect("serialize");
    let (imported, record) = import_text(&text).expect("a freshly sealed capture imports");
    assert_eq!(imported.evidence_id, evidence.evidence_id);
    assert_eq!(imported, evidence);
    assert_eq!(serde_json::to_value(&record).expect("serialize"), evidence.normalized_result);
    // Sealing is a pure function of the content.
    assert_eq!(seal(imported).expect("seal").evidence_id, evidence.evidence_id);
}

/// Where a byte of pretty JSON lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    Key,
    StringValue,
    Number,
    Literal,
    Structure,
    EvidenceId,
}

/// Classifies every byte of `text`; `None` marks whitespace between tokens,
/// whose change leaves the same JSON value.
fn places(text: &str, id: &str) -> Vec<Option<Place>> {
    let bytes = text.as_bytes();
    let id_start = text.find(&format!("\"{id}\"")).expect("the id appears") + 1;
    let mut out = vec![None; bytes.len()];
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let after = text[i + 1..].trim_start();
                let place = if after.starts_with(':') { Place::Key } else { Place::StringValue };
                for slot in &mut out[start..=i] {
                    *slot = Some(place);
                }
                i += 1;
            }
            b'0'..=b'9' | b'-' => {
                out[i] = Some(Place::Number);
                i += 1;
            }
            b't' | b'r' | b'u' | b'e' | b'f' | b'a' | b'l' | b's' | b'n' => {
                out[i] = Some(Place::Literal);
                i += 1;
            }
            b' ' | b'\n' => i += 1,
            _ => {
                out[i] = Some(Place::Structure);
                i += 1;
            }
        }
    }
    for slot in &mut out[id_start..id_start + id.len()] {
        *slot = Some(Place::EvidenceId);
    }
    out
}

/// A different ASCII byte in the same class, so that the text stays UTF-8
/// and, where it can, still parses: the import must then refuse it for its
/// content, not for its syntax.
fn replacement(b: u8) -> u8 {
    match b {
        b'0'..=b'8' | b'a'..=b'y' | b'A'..=b'Y' => b + 1,
        b'9' => b'0',
        b'z' => b'a',
        b'Z' => b'A',
        b'_' => b'-',
        b'"' => b'\'',
        _ => b'_',
    }
}

/// Changes one byte at a time of a saved capture, at every value-bearing
/// position of numbers, literals and the id and a deterministic sample of
/// the rest; whitespace between tokens is skipped because changing it leaves
/// the same JSON.
#[test]
fn changing_any_value_byte_of_a_saved_capture_is_refused() {
    let (_dir, evidence) = rich_capture();
    let text = serde_json::to_string_pretty(&evidence).expect("serialize");
    let original: Value = serde_json::from_str(&text).expect("parse");
    let places = places(&text, &evidence.evidence_id);
    let mut tried = std::collections::BTreeMap::<Place, usize>::new();
    let (mut still_json, mut identity_refusals, mut skipped) = (0, 0, 0);
    for (i, place) in places.iter().enumerate() {
        // Whitespace between tokens does not change the value; non-ASCII
        // bytes would need a whole character replaced. Both are skipped.
        let Some(place) = place else {
            skipped += 1;
            continue;
        };
        // Every byte of numbers, literals and the id; a deterministic sample
        // (every 17th byte) of keys, strings and punctuation, which are long
        // and alike, keeps the test to about a thousand imports.
        let sampled = matches!(place, Place::Number | Place::Literal | Place::EvidenceId) || i % 17 == 0;
        if !sampled {
            continue;
        }
        let byte = text.as_bytes()[i];
        if !byte.is_ascii() {
            skipped += 1;
            continue;
        }
        let mut bytes = text.clone().into_bytes();
        bytes[i] = replacement(byte);
        let changed = String::from_utf8(bytes).expect("an ASCII replacement keeps UTF-8");
        *tried.entry(*place).or_default() += 1;
        if let Ok(value) = serde_json::from_str::<Value>(&changed) {
            still_json += 1;
            assert_ne!(value, original, "the change at byte {i} ({place:?}) must change the value");
        }
        match import_text(&changed) {
            Ok(_) => panic!("a change at byte {i} ({place:?}, {:?}) was accepted", byte as char),
            Err(ImportError::IdentityMismatch { .. }) => identity_refusals += 1,
            Err(_) => {}
        }
    }
    let total: usize = tried.values().sum();
    assert!(total >= 800, "only {total} positions tried: {tried:?}");
    for place in [Place::Key, Place::StringValue, Place::Number, Place::Literal, Place::Structure] {
        assert!(tried.get(&place).is_some_and(|n| *n >= 20), "too few {place:?} positions: {tried:?}");
    }
    assert_eq!(tried.get(&Place::EvidenceId), Some(&evidence.evidence_id.len()));
    // Most changes keep valid JSON, so the identity check, not the parser,
    // is what refuses them.
    assert!(
        identity_refusals * 2 > total,
        "{identity_refusals} identity refusals of {total} ({still_json} still JSON)"
    );
    assert!(skipped > 0);
}

/// Rewrites one part of a sealed capture and seals it again, so that the
/// identity holds and a later check must refuse it.
fn resealed(evidence: &Evidence, change: impl FnOnce(&mut Evidence)) -> Value {
    let mut changed = evidence.clone();
    change(&mut changed);
    serde_json::to_value(seal(changed).expect("seal")).expect("serialize")
}

#[test]
fn older_predicates_are_refused_with_recapture_guidance() {
    let (_dir, evidence) = rich_capture();
    for predicate in ["rea.process-capture/v4", "rea.process-capture/v3"] {
        // Both the resealed record and one whose identity no longer matches
        // get the version guidance, which comes before any shape check.
        let mut stale = serde_json::to_value(&evidence).expect("serialize");
        stale["predicate_type"] = predicate.into();
        let resealed = resealed(&evidence, |e| e.predicate_type = predicate.into());
        for value in [stale, resealed] {
            let err = import_capture("old.json", value).expect_err("a legacy capture is refused");
            assert!(matches!(err, ImportError::Legacy { .. }), "{err:?}");
            assert_eq!(err.code(), "evidence_legacy_version");
            assert_eq!(err.category(), crate::Category::InvalidInput);
            assert!(err.to_string().contains(predicate), "{err}");
            assert!(err.to_string().contains(CAPTURE_PREDICATE), "{err}");
            assert!(err.remediation().starts_with("Recapture the scenario with this version of rea"), "{err:?}");
        }
    }
}

#[test]
fn a_capture_without_truncation_details_is_refused() {
    let (_dir, evidence) = rich_capture();
    let value = resealed(&evidence, |e| {
        e.normalized_result.as_object_mut().expect("an object").remove("truncation_details");
    });
    let err = import_capture("old.json", value).expect_err("refused");
    assert!(matches!(err, ImportError::MissingTruncationDetails { .. }), "{err:?}");
    assert_eq!(err.code(), "evidence_missing_truncation_details");
    assert_eq!(err.category(), crate::Category::InvalidInput);
    assert!(err.to_string().contains("normalized_result.truncation_details is missing"), "{err}");
    assert!(err.remediation().starts_with("Recapture"), "{err:?}");
}

#[test]
fn captures_of_another_provider_or_operation_are_refused() {
    let (_dir, evidence) = rich_capture();
    type Change = fn(&mut Evidence);
    let changes: [(&str, Change); 4] = [
        ("provider", |e| e.provider.id = "other-provider".into()),
        ("provider", |e| e.provider.version = Some("3".into())),
        ("operation", |e| e.operation = "run_replay_machine".into()),
        ("predicate_type", |e| e.predicate_type = COMPARISON_PREDICATE.into()),
    ];
    for (field, change) in changes {
        let err = import_capture("x.json", resealed(&evidence, change)).expect_err("refused");
        assert!(matches!(err, ImportError::WrongWorkflow { .. }), "{field}: {err:?}");
        assert_eq!(err.code(), "evidence_wrong_workflow");
        assert!(err.to_string().contains(&format!("{field} is")), "{err}");
    }
}

#[test]
fn a_resealed_record_with_a_stale_commitment_is_refused() {
    let (_dir, evidence) = rich_capture();
    let value = resealed(&evidence, |e| e.normalized_result["manifest"]["scenario"]["timeout_ms"] = 6000.into());
    let err = import_capture("x.json", value).expect_err("refused");
    assert!(
        matches!(err, ImportError::Malformed { ref path, .. } if path == "normalized_result.manifest.full_scenario_sha256"),
        "{err:?}"
    );
}
