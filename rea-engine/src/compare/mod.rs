//! Comparison of two capture records under a shared comparison contract.
//!
//! Each dimension (terminal, interaction, exit, filesystem, process) is
//! classified on its own: a residual unknown makes it `unknown`, a truncated
//! observation makes it `truncated`, and only then are the observations
//! compared (`unchanged`, `added`, `removed`, `changed`). Unaffected
//! dimensions keep their result. A filesystem difference confined to paths
//! whose root was not completely enumerated, or to files without digests, is
//! `truncated` rather than `changed`, while a difference elsewhere is still a
//! seen change.
//!
//! An optional trace specification ([`trace`]) adds a `trace` verdict and
//! changes the statuses of the dimensions its sources cover.

mod contract;
pub mod trace;

use serde::Serialize;
use serde_json::{Value, json};

pub use contract::contract_differences;
pub use trace::{TraceSpec, TraceSpecError, parse_trace_spec};

use crate::error::{Category, UserError};
use crate::evidence::{
    COMPARISON_OPERATION, COMPARISON_PREDICATE, CaptureRecord, EVIDENCE_SCHEMA_VERSION, Evidence, FileState,
    NO_SUBJECT_LIMITATION, Provider, same, seal,
};

/// `schema_version` of the comparison record.
pub const COMPARISON_SCHEMA_VERSION: u32 = 5;

/// The dimensions, in reporting order.
pub const DIMENSIONS: [&str; 5] = ["terminal", "interaction", "exit", "filesystem", "process"];

/// Why two captures cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// The comparison contracts differ.
    #[error("the captures have different comparison contracts; differing fields: {}", .fields.join(", "))]
    ContractMismatch {
        /// Paths of the differing contract fields.
        fields: Vec<String>,
    },
    /// The record could not be serialized (an internal error).
    #[error("the comparison record could not be serialized: {0}")]
    Serialize(#[from] serde_json::Error),
}

impl UserError for CompareError {
    fn category(&self) -> Category {
        match self {
            CompareError::ContractMismatch { .. } => Category::InvalidInput,
            CompareError::Serialize(_) => Category::ExecutionFailure,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            CompareError::ContractMismatch { .. } => "contract_mismatch",
            CompareError::Serialize(_) => "internal_error",
        }
    }
    fn remediation(&self) -> String {
        match self {
            CompareError::ContractMismatch { .. } => "Capture both sides with the same working directory, environment overrides, observation paths, terminal, events, timeouts, limits and normalization (only the executable and its arguments may differ), then compare again.".into(),
            CompareError::Serialize(_) => "Report this as a bug in rea.".into(),
        }
    }
    fn details(&self) -> Option<Value> {
        match self {
            CompareError::ContractMismatch { fields } => Some(json!({ "differing_fields": fields })),
            CompareError::Serialize(_) => None,
        }
    }
}

/// One side of a comparison.
pub struct Side<'a> {
    /// The side's Evidence envelope.
    pub evidence: &'a Evidence,
    /// Its imported record.
    pub record: &'a CaptureRecord,
}

