//! Import of capture Evidence: nothing is trusted until it is recomputed.
//!
//! Order of checks, so each failure gets the most useful message: envelope
//! version, predicate (older captures get recapture guidance before any
//! strict parse could fail on their different shape), strict envelope shape,
//! recomputed `evidence_id`, provider and operation, `truncation_details`
//! presence, strict record shape, recomputed commitments, and the record's
//! internal invariants.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Value, json};

use super::*;
use crate::error::{Category, UserError};

/// Why a capture file is refused.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Not an Evidence v2 envelope.
    #[error("{source_name} is not Evidence v2: {reason}")]
    NotEvidence {
        /// File or label.
        source_name: String,
        /// What is wrong.
        reason: String,
    },
    /// Produced by an older process-capture format.
    #[error("{source_name} is a {predicate} capture; this version of rea reads only {CAPTURE_PREDICATE} captures")]
    Legacy {
        /// File or label.
        source_name: String,
        /// The record's predicate.
        predicate: String,
    },
    /// Evidence of another kind or from another provider.
    #[error("{source_name} is not capture Evidence from the current process-capture workflow: {reason}")]
    WrongWorkflow {
        /// File or label.
        source_name: String,
        /// What differs.
        reason: String,
    },
    /// The recorded `evidence_id` does not match the record.
    #[error(
        "{source_name}: evidence_id {recorded} does not match its record (recomputed {computed}); the file was changed after capture"
    )]
    IdentityMismatch {
        /// File or label.
        source_name: String,
        /// The id in the file.
        recorded: String,
        /// The id of its content.
        computed: String,
    },
    /// No `truncation_details`.
    #[error(
        "{source_name}: normalized_result.truncation_details is missing, so truncated observations cannot be told from complete ones"
    )]
    MissingTruncationDetails {
        /// File or label.
        source_name: String,
    },
    /// The record breaks a rule.
    #[error("{source_name}: {path}: {reason}")]
    Malformed {
        /// File or label.
        source_name: String,
        /// JSON path in the Evidence file.
        path: String,
        /// The broken rule.
        reason: String,
    },
}

impl UserError for ImportError {
    fn category(&self) -> Category {
        Category::InvalidInput
    }
    fn code(&self) -> &'static str {
        match self {
            ImportError::NotEvidence { .. } => "evidence_malformed",
            ImportError::Legacy { .. } => "evidence_legacy_version",
            ImportError::WrongWorkflow { .. } => "evidence_wrong_workflow",
            ImportError::IdentityMismatch { .. } => "evidence_identity_mismatch",
            ImportError::MissingTruncationDetails { .. } => "evidence_missing_truncation_details",
            ImportError::Malformed { .. } => "evidence_malformed",
        }
    }
    fn remediation(&self) -> String {
        match self {
            ImportError::WrongWorkflow { .. } => {
                "Pass files written by `rea capture-process --json` (or the MCP capture tool) to the comparison.".into()
            }
            _ => "Recapture the scenario with this version of rea (`rea capture-process SCENARIO --json > capture.json`); keep the old file as a historical record.".into(),
        }
    }
    fn details(&self) -> Option<Value> {
        match self {
            ImportError::Malformed { source_name, path, .. } => Some(json!({"file": source_name, "path": path})),
            ImportError::NotEvidence { source_name, .. }
            | ImportError::Legacy { source_name, .. }
            | ImportError::WrongWorkflow { source_name, .. }
            | ImportError::IdentityMismatch { source_name, .. }
            | ImportError::MissingTruncationDetails { source_name } => Some(json!({"file": source_name})),
        }
    }
}

/// Parses an Evidence envelope and checks its identity (any predicate).
pub fn parse_evidence_value(source_name: &str, value: Value) -> Result<Evidence, ImportError> {
    let not_evidence = |reason: String| ImportError::NotEvidence { source_name: source_name.to_owned(), reason };
    let Value::Object(map) = &value else {
        return Err(not_evidence("the document is not a JSON object".into()));
    };
    match map.get("schema_version") {
        Some(v) if v.as_u64() == Some(u64::from(EVIDENCE_SCHEMA_VERSION)) => {}
        Some(v) => {
            return Err(not_evidence(format!("schema_version is {v}; only Evidence v2 is accepted")));
        }
        None => return Err(not_evidence("schema_version is missing".into())),
    }
    if let Some(Value::String(predicate)) = map.get("predicate_type")
        && let Some(version) = predicate.strip_prefix("rea.process-capture/v")
        && version.parse::<u32>().is_ok_and(|v| v < 5)
    {
        return Err(ImportError::Legacy { source_name: source_name.to_owned(), predicate: predicate.clone() });
    }
    let envelope: Evidence = serde_json::from_value(value).map_err(|e| not_evidence(e.to_string()))?;
    let computed = compute_evidence_id(&envelope).map_err(|e| not_evidence(e.to_string()))?;
    if computed != envelope.evidence_id {
        return Err(ImportError::IdentityMismatch {
            source_name: source_name.to_owned(),
            recorded: envelope.evidence_id.clone(),
            computed,
        });
    }
    Ok(envelope)
}

