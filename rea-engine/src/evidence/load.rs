//! Reading Evidence files: the one capture loader that every surface (the
//! CLI's comparison, MCP's comparison by path, the views and the export)
//! uses, for JSON and for the TOON rea prints by default (decoded at the
//! edge, in [`super::toon`], then imported as strictly as JSON).
//!
//! A capture is read straight into its typed record: the envelope and the
//! record are deserialized from the file's bytes with no JSON value tree,
//! and the identity is recomputed from the typed record. Any failure of that
//! path (malformed, tampered, an older format) reads the file again the
//! strict way ([`import_capture_record`] over a parsed tree), so every
//! refusal keeps its exact message.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::import::check_record;
use super::toon::decode_evidence;
use super::*;
use crate::error::{Category, UserError};
use crate::input::{
    InputBytes, InputError, OpenInput, read_capped, strict_optional_value, strict_value, strict_values,
};

/// Why a capture file cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read or is neither JSON nor TOON Evidence.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The file is Evidence but not a capture this version compares.
    #[error(transparent)]
    Import(#[from] ImportError),
}

impl UserError for LoadError {
    fn category(&self) -> Category {
        match self {
            LoadError::Input(e) => e.category(),
            LoadError::Import(e) => e.category(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            LoadError::Input(e) => e.code(),
            LoadError::Import(e) => e.code(),
        }
    }
    fn remediation(&self) -> String {
        match self {
            LoadError::Input(e) => e.remediation(),
            LoadError::Import(e) => e.remediation(),
        }
    }
    fn retryable(&self) -> bool {
        match self {
            LoadError::Input(e) => e.retryable(),
            LoadError::Import(e) => e.retryable(),
        }
    }
    fn details(&self) -> Option<Value> {
        match self {
            LoadError::Input(e) => e.details(),
            LoadError::Import(e) => e.details(),
        }
    }
}

/// Reads the capture at `path` (opened with `open`), JSON or TOON: the
/// envelope (its `normalized_result` null) and the checked, typed record.
pub fn load_capture(path: &Path, open: OpenInput) -> Result<(Evidence, CaptureRecord), LoadError> {
    let bytes = read_capped("capture", path, open)?;
    if let Some(imported) = typed_capture(&bytes) {
        return Ok(imported);
    }
    let (value, _) = decode_evidence("capture", path, &bytes)?;
    drop(bytes);
    // The record takes the tree's strings; the envelope keeps no copy.
    Ok(import_capture_record(&path.display().to_string(), value)?)
}

/// Capture Evidence as written, its record typed.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaptureDocument {
    schema_version: u32,
    evidence_id: String,
    #[serde(deserialize_with = "strict_value")]
    subject: Value,
    provider: Provider,
    #[serde(default, deserialize_with = "strict_optional_value")]
    analysis_profile: Option<Value>,
    predicate_type: String,
    operation: String,
    #[serde(deserialize_with = "strict_value")]
    parameters: Value,
    #[serde(deserialize_with = "strict_value")]
    raw_result: Value,
    normalized_result: CaptureRecord,
    confidence: String,
    authority: String,
    #[serde(deserialize_with = "strict_value")]
    environment: Value,
    limitations: Vec<String>,
    #[serde(deserialize_with = "strict_values")]
    locations: Vec<Value>,
    evidence_links: Vec<String>,
}