/// One dimension's classification.
#[derive(Debug, Clone, Serialize)]
pub struct DimensionResult {
    /// Dimension name.
    pub dimension: &'static str,
    /// `unchanged`, `added`, `removed`, `changed`, `truncated` or `unknown`.
    pub status: &'static str,
    /// The dimension's own status, present only when a trace verdict replaced it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_status: Option<&'static str>,
    /// Why it is `truncated` or `unknown`, or which trace difference made it `changed`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

struct Candidate {
    dimension: &'static str,
    index: usize,
    left_at_ms: Option<u64>,
    right_at_ms: Option<u64>,
    left: Value,
    right: Value,
}

/// Compares two imported captures, under `trace` when given, and returns
/// sealed comparison Evidence.
pub fn compare(left: Side<'_>, right: Side<'_>, trace: Option<&TraceSpec>) -> Result<Evidence, CompareError> {
    let fields =
        contract_differences(&left.record.manifest.comparison_contract, &right.record.manifest.comparison_contract);
    if !fields.is_empty() {
        return Err(CompareError::ContractMismatch { fields });
    }
    let result = compare_records(left.record, right.record, trace);
    let mut limitations = vec![NO_SUBJECT_LIMITATION.to_owned()];
    for l in result["limitations"].as_array().into_iter().flatten() {
        if let Some(s) = l.as_str() {
            limitations.push(s.to_owned());
        }
    }
    let mut locations = left.evidence.locations.clone();
    locations.extend(right.evidence.locations.iter().cloned());
    Ok(seal(Evidence {
        schema_version: EVIDENCE_SCHEMA_VERSION,
        evidence_id: String::new(),
        subject: Value::Null,
        provider: Provider::current(),
        analysis_profile: None,
        predicate_type: COMPARISON_PREDICATE.into(),
        operation: COMPARISON_OPERATION.into(),
        parameters: parameters(&left, &right, trace),
        raw_result: Value::Null,
        normalized_result: result,
        confidence: "derived".into(),
        authority: "analyst-inference".into(),
        environment: Value::Null,
        limitations,
        locations,
        evidence_links: vec![left.evidence.evidence_id.clone(), right.evidence.evidence_id.clone()],
    })?)
}

fn parameters(left: &Side<'_>, right: &Side<'_>, trace: Option<&TraceSpec>) -> Value {
    let mut parameters = json!({
        "left_evidence_id": left.evidence.evidence_id,
        "right_evidence_id": right.evidence.evidence_id,
        "left_normalization": left.record.normalization,
        "right_normalization": right.record.normalization,
    });
    if let Some(spec) = trace {
        merge(&mut parameters, json!({ "trace_spec": spec.given }));
    }
    parameters
}

fn terminal_items(r: &CaptureRecord) -> Vec<Value> {
    let mut items: Vec<(u64, u8, u64, Value)> = Vec::new();
    for f in &r.frames {
        let mut v = json!({"kind": "raw"});
        merge(&mut v, serde_json::to_value(f).unwrap_or(Value::Null));
        items.push((f.at_ms, 0, f.sequence, v));
    }
    for f in &r.rendered_frames {
        let mut v = json!({"kind": "rendered"});
        merge(&mut v, serde_json::to_value(f).unwrap_or(Value::Null));
        items.push((f.at_ms, 1, f.sequence, v));
    }
    items.sort_by_key(|a| (a.0, a.1, a.2));
    items.into_iter().map(|(_, _, _, v)| v).collect()
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        a.extend(b);
    }
}

fn to_values<T: Serialize>(items: &[T]) -> Vec<Value> {
    items.iter().map(|i| serde_json::to_value(i).unwrap_or(Value::Null)).collect()
}

fn filesystem_items(r: &CaptureRecord) -> Vec<Value> {
    let mut out = Vec::new();
    for f in &r.files_before {
        out.push(json!({"snapshot": "before", "state": f}));
    }
    for f in &r.files_after {
        out.push(json!({"snapshot": "after", "state": f}));
    }
    for e in &r.filesystem_effects {
        out.push(json!({"effect": e}));
    }
    out
}

fn observations(r: &CaptureRecord, dimension: &str) -> Vec<Value> {
    match dimension {
        "terminal" => terminal_items(r),
        "interaction" => to_values(&r.interaction_events),
        "exit" => vec![json!({"exit": r.exit, "settlement": r.settlement})],
        "filesystem" => filesystem_items(r),
        _ => to_values(&r.process_samples),
    }
}

fn residual_reasons(r: &CaptureRecord, scope: &str) -> Vec<String> {
    r.residual_unknowns.iter().filter(|u| u.scope.as_str() == scope).map(|u| u.reason.clone()).collect()
}

fn truncation_reasons(r: &CaptureRecord, side: &str, dimension: &str) -> Vec<String> {
    let td = &r.truncation_details;
    let mut out = Vec::new();
    match dimension {
        "terminal" => {
            if td.raw_terminal.truncated {
                out.push(format!("{side} capture omitted raw terminal chunks."));
            }
            if td.normalized_terminal.as_ref().is_some_and(|n| n.truncated) {
                out.push(format!("{side} capture omitted chunks for their normalized size."));
            }
            if td.rendered_terminal.truncated {
                out.push(format!("{side} capture omitted rendered terminal states."));
            }
        }
        "filesystem" if (td.filesystem_before.truncated || td.filesystem_after.truncated) => {
            out.push(format!("{side} capture has incomplete filesystem snapshots."));
        }
        "process" if td.process.truncated => {
            out.push(format!("{side} capture's process sampling ended partially."));
        }
        _ => {}
    }
    out
}