/// Imports capture Evidence, returning the envelope and its checked record.
pub fn import_capture(source_name: &str, value: Value) -> Result<(Evidence, CaptureRecord), ImportError> {
    let envelope = parse_evidence_value(source_name, value)?;
    let wrong = |reason: String| ImportError::WrongWorkflow { source_name: source_name.to_owned(), reason };
    if envelope.predicate_type != CAPTURE_PREDICATE {
        return Err(wrong(format!("predicate_type is {:?}, expected {CAPTURE_PREDICATE:?}", envelope.predicate_type)));
    }
    if envelope.operation != CAPTURE_OPERATION {
        return Err(wrong(format!("operation is {:?}, expected {CAPTURE_OPERATION:?}", envelope.operation)));
    }
    if envelope.provider != Provider::current() {
        return Err(wrong(format!(
            "provider is {}, expected {}",
            serde_json::to_string(&envelope.provider).unwrap_or_default(),
            serde_json::to_string(&Provider::current()).unwrap_or_default()
        )));
    }
    let malformed = |path: &str, reason: String| ImportError::Malformed {
        source_name: source_name.to_owned(),
        path: format!("normalized_result{}{path}", if path.is_empty() || path.starts_with('[') { "" } else { "." }),
        reason,
    };
    let Value::Object(result) = &envelope.normalized_result else {
        return Err(malformed("", "is not an object".into()));
    };
    if !result.contains_key("truncation_details") {
        return Err(ImportError::MissingTruncationDetails { source_name: source_name.to_owned() });
    }
    // Deserialized from the borrowed tree: no second copy of the record's Value.
    let record = CaptureRecord::deserialize(&envelope.normalized_result).map_err(|e| malformed("", e.to_string()))?;
    check_record(&record).map_err(|(path, reason)| malformed(&path, reason))?;
    Ok((envelope, record))
}

type Broken = (String, String);

fn require(ok: bool, path: &str, reason: impl FnOnce() -> String) -> Result<(), Broken> {
    if ok { Ok(()) } else { Err((path.to_owned(), reason())) }
}

fn one_of(value: &str, allowed: &[&str], path: &str) -> Result<(), Broken> {
    require(allowed.contains(&value), path, || format!("{value:?} is not one of {}", allowed.join(", ")))
}

fn check_digest(value: &Value, recorded: &str, path: &str) -> Result<(), Broken> {
    let computed = digest(value).map_err(|e| (path.to_owned(), e.to_string()))?;
    require(computed == recorded, path, || {
        format!("{recorded} does not match the digest of its committed value ({computed})")
    })
}