/// The capture in `input`, read straight into its typed record, when it is
/// current capture Evidence whose recomputed identity and commitments hold;
/// `None` for anything else (the strict path then says what is wrong).
///
/// The identity is recomputed from the typed record, so it vouches for
/// exactly the record that is compared. A mapped file's memory is given
/// back as it is parsed ([`super::behind`]).
pub(crate) fn typed_capture(input: &InputBytes) -> Option<(Evidence, CaptureRecord)> {
    let d: CaptureDocument = super::behind::parse(input, |bytes| serde_json::from_slice(bytes).ok())?;
    let current = d.schema_version == EVIDENCE_SCHEMA_VERSION
        && d.predicate_type == CAPTURE_PREDICATE
        && d.operation == CAPTURE_OPERATION
        && d.provider == Provider::current()
        && d.analysis_profile.is_none();
    if !current || check_record(&d.normalized_result).is_err() {
        return None;
    }
    let envelope = Evidence {
        schema_version: d.schema_version,
        evidence_id: d.evidence_id,
        subject: d.subject,
        provider: d.provider,
        analysis_profile: None,
        predicate_type: d.predicate_type,
        operation: d.operation,
        parameters: d.parameters,
        raw_result: d.raw_result,
        normalized_result: Value::Null,
        confidence: d.confidence,
        authority: d.authority,
        environment: d.environment,
        limitations: d.limitations,
        locations: d.locations,
        evidence_links: d.evidence_links,
    };
    let computed = evidence_id_with(&envelope, Part::Typed(&d.normalized_result)).ok()?;
    (computed == envelope.evidence_id).then_some((envelope, d.normalized_result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Encoding;
    use crate::input::parse_json_bytes;
    use std::path::PathBuf;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/captures").join(name)
    }

    #[test]
    fn the_typed_path_reads_what_the_strict_path_reads() {
        let path = fixture("authority.json");
        let bytes = std::fs::read(&path).unwrap();
        let (envelope, record) =
            typed_capture(&InputBytes::Read(bytes.clone())).expect("a current capture takes the typed path");
        let value = parse_json_bytes("capture", &path, &bytes).unwrap();
        let (strict_envelope, strict_record) = import_capture_record("x", value).unwrap();
        assert_eq!(envelope, strict_envelope);
        assert_eq!(serde_json::to_value(&record).unwrap(), serde_json::to_value(&strict_record).unwrap());
    }

    #[test]
    fn a_changed_file_leaves_the_typed_path_and_is_refused_as_before() {
        let path = fixture("authority.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let changed = text.replacen("\"exit\": {", "\"exit\": {\"extra\": 1, ", 1);
        assert!(typed_capture(&InputBytes::Read(changed.into_bytes())).is_none());
        let tampered = text.replacen("\"rows\": 24", "\"rows\": 25", 1);
        assert_ne!(tampered, text);
        assert!(
            typed_capture(&InputBytes::Read(tampered.clone().into_bytes())).is_none(),
            "the recomputed identity differs"
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("capture.json");
        std::fs::write(&file, &tampered).unwrap();
        let err = load_capture(&file, crate::input::open_input_portable).unwrap_err();
        assert_eq!(err.code(), "evidence_identity_mismatch", "{err}");
    }

    #[test]
    fn a_toon_capture_loads_as_its_json_twin() {
        let path = fixture("authority.json");
        let value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("capture.toon");
        std::fs::write(&file, toon_format::encode_default(&value).unwrap()).unwrap();
        let (_, encoding) = decode_evidence("Evidence", &file, &std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(encoding, Encoding::Toon);
        let toon = load_capture(&file, crate::input::open_input_portable).unwrap();
        let json = load_capture(&path, crate::input::open_input_portable).unwrap();
        assert_eq!(toon, json);
    }

    #[test]
    fn a_tampered_toon_capture_is_refused_as_its_json_twin_would_be() {
        let path = fixture("authority.json");
        let mut value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        value["normalized_result"]["exit"]["code"] = 7.into();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("capture.toon");
        std::fs::write(&file, toon_format::encode_default(&value).unwrap()).unwrap();
        let err = load_capture(&file, crate::input::open_input_portable).unwrap_err();
        assert_eq!(err.code(), "evidence_identity_mismatch", "{err}");
        assert!(err.to_string().contains("capture.toon"), "{err}");
    }

    #[test]
    fn unknown_vocabulary_names_the_file_and_the_json_path() {
        let path = fixture("authority.json");
        let mut value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        value["normalized_result"]["exit"]["reason"] = "vanished".into();
        // Sealed again, so only the vocabulary is wrong.
        value["evidence_id"] = super::super::import::projection_id(&mut value).unwrap().into();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("capture.json");
        std::fs::write(&file, serde_json::to_string_pretty(&value).unwrap()).unwrap();
        assert!(typed_capture(&InputBytes::Read(std::fs::read(&file).unwrap())).is_none());
        let err = load_capture(&file, crate::input::open_input_portable).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("capture.json"), "{message}");
        assert!(message.contains("normalized_result.exit.reason"), "{message}");
        assert!(message.contains("vanished"), "{message}");
    }
}
