//! Reading an Evidence file to show or export it: a capture or a
//! comparison, as JSON or TOON, through the same decoding and import as
//! [`load_capture`](crate::evidence::load_capture). A view differs from a comparison in one way: a
//! document whose recomputed identity fails is still read (typed, as
//! strictly) and the failure is reported beside it, because a person should
//! see what a changed file says.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::compare::ComparisonRecord;
use crate::error::{Category, UserError};
use crate::evidence::*;
use crate::input::{InputError, OpenInput, read_capped};

/// Whether the recorded `evidence_id` (and, for a capture, its commitments)
/// was recomputed and matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// It matched.
    Verified,
    /// The check failed; the message says why.
    Failed(String),
}

/// What the document holds.
#[derive(Debug)]
pub enum Contents {
    /// A capture: its typed record.
    Capture(Box<CaptureRecord>),
    /// A comparison: its typed record.
    Comparison(Box<ComparisonRecord>),
}

/// An Evidence document read for viewing.
#[derive(Debug)]
pub struct Document {
    /// The file, as errors and reports name it.
    pub source_name: String,
    /// The envelope (its `normalized_result` null: the record is in `contents`).
    pub envelope: Evidence,
    /// The record.
    pub contents: Contents,
    /// How the file was written.
    pub encoding: Encoding,
    /// Whether its identity was recomputed and matched.
    pub identity: Identity,
}

/// Why a file cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The file could not be read or is neither JSON nor TOON Evidence.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The document is not a capture or a comparison.
    #[error("{} is not a rea capture or comparison: it is {found}", .path.display())]
    NotViewable {
        /// The file.
        path: PathBuf,
        /// What it is instead.
        found: String,
    },
    /// The record does not have the shape of this version's records.
    #[error(transparent)]
    Import(#[from] ImportError),
}

impl UserError for DocumentError {
    fn category(&self) -> Category {
        match self {
            DocumentError::Input(e) => e.category(),
            DocumentError::NotViewable { .. } => Category::InvalidInput,
            DocumentError::Import(e) => e.category(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            DocumentError::Input(e) => e.code(),
            DocumentError::NotViewable { .. } => "not_viewable",
            DocumentError::Import(e) => e.code(),
        }
    }
    fn remediation(&self) -> String {
        match self {
            DocumentError::Input(e) => e.remediation(),
            DocumentError::NotViewable { .. } => "Give a capture (`rea capture-process SCENARIO --json > capture.json`), a comparison (`rea compare-process-captures LEFT RIGHT --json > comparison.json`) or a suite record (the suite.json of `rea run-suite`).".into(),
            DocumentError::Import(e) => e.remediation(),
        }
    }
    fn retryable(&self) -> bool {
        match self {
            DocumentError::Input(e) => e.retryable(),
            DocumentError::NotViewable { .. } => false,
            DocumentError::Import(e) => e.retryable(),
        }
    }
    fn details(&self) -> Option<Value> {
        match self {
            DocumentError::Input(e) => e.details(),
            DocumentError::NotViewable { path, .. } => Some(serde_json::json!({ "file": path.display().to_string() })),
            DocumentError::Import(e) => e.details(),
        }
    }
}

/// Reads the capture or comparison at `path` (opened with `open`), JSON or TOON.
pub fn load_document(path: &Path, open: OpenInput) -> Result<Document, DocumentError> {
    let bytes = read_capped("Evidence", path, open)?;
    let name = path.display().to_string();
    if let Some((envelope, record)) = typed_capture(&bytes) {
        let contents = Contents::Capture(Box::new(record));
        let (encoding, identity) = (Encoding::Json, Identity::Verified);
        return Ok(Document { source_name: name, envelope, contents, encoding, identity });
    }
    let (value, encoding) = decode_evidence("Evidence", path, &bytes)?;
    drop(bytes);
    let (envelope, contents, identity) = match value.get("predicate_type").and_then(Value::as_str) {
        Some(CAPTURE_PREDICATE) => capture(&name, value)?,
        Some(COMPARISON_PREDICATE) => comparison(&name, value)?,
        other => {
            let found = other.map_or_else(|| describe_non_evidence(&value), |p| format!("predicate_type {p:?}"));
            return Err(DocumentError::NotViewable { path: path.to_owned(), found });
        }
    };
    Ok(Document { source_name: name, envelope, contents, encoding, identity })
}

/// A capture, checked as comparison checks it; when only the check fails,
/// read anyway with the failure as its identity.
fn capture(name: &str, value: Value) -> Result<(Evidence, Contents, Identity), ImportError> {
    let (envelope, record, identity) = match import_capture_record(name, value.clone()) {
        Ok((envelope, record)) => (envelope, record, Identity::Verified),
        Err(failed) => {
            let Some((envelope, record)) = unverified(value) else { return Err(failed) };
            (envelope, record, Identity::Failed(failed.to_string()))
        }
    };
    Ok((envelope, Contents::Capture(Box::new(record)), identity))
}

/// A comparison: its envelope checked, its record typed.
fn comparison(name: &str, value: Value) -> Result<(Evidence, Contents, Identity), ImportError> {
    let (envelope, record, identity) = match parse_evidence_value(name, value.clone()) {
        Ok(mut envelope) => {
            let result = std::mem::take(&mut envelope.normalized_result);
            let record = typed(result, "normalized_result").map_err(|(path, reason)| ImportError::Malformed {
                source_name: name.to_owned(),
                path,
                reason,
            })?;
            (envelope, record, Identity::Verified)
        }
        Err(failed) => {
            let Some((envelope, record)) = unverified(value) else { return Err(failed) };
            (envelope, record, Identity::Failed(failed.to_string()))
        }
    };
    Ok((envelope, Contents::Comparison(Box::new(record)), identity))
}

/// The envelope of `value` and its record, read as strictly as an import
/// reads them but without checking the identity; `None` when either does
/// not have its shape (the failed check then says what is wrong).
fn unverified<R: serde::de::DeserializeOwned>(mut value: Value) -> Option<(Evidence, R)> {
    let result = value.get_mut("normalized_result").map(Value::take)?;
    let envelope: Evidence = typed(value, "").ok()?;
    Some((envelope, typed(result, "normalized_result").ok()?))
}

fn describe_non_evidence(value: &Value) -> String {
    if value.get("error").is_some() {
        let message = value.get("message").and_then(Value::as_str).unwrap_or("(no message)");
        return format!("an error document ({message})");
    }
    "a document without predicate_type".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases() -> Vec<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/comparisons/cases");
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        found.sort();
        found
    }