/// Root aliases (`root_<i>`) whose enumeration was incomplete in either snapshot.
fn incomplete_roots(r: &CaptureRecord) -> Vec<String> {
    let td = &r.truncation_details;
    td.filesystem_before
        .roots
        .iter()
        .chain(td.filesystem_after.roots.iter())
        .filter(|c| !c.complete)
        .map(|c| c.root.clone())
        .collect()
}

fn root_of(path: &str) -> &str {
    path.split_once(':').map_or(path, |(root, _)| root)
}

fn unhashed(list: &[FileState], path: &str) -> bool {
    list.iter().any(|f| f.path == path && f.kind == crate::evidence::FileKind::File && f.sha256.is_none())
}

/// Whether every filesystem difference lies where observation was incomplete.
fn filesystem_differences_explained(l: &CaptureRecord, r: &CaptureRecord) -> bool {
    let mut incomplete = incomplete_roots(l);
    incomplete.extend(incomplete_roots(r));
    let key = |f: &FileState| (f.path.clone(), serde_json::to_string(f).unwrap_or_default());
    let mut paths = std::collections::BTreeSet::new();
    for (a, b) in [(&l.files_before, &r.files_before), (&l.files_after, &r.files_after)] {
        let sa: std::collections::BTreeSet<_> = a.iter().map(key).collect();
        let sb: std::collections::BTreeSet<_> = b.iter().map(key).collect();
        paths.extend(sa.symmetric_difference(&sb).map(|(p, _)| p.clone()));
    }
    paths.iter().all(|p| {
        incomplete.iter().any(|root| root == root_of(p))
            || unhashed(&l.files_before, p)
            || unhashed(&l.files_after, p)
            || unhashed(&r.files_before, p)
            || unhashed(&r.files_after, p)
    })
}

fn at_ms(v: &Value) -> Option<u64> {
    v.get("at_ms").and_then(Value::as_u64).filter(|n| *n <= crate::scenario::MAX_SAFE_INTEGER)
}

/// Each dimension's own status, and the first differing observation of
/// every dimension whose observations differ.
fn classify(l: &CaptureRecord, r: &CaptureRecord) -> (Vec<DimensionResult>, Vec<Candidate>) {
    let mut dimensions = Vec::new();
    let mut candidates = Vec::new();
    for dimension in DIMENSIONS {
        let (lo, ro) = (observations(l, dimension), observations(r, dimension));
        let equal = same(&lo, &ro);
        if !equal {
            let n = lo.len().max(ro.len());
            if let Some(i) = (0..n).find(|&i| !same(&lo.get(i), &ro.get(i))) {
                let (a, b) = (lo.get(i).cloned().unwrap_or(Value::Null), ro.get(i).cloned().unwrap_or(Value::Null));
                candidates.push(Candidate {
                    dimension,
                    index: i,
                    left_at_ms: at_ms(&a),
                    right_at_ms: at_ms(&b),
                    left: a,
                    right: b,
                });
            }
        }
        let scope = dimension;
        let mut unknown = residual_reasons(l, scope);
        unknown.extend(residual_reasons(r, scope));
        let mut truncated = truncation_reasons(l, "Left", dimension);
        truncated.extend(truncation_reasons(r, "Right", dimension));
        let (status, reasons) = if !unknown.is_empty() {
            ("unknown", unknown)
        } else if !truncated.is_empty()
            && (equal || dimension != "filesystem" || filesystem_differences_explained(l, r))
        {
            ("truncated", truncated)
        } else if equal {
            ("unchanged", Vec::new())
        } else if lo.is_empty() {
            ("added", Vec::new())
        } else if ro.is_empty() {
            ("removed", Vec::new())
        } else {
            ("changed", Vec::new())
        };
        let mut reasons = reasons;
        reasons.dedup();
        dimensions.push(DimensionResult { dimension, status, exact_status: None, reasons });
    }
    (dimensions, candidates)
}

