//! Import of capture Evidence: nothing is trusted until it is recomputed.
//!
//! Order of checks, so each failure gets the most useful message: envelope
//! version, predicate (older captures get recapture guidance before any
//! strict parse could fail on their different shape), strict envelope shape,
//! recomputed `evidence_id`, provider and operation, `truncation_details`
//! presence, strict record shape, recomputed commitments, and the record's
//! internal invariants.

use std::collections::HashMap;

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
pub fn parse_evidence_value(source_name: &str, mut value: Value) -> Result<Evidence, ImportError> {
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
    let computed = projection_id(&mut value).map_err(|e| not_evidence(e.to_string()))?;
    // `normalized_result` is any JSON value to the envelope's shape: it is
    // moved past the check (a null keeps its key present), not rebuilt by it.
    let result = match &mut value {
        Value::Object(map) => map.get_mut("normalized_result").map(std::mem::take),
        _ => None,
    };
    let mut envelope: Evidence = typed(value, "").map_err(|(path, reason)| ImportError::Malformed {
        source_name: source_name.to_owned(),
        path,
        reason,
    })?;
    if let Some(result) = result {
        envelope.normalized_result = result;
    }
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
/// The envelope keeps its `normalized_result`; the record is read from it
/// without copying the tree.
pub fn import_capture(source_name: &str, value: Value) -> Result<(Evidence, CaptureRecord), ImportError> {
    import(source_name, value, Keep::Tree)
}

/// Imports capture Evidence like [`import_capture`] (the same checks, the
/// same errors), for callers that need only the typed record: the record
/// takes the strings of the document's tree instead of copying them, and the
/// returned envelope's `normalized_result` is `null`.
pub fn import_capture_record(source_name: &str, value: Value) -> Result<(Evidence, CaptureRecord), ImportError> {
    import(source_name, value, Keep::Record)
}

/// What an import keeps of the record's JSON tree.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// The envelope's `normalized_result` as read.
    Tree,
    /// Only the typed record.
    Record,
}

fn import(source_name: &str, value: Value, keep: Keep) -> Result<(Evidence, CaptureRecord), ImportError> {
    let mut envelope = parse_evidence_value(source_name, value)?;
    let wrong = |reason: String| ImportError::WrongWorkflow { source_name: source_name.to_owned(), reason };
    if envelope.predicate_type != CAPTURE_PREDICATE {
        return Err(wrong(format!("predicate_type is {:?}, expected {CAPTURE_PREDICATE:?}", envelope.predicate_type)));
    }
    if envelope.operation != CAPTURE_OPERATION {
        return Err(wrong(format!("operation is {:?}, expected {CAPTURE_OPERATION:?}", envelope.operation)));
    }
    if envelope.provider != Provider::current() {
        return Err(wrong(format!("provider is {}, expected {}", envelope.provider, Provider::current())));
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
    if envelope.analysis_profile.is_some() {
        return Err(ImportError::Malformed {
            source_name: source_name.to_owned(),
            path: "analysis_profile".into(),
            reason: "is present; capture Evidence never carries an analysis profile".into(),
        });
    }
    let shape = |(path, reason)| ImportError::Malformed { source_name: source_name.to_owned(), path, reason };
    let record: CaptureRecord = match keep {
        Keep::Tree => typed(&envelope.normalized_result, "normalized_result"),
        Keep::Record => typed(std::mem::take(&mut envelope.normalized_result), "normalized_result"),
    }
    .map_err(shape)?;
    check_record(&record).map_err(|(path, reason)| malformed(&path, reason))?;
    Ok((envelope, record))
}

type Broken = (String, String);

/// The `evidence_id` of a document as it is: the projection keeps every key
/// that is present (null or not), drops `evidence_id` and reduces `subject`
/// to `{digest, format, architecture}`. The document is restored afterwards.
pub(crate) fn projection_id(value: &mut Value) -> Result<String, serde_json::Error> {
    let Value::Object(map) = value else { return digest(value).map(|d| format!("ev_{d}")) };
    let id = map.remove("evidence_id");
    let subject = map.get("subject").cloned();
    if let Some(Value::Object(s)) = map.get_mut("subject") {
        s.retain(|k, _| matches!(k.as_str(), "digest" | "format" | "architecture"));
    }
    let Value::Object(map) = value else { unreachable!("checked above") };
    let members: Vec<(&str, &Value)> = map.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let computed = digest_members(&members).map(|d| format!("ev_{d}"));
    if let Some(subject) = subject {
        map.insert("subject".into(), subject);
    }
    if let Some(id) = id {
        map.insert("evidence_id".into(), id);
    }
    computed
}

/// Deserializes `value` as `T`; a shape error names the JSON path (under
/// `prefix`) of the value it concerns and the rule it breaks.
pub(crate) fn typed<'de, T, D>(value: D, prefix: &str) -> Result<T, Broken>
where
    T: serde::Deserialize<'de>,
    D: serde::Deserializer<'de, Error = serde_json::Error>,
{
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.inner().to_string();
        let mut path = prefix.to_owned();
        for segment in e.path().iter() {
            path = match segment {
                serde_path_to_error::Segment::Seq { index } => crate::path::join_index(&path, *index),
                serde_path_to_error::Segment::Map { key } | serde_path_to_error::Segment::Enum { variant: key } => {
                    crate::path::join_key(&path, key)
                }
                serde_path_to_error::Segment::Unknown => crate::path::join_key(&path, "?"),
            };
        }
        // A missing key is reported at its object; name the key itself.
        let quoted = |after: &str| inner.strip_prefix(after).and_then(|rest| rest.split('`').next()).map(str::to_owned);
        let (path, reason) = if let Some(key) = quoted("missing field `") {
            (crate::path::join_key(&path, &key), "missing field: the format requires it".to_owned())
        } else if inner.starts_with("unknown field `") {
            // The path already ends in the unknown key.
            let expected = inner.split_once(", expected ").map_or(String::new(), |(_, e)| format!(" (expected {e})"));
            (path, format!("unknown field: the format has no such key{expected}"))
        } else {
            (path, inner)
        };
        (if path.is_empty() { "(root)".to_owned() } else { path }, reason)
    })
}

