//! `compare_process_captures`: compare two captures, each named by a session
//! Evidence id or by a capture file path, optionally under a trace
//! specification; record the comparison Evidence in the session.

use std::path::Path;
use std::sync::Arc;

use rea_engine::UserError;
use rea_engine::compare::{
    CompareOptions, DEFAULT_TIMING_TOLERANCE_MS, Side, TerminalLens, TraceSpec, TraceSpecError, compare_with,
    parse_trace_spec,
};
use rea_engine::evidence::{CAPTURE_OPERATION, CAPTURE_PREDICATE, CaptureRecord, Evidence, load_capture};
use rea_engine::scenario::Issue;
use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use crate::errors::{ArgumentsError, EvidenceReferenceError, ReferenceProblem};
use crate::reply;
use crate::session::Session;

/// The tool's name.
pub(crate) const TOOL: &str = "compare_process_captures";

/// The tool's arguments as its input schema states them: names,
/// descriptions, bounds and the default come from here (the schema is
/// derived, the validator reads the names). [`parse_arguments`] checks them
/// by hand so that every broken rule is reported with its path at once.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "compare_process_captures arguments",
    description = "Two captures to compare, each side named by exactly one of its evidence id and its capture path.",
    transform = one_source_per_side
)]
#[allow(dead_code, reason = "the struct states the schema and the argument names; parse_arguments builds Arguments")]
struct ArgumentsSchema {
    /// evidence_id of a capture recorded in this session (authority side).
    #[schemars(with = "String", length(min = 1))]
    left_evidence_id: Option<String>,
    /// evidence_id of a capture recorded in this session (reconstruction side).
    #[schemars(with = "String", length(min = 1))]
    right_evidence_id: Option<String>,
    /// Path of a capture Evidence file (authority side), instead of left_evidence_id; relative to the server's working directory.
    #[schemars(with = "String", length(min = 1))]
    left_capture_path: Option<String>,
    /// Path of a capture Evidence file (reconstruction side), instead of right_evidence_id.
    #[schemars(with = "String", length(min = 1))]
    right_capture_path: Option<String>,
    /// Optional trace specification (docs/formats.md, "Trace specifications").
    #[schemars(with = "Map<String, Value>")]
    trace_spec: Option<Map<String, Value>>,
    /// A timing value differs only when the two sides differ by more than this many milliseconds (0 is strict); the CLI's --timing-tolerance-ms.
    #[serde(default = "default_tolerance")]
    #[schemars(range(min = 0))]
    timing_tolerance_ms: u64,
    /// What decides the terminal dimension: "stream" (the normalized byte stream, the default) or "screen" (the screens at each segment boundary and at the end, cell by cell: text, colours, attributes, cursor, active buffer; stream differences are listed but do not decide); the CLI's --terminal-lens.
    #[serde(default)]
    #[schemars(with = "String", extend("enum" = ["stream", "screen"], "default" = "stream"))]
    terminal_lens: Option<String>,
}

fn default_tolerance() -> u64 {
    DEFAULT_TIMING_TOLERANCE_MS
}

/// Each side is named by exactly one of its evidence id and its capture
/// path: that rule, not a `required` list, says which arguments must be given.
fn one_source_per_side(schema: &mut schemars::Schema) {
    schema.remove("required");
    let exactly_one = |side: &str| {
        let (id, path) = (format!("{side}_evidence_id"), format!("{side}_capture_path"));
        serde_json::json!({ "oneOf": [
            { "required": [id], "not": { "required": [path] } },
            { "required": [path], "not": { "required": [id] } }
        ] })
    };
    schema.insert("allOf".into(), Value::Array(vec![exactly_one("left"), exactly_one("right")]));
}

/// The arguments the tool accepts.
fn fields() -> &'static [&'static str] {
    rea_engine::keys::keys::<ArgumentsSchema>()
}

/// The largest whole number a JSON float holds exactly (2^53).
const MAX_EXACT_FLOAT: f64 = 9_007_199_254_740_992.0;

