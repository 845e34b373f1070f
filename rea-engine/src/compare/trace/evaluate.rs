//! Evaluation of one capture against a trace specification (reference-notes
//! §5.4), and the verdict over two captures.
//!
//! A side is `unknown` when the coverage of a *selected* source is
//! incomplete: its truncation areas (terminal_raw: raw and normalized
//! terminal; terminal_rendered: rendered terminal, and the raw chunks it is
//! built from; process; filesystem: both snapshots) or a residual unknown
//! whose scope is the source's dimension. Interaction and lifecycle have no
//! truncation area.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Deserializer, Serialize};

use super::model::{Language, PartialOrder, Source, Token, TraceSpec};
use super::project::{Location, Observation, collection_source, project};
use super::validate::predicate_key;
use crate::compare::Dimension;
use crate::evidence::CaptureRecord;

/// Outcome of one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideStatus {
    /// Every observation matched and every constraint held.
    Pass,
    /// An observation or a constraint failed; see the diagnostic.
    Fail,
    /// The capture cannot show whether the trace holds.
    Unknown,
}

/// An observation and the declared event it matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchedEvent {
    /// The declared event's id.
    pub event_id: String,
    /// Where the observation sits.
    pub location: Location,
}

/// One side's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideResult {
    /// `pass`, `fail` or `unknown`.
    pub status: SideStatus,
    /// The finite-trace variant that matched, or null.
    pub matched_variant: Option<String>,
    /// The constraints that held, when the side passed.
    pub satisfied_constraints: Vec<String>,
    /// The matches, in capture order (up to the failure, when the side failed).
    pub raw_trace: Vec<MatchedEvent>,
    /// Why the side is `unknown`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

/// What a diagnostic is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// The capture has no cross-source journal.
    Journal,
    /// An observation matches no declared event.
    Predicate,
    /// An event was observed too few or too many times.
    Cardinality,
    /// A `happens_before` or `not_before` constraint failed.
    Edge,
    /// The trace does not start with the declared prefix.
    Prefix,
    /// The trace does not end with the declared suffix.
    Suffix,
    /// The trace is none of the declared finite traces.
    Trace,
}

/// Why a side failed (or has no journal).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// What failed.
    pub kind: DiagnosticKind,
    /// `left` or `right`.
    pub side: &'static str,
    /// What failed, in words.
    pub message: String,
    /// The declared events involved; for `predicate`, the unmatched observation's id.
    pub event_ids: Vec<String>,
    /// The observations involved.
    pub locations: Vec<Location>,
    /// The comparison dimensions of the sources of `event_ids` and
    /// `locations` (every selected source's when it names neither).
    pub dimensions: Vec<Dimension>,
}

/// A [`Diagnostic`] as written, its `side` not yet checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenDiagnostic {
    kind: DiagnosticKind,
    side: String,
    message: String,
    event_ids: Vec<String>,
    locations: Vec<Location>,
    dimensions: Vec<Dimension>,
}

/// Read as written, its `side` `left` or `right`.
impl<'de> Deserialize<'de> for Diagnostic {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Diagnostic, D::Error> {
        let w = WrittenDiagnostic::deserialize(d)?;
        let side = ["left", "right"]
            .into_iter()
            .find(|side| *side == w.side)
            .ok_or_else(|| serde::de::Error::invalid_value(serde::de::Unexpected::Str(&w.side), &"left or right"))?;
        let (kind, message, event_ids, locations, dimensions) =
            (w.kind, w.message, w.event_ids, w.locations, w.dimensions);
        Ok(Diagnostic { kind, side, message, event_ids, locations, dimensions })
    }
}

/// The verdict over both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Both sides pass.
    Equivalent,
    /// The sides differ in status or in their matched traces.
    Different,
    /// Both sides fail the same way.
    Nonconforming,
    /// At least one side is unknown.
    Unknown,
}

impl Verdict {
    /// The verdict as written in a comparison record.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Equivalent => "equivalent",
            Verdict::Different => "different",
            Verdict::Nonconforming => "nonconforming",
            Verdict::Unknown => "unknown",
        }
    }
}

/// The `trace` object of a comparison record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceComparison {
    /// The verdict.
    pub verdict: Verdict,
    /// The left side.
    pub left: SideResult,
    /// The right side.
    pub right: SideResult,
    /// The left side's diagnostic, else the right side's; absent when neither has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<Diagnostic>,
}

