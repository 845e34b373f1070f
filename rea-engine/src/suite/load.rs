//! Reading suite records back (`rea show`, `rea merge-suite-results`): JSON
//! or TOON, the identity recomputed, the record typed as strictly as the
//! capture and comparison records (unknown keys and values refused with
//! their JSON path), and its invariants checked.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::outdir::CASES_DIR;
use super::record::*;
use crate::error::{Category, UserError};
use crate::evidence::{
    Encoding, Evidence, ImportError, PROVIDER_ID, Provider, decode_evidence, parse_evidence_value, typed,
};
use crate::input::{InputError, OpenInput, read_capped};

/// Why a file is not a suite record this version reads.
#[derive(Debug, thiserror::Error)]
pub enum SuiteLoadError {
    /// The file could not be read or is neither JSON nor TOON Evidence.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The Evidence is malformed or its identity does not hold.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The Evidence is of another kind.
    #[error("{file} is not a suite record: {found}")]
    NotSuite {
        /// The file.
        file: String,
        /// What it is instead.
        found: String,
    },
}

impl UserError for SuiteLoadError {
    fn category(&self) -> Category {
        match self {
            SuiteLoadError::Input(e) => e.category(),
            SuiteLoadError::Import(e) => e.category(),
            SuiteLoadError::NotSuite { .. } => Category::InvalidInput,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            SuiteLoadError::Input(e) => e.code(),
            SuiteLoadError::Import(e) => e.code(),
            SuiteLoadError::NotSuite { .. } => "not_a_suite_record",
        }
    }
    fn remediation(&self) -> String {
        match self {
            SuiteLoadError::Input(e) => e.remediation(),
            SuiteLoadError::Import(ImportError::IdentityMismatch { .. }) => {
                "The suite record was changed after it was written: run the suite again.".into()
            }
            SuiteLoadError::Import(e) => e.remediation(),
            SuiteLoadError::NotSuite { .. } => {
                "Give the suite.json that `rea run-suite` wrote in its --out directory.".into()
            }
        }
    }
    fn details(&self) -> Option<Value> {
        match self {
            SuiteLoadError::Input(e) => e.details(),
            SuiteLoadError::Import(e) => e.details(),
            SuiteLoadError::NotSuite { file, .. } => Some(serde_json::json!({ "file": file })),
        }
    }
}

/// A suite record read for viewing: a record whose identity fails is still
/// read (typed, as strictly) and the failure kept beside it.
#[derive(Debug)]
pub struct SuiteDocument {
    /// The envelope (its `normalized_result` null).
    pub envelope: Evidence,
    /// The record.
    pub record: SuiteRecord,
    /// How the file was written.
    pub encoding: Encoding,
    /// `None` when the identity was recomputed and matched; else why not.
    pub identity_failure: Option<String>,
}

/// Reads the suite record at `path`, JSON or TOON; its identity must hold.
pub fn load_suite(path: &Path, open: OpenInput) -> Result<(Evidence, SuiteRecord), SuiteLoadError> {
    let document = read_suite(path, open, false)?;
    Ok((document.envelope, document.record))
}

/// Reads the suite record at `path` for viewing (see [`SuiteDocument`]).
pub fn read_suite_document(path: &Path, open: OpenInput) -> Result<SuiteDocument, SuiteLoadError> {
    read_suite(path, open, true)
}

/// Whether `value` (an Evidence document) is a suite record.
pub fn is_suite_value(value: &Value) -> bool {
    value.get("predicate_type").and_then(Value::as_str) == Some(SUITE_PREDICATE)
}

fn read_suite(path: &Path, open: OpenInput, keep_unverified: bool) -> Result<SuiteDocument, SuiteLoadError> {
    let name = path.display().to_string();
    let bytes = read_capped("suite record", path, open)?;
    let (mut value, encoding) = decode_evidence("suite record", path, &bytes)?;
    drop(bytes);
    if !is_suite_value(&value) {
        let found = match value.get("predicate_type").and_then(Value::as_str) {
            Some(p) => format!("its predicate_type is {p:?}"),
            None => "it has no predicate_type".into(),
        };
        return Err(SuiteLoadError::NotSuite { file: name, found });
    }
    let malformed =
        |(path, reason): (String, String)| ImportError::Malformed { source_name: name.clone(), path, reason };
    let (mut envelope, identity_failure) = match parse_evidence_value(&name, value.clone()) {
        Ok(envelope) => (envelope, None),
        Err(failed @ ImportError::IdentityMismatch { .. }) if keep_unverified => {
            let result = value.get_mut("normalized_result").map(Value::take).unwrap_or_default();
            let mut envelope: Evidence = typed(value, "").map_err(malformed)?;
            envelope.normalized_result = result;
            (envelope, Some(failed.to_string()))
        }
        Err(e) => return Err(e.into()),
    };
    check_envelope(&name, &envelope)?;
    let result = std::mem::take(&mut envelope.normalized_result);
    let record: SuiteRecord = typed(result, "normalized_result").map_err(malformed)?;
    check_record(&record).map_err(|(path, reason)| malformed((path, reason)))?;
    Ok(SuiteDocument { envelope, record, encoding, identity_failure })
}