/// The tool's input schema, derived from [`ArgumentsSchema`].
pub(crate) fn input_schema() -> Value {
    schemars::schema_for!(ArgumentsSchema).to_value()
}

/// Where one side comes from.
enum Source {
    Id(String),
    File(String),
}

/// Validated arguments.
struct Arguments {
    left: Source,
    right: Source,
    trace: Option<Value>,
    options: CompareOptions,
}

fn rule(path: &str, rule: impl Into<String>) -> Issue {
    Issue { path: path.to_owned(), rule: rule.into() }
}

/// One side: exactly one of `<side>_evidence_id` and `<side>_capture_path`,
/// a non-empty string.
fn side(args: &Map<String, Value>, side: &str, issues: &mut Vec<Issue>) -> Option<Source> {
    let (id_key, path_key) = (format!("{side}_evidence_id"), format!("{side}_capture_path"));
    let text = |key: &str, issues: &mut Vec<Issue>| match args.get(key) {
        None => None,
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(_) => {
            issues.push(rule(key, "must be a non-empty string"));
            None
        }
    };
    match (text(&id_key, issues), text(&path_key, issues)) {
        (Some(id), None) => Some(Source::Id(id)),
        (None, Some(path)) => Some(Source::File(path)),
        (Some(_), Some(_)) => {
            issues.push(rule(&path_key, format!("give either {id_key} or {path_key}, not both")));
            None
        }
        (None, None) => {
            if !args.contains_key(&id_key) && !args.contains_key(&path_key) {
                issues.push(rule(&id_key, format!("is required (or give {path_key} to compare a capture file)")));
            }
            None
        }
    }
}

fn parse_arguments(arguments: Value) -> Result<Arguments, ArgumentsError> {
    let fail = |issues| ArgumentsError { tool: TOOL, issues };
    let Value::Object(args) = arguments else {
        return Err(fail(vec![rule("", "must be an object")]));
    };
    let mut issues: Vec<Issue> = args
        .keys()
        .filter(|k| !fields().contains(&k.as_str()))
        .map(|k| {
            rule(&rea_engine::path::join_key("", k), format!("is not an argument; allowed: {}", fields().join(", ")))
        })
        .collect();
    let left = side(&args, "left", &mut issues);
    let right = side(&args, "right", &mut issues);
    let trace = match args.get("trace_spec") {
        None | Some(Value::Object(_)) => args.get("trace_spec").cloned(),
        Some(_) => {
            issues.push(rule("trace_spec", "must be an object (a trace specification)"));
            None
        }
    };
    let mut options = match args.get("timing_tolerance_ms").map(tolerance) {
        None => CompareOptions::default(),
        Some(Some(timing_tolerance_ms)) => CompareOptions { timing_tolerance_ms, ..CompareOptions::default() },
        Some(None) => {
            issues.push(rule("timing_tolerance_ms", "must be a whole number of milliseconds, 0 or more"));
            CompareOptions::default()
        }
    };
    match args.get("terminal_lens").map(|v| v.as_str().map(str::parse::<TerminalLens>)) {
        None => {}
        Some(Some(Ok(lens))) => options.terminal_lens = lens,
        Some(_) => {
            let allowed: Vec<&str> = TerminalLens::ALL.iter().map(|l| l.as_str()).collect();
            issues.push(rule("terminal_lens", format!("must be one of {}", allowed.join(", "))));
        }
    }
    match (left, right) {
        (Some(left), Some(right)) if issues.is_empty() => Ok(Arguments { left, right, trace, options }),
        _ => Err(fail(issues)),
    }
}

/// A whole, non-negative number of milliseconds; integral floats (`250.0`)
/// count, as in scenarios.
fn tolerance(value: &Value) -> Option<u64> {
    let n = value.as_number()?;
    n.as_u64().or_else(|| {
        let f = n.as_f64()?;
        // Exact: a whole f64 in 0..=2^53 converts without loss.
        (f.fract() == 0.0 && (0.0..=MAX_EXACT_FLOAT).contains(&f)).then_some(f as u64)
    })
}

