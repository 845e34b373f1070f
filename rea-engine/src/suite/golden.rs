//! Goldens: a case's authority capture recorded once (`--record-goldens
//! DIR` writes `DIR/NAME.json`) and read back instead of running the
//! authority (`--goldens DIR`), through the capture loader (identity and
//! commitments checked). A golden whose comparison contract differs from the
//! case's is stale; neither a stale nor a missing golden is ever compared.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::record::CaseFailure;
use crate::compare::contract_differences;
use crate::error::UserError;
use crate::evidence::{CaptureRecord, Evidence, load_capture};
use crate::input::OpenInput;

/// The golden of case `name` in `dir`.
pub(crate) fn golden_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.json"))
}

/// The golden of a case, checked against the case's comparison contract.
pub(crate) fn read_golden(
    path: &Path,
    contract: &Value,
    open: OpenInput,
) -> Result<(Evidence, CaptureRecord), CaseFailure> {
    if !path.exists() {
        return Err(CaseFailure {
            code: "missing_golden".into(),
            message: format!(
                "the golden {} does not exist; record it with `rea run-suite SUITE --record-goldens DIR`",
                path.display()
            ),
        });
    }
    let (envelope, record) = load_capture(path, open)
        .map_err(|e| CaseFailure { code: "invalid_golden".into(), message: format!("{e} ({})", e.remediation()) })?;
    let fields = contract_differences(&record.manifest.comparison_contract, contract);
    if !fields.is_empty() {
        return Err(CaseFailure {
            code: "stale_golden".into(),
            message: format!(
                "the golden {} was recorded under another comparison contract; differing fields: {}; record the goldens again",
                path.display(),
                fields.join(", ")
            ),
        });
    }
    Ok((envelope, record))
}