fn check_envelope(name: &str, envelope: &Evidence) -> Result<(), ImportError> {
    let wrong = |reason: String| ImportError::WrongWorkflow { source_name: name.to_owned(), reason };
    if envelope.provider != Provider::current() {
        return Err(wrong(format!("its provider is {}, not {PROVIDER_ID} of this version", envelope.provider)));
    }
    if envelope.operation != SUITE_OPERATION && envelope.operation != MERGE_OPERATION {
        return Err(wrong(format!("its operation is {:?}", envelope.operation)));
    }
    if envelope.analysis_profile.is_some() {
        return Err(ImportError::Malformed {
            source_name: name.to_owned(),
            path: "analysis_profile".into(),
            reason: "suite Evidence never carries analysis_profile".into(),
        });
    }
    Ok(())
}

/// The record's invariants: the schema version, unique case names that the
/// suite selected, documents inside the out directory's `cases/NAME/`, an
/// error exactly on `error` cases, and totals that count the cases.
pub(crate) fn check_record(record: &SuiteRecord) -> Result<(), (String, String)> {
    let at = |path: String, reason: &str| Err((path, reason.to_owned()));
    if record.schema_version != SUITE_SCHEMA_VERSION {
        return at("normalized_result.schema_version".into(), "this version of rea reads suite records of schema 1");
    }
    let selected: BTreeSet<&str> = record.suite.case_names.iter().map(String::as_str).collect();
    if selected.len() != record.suite.case_names.len() {
        return at("normalized_result.suite.case_names".into(), "a case name appears twice");
    }
    let mut seen = BTreeSet::new();
    for (i, case) in record.cases.iter().enumerate() {
        let path = format!("normalized_result.cases[{i}]");
        if !seen.insert(case.name.as_str()) {
            return at(format!("{path}.name"), "a case name appears twice");
        }
        if !selected.contains(case.name.as_str()) {
            return at(format!("{path}.name"), "the case is not among suite.case_names");
        }
        if (case.verdict == Verdict::Error) != case.error.is_some() {
            return at(format!("{path}.error"), "an error is given exactly on a case whose verdict is error");
        }
        let prefix = format!("{CASES_DIR}/{}/", case.name);
        for document in case.documents.all() {
            let rest = document.path.strip_prefix(&prefix);
            if !rest.is_some_and(|r| !r.is_empty() && !r.contains('/') && !r.starts_with('.')) {
                return at(format!("{path}.documents"), "a document path must be cases/NAME/FILE of its own case");
            }
        }
    }
    if record.totals != Totals::of(&record.cases) {
        return at("normalized_result.totals".into(), "the totals do not count the cases");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::compare::{DimensionStatus, FirstDivergence, TerminalLens};
    use crate::suite::{CaseResult, DimensionStatuses, Documents, SuiteIdentity, SuiteParameters};

    fn record() -> SuiteRecord {
        let dims = DimensionStatuses {
            terminal: DimensionStatus::Unchanged,
            interaction: DimensionStatus::Unchanged,
            exit: DimensionStatus::Unchanged,
            filesystem: DimensionStatus::Unchanged,
            process: DimensionStatus::Unchanged,
        };
        let case = CaseResult {
            name: "a".into(),
            verdict: Verdict::Unchanged,
            dimensions: Some(dims),
            first_divergence: Some(FirstDivergence::None),
            documents: Documents {
                comparison: Some(DocumentRef { path: "cases/a/comparison.json".into(), evidence_id: "ev_x".into() }),
                ..Documents::default()
            },
            error: None,
            elapsed_ms: 12,
        };
        SuiteRecord {
            schema_version: SUITE_SCHEMA_VERSION,
            suite: SuiteIdentity { name: "s".into(), commitment: "00".into(), case_names: vec!["a".into()] },
            parameters: SuiteParameters {
                jobs: 2,
                partition: None,
                self_check: false,
                goldens: None,
                terminal_lens: TerminalLens::Stream,
                case_globs: vec![],
            },
            totals: Totals::of(std::slice::from_ref(&case)),
            cases: vec![case],
        }
    }

    fn written(dir: &Path, value: &Value) -> std::path::PathBuf {
        let path = dir.join("suite.json");
        std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
        path
    }

    /// A change made to a case of a written record.
    type Change = fn(&mut Value);

    fn resealed(mut value: Value) -> Value {
        value["evidence_id"] = crate::evidence::projection_id(&mut value).unwrap().into();
        value
    }

    #[test]
    fn a_sealed_record_reads_back_and_a_changed_one_is_refused_naming_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let sealed = SealedSuite::seal(record(), SUITE_OPERATION).unwrap();
        let mut bytes = Vec::new();
        sealed.write_json(&mut bytes).unwrap();
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        let open = crate::input::open_input_portable;
        let (envelope, read) = load_suite(&written(dir.path(), &value), open).unwrap();
        assert_eq!((envelope.evidence_id.as_str(), &read), (sealed.evidence_id(), sealed.record()));
        let mut toon = Vec::new();
        sealed.write_toon(&mut toon).unwrap();
        std::fs::write(dir.path().join("suite.toon"), &toon).unwrap();
        assert_eq!(load_suite(&dir.path().join("suite.toon"), open).unwrap().1, read, "TOON reads as JSON");

        let mut changed = value.clone();
        changed["normalized_result"]["cases"][0]["elapsed_ms"] = json!(13);
        let err = load_suite(&written(dir.path(), &changed), open).unwrap_err();
        assert_eq!(err.code(), "evidence_identity_mismatch", "{err}");
        let shown = read_suite_document(&written(dir.path(), &changed), open).unwrap();
        assert!(shown.identity_failure.is_some(), "a view still reads it, saying so");

        let refusals: [(Change, &str); 4] = [
            (|c| c["colour"] = json!("red"), "normalized_result.cases[0]"),
            (|c| c["verdict"] = json!("fine"), "normalized_result.cases[0].verdict"),
            (|c| c["documents"]["comparison"]["path"] = json!("../x.json"), "normalized_result.cases[0].documents"),
            (|c| c["verdict"] = json!("changed"), "normalized_result.totals"),
        ];
        for (change, path) in refusals {
            let mut v = value.clone();
            change(&mut v["normalized_result"]["cases"][0]);
            let err = load_suite(&written(dir.path(), &resealed(v)), open).unwrap_err().to_string();
            assert!(err.contains(path), "{path}: {err}");
        }
        // A key repeated in the free-form parameters or a case, in JSON or
        // TOON, is refused naming it (even with the last copy as sealed).
        let text = serde_json::to_string_pretty(&value).unwrap();
        for (opening, named) in
            [("  \"parameters\": {", "key parameters."), ("      {", "key normalized_result.cases[0].")]
        {
            let at = text.find(opening).unwrap_or_else(|| panic!("{opening}")) + opening.len();
            let (key, _) = text[at..].trim_start().strip_prefix('"').unwrap().split_once('"').unwrap();
            let repeated = format!("{}\"{key}\": \"the first copy\",{}", &text[..at], &text[at..]);
            std::fs::write(dir.path().join("suite.json"), &repeated).unwrap();
            let err = load_suite(&dir.path().join("suite.json"), open).unwrap_err().to_string();
            assert!(err.contains(&format!("{named}{key} is repeated")), "{err}");
        }
        let toon = String::from_utf8(toon).unwrap();
        let first = toon.lines().find(|l| l.starts_with("schema_version:")).unwrap();
        std::fs::write(dir.path().join("suite.toon"), format!("{first}\n{toon}")).unwrap();
        let err = load_suite(&dir.path().join("suite.toon"), open).unwrap_err();
        assert_eq!(err.code(), "input_invalid_toon", "{err}");
        assert!(err.to_string().contains("Duplicate sibling key \"schema_version\""), "{err}");

        let mut capture_like = value;
        capture_like["predicate_type"] = json!("rea.process-capture/v5");
        let err = load_suite(&written(dir.path(), &capture_like), open).unwrap_err();
        assert_eq!(err.code(), "not_a_suite_record");
    }
}