/// A trace specification given inline: its issue paths are prefixed with
/// `trace_spec`, so they name the argument.
fn trace_spec(value: Value) -> Result<TraceSpec, TraceSpecError> {
    parse_trace_spec(value).map_err(|mut e| {
        for issue in &mut e.issues {
            issue.path = match issue.path.as_str() {
                "" => "trace_spec".to_owned(),
                p if p.starts_with('[') => format!("trace_spec{p}"),
                p => format!("trace_spec.{p}"),
            };
        }
        e
    })
}

type Loaded = Arc<(Evidence, CaptureRecord)>;

fn load(session: &Session, source: &Source, field: &'static str) -> Result<Loaded, Box<dyn UserError + Send>> {
    match source {
        Source::Id(id) => by_id(session, id, field).map_err(|e| Box::new(e) as Box<dyn UserError + Send>),
        // The engine's one capture loader, as the CLI's comparison uses.
        Source::File(path) => load_capture(Path::new(path), session.host.open_input)
            .map(Arc::new)
            .map_err(|e| Box::new(e) as Box<dyn UserError + Send>),
    }
}

pub(crate) fn by_id(session: &Session, id: &str, field: &'static str) -> Result<Loaded, EvidenceReferenceError> {
    let refuse =
        |problem, found: &str| EvidenceReferenceError { field, id: id.to_owned(), problem, found: found.into() };
    let stored = session.get(id).ok_or_else(|| refuse(ReferenceProblem::Missing, ""))?;
    if stored.operation != CAPTURE_OPERATION {
        return Err(refuse(ReferenceProblem::WrongOperation, &stored.operation));
    }
    match &stored.capture {
        Some(capture) if stored.predicate == CAPTURE_PREDICATE => Ok(Arc::clone(capture)),
        _ => Err(refuse(ReferenceProblem::WrongPredicate, &stored.predicate)),
    }
}