/// Reasons the coverage of `sources` is incomplete in `record`.
pub fn coverage_gaps(record: &CaptureRecord, sources: &[Source]) -> Vec<String> {
    let td = &record.truncation_details;
    let raw = td.raw_terminal.truncated;
    let normalized = td.normalized_terminal.as_ref().is_some_and(|n| n.truncated);
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for &source in sources {
        match source {
            Source::TerminalRaw | Source::TerminalRendered => {
                if raw {
                    push("The capture omitted raw terminal chunks.".into());
                }
                if normalized {
                    push("The capture omitted terminal chunks for their normalized size.".into());
                }
                if source == Source::TerminalRendered && td.rendered_terminal.truncated {
                    push("The capture omitted rendered terminal states.".into());
                }
            }
            Source::Process if td.process.truncated => push("The capture's process sampling ended partially.".into()),
            Source::Filesystem if td.filesystem_before.truncated || td.filesystem_after.truncated => {
                push("The capture's filesystem snapshots are incomplete.".into());
            }
            _ => {}
        }
        for u in record.residual_unknowns.iter().filter(|u| u.scope == source.dimension().scope()) {
            push(format!("Residual unknown ({}): {}", u.scope, u.reason));
        }
    }
    out
}

/// The dimensions a diagnostic identifies.
fn diagnostic_dimensions(
    spec: &TraceSpec,
    kind: DiagnosticKind,
    event_ids: &[String],
    locations: &[Location],
) -> Vec<Dimension> {
    let mut sources: BTreeSet<Source> = locations.iter().filter_map(|l| collection_source(l.collection)).collect();
    if kind != DiagnosticKind::Predicate {
        sources.extend(event_ids.iter().filter_map(|id| spec.event(id)).map(|e| e.source));
    }
    if sources.is_empty() {
        sources.extend(spec.sources());
    }
    Dimension::ALL.iter().copied().filter(|d| sources.iter().any(|s| s.dimension() == *d)).collect()
}

struct Failure {
    kind: DiagnosticKind,
    message: String,
    event_ids: Vec<String>,
    locations: Vec<Location>,
}

impl Failure {
    fn new(kind: DiagnosticKind, message: String, event_ids: &[&str], locations: Vec<Location>) -> Failure {
        Failure { kind, message, event_ids: event_ids.iter().map(|s| (*s).to_owned()).collect(), locations }
    }
}

/// Matches so far, and the locations of each declared event's matches.
struct Matched {
    raw_trace: Vec<MatchedEvent>,
    by_event: HashMap<String, Vec<Location>>,
}

impl Matched {
    fn locations(&self, id: &str) -> &[Location] {
        self.by_event.get(id).map_or(&[], Vec::as_slice)
    }

    fn ids(&self) -> Vec<&str> {
        self.raw_trace.iter().map(|m| m.event_id.as_str()).collect()
    }
}

/// Matches every observation; stops at the first that matches no predicate.
fn match_observations(spec: &TraceSpec, observations: &[Observation]) -> (Matched, Option<Failure>) {
    let mut matched = Matched { raw_trace: Vec::new(), by_event: HashMap::new() };
    let mut predicates: HashMap<_, &str> = HashMap::new();
    for e in &spec.events {
        match predicate_key(e.source, &e.exact, &e.ignore_fields) {
            Ok(key) => predicates.insert(key, e.id.as_str()),
            Err(err) => return (matched, Some(uncanonical("the exact predicate of event", &e.id, &err, Vec::new()))),
        };
    }
    for obs in observations {
        let key = match predicate_key(obs.source, &obs.payload, spec.ignored_fields(obs.source)) {
            Ok(key) => key,
            Err(err) => {
                let failure =
                    uncanonical("the payload of observed event", &obs.event_id, &err, vec![obs.location.clone()]);
                return (matched, Some(failure));
            }
        };
        let Some(id) = predicates.get(&key) else {
            let failure = Failure::new(
                DiagnosticKind::Predicate,
                format!(
                    "Observed event {} ({}) does not match any declared exact predicate.",
                    obs.event_id,
                    obs.source.name()
                ),
                &[obs.event_id.as_str()],
                vec![obs.location.clone()],
            );
            return (matched, Some(failure));
        };
        matched.raw_trace.push(MatchedEvent { event_id: (*id).to_owned(), location: obs.location.clone() });
        matched.by_event.entry((*id).to_owned()).or_default().push(obs.location.clone());
    }
    (matched, None)
}