/// Builds the comparison record (the `normalized_result`), with a `trace`
/// object when `trace` is given.
pub fn compare_records(l: &CaptureRecord, r: &CaptureRecord, trace: Option<&TraceSpec>) -> Value {
    let (mut dimensions, mut candidates) = classify(l, r);
    let trace_result = trace.map(|spec| {
        let result = trace::compare_traces(l, r, spec);
        trace::apply(&result, spec, l, r, &mut dimensions);
        result
    });
    let verdict = trace_result.as_ref().map(|t| t.verdict);
    if verdict == Some(trace::Verdict::Equivalent) {
        // The trace accepted these dimensions; their exact differences are not divergences.
        candidates.retain(|c| dimensions.iter().any(|d| d.dimension == c.dimension && d.status != "unchanged"));
    }
    let complete = dimensions.iter().all(|d| !matches!(d.status, "unknown" | "truncated"));

    let status = if dimensions.iter().any(|d| matches!(d.status, "changed" | "added" | "removed")) {
        "changed"
    } else if dimensions.iter().any(|d| d.status == "truncated") {
        "truncated"
    } else if dimensions.iter().any(|d| d.status == "unknown") {
        "unknown"
    } else {
        "unchanged"
    };

    // Earliest candidate by min(left, right) at_ms; null sorts last; ties keep dimension order.
    candidates.sort_by_key(|c| match (c.left_at_ms, c.right_at_ms) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => u64::MAX,
    });
    let earliest = candidates.into_iter().next().map(|c| {
        json!({
            "dimension": c.dimension,
            "index": c.index,
            "left_at_ms": c.left_at_ms,
            "right_at_ms": c.right_at_ms,
            "left": c.left,
            "right": c.right,
        })
    });
    let first_divergence = match (complete, earliest) {
        (true, Some(mut found)) => {
            merge(&mut found, json!({"status": "found"}));
            found
        }
        (true, None) if status == "changed" => json!({
            "status": "unknown",
            "reason": "The trace comparison found a difference that no single observation locates; see trace.diagnostic.",
            "earliest_observed_difference": null,
        }),
        (true, None) => json!({"status": "none"}),
        (false, earliest) => json!({
            "status": "unknown",
            "reason": "At least one dimension is truncated or has residual unknowns, so the first divergence across all dimensions cannot be located.",
            "earliest_observed_difference": earliest,
        }),
    };

    let mut limitations: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        if !limitations.iter().any(|l| l == s) {
            limitations.push(s.to_owned());
        }
    };
    for rec in [l, r] {
        rec.limitations.iter().for_each(|s| push(s));
    }
    for rec in [l, r] {
        rec.residual_unknowns.iter().for_each(|u| push(&u.reason));
    }

    let mut record = json!({
        "schema_version": COMPARISON_SCHEMA_VERSION,
        "status": status,
        "dimensions": dimensions,
        "first_divergence": first_divergence,
        "limitations": limitations,
    });
    if let Some(t) = trace_result {
        merge(&mut record, json!({ "trace": t }));
    }
    record
}

#[cfg(test)]
mod tests {
    use super::trace::testkit::{RecordBuilder, partial_order};
    use super::*;
    use crate::evidence::{capture_evidence, compute_evidence_id};

    #[test]
    fn a_trace_adds_its_specification_and_verdict_to_the_same_predicate() {
        let record = RecordBuilder::new().exit(0).settle(50).build();
        let l = capture_evidence(&record, json!({"side": "left"})).unwrap();
        let r = capture_evidence(&record, json!({"side": "right"})).unwrap();
        let side = |e| Side { evidence: e, record: &record };

        let plain = compare(side(&l), side(&r), None).unwrap();
        assert!(plain.parameters.get("trace_spec").is_none());
        assert!(plain.normalized_result.get("trace").is_none());

        // Settlement timing is not asserted.
        let doc = partial_order(
            json!([
                {"id": "exit", "source": "lifecycle", "ignore_fields": ["elapsed_ms"],
                 "exact": {"event": "exit", "code": 0, "signal": 0, "reason": "exited"}},
                {"id": "settled", "source": "lifecycle", "ignore_fields": ["elapsed_ms"],
                 "exact": {"event": "settlement", "state": "quiesced", "cleanup_outcome": "not_required"}}
            ]),
            json!({"happens_before": [{"before": "exit", "after": "settled"}]}),
        );
        let spec = parse_trace_spec(doc.clone()).unwrap();
        let traced = compare(side(&l), side(&r), Some(&spec)).unwrap();
        assert_eq!(traced.predicate_type, COMPARISON_PREDICATE);
        assert_eq!(traced.parameters["trace_spec"], doc);
        assert_eq!(traced.parameters["left_evidence_id"], json!(l.evidence_id));
        assert_eq!(traced.normalized_result["trace"]["verdict"], "equivalent");
        assert_eq!(traced.evidence_id, compute_evidence_id(&traced).unwrap());
        assert_ne!(traced.evidence_id, plain.evidence_id, "the specification is part of the identity");
    }
}
