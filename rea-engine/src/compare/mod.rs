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
mod record;
mod screen;
mod screen_view;
mod terminal;
pub mod trace;

use serde_json::{Value, json};

pub use diff::{Difference, Interval, Location, MAX_DIFFERENCES, TimingDelta};
pub use record::{
    ComparisonRecord, ComparisonStatus, Dimension, DimensionResult, DimensionStatus, Divergence, DivergenceGap,
    DivergenceStatus, FirstDivergence, TerminalLens,
};
pub use screen::row_cells;
pub use screen_view::{CellAttribute, CellRun, ScreenPair, ScreenView};
pub use terminal::TRUNCATION_MARGIN_BYTES;

pub use contract::contract_differences;
pub use trace::{TraceSpec, TraceSpecError, parse_trace_spec};

use crate::error::{Category, UserError};
use crate::evidence::{
    COMPARISON_OPERATION, COMPARISON_PREDICATE, CaptureRecord, DocumentTruncation, EVIDENCE_SCHEMA_VERSION, Evidence,
    FileState, NO_SUBJECT_LIMITATION, Part, Provider, evidence_id_with, write_inline,
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
    /// What decides the terminal dimension: the byte stream (the default)
    /// or the screens at each segment boundary and at the end.
    pub terminal_lens: TerminalLens,
}

impl Default for CompareOptions {
    fn default() -> CompareOptions {
        CompareOptions { timing_tolerance_ms: DEFAULT_TIMING_TOLERANCE_MS, terminal_lens: TerminalLens::Stream }
    }
}

/// `schema_version` of the comparison record.
pub const COMPARISON_SCHEMA_VERSION: u32 = 5;

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

/// Compares two imported captures, under `trace` when given, with the
/// default [`CompareOptions`], and returns sealed comparison Evidence.
pub fn compare(left: Side<'_>, right: Side<'_>, trace: Option<&TraceSpec>) -> Result<SealedComparison, CompareError> {
    compare_with(left, right, trace, CompareOptions::default())
}

/// Compares two imported captures under `options`, and under `trace` when
/// given, and returns sealed comparison Evidence.
pub fn compare_with(
    left: Side<'_>,
    right: Side<'_>,
    trace: Option<&TraceSpec>,
    options: CompareOptions,
) -> Result<SealedComparison, CompareError> {
    let fields =
        contract_differences(&left.record.manifest.comparison_contract, &right.record.manifest.comparison_contract);
    if !fields.is_empty() {
        return Err(CompareError::ContractMismatch { fields });
    }
    let record = compare_records_with(left.record, right.record, trace, options)?;
    let mut limitations = vec![NO_SUBJECT_LIMITATION.to_owned()];
    limitations.extend(record.limitations.iter().cloned());
    let mut locations = left.evidence.locations.clone();
    locations.extend(right.evidence.locations.iter().cloned());
    let mut envelope = Evidence {
        schema_version: EVIDENCE_SCHEMA_VERSION,
        evidence_id: String::new(),
        subject: Value::Null,
        provider: Provider::current(),
        analysis_profile: None,
        predicate_type: COMPARISON_PREDICATE.into(),
        operation: COMPARISON_OPERATION.into(),
        parameters: parameters(&left, &right, trace, options),
        raw_result: Value::Null,
        normalized_result: Value::Null,
        confidence: "derived".into(),
        authority: "analyst-inference".into(),
        environment: Value::Null,
        limitations,
        locations,
        evidence_links: vec![left.evidence.evidence_id.clone(), right.evidence.evidence_id.clone()],
    };
    envelope.evidence_id = evidence_id_with(&envelope, Part::Typed(&record))?;
    Ok(SealedComparison { envelope, record })
}

/// Sealed comparison Evidence whose record stays typed.
#[derive(Debug, Clone)]
pub struct SealedComparison {
    /// The envelope, `normalized_result` null.
    envelope: Evidence,
    /// The record that is its `normalized_result`.
    record: ComparisonRecord,
}

impl SealedComparison {
    /// The sealed identity.
    pub fn evidence_id(&self) -> &str {
        &self.envelope.evidence_id
    }

    /// The record.
    pub fn record(&self) -> &ComparisonRecord {
        &self.record
    }

    /// The Evidence with its record as a JSON value (for callers that
    /// store envelopes, such as the MCP server).
    pub fn into_evidence(self) -> Result<Evidence, CompareError> {
        Ok(Evidence { normalized_result: serde_json::to_value(&self.record)?, ..self.envelope })
    }

    /// Writes the Evidence as pretty JSON (what `--json` prints) and a final
    /// newline, serializing the typed record as it goes.
    pub fn write_json(&self, out: impl std::io::Write) -> std::io::Result<()> {
        write_inline(&self.envelope, &self.record, out)
    }