fn require(ok: bool, path: &str, reason: impl FnOnce() -> String) -> Result<(), Broken> {
    if ok { Ok(()) } else { Err((path.to_owned(), reason())) }
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
    }
    for (i, e) in r.interaction_events.iter().enumerate() {
        let p = format!("interaction_events[{i}]");
        require(e.sequence == i as u64, &format!("{p}.sequence"), || format!("{} is not {i}", e.sequence))?;
        check_interaction(e, &p, r.rendered_frames.len())?;
    }
    for (i, s) in r.process_samples.iter().enumerate().skip(1) {
        require(s.at_ms >= r.process_samples[i - 1].at_ms, &format!("process_samples[{i}].at_ms"), || {
            "decreases".into()
        })?;
    }

    let exit = &r.exit;
    require(exit.reason == ExitReason::Exited || exit.code.is_none(), "exit.code", || {
        format!("must be null for a {} exit", exit.reason)
    })?;
    require(exit.signal == 0 || exit.code.is_none(), "exit.code", || "must be null when exit.signal is set".into())?;
    if let Some(fin) = &exit.finalization {
        require(exit.reason != ExitReason::Exited, "exit.finalization", || {
            "is present on an exit no deadline started".into()
        })?;
        require(fin.signals.len() <= 2, "exit.finalization.signals", || {
            "holds more than SIGTERM and one SIGKILL".into()
        })?;
        for (i, s) in fin.signals.iter().enumerate() {
            let p = format!("exit.finalization.signals[{i}]");
            let expected = if i == 0 { FinalizationSignal::SIGTERM } else { FinalizationSignal::SIGKILL };
            require(s.signal == expected, &format!("{p}.signal"), || format!("{} is not {expected}", s.signal))?;
        }
    }
    let st = &r.settlement;
    let outcomes = st.state.allowed_outcomes();
    require(outcomes.contains(&st.cleanup_outcome), "settlement.cleanup_outcome", || {
        let allowed: Vec<&str> = outcomes.iter().map(|o| o.as_str()).collect();
        format!("{} is not allowed with state {}; expected {}", st.cleanup_outcome, st.state, allowed.join(" or "))
    })?;

    for (i, e) in r.filesystem_effects.iter().enumerate() {
        let p = format!("filesystem_effects[{i}]");
        require(e.status != EffectStatus::Unknown || e.reason.is_some(), &format!("{p}.reason"), || {
            "is required for an unknown effect".into()
        })?;
    }

    let any = r.truncation_details.any_truncated();
    require(r.truncated == any, "truncated", || format!("is {} but truncation_details says {any}", r.truncated))?;

    check_journal(r)
}