/// The failure when a payload cannot be written as canonical JSON (which a
/// JSON value read from a file always can): `what` and `id` name it.
fn uncanonical(what: &str, id: &str, err: &serde_json::Error, locations: Vec<Location>) -> Failure {
    Failure::new(
        DiagnosticKind::Predicate,
        format!("{what} {id} cannot be written as canonical JSON ({err}), so it cannot be matched."),
        &[id],
        locations,
    )
}

fn check_cardinality(spec: &TraceSpec, m: &Matched) -> Result<(), Failure> {
    for event in &spec.events {
        let (min, max) = event.cardinality.bounds();
        let locations = m.locations(&event.id);
        let n = locations.len() as u64;
        if n < min || n > max {
            return Err(Failure::new(
                DiagnosticKind::Cardinality,
                format!("{} observed {n} times; expected {min}..{max}.", event.id),
                &[event.id.as_str()],
                locations.to_vec(),
            ));
        }
    }
    Ok(())
}

fn joined(ids: &[impl AsRef<str>]) -> String {
    ids.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(", ")
}

/// Checks the prefix (`at_end` false) or the suffix of the matched trace.
fn check_boundary(m: &Matched, declared: &[String], at_end: bool) -> Result<(), Failure> {
    let k = declared.len();
    let n = m.raw_trace.len();
    let window = if at_end { &m.raw_trace[n.saturating_sub(k)..] } else { &m.raw_trace[..k.min(n)] };
    let actual: Vec<&str> = window.iter().map(|e| e.event_id.as_str()).collect();
    if actual == declared.iter().map(String::as_str).collect::<Vec<_>>() {
        return Ok(());
    }
    let (kind, name, verb) =
        if at_end { (DiagnosticKind::Suffix, "suffix", "ends") } else { (DiagnosticKind::Prefix, "prefix", "starts") };
    let ids: Vec<&str> = declared.iter().map(String::as_str).collect();
    Err(Failure::new(
        kind,
        format!("The matched trace {verb} with [{}], not the declared {name} [{}].", joined(&actual), joined(&ids)),
        &ids,
        window.iter().map(|e| e.location.clone()).collect(),
    ))
}

fn edge_failure(message: String, ids: [&str; 2], locations: Vec<&Location>) -> Failure {
    Failure::new(DiagnosticKind::Edge, message, &ids, locations.into_iter().cloned().collect())
}

fn check_partial_order(order: &PartialOrder, m: &Matched) -> Result<Vec<String>, Failure> {
    let mut satisfied = Vec::new();
    for edge in &order.happens_before {
        let (b, a) = (edge.before.as_str(), edge.after.as_str());
        match (m.locations(b).last(), m.locations(a).first()) {
            (None, Some(first_after)) => {
                return Err(edge_failure(format!("{b} is required when {a} occurs."), [b, a], vec![first_after]));
            }
            (Some(last_before), Some(first_after)) if last_before.capture_order >= first_after.capture_order => {
                return Err(edge_failure(
                    format!("{b} must happen before {a}."),
                    [b, a],
                    vec![last_before, first_after],
                ));
            }
            _ => satisfied.push(format!("happens_before:{b}:{a}")),
        }
    }
    for c in &order.not_before {
        let (e, anchor) = (c.event.as_str(), c.anchor.as_str());
        match (m.locations(e).first(), m.locations(anchor).first()) {
            (Some(first_event), None) => {
                return Err(edge_failure(
                    format!("{anchor} is required when {e} occurs."),
                    [e, anchor],
                    vec![first_event],
                ));
            }
            (Some(first_event), Some(first_anchor)) if first_event.capture_order < first_anchor.capture_order => {
                return Err(edge_failure(
                    format!("{e} must not occur before {anchor}."),
                    [e, anchor],
                    vec![first_event, first_anchor],
                ));
            }
            _ => satisfied.push(format!("not_before:{e}:{anchor}")),
        }
    }
    check_boundary(m, &order.prefix, false)?;
    check_boundary(m, &order.suffix, true)?;
    satisfied.extend(order.unordered_groups.iter().map(|g| format!("unordered:{}", g.join(":"))));
    if !order.prefix.is_empty() {
        satisfied.push(format!("prefix:{}", order.prefix.join(":")));
    }
    if !order.suffix.is_empty() {
        satisfied.push(format!("suffix:{}", order.suffix.join(":")));
    }
    Ok(satisfied)
}