/// Runs the tool (blocking: files are read; call from a blocking thread).
pub(crate) fn run(session: &Session, arguments: Value) -> CallToolResult {
    let args = match parse_arguments(arguments) {
        Ok(a) => a,
        Err(e) => return reply::error(&e),
    };
    let trace = match args.trace.map(trace_spec).transpose() {
        Ok(t) => t,
        Err(e) => return reply::error(&e),
    };
    let left_field = if matches!(args.left, Source::Id(_)) { "left_evidence_id" } else { "left_capture_path" };
    let right_field = if matches!(args.right, Source::Id(_)) { "right_evidence_id" } else { "right_capture_path" };
    let (left, right) = match (load(session, &args.left, left_field), load(session, &args.right, right_field)) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => return reply::error(e.as_ref()),
    };
    let sides = (Side { evidence: &left.0, record: &left.1 }, Side { evidence: &right.0, record: &right.1 });
    let evidence = match compare_with(sides.0, sides.1, trace.as_ref(), args.options).and_then(|s| s.into_evidence()) {
        Ok(e) => e,
        Err(e) => return reply::error(&e),
    };
    let document = match serde_json::to_value(&evidence) {
        Ok(v) => v,
        Err(e) => {
            return reply::error(&crate::capture::Internal(format!("the comparison could not be serialized: {e}")));
        }
    };
    session.record_and_reply(evidence, document, None, Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn issues(args: Value) -> Vec<(String, String)> {
        match parse_arguments(args) {
            Ok(_) => Vec::new(),
            Err(e) => e.issues.into_iter().map(|i| (i.path, i.rule)).collect(),
        }
    }

    #[test]
    fn each_side_needs_exactly_one_source() {
        assert!(issues(json!({"left_evidence_id": "ev_a", "right_capture_path": "b.json"})).is_empty());
        let found =
            issues(json!({"right_evidence_id": "ev_b", "left_evidence_id": "ev_a", "left_capture_path": "a.json"}));
        assert_eq!(
            found,
            vec![("left_capture_path".into(), "give either left_evidence_id or left_capture_path, not both".into())]
        );
        let found = issues(json!({"left_evidence_id": "ev_a"}));
        assert_eq!(found[0].0, "right_evidence_id");
        assert!(found[0].1.starts_with("is required"), "{found:?}");
    }

    #[test]
    fn unknown_and_mistyped_arguments_name_their_path() {
        let found = issues(json!({"left_evidence_id": 3, "right_evidence_id": "ev_b", "max_age": 1, "trace_spec": []}));
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["max_age", "left_evidence_id", "trace_spec"]);
        assert_eq!(found[1].1, "must be a non-empty string");
    }

    #[test]
    fn timing_tolerance_defaults_as_in_the_cli_and_is_a_whole_number() {
        let base = json!({"left_evidence_id": "ev_a", "right_evidence_id": "ev_b"});
        let options = |extra: Value| {
            let mut args = base.clone();
            args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            parse_arguments(args).map(|a| a.options.timing_tolerance_ms)
        };
        assert_eq!(options(json!({})).unwrap(), DEFAULT_TIMING_TOLERANCE_MS);
        assert_eq!(options(json!({"timing_tolerance_ms": 0})).unwrap(), 0);
        assert_eq!(options(json!({"timing_tolerance_ms": 40.0})).unwrap(), 40);
        for bad in [json!(-1), json!(2.5), json!("250"), json!(null)] {
            let err = options(json!({ "timing_tolerance_ms": bad })).expect_err("rejected");
            assert_eq!(err.issues[0].path, "timing_tolerance_ms", "{bad}");
            assert_eq!(err.issues[0].rule, "must be a whole number of milliseconds, 0 or more");
        }
    }

    #[test]
    fn the_terminal_lens_defaults_to_stream_and_is_one_of_its_values() {
        let base = json!({"left_evidence_id": "ev_a", "right_evidence_id": "ev_b"});
        let lens = |extra: Value| {
            let mut args = base.clone();
            args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            parse_arguments(args).map(|a| a.options.terminal_lens)
        };
        assert_eq!(lens(json!({})).unwrap(), TerminalLens::Stream);
        assert_eq!(lens(json!({"terminal_lens": "screen"})).unwrap(), TerminalLens::Screen);
        for bad in [json!("Screen"), json!(1), json!(null)] {
            let err = lens(json!({ "terminal_lens": bad })).expect_err("rejected");
            assert_eq!(err.issues[0].path, "terminal_lens", "{bad}");
            assert_eq!(err.issues[0].rule, "must be one of stream, screen");
        }
        let schema = input_schema();
        let allowed: Vec<&str> = TerminalLens::ALL.iter().map(|l| l.as_str()).collect();
        assert_eq!(schema["properties"]["terminal_lens"]["enum"], json!(allowed));
        assert_eq!(schema["properties"]["terminal_lens"]["default"], "stream");
    }

    #[test]
    fn the_schema_is_derived_from_the_arguments_struct() {
        let schema = input_schema();
        assert_eq!(schema["additionalProperties"], false);
        let properties = schema["properties"].as_object().expect("properties");
        assert_eq!(properties.keys().map(String::as_str).collect::<Vec<_>>(), fields());
        assert_eq!(
            properties["left_evidence_id"],
            json!({"type": "string", "minLength": 1, "description": "evidence_id of a capture recorded in this session (authority side)."})
        );
        assert_eq!(properties["trace_spec"]["type"], "object");
        assert_eq!(properties["timing_tolerance_ms"]["default"], DEFAULT_TIMING_TOLERANCE_MS);
        assert_eq!(properties["timing_tolerance_ms"]["minimum"], 0);
        assert!(schema.get("required").is_none(), "{schema}");
        let right = &schema["allOf"][1]["oneOf"];
        assert_eq!(right[0], json!({"required": ["right_evidence_id"], "not": {"required": ["right_capture_path"]}}));
    }

    #[test]
    fn trace_issues_are_prefixed_with_the_argument() {
        let err = trace_spec(json!({"events": 1})).expect_err("invalid trace spec");
        assert!(err.issues.iter().all(|i| i.path.starts_with("trace_spec")), "{:?}", err.issues);
    }
}