    /// Every golden comparison, JSON and TOON, reads into a typed record
    /// that writes back exactly the record in the file.
    #[test]
    fn every_golden_comparison_reads_typed_and_writes_back_as_it_was() {
        let mut read = 0;
        for case in cases() {
            for file in ["comparison.json", "comparison.toon"] {
                let path = case.join(file);
                let text = std::fs::read_to_string(&path).unwrap();
                let Some((written, _)) = decode_evidence("x", &path, text.as_bytes()).ok() else { continue };
                if written.get("error").is_some() {
                    continue;
                }
                let document = load_document(&path, crate::input::open_input_portable).unwrap();
                assert_eq!(document.identity, Identity::Verified, "{}", path.display());
                let Contents::Comparison(record) = &document.contents else { panic!("{}", path.display()) };
                let back = serde_json::to_value(record).unwrap();
                assert_eq!(back, written["normalized_result"], "{}", path.display());
                read += 1;
            }
        }
        assert!(read >= 26, "{read} comparisons read");
    }

    #[test]
    fn an_unknown_dimension_status_is_refused_naming_its_path() {
        let case = cases().into_iter().find(|c| c.ends_with("exit-code")).unwrap();
        let mut value: Value = serde_json::from_slice(&std::fs::read(case.join("comparison.json")).unwrap()).unwrap();
        value["normalized_result"]["dimensions"][2]["status"] = "unsure".into();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("comparison.json");
        std::fs::write(&file, serde_json::to_string(&value).unwrap()).unwrap();
        let err = load_document(&file, crate::input::open_input_portable).unwrap_err();
        assert_eq!(err.code(), "evidence_identity_mismatch", "a changed file fails its identity first: {err}");
        value["evidence_id"] = crate::evidence::projection_id(&mut value).unwrap().into();
        std::fs::write(&file, serde_json::to_string(&value).unwrap()).unwrap();
        let err = load_document(&file, crate::input::open_input_portable).unwrap_err().to_string();
        assert!(err.contains("normalized_result.dimensions[2].status") && err.contains("unsure"), "{err}");
    }
}