/// Whether `tokens` accept exactly `ids`.
fn accepts(tokens: &[Token], ids: &[&str]) -> bool {
    let mut rest = ids;
    for token in tokens {
        match token {
            Token::Event(id) => match rest.split_first() {
                Some((first, tail)) if first == id => rest = tail,
                _ => return false,
            },
            Token::Unordered(group) => {
                if rest.len() < group.len() {
                    return false;
                }
                let (head, tail) = rest.split_at(group.len());
                let mut got: Vec<&str> = head.to_vec();
                let mut want: Vec<&str> = group.iter().map(String::as_str).collect();
                got.sort_unstable();
                want.sort_unstable();
                if got != want {
                    return false;
                }
                rest = tail;
            }
        }
    }
    rest.is_empty()
}

fn unknown(reasons: Vec<String>) -> SideResult {
    SideResult {
        status: SideStatus::Unknown,
        matched_variant: None,
        satisfied_constraints: Vec::new(),
        raw_trace: Vec::new(),
        reasons,
    }
}

/// Evaluates one capture; `side` (`left` or `right`) names it in the diagnostic.
pub fn evaluate_side(record: &CaptureRecord, spec: &TraceSpec, side: &'static str) -> (SideResult, Option<Diagnostic>) {
    let diagnostic = |f: Failure| Diagnostic {
        dimensions: diagnostic_dimensions(spec, f.kind, &f.event_ids, &f.locations),
        kind: f.kind,
        side,
        message: f.message,
        event_ids: f.event_ids,
        locations: f.locations,
    };
    let sources = spec.sources();
    let gaps = coverage_gaps(record, &sources);
    if !gaps.is_empty() {
        return (unknown(gaps), None);
    }
    if record.event_journal.is_empty() {
        let message = "Capture has no cross-source event journal.";
        let failure = Failure::new(DiagnosticKind::Journal, message.into(), &[], Vec::new());
        return (unknown(vec![message.into()]), Some(diagnostic(failure)));
    }
    let observations = match project(record, &sources) {
        Ok(observations) => observations,
        Err(e) => return (unknown(vec![format!("The capture's observations could not be projected: {e}")]), None),
    };
    let fail = |m: Matched, f: Failure| {
        let result = SideResult {
            status: SideStatus::Fail,
            matched_variant: None,
            satisfied_constraints: Vec::new(),
            raw_trace: m.raw_trace,
            reasons: Vec::new(),
        };
        (result, Some(diagnostic(f)))
    };
    let (matched, failure) = match_observations(spec, &observations);
    if let Some(f) = failure {
        return fail(matched, f);
    }
    if let Err(f) = check_cardinality(spec, &matched) {
        return fail(matched, f);
    }
    let (matched_variant, satisfied) = match &spec.language {
        Language::PartialOrder(order) => match check_partial_order(order, &matched) {
            Ok(satisfied) => (None, satisfied),
            Err(f) => return fail(matched, f),
        },
        Language::FiniteTraces(variants) => {
            let ids = matched.ids();
            match variants.iter().find(|v| accepts(&v.trace, &ids)) {
                Some(v) => (Some(v.id.clone()), vec![format!("variant:{}", v.id)]),
                None => {
                    let f = Failure::new(
                        DiagnosticKind::Trace,
                        format!("The matched trace [{}] is none of the declared variants.", joined(&ids)),
                        &ids,
                        matched.raw_trace.iter().map(|e| e.location.clone()).collect(),
                    );
                    return fail(matched, f);
                }
            }
        }
    };
    let result = SideResult {
        status: SideStatus::Pass,
        matched_variant,
        satisfied_constraints: satisfied,
        raw_trace: matched.raw_trace,
        reasons: Vec::new(),
    };
    (result, None)
}

/// Evaluates both captures and gives the verdict.
pub fn compare_traces(left: &CaptureRecord, right: &CaptureRecord, spec: &TraceSpec) -> TraceComparison {
    let (l, ld) = evaluate_side(left, spec, "left");
    let (r, rd) = evaluate_side(right, spec, "right");
    let ids = |s: &SideResult| s.raw_trace.iter().map(|m| m.event_id.clone()).collect::<Vec<_>>();
    let verdict = if l.status == SideStatus::Unknown || r.status == SideStatus::Unknown {
        Verdict::Unknown
    } else if l.status == SideStatus::Pass && r.status == SideStatus::Pass {
        Verdict::Equivalent
    } else if l.status != r.status || ids(&l) != ids(&r) {
        Verdict::Different
    } else {
        Verdict::Nonconforming
    };
    TraceComparison { verdict, left: l, right: r, diagnostic: ld.or(rd) }
}
