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

#[cfg(test)]
mod behaviour_tests;
mod contract;
mod diff;
mod dimensions;
mod terminal;
pub mod trace;

use serde::Serialize;
use serde_json::{Value, json};

pub use diff::{Difference, Location, MAX_DIFFERENCES, TimingDelta};
pub use terminal::TRUNCATION_MARGIN_BYTES;

pub use contract::contract_differences;
pub use trace::{TraceSpec, TraceSpecError, parse_trace_spec};

use crate::error::{Category, UserError};
use crate::evidence::{
    COMPARISON_OPERATION, COMPARISON_PREDICATE, CaptureRecord, DocumentTruncation, EVIDENCE_SCHEMA_VERSION, Evidence,
    FileState, NO_SUBJECT_LIMITATION, Provider, seal,
};

/// Default `timing_tolerance_ms`: above the 99.9th percentile of the timing
/// jitter measured between identical reruns on a loaded two-core machine
/// (`ci/measure-jitter.sh`; figures in `docs/benchmarks.md`).
pub const DEFAULT_TIMING_TOLERANCE_MS: u64 = 250;

/// How two captures are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompareOptions {
    /// A timing value differs only when `|left - right|` exceeds this; `0`
    /// is the strict reading.
    pub timing_tolerance_ms: u64,
}

impl Default for CompareOptions {
    fn default() -> CompareOptions {
        CompareOptions { timing_tolerance_ms: DEFAULT_TIMING_TOLERANCE_MS }
    }
}

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
    /// The first [`MAX_DIFFERENCES`] differences, earliest first.
    pub differences: Vec<Difference>,
    /// How many further differences were found.
    pub differences_omitted: usize,
    /// Every timing value compared, within the tolerance or not.
    pub timing_deltas: Vec<TimingDelta>,
}

/// Compares two imported captures, under `trace` when given, and returns
/// sealed comparison Evidence.
/// with the default [`CompareOptions`].
pub fn compare(left: Side<'_>, right: Side<'_>, trace: Option<&TraceSpec>) -> Result<Evidence, CompareError> {
    compare_with(left, right, trace, CompareOptions::default())
}