    /// Writes the Evidence as TOON (what rea prints without `--json`) and a
    /// final newline, serializing the typed record as it goes.
    pub fn write_toon(&self, out: impl std::io::Write) -> Result<(), crate::evidence::ToonEncodeError> {
        crate::evidence::write_inline_toon(&self.envelope, &self.record, out)
    }
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
    // Absent at the default, so comparisons made without the lens keep their bytes.
    if options.terminal_lens != TerminalLens::Stream {
        merge(&mut parameters, json!({ "terminal_lens": options.terminal_lens }));
    }
    if let Some([l, r]) = dimensions::side_commands(left.record, right.record) {
        merge(&mut parameters, json!({ "side_commands": { "left": l, "right": r } }));
    }
    parameters
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        a.extend(b);
    }
}

fn residual_reasons(r: &CaptureRecord, dimension: Dimension) -> Vec<String> {
    r.residual_unknowns.iter().filter(|u| u.scope == dimension.scope()).map(|u| u.reason.clone()).collect()
}

fn truncation_reasons(r: &CaptureRecord, side: &str, dimension: Dimension) -> Vec<String> {
    let td = &r.truncation_details;
    let mut out = Vec::new();
    match dimension {
        Dimension::Terminal => {
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
        Dimension::Filesystem if (td.filesystem_before.truncated || td.filesystem_after.truncated) => {
            out.push(format!("{side} capture has incomplete filesystem snapshots."));
        }
        Dimension::Process
            if td.process.truncated
                && matches!(
                    td.process.coverage,
                    crate::evidence::ProcessCoverage::Exact | crate::evidence::ProcessCoverage::ExactIncomplete
                ) =>
        {
            out.push(format!(
                "{side} capture's process journal reached limits.processes; later processes are missing."
            ));
        }
        Dimension::Process if td.process.truncated => {
            out.push(format!("{side} capture's process sampling ended partially."));
        }
        Dimension::Interaction | Dimension::Exit | Dimension::Filesystem | Dimension::Process => {}
    }
    out.extend(document_reason(td.document.as_ref(), side, dimension));
    out
}

/// What the document bound left out of one side in `dimension`, if anything.
fn document_reason(document: Option<&DocumentTruncation>, side: &str, dimension: Dimension) -> Option<String> {
    let d = document?;
    let omitted = match dimension {
        Dimension::Terminal if d.omitted_frames > 0 || d.omitted_rendered_frames > 0 => {
            format!("its latest {} terminal chunks and {} rendered states", d.omitted_frames, d.omitted_rendered_frames)
        }
        Dimension::Filesystem if d.omitted_paths > 0 => format!("the last {} filesystem paths", d.omitted_paths),
        Dimension::Process if d.omitted_process_samples > 0 => {
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
    let mut paths = std::collections::BTreeSet::new();
    for (a, b) in [(&l.files_before, &r.files_before), (&l.files_after, &r.files_after)] {
        let sa: std::collections::BTreeSet<&FileState> = a.iter().collect();
        let sb: std::collections::BTreeSet<&FileState> = b.iter().collect();
        paths.extend(sa.symmetric_difference(&sb).map(|f| f.path.as_str()));
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
    /// Under the screen lens, why screens are unknown: these replace the
    /// terminal's truncation reasons (screens are built from every byte
    /// read, so an omitted chunk alone does not hide one).
    screen_gaps: Option<Vec<String>>,
}

impl Found {
    fn plain(findings: diff::Findings) -> Found {
        Found {
            findings,
            observed_despite_truncation: false,
            proven: true,
            left_empty: false,
            right_empty: false,
            screen_gaps: None,
        }
    }
}

fn find(dimension: Dimension, l: &CaptureRecord, r: &CaptureRecord, options: CompareOptions) -> Found {
    let tolerance = options.timing_tolerance_ms;
    match dimension {
        Dimension::Terminal => {
            let (a, b) = (terminal::Segmented::new(l), terminal::Segmented::new(r));
            let (findings, observed, gaps) = match options.terminal_lens {
                TerminalLens::Stream => {
                    let (findings, observed) = terminal::compare(&a, &b);
                    (findings, observed, None)
                }
                TerminalLens::Screen => {
                    // The stream is listed first, then marked: it does not decide.
                    let mut findings = diff::Findings::default();
                    terminal::stream(&mut findings, &a, &b);
                    findings.not_deciding_from(0);
                    let (sa, sb) = (screen::Screens::new(l, &a), screen::Screens::new(r, &b));
                    let observed = screen::compare(&mut findings, &sa, &sb);
                    let mut gaps = sa.reasons("Left");
                    gaps.extend(sb.reasons("Right"));
                    (findings, observed, Some(gaps))
                }
            };
            Found {
                observed_despite_truncation: observed,
                left_empty: a.is_empty(),
                right_empty: b.is_empty(),
                screen_gaps: gaps,
                ..Found::plain(findings)
            }
        }
        Dimension::Interaction => Found {
            left_empty: dimensions::no_scripted_event(l),
            right_empty: dimensions::no_scripted_event(r),
            ..Found::plain(dimensions::interaction(l, r, tolerance))
        },
        Dimension::Exit => Found::plain(dimensions::exit(l, r, tolerance)),
        Dimension::Filesystem => Found {
            observed_despite_truncation: !filesystem_differences_explained(l, r),
            left_empty: l.files_before.is_empty() && l.files_after.is_empty() && l.filesystem_effects.is_empty(),
            right_empty: r.files_before.is_empty() && r.files_after.is_empty() && r.filesystem_effects.is_empty(),
            ..Found::plain(dimensions::filesystem(l, r))
        },
        Dimension::Process => {
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

fn status_of(found: &Found, unknown: Vec<String>, truncated: Vec<String>) -> (DimensionStatus, Vec<String>) {
    let equal = found.findings.is_empty();
    if !unknown.is_empty() {
        // What was left out still explains part of the unknown.
        (DimensionStatus::Unknown, unknown.into_iter().chain(truncated).collect())
    } else if !truncated.is_empty() && (equal || !found.observed_despite_truncation) {
        (DimensionStatus::Truncated, truncated)
    } else if equal {
        (DimensionStatus::Unchanged, Vec::new())
    } else if !found.proven {
        (DimensionStatus::Unknown, vec![SAMPLING_REASON.to_owned()])
    } else if found.left_empty {
        (DimensionStatus::Added, Vec::new())
    } else if found.right_empty {
        (DimensionStatus::Removed, Vec::new())
    } else {
        (DimensionStatus::Changed, Vec::new())
    }
}

/// Each dimension's own status, with every difference found (sorted).
fn classify(l: &CaptureRecord, r: &CaptureRecord, options: CompareOptions) -> Result<Classified, serde_json::Error> {
    let mut out = Vec::new();
    for &dimension in Dimension::ALL {
        let mut found = find(dimension, l, r, options);
        if let Some(failure) = found.findings.failure.take() {
            return Err(failure);
        }
        let mut unknown = residual_reasons(l, dimension);
        unknown.extend(residual_reasons(r, dimension));
        let truncated = match found.screen_gaps.take() {
            Some(gaps) => gaps,
            None => {
                let mut truncated = truncation_reasons(l, "Left", dimension);
                truncated.extend(truncation_reasons(r, "Right", dimension));
                truncated
            }
        };
        let (status, mut reasons) = status_of(&found, unknown, truncated);
        reasons.dedup();
        let mut all = found.findings.differences;
        // Deciding differences first (all of them, but under the screen lens).
        all.sort_by_key(|d| (!d.deciding, d.order));
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
    Ok(out)
}

/// Each dimension's result beside every difference it found.
type Classified = Vec<(DimensionResult, Vec<Difference>)>;

/// The earliest difference, in segment order, of a behavioural dimension
/// that still shows one (a trace may have settled a dimension's differences).
fn earliest(dimensions: &[DimensionResult], all: &[Vec<Difference>]) -> Option<Divergence> {
    let (_, dimension, d) = dimensions
        .iter()
        .zip(all)
        .filter(|(d, _)| d.dimension.behavioural() && d.status != DimensionStatus::Unchanged)
        .filter_map(|(d, diffs)| diffs.iter().find(|x| x.deciding).map(|x| (x.order, d.dimension, x)))
        .min_by_key(|(order, ..)| *order)?;
    Some(Divergence::of(dimension, d))
}

/// The first divergence. Filesystem effects are observed after settlement,
/// after everything the other dimensions record, so an incompletely
/// observed filesystem (for example, no observation paths) cannot hide an
/// earlier difference found in a completely observed terminal, interaction
/// and exit; it only leaves "no divergence" unproven.
fn first_divergence(
    dimensions: &[DimensionResult],
    all: &[Vec<Difference>],
    status: ComparisonStatus,
) -> FirstDivergence {
    let behavioural = |d: &&DimensionResult| d.dimension.behavioural();
    let before_filesystem = dimensions
        .iter()
        .filter(behavioural)
        .filter(|d| d.dimension != Dimension::Filesystem)
        .all(|d| d.status.complete());
    let filesystem_complete =
        dimensions.iter().filter(|d| d.dimension == Dimension::Filesystem).all(|d| d.status.complete());
    let found = earliest(dimensions, all);
    let found_before_filesystem = found.as_ref().is_some_and(|f| f.dimension != Dimension::Filesystem);
    let complete = before_filesystem && (filesystem_complete || found_before_filesystem);
    let behavioural_change = dimensions.iter().filter(behavioural).any(|d| d.status.shows_change());
    let unknown = |reason, earliest| FirstDivergence::Unknown { reason, earliest_observed_difference: earliest };
    match (complete, found) {
        (true, Some(found)) => FirstDivergence::Found(found),
        (true, None) if behavioural_change => unknown(DivergenceGap::TraceOnly, None),
        (true, None) if status == ComparisonStatus::Changed => unknown(DivergenceGap::SamplingOnly, None),
        (true, None) => FirstDivergence::None,
        (false, earliest) => unknown(DivergenceGap::Incomplete, earliest),
    }
}

/// The verdict over the dimensions' statuses.
fn overall(dimensions: &[DimensionResult]) -> ComparisonStatus {
    let any = |test: fn(DimensionStatus) -> bool| dimensions.iter().any(|d| test(d.status));
    if any(DimensionStatus::shows_change) {
        ComparisonStatus::Changed
    } else if any(|s| s == DimensionStatus::Truncated) {
        ComparisonStatus::Truncated
    } else if any(|s| s == DimensionStatus::Unknown) {
        ComparisonStatus::Unknown
    } else {
        ComparisonStatus::Unchanged
    }
}

/// Both sides' limitations, then both sides' residual unknowns, each once.
fn limitations(l: &CaptureRecord, r: &CaptureRecord) -> Vec<String> {
    let mut limitations: Vec<String> = Vec::new();
    let texts = [l, r]
        .into_iter()
        .flat_map(|rec| rec.limitations.iter())
        .chain([l, r].into_iter().flat_map(|rec| rec.residual_unknowns.iter().map(|u| &u.reason)));
    for text in texts {
        if !limitations.contains(text) {
            limitations.push(text.clone());
        }
    }
    limitations
}

/// Builds the comparison record (the `normalized_result`) with the default
/// options, with a `trace` object when `trace` is given.
///
/// Fails only when a differing value cannot be serialized (an internal error).
pub fn compare_records(
    l: &CaptureRecord,
    r: &CaptureRecord,
    trace: Option<&TraceSpec>,
) -> Result<ComparisonRecord, serde_json::Error> {
    compare_records_with(l, r, trace, CompareOptions::default())
}

/// Builds the comparison record (the `normalized_result`) under `options`,
/// with a `trace` object when `trace` is given.
pub fn compare_records_with(
    l: &CaptureRecord,
    r: &CaptureRecord,
    trace: Option<&TraceSpec>,
    options: CompareOptions,
) -> Result<ComparisonRecord, serde_json::Error> {
    let (mut dimensions, all): (Vec<DimensionResult>, Vec<Vec<Difference>>) =
        classify(l, r, options)?.into_iter().unzip();
    let trace = trace.map(|spec| {
        let result = trace::compare_traces(l, r, spec);
        trace::apply(&result, spec, l, r, &mut dimensions, options.terminal_lens);
        result
    });
    let status = overall(&dimensions);
    Ok(ComparisonRecord {
        schema_version: COMPARISON_SCHEMA_VERSION,
        status,
        first_divergence: first_divergence(&dimensions, &all, status),
        dimensions,
        limitations: limitations(l, r),
        trace,
    })
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

        let sealed = compare(side(&l), side(&r), None).unwrap();
        let mut written = Vec::new();
        sealed.write_json(&mut written).unwrap();
        let mut toon = Vec::new();
        sealed.write_toon(&mut toon).unwrap();
        let plain = sealed.into_evidence().unwrap();
        let expected = serde_json::to_string_pretty(&plain).unwrap() + "\n";
        assert_eq!(String::from_utf8(written).unwrap(), expected, "the typed record writes the same bytes");
        let expected = toon_format::encode_default(&plain.clone().into_value()).unwrap() + "\n";
        assert_eq!(String::from_utf8(toon).unwrap(), expected, "the typed record writes the same TOON");
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
        assert_eq!(traced.record().trace.as_ref().map(|t| t.verdict), Some(trace::Verdict::Equivalent));
        let mut toon = Vec::new();
        traced.write_toon(&mut toon).unwrap();
        let traced = traced.into_evidence().unwrap();
        let expected = toon_format::encode_default(&traced.clone().into_value()).unwrap() + "\n";
        assert_eq!(String::from_utf8(toon).unwrap(), expected, "the traced record writes the same TOON");
        assert_eq!(traced.predicate_type, COMPARISON_PREDICATE);
        assert_eq!(traced.parameters["trace_spec"], doc);
        assert_eq!(traced.parameters["left_evidence_id"], json!(l.evidence_id));
        assert_eq!(traced.normalized_result["trace"]["verdict"], "equivalent");
        assert_eq!(traced.evidence_id, compute_evidence_id(&traced).unwrap());
        assert_ne!(traced.evidence_id, plain.evidence_id, "the specification is part of the identity");
    }
}