/// Checks a record's commitments and internal invariants.
pub(crate) fn check_record(r: &CaptureRecord) -> Result<(), Broken> {
    require(r.schema_version == CAPTURE_SCHEMA_VERSION, "schema_version", || {
        format!("{} is not {CAPTURE_SCHEMA_VERSION}", r.schema_version)
    })?;
    let m = &r.manifest;
    require(m.provider_version == PROVIDER_VERSION, "manifest.provider_version", || {
        format!("{:?} is not {PROVIDER_VERSION:?}", m.provider_version)
    })?;
    check_digest(&m.scenario, &m.full_scenario_sha256, "manifest.full_scenario_sha256")?;
    check_digest(&m.comparison_contract, &m.comparison_contract_sha256, "manifest.comparison_contract_sha256")?;
    check_digest(&r.normalization, &m.normalization_sha256, "manifest.normalization_sha256")?;
    require(
        m.scenario.get("executable_sha256").and_then(Value::as_str) == Some(m.executable_sha256.as_str()),
        "manifest.executable_sha256",
        || "does not match manifest.scenario.executable_sha256".into(),
    )?;
    require(
        m.comparison_contract.get("normalization") == Some(&r.normalization),
        "manifest.comparison_contract.normalization",
        || "does not match the record's normalization".into(),
    )?;
    require(m.started_at <= m.completed_at, "manifest.completed_at", || "is before started_at".into())?;

    for (i, f) in r.frames.iter().enumerate() {
        require(f.sequence == i as u64, &format!("frames[{i}].sequence"), || format!("{} is not {i}", f.sequence))?;
        if i > 0 {
            require(f.at_ms >= r.frames[i - 1].at_ms, &format!("frames[{i}].at_ms"), || "decreases".into())?;
        }
        if let Some(raw) = &f.raw_data {
            require(raw != &f.data, &format!("frames[{i}].raw_data"), || {
                "is present although normalization did not change the chunk".into()
            })?;
        }
    }
    for (i, f) in r.rendered_frames.iter().enumerate() {
        let p = format!("rendered_frames[{i}]");
        require(f.sequence == i as u64, &format!("{p}.sequence"), || format!("{} is not {i}", f.sequence))?;
        if i > 0 {
            require(f.at_ms >= r.rendered_frames[i - 1].at_ms, &format!("{p}.at_ms"), || "decreases".into())?;
        }
        one_of(&f.active_buffer, &["normal", "alternate"], &format!("{p}.active_buffer"))?;
    }
    for (i, e) in r.interaction_events.iter().enumerate() {
        let p = format!("interaction_events[{i}]");
        require(e.sequence == i as u64, &format!("{p}.sequence"), || format!("{} is not {i}", e.sequence))?;
        one_of(&e.kind, &["input", "resize", "signal"], &format!("{p}.type"))?;
        one_of(&e.outcome, &["dispatched", "target_exited", "failed"], &format!("{p}.outcome"))?;
    }
    for (i, s) in r.process_samples.iter().enumerate().skip(1) {
        require(s.at_ms >= r.process_samples[i - 1].at_ms, &format!("process_samples[{i}].at_ms"), || {
            "decreases".into()
        })?;
    }

    let exit = &r.exit;
    one_of(&exit.reason, &["exited", "timeout", "idle_timeout"], "exit.reason")?;
    require(exit.reason == "exited" || exit.code.is_none(), "exit.code", || {
        format!("must be null for a {} exit", exit.reason)
    })?;
    require(exit.signal == 0 || exit.code.is_none(), "exit.code", || "must be null when exit.signal is set".into())?;
    if let Some(fin) = &exit.finalization {
        require(exit.reason != "exited", "exit.finalization", || "is present on an exit no deadline started".into())?;
        require(fin.signals.len() <= 2, "exit.finalization.signals", || {
            "holds more than SIGTERM and one SIGKILL".into()
        })?;
        for (i, s) in fin.signals.iter().enumerate() {
            let p = format!("exit.finalization.signals[{i}]");
            one_of(&s.signal, &[if i == 0 { "SIGTERM" } else { "SIGKILL" }], &format!("{p}.signal"))?;
            one_of(&s.delivery, &["signaled", "gone", "identity-changed", "unverified"], &format!("{p}.delivery"))?;
        }
    }
    let st = &r.settlement;
    one_of(&st.state, &["quiesced", "alive_at_deadline", "unverifiable"], "settlement.state")?;
    let outcomes: &[&str] = if st.state == "quiesced" { &["not_required"] } else { &["cleaned", "failed"] };
    one_of(&st.cleanup_outcome, outcomes, "settlement.cleanup_outcome")?;

    for (list, name) in [(&r.files_before, "files_before"), (&r.files_after, "files_after")] {
        for (i, f) in list.iter().enumerate() {
            one_of(&f.kind, &["file", "directory", "symlink", "other"], &format!("{name}[{i}].type"))?;
        }
    }
    for (i, e) in r.filesystem_effects.iter().enumerate() {
        let p = format!("filesystem_effects[{i}]");
        one_of(&e.status, &["created", "deleted", "modified", "unchanged", "unknown"], &format!("{p}.status"))?;
        require(e.status != "unknown" || e.reason.is_some(), &format!("{p}.reason"), || {
            "is required for an unknown effect".into()
        })?;
    }

    let any = r.truncation_details.any_truncated();
    require(r.truncated == any, "truncated", || format!("is {} but truncation_details says {any}", r.truncated))?;

    check_journal(r)
}

fn check_journal(r: &CaptureRecord) -> Result<(), Broken> {
    if r.event_journal.is_empty() {
        return Ok(());
    }
    let sizes: HashMap<&str, usize> = [
        ("frames", r.frames.len()),
        ("rendered_frames", r.rendered_frames.len()),
        ("interaction_events", r.interaction_events.len()),
        ("lifecycle", 2),
        ("process_samples", r.process_samples.len()),
    ]
    .into_iter()
    .collect();
    let mut seen: HashMap<(&str, u64), usize> = HashMap::new();
    for (i, e) in r.event_journal.iter().enumerate() {
        let p = format!("event_journal[{i}]");
        require(e.capture_order == i as u64, &format!("{p}.capture_order"), || {
            format!("{} is not {i}", e.capture_order)
        })?;
        let Some(size) = sizes.get(e.collection.as_str()) else {
            return Err((format!("{p}.collection"), format!("{:?} is not a journaled collection", e.collection)));
        };
        require((e.index as usize) < *size, &format!("{p}.index"), || {
            format!("{} is outside {} ({size} entries)", e.index, e.collection)
        })?;
        if let Some(prev) = seen.insert((e.collection.as_str(), e.index), i) {
            return Err((p, format!("repeats event_journal[{prev}]")));
        }
    }
    let total: usize = sizes.values().sum();
    require(seen.len() == total, "event_journal", || {
        format!("references {} observations but the record holds {total}", seen.len())
    })
}