/// A reply to a terminal query has a query and no schedule; a scripted
/// event the reverse; `screen_before` names a frame of the record.
fn check_interaction(e: &InteractionEvent, p: &str, rendered_frames: usize) -> Result<(), Broken> {
    let reply = e.kind == InteractionKind::TerminalReply;
    require(e.query.is_some() == reply, &format!("{p}.query"), || {
        if reply { "is required for a terminal_reply".into() } else { format!("is present on a {} event", e.kind) }
    })?;
    // A scripted event that waited may have no `at_ms` (it was due when its
    // condition held); every other scripted event has one.
    let unscheduled_ok = reply || e.wait.is_some();
    require(e.scheduled_at_ms.is_none() || !reply, &format!("{p}.scheduled_at_ms"), || {
        "must be null for a terminal_reply".into()
    })?;
    require(e.scheduled_at_ms.is_some() || unscheduled_ok, &format!("{p}.scheduled_at_ms"), || {
        format!("is null on a {} event that did not wait", e.kind)
    })?;
    require(e.wait.is_none() || !reply, &format!("{p}.wait"), || "is present on a terminal_reply".into())?;
    let started = matches!(e.outcome, InteractionOutcome::Dispatched | InteractionOutcome::Failed);
    require(e.dispatched_at_ms.is_some() || !started, &format!("{p}.dispatched_at_ms"), || {
        format!("is null on a {} event", e.outcome)
    })?;
    if let Some(w) = &e.wait {
        let satisfied = w.outcome == WaitOutcome::Satisfied;
        require(w.satisfied_at_ms.is_some() == satisfied, &format!("{p}.wait.satisfied_at_ms"), || {
            if satisfied {
                "is null on a satisfied wait".into()
            } else {
                format!("is set on a wait that {}", w.outcome)
            }
        })?;
    }
    if let Some(n) = e.screen_before.frame() {
        require((n as usize) < rendered_frames, &format!("{p}.screen_before"), || {
            format!("{n} is outside rendered_frames ({rendered_frames} entries)")
        })?;
    }
    Ok(())
}

fn check_journal(r: &CaptureRecord) -> Result<(), Broken> {
    if r.event_journal.is_empty() {
        return Ok(());
    }
    let size_of = |c: JournalCollection| match c {
        JournalCollection::Frames => r.frames.len(),
        JournalCollection::RenderedFrames => r.rendered_frames.len(),
        JournalCollection::InteractionEvents => r.interaction_events.len(),
        JournalCollection::Lifecycle => 2,
        JournalCollection::ProcessSamples => r.process_samples.len(),
    };
    let mut seen: HashMap<(JournalCollection, u64), usize> = HashMap::new();
    for (i, e) in r.event_journal.iter().enumerate() {
        let p = format!("event_journal[{i}]");
        require(e.capture_order == i as u64, &format!("{p}.capture_order"), || {
            format!("{} is not {i}", e.capture_order)
        })?;
        let size = size_of(e.collection);
        require((e.index as usize) < size, &format!("{p}.index"), || {
            format!("{} is outside {} ({size} entries)", e.index, e.collection)
        })?;
        if let Some(prev) = seen.insert((e.collection, e.index), i) {
            return Err((p, format!("repeats event_journal[{prev}]")));
        }
    }
    let total: usize = JournalCollection::ALL.iter().map(|c| size_of(*c)).sum();
    require(seen.len() == total, "event_journal", || {
        format!("references {} observations but the record holds {total}", seen.len())
    })
}
