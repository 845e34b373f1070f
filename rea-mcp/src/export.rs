//! `export_asciicast`: the asciicast v2 recording of a capture, named by a
//! session Evidence id or by a capture file path (JSON or TOON), as
//! `rea export-asciicast` prints it (the engine's `report::export`).

use std::path::Path;
use std::sync::Arc;

use rea_engine::UserError;
use rea_engine::evidence::{CaptureRecord, Evidence, load_capture};
use rea_engine::scenario::Issue;
use rmcp::model::CallToolResult;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::errors::ArgumentsError;
use crate::reply;
use crate::session::Session;

/// The tool's name.
pub(crate) const TOOL: &str = "export_asciicast";

/// The tool's input schema.
pub(crate) fn input_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "evidence_id": { "type": "string", "minLength": 1, "description": "evidence_id of a capture recorded in this session." },
            "capture_path": { "type": "string", "minLength": 1, "description": "Path of a capture Evidence file (JSON or TOON), instead of evidence_id; relative to the server's working directory." }
        },
        "oneOf": [
            { "required": ["evidence_id"], "not": { "required": ["capture_path"] } },
            { "required": ["capture_path"], "not": { "required": ["evidence_id"] } }
        ]
    })
}

/// The arguments as given.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Arguments {
    evidence_id: Option<String>,
    capture_path: Option<String>,
}

/// Where the capture comes from.
enum Source {
    Id(String),
    File(String),
}

fn parse_arguments(arguments: Value) -> Result<Source, ArgumentsError> {
    let fail =
        |path: &str, rule: String| ArgumentsError { tool: TOOL, issues: vec![Issue { path: path.to_owned(), rule }] };
    let args: Arguments = serde_json::from_value(arguments)
        .map_err(|e| fail("", format!("{e}; give exactly one of evidence_id and capture_path, as strings")))?;
    match (args.evidence_id, args.capture_path) {
        (Some(id), None) if !id.is_empty() => Ok(Source::Id(id)),
        (None, Some(path)) if !path.is_empty() => Ok(Source::File(path)),
        (Some(_), Some(_)) => Err(fail("capture_path", "give either evidence_id or capture_path, not both".into())),
        (None, None) => Err(fail("evidence_id", "is required (or give capture_path to export a capture file)".into())),
        (Some(_), None) => Err(fail("evidence_id", "must be a non-empty string".into())),
        (None, Some(_)) => Err(fail("capture_path", "must be a non-empty string".into())),
    }
}

fn load(session: &Session, source: &Source) -> Result<Arc<(Evidence, CaptureRecord)>, Box<dyn UserError + Send>> {
    match source {
        Source::Id(id) => crate::compare::by_id(session, id, "evidence_id").map_err(|e| Box::new(e) as _),
        // The engine's one capture loader: the identity is checked, TOON is read.
        Source::File(path) => {
            load_capture(Path::new(path), session.host.open_input).map(Arc::new).map_err(|e| Box::new(e) as _)
        }
    }
}

/// Runs the tool (blocking: files are read; call from a blocking thread).
pub(crate) fn run(session: &Session, arguments: Value) -> CallToolResult {
    let source = match parse_arguments(arguments) {
        Ok(s) => s,
        Err(e) => return reply::error(&e),
    };
    let capture = match load(session, &source) {
        Ok(c) => c,
        Err(e) => return reply::error(e.as_ref()),
    };
    let name = match &source {
        Source::Id(id) => id.as_str(),
        Source::File(path) => path.as_str(),
    };
    match rea_engine::report::export(name, &capture.1) {
        Ok(cast) => reply::recording(&capture.0.evidence_id, cast),
        Err(e) => reply::error(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(args: Value) -> (String, String) {
        let issue = parse_arguments(args).err().expect("refused").issues.remove(0);
        (issue.path, issue.rule)
    }

    #[test]
    fn exactly_one_source_is_accepted() {
        assert!(matches!(parse_arguments(json!({"evidence_id": "ev_a"})), Ok(Source::Id(id)) if id == "ev_a"));
        assert!(matches!(parse_arguments(json!({"capture_path": "a.toon"})), Ok(Source::File(p)) if p == "a.toon"));
        let both = rule(json!({"evidence_id": "ev_a", "capture_path": "a.json"}));
        assert_eq!(both, ("capture_path".into(), "give either evidence_id or capture_path, not both".into()));
        assert_eq!(rule(json!({})).0, "evidence_id");
        assert_eq!(rule(json!({"capture_path": ""})).1, "must be a non-empty string");
        let unknown = rule(json!({"evidence_id": "ev_a", "speed": 2}));
        assert!(unknown.1.contains("unknown field `speed`"), "{unknown:?}");
    }
}
