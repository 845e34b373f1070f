//! Why a suite could not run (or merge), as the user reads it; a case's own
//! failure is not here but in its result (`verdict: error`).

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::capture::CancelCause;
use crate::error::{Category, UserError};
use crate::input::InputError;

/// One broken rule of a suite, with where it lies: a JSON path of the suite
/// file, or of a case file (`file`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SuiteIssue {
    /// The case file (or fixture) the issue lies in; `None`: the suite file.
    pub file: Option<PathBuf>,
    /// JSON path in that file (`cases[3].scenario.timeout_ms`); empty: the whole document.
    pub path: String,
    /// The rule, in words a user can act on.
    pub rule: String,
}

impl std::fmt::Display for SuiteIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = crate::path::display(&self.path);
        match &self.file {
            Some(file) => write!(f, "{}: {path}: {}", file.display(), self.rule),
            None => write!(f, "{path}: {}", self.rule),
        }
    }
}

/// Why a suite run (or a merge) produced no suite record.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// The suite file could not be read as JSON.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The suite or a case breaks rules; nothing was launched or written.
    #[error("suite {} is invalid: {}", .file.as_ref().map_or("(inline)".into(), |f| f.display().to_string()), render(.issues))]
    Invalid {
        /// The suite file (`None`: a suite given inline).
        file: Option<PathBuf>,
        /// Every broken rule.
        issues: Vec<SuiteIssue>,
    },
    /// An option does not fit the suite (a `--case` glob that matches no case, ...).
    #[error("{option}: {message}")]
    Option {
        /// The option as the front end names it.
        option: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A directory the run needs cannot be used.
    #[error("{what} {} cannot be used: {reason}", .path.display())]
    Directory {
        /// `--out`, `--work-root`, `--goldens`, `--record-goldens`.
        what: &'static str,
        /// The directory.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Capture is unavailable on this host.
    #[error("process capture is unavailable on this host: {reason}")]
    Unsupported {
        /// Why.
        reason: &'static str,
    },
    /// The run was interrupted: finished cases are in the out directory, and
    /// no suite record was written.
    #[error(
        "the suite run was cancelled by {cause} after {} of {} case(s); the finished cases are in {} and no suite.json was written",
        .finished.len(), .finished.len() + .unfinished.len(), .out.display()
    )]
    Interrupted {
        /// What stopped it.
        cause: CancelCause,
        /// Cases whose documents are in the out directory.
        finished: Vec<String>,
        /// Cases that did not finish (their captures were cancelled and cleaned up).
        unfinished: Vec<String>,
        /// The out directory.
        out: PathBuf,
    },
    /// A document could not be written.
    #[error("{} could not be written: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The suite record could not be serialized (a bug in rea).
    #[error("the suite record could not be serialized: {0}")]
    Serialize(#[from] serde_json::Error),
}

fn render(issues: &[SuiteIssue]) -> String {
    issues.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

impl UserError for SuiteError {
    fn category(&self) -> Category {
        match self {
            SuiteError::Input(e) => e.category(),
            SuiteError::Invalid { .. } | SuiteError::Option { .. } | SuiteError::Directory { .. } => {
                Category::InvalidInput
            }
            SuiteError::Unsupported { .. } => Category::UnsupportedProvider,
            SuiteError::Interrupted { .. } => Category::Cancelled,
            SuiteError::Write { .. } | SuiteError::Serialize(_) => Category::ExecutionFailure,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            SuiteError::Input(e) => e.code(),
            SuiteError::Invalid { .. } => "invalid_suite",
            SuiteError::Option { .. } => "invalid_arguments",
            SuiteError::Directory { .. } => "directory_unusable",
            SuiteError::Unsupported { .. } => "capture_unavailable",
            SuiteError::Interrupted { .. } => "cancelled",
            SuiteError::Write { .. } => "write_failed",
            SuiteError::Serialize(_) => "internal_error",
        }
    }
    fn remediation(&self) -> String {
        match self {
            SuiteError::Input(e) => e.remediation(),
            SuiteError::Invalid { .. } => "Correct each listed path as its rule says, then run the suite again. Nothing was launched and nothing was written.".into(),
            SuiteError::Option { .. } => "Correct the option, then run the suite again. Nothing was launched.".into(),
            SuiteError::Directory { .. } => "Choose a directory rea may create and write (an --out directory must be new, empty, or an earlier suite output), then run again. Nothing was launched.".into(),
            SuiteError::Unsupported { .. } => "Run suites on a host that can capture (see `rea doctor`); comparison of saved captures works everywhere.".into(),
            SuiteError::Interrupted { .. } => "Run the suite again; `--case` runs only some cases.".into(),
            SuiteError::Write { .. } => "Free space or fix the permissions of the out directory, then run again.".into(),
            SuiteError::Serialize(_) => "Report this as a bug in rea.".into(),
        }
    }
    fn details(&self) -> Option<Value> {
        match self {
            SuiteError::Input(e) => e.details(),
            SuiteError::Invalid { file, issues } => Some(json!({
                "file": file.as_ref().map(|f| f.display().to_string()),
                "issues": issues,
            })),
            SuiteError::Option { option, .. } => Some(json!({ "option": option })),
            SuiteError::Directory { what, path, .. } => {
                Some(json!({ "option": what, "path": path.display().to_string() }))
            }
            SuiteError::Interrupted { cause, finished, unfinished, out } => Some(json!({
                "signal": cause.as_str(),
                "finished": finished,
                "unfinished": unfinished,
                "out": out.display().to_string(),
            })),
            SuiteError::Write { path, .. } => Some(json!({ "file": path.display().to_string() })),
            SuiteError::Unsupported { .. } | SuiteError::Serialize(_) => None,
        }
    }
}