/// Compares two imported captures under `options`, and under `trace` when
/// given, and returns sealed comparison Evidence.
pub fn compare_with(
    left: Side<'_>,
    right: Side<'_>,
    trace: Option<&TraceSpec>,
    options: CompareOptions,
) -> Result<Evidence, CompareError> {
    let fields =
        contract_differences(&left.record.manifest.comparison_contract, &right.record.manifest.comparison_contract);
    if !fields.is_empty() {
        return Err(CompareError::ContractMismatch { fields });
    }
    let result = compare_records_with(left.record, right.record, trace, options);
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
        parameters: parameters(&left, &right, trace, options),
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

fn parameters(left: &Side<'_>, right: &Side<'_>, trace: Option<&TraceSpec>, options: CompareOptions) -> Value {
    let mut parameters = json!({
        "timing_tolerance_ms": options.timing_tolerance_ms,
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

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        a.extend(b);
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
    out.extend(document_reason(td.document.as_ref(), side, dimension));
    out
}

/// What the document bound left out of one side in `dimension`, if anything.
fn document_reason(document: Option<&DocumentTruncation>, side: &str, dimension: &str) -> Option<String> {
    let d = document?;
    let omitted = match dimension {
        "terminal" if d.omitted_frames > 0 || d.omitted_rendered_frames > 0 => {
            format!("its latest {} terminal chunks and {} rendered states", d.omitted_frames, d.omitted_rendered_frames)
        }
        "filesystem" if d.omitted_paths > 0 => format!("the last {} filesystem paths", d.omitted_paths),
        "process" if d.omitted_process_samples > 0 => {
            format!("its latest {} process samples", d.omitted_process_samples)
        }
        _ => return None,
    };
    Some(format!("{side} capture left out {omitted} to keep its document within {} bytes.", d.budget_bytes))
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

/// One dimension's findings before classification.
struct Found {
    findings: diff::Findings,
    /// Whether any difference is a seen change despite truncation.
    observed_despite_truncation: bool,
    /// Whether the differences are proof (false: possibly sampling noise).
    proven: bool,
    left_empty: bool,
    right_empty: bool,
}

impl Found {
    fn plain(findings: diff::Findings) -> Found {
        Found { findings, observed_despite_truncation: false, proven: true, left_empty: false, right_empty: false }
    }
}

fn find(dimension: &str, l: &CaptureRecord, r: &CaptureRecord, options: CompareOptions) -> Found {
    let tolerance = options.timing_tolerance_ms;
    match dimension {
        "terminal" => {
            let (a, b) = (terminal::Segmented::new(l), terminal::Segmented::new(r));
            let (findings, observed) = terminal::compare(&a, &b);
            Found {
                observed_despite_truncation: observed,
                left_empty: a.is_empty(),
                right_empty: b.is_empty(),
                ..Found::plain(findings)
            }
        }
        "interaction" => Found {
            left_empty: l.interaction_events.is_empty(),
            right_empty: r.interaction_events.is_empty(),
            ..Found::plain(dimensions::interaction(l, r, tolerance))
        },
        "exit" => Found::plain(dimensions::exit(l, r, tolerance)),
        "filesystem" => Found {
            observed_despite_truncation: !filesystem_differences_explained(l, r),
            left_empty: l.files_before.is_empty() && l.files_after.is_empty() && l.filesystem_effects.is_empty(),
            right_empty: r.files_before.is_empty() && r.files_after.is_empty() && r.filesystem_effects.is_empty(),
            ..Found::plain(dimensions::filesystem(l, r))
        },
        _ => {
            let p = dimensions::process(l, r);
            Found {
                proven: p.proven,
                left_empty: l.process_samples.is_empty(),
                right_empty: r.process_samples.is_empty(),
                ..Found::plain(p.findings)
            }
        }
    }
}

const SAMPLING_REASON: &str = "Process samples differ only in processes seen in a single sampling pass; periodic sampling can miss a short-lived process or see it before its exec, so this is not proof of a behavioural difference.";

fn status_of(found: &Found, unknown: Vec<String>, truncated: Vec<String>) -> (&'static str, Vec<String>) {
    let equal = found.findings.is_empty();
    if !unknown.is_empty() {
        // What was left out still explains part of the unknown.
        ("unknown", unknown.into_iter().chain(truncated).collect())
    } else if !truncated.is_empty() && (equal || !found.observed_despite_truncation) {
        ("truncated", truncated)
    } else if equal {
        ("unchanged", Vec::new())
    } else if !found.proven {
        ("unknown", vec![SAMPLING_REASON.to_owned()])
    } else if found.left_empty {
        ("added", Vec::new())
    } else if found.right_empty {
        ("removed", Vec::new())
    } else {
        ("changed", Vec::new())
    }
}

/// Each dimension's own status, with every difference found (sorted).
fn classify(l: &CaptureRecord, r: &CaptureRecord, options: CompareOptions) -> Vec<(DimensionResult, Vec<Difference>)> {
    let mut out = Vec::new();
    for dimension in DIMENSIONS {
        let found = find(dimension, l, r, options);
        let mut unknown = residual_reasons(l, dimension);
        unknown.extend(residual_reasons(r, dimension));
        let mut truncated = truncation_reasons(l, "Left", dimension);
        truncated.extend(truncation_reasons(r, "Right", dimension));
        let (status, mut reasons) = status_of(&found, unknown, truncated);
        reasons.dedup();
        let mut all = found.findings.differences;
        all.sort_by_key(|d| d.order);
        let shown: Vec<Difference> = all.iter().take(MAX_DIFFERENCES).cloned().collect();
        let result = DimensionResult {
            dimension,
            status,
            exact_status: None,
            reasons,
            differences_omitted: all.len() - shown.len(),
            differences: shown,
            timing_deltas: found.findings.timing_deltas,
        };
        out.push((result, all));
    }
    out
}

fn shows_change(status: &str) -> bool {
    matches!(status, "changed" | "added" | "removed")
}

/// Process sampling never locates the first divergence, so it neither
/// supplies one nor makes it unlocatable.
fn behavioural(d: &DimensionResult) -> bool {
    d.dimension != "process"
}

/// The earliest difference, in segment order, of a behavioural dimension
/// that still shows one (a trace may have settled a dimension's differences).
fn earliest(dimensions: &[DimensionResult], all: &[Vec<Difference>]) -> Option<Value> {
    let (_, dimension, d) = dimensions
        .iter()
        .zip(all)
        .filter(|(d, _)| behavioural(d) && d.status != "unchanged")
        .filter_map(|(d, diffs)| diffs.first().map(|x| (x.order, d.dimension, x)))
        .min_by_key(|(order, ..)| *order)?;
    let mut v = json!({"dimension": dimension, "segment": d.order.0, "path": d.path, "left": d.left, "right": d.right});
    if let Some(location) = &d.location {
        merge(&mut v, json!({ "location": location }));
    }
    Some(v)
}

/// Whether a dimension was fully observed.
fn complete(d: &DimensionResult) -> bool {
    !matches!(d.status, "unknown" | "truncated")
}

/// The first divergence. Filesystem effects are observed after settlement,
/// after everything the other dimensions record, so an incompletely
/// observed filesystem (for example, no observation paths) cannot hide an
/// earlier difference found in a completely observed terminal, interaction
/// and exit; it only leaves "no divergence" unproven.
fn first_divergence(dimensions: &[DimensionResult], all: &[Vec<Difference>], status: &str) -> Value {
    let before_filesystem = dimensions.iter().filter(|d| behavioural(d) && d.dimension != "filesystem").all(complete);
    let filesystem_complete = dimensions.iter().filter(|d| d.dimension == "filesystem").all(complete);
    let found = earliest(dimensions, all);
    let found_before_filesystem = found.as_ref().is_some_and(|f| f["dimension"] != "filesystem");
    let complete = before_filesystem && (filesystem_complete || found_before_filesystem);
    let behavioural_change = dimensions.iter().any(|d| behavioural(d) && shows_change(d.status));
    match (complete, found) {
        (true, Some(mut found)) => {
            merge(&mut found, json!({"status": "found"}));
            found
        }
        (true, None) if behavioural_change => json!({
            "status": "unknown",
            "reason": "The trace comparison found a difference that no single observation locates; see trace.diagnostic.",
            "earliest_observed_difference": null,
        }),
        (true, None) if status == "changed" => json!({
            "status": "unknown",
            "reason": "Only process samples differ; periodic sampling does not locate a behavioural divergence.",
            "earliest_observed_difference": null,
        }),
        (true, None) => json!({"status": "none"}),
        (false, earliest) => json!({
            "status": "unknown",
            "reason": "At least one dimension is truncated or has residual unknowns, so the first divergence across all dimensions cannot be located.",
            "earliest_observed_difference": earliest,
        }),
    }
}

/// Builds the comparison record (the `normalized_result`) with the default
/// options, with a `trace` object when `trace` is given.
pub fn compare_records(l: &CaptureRecord, r: &CaptureRecord, trace: Option<&TraceSpec>) -> Value {
    compare_records_with(l, r, trace, CompareOptions::default())
}

/// Builds the comparison record (the `normalized_result`) under `options`,
/// with a `trace` object when `trace` is given.
pub fn compare_records_with(
    l: &CaptureRecord,
    r: &CaptureRecord,
    trace: Option<&TraceSpec>,
    options: CompareOptions,
) -> Value {
    let (mut dimensions, all): (Vec<DimensionResult>, Vec<Vec<Difference>>) =
        classify(l, r, options).into_iter().unzip();
    let trace_result = trace.map(|spec| {
        let result = trace::compare_traces(l, r, spec);
        trace::apply(&result, spec, l, r, &mut dimensions);
        result
    });
    let status = if dimensions.iter().any(|d| shows_change(d.status)) {
        "changed"
    } else if dimensions.iter().any(|d| d.status == "truncated") {
        "truncated"
    } else if dimensions.iter().any(|d| d.status == "unknown") {
        "unknown"
    } else {
        "unchanged"
    };
    let first_divergence = first_divergence(&dimensions, &all, status);
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
