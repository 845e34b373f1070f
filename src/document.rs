//! Reading an Evidence document for viewing: JSON, or the TOON rea prints by
//! default (decoded by the engine's `decode_evidence`, which the capture
//! loader of comparison also uses). Comparison reads JSON only; viewing
//! accepts both because a person should be able to read whatever
//! rea printed.

use std::path::Path;

use rea_engine::UserError;
pub(crate) use rea_engine::evidence::Encoding;
use rea_engine::evidence::{
    CAPTURE_PREDICATE, COMPARISON_PREDICATE, decode_evidence, import_capture, parse_evidence_value,
};
use rea_engine::input::{InputError, read_capped};
use serde_json::Value;

use crate::errors::CliError;

/// What kind of Evidence the document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Capture,
    Comparison,
}

/// Whether the recorded `evidence_id` (and, for a capture, its commitments)
/// was recomputed and matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Identity {
    Verified,
    /// The check failed; the message says why.
    Failed(String),
}

/// A document read for viewing.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub(crate) value: Value,
    pub(crate) encoding: Encoding,
    pub(crate) kind: Kind,
    pub(crate) identity: Identity,
}

/// Reads the capture or comparison at `path` (JSON or TOON).
pub(crate) fn load(path: &Path) -> Result<Loaded, Box<dyn UserError>> {
    let boxed = |e: InputError| Box::new(e) as Box<dyn UserError>;
    let bytes = read_capped("Evidence", path, crate::host::open_input).map_err(boxed)?;
    let (value, encoding) = decode_evidence("Evidence", path, &bytes).map_err(boxed)?;
    let kind = match value.get("predicate_type").and_then(Value::as_str) {
        Some(CAPTURE_PREDICATE) => Kind::Capture,
        Some(COMPARISON_PREDICATE) => Kind::Comparison,
        other => {
            return Err(Box::new(CliError::NotViewable {
                path: path.to_owned(),
                found: other.map_or_else(|| describe_non_evidence(&value), |p| format!("predicate_type {p:?}")),
            }));
        }
    };
    let name = path.display().to_string();
    let check = match kind {
        Kind::Capture => import_capture(&name, value.clone()).map(drop),
        Kind::Comparison => parse_evidence_value(&name, value.clone()).map(drop),
    };
    let identity = match check {
        Ok(()) => Identity::Verified,
        Err(e) => Identity::Failed(e.to_string()),
    };
    Ok(Loaded { value, encoding, kind, identity })
}

fn describe_non_evidence(value: &Value) -> String {
    if value.get("error").is_some() {
        let message = value.get("message").and_then(Value::as_str).unwrap_or("(no message)");
        return format!("an error document ({message})");
    }
    "a document without predicate_type".to_owned()
}
