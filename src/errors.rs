//! Errors the binary itself raises, and the error-document projection.

use std::path::PathBuf;

use rea_engine::{Category, ErrorDocument, UserError};
use serde_json::{Value, json};

use crate::Outcome;

/// Failures detected by the CLI layer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// The arguments do not parse.
    #[error("{message}")]
    Usage { message: String },
    /// The current directory cannot be read.
    #[error("the current directory cannot be read: {source}")]
    CurrentDirectory { source: std::io::Error },
    /// Stdout is the scenario file, already emptied by the shell.
    #[error(
        "stdout is the scenario file {path} itself: the shell emptied it when it opened the redirect, before rea started, so its content is lost"
    )]
    StdoutIsInput { path: PathBuf },
    /// A setting read once at start-up is invalid (the macOS helper's
    /// `REA_DARWIN_*`, `SDKROOT`, `REA_SWIFTC_COMPILE_TIMEOUT_MS`).
    #[error("invalid start-up setting: {message}")]
    StartupSetting { message: String },
    /// A file rea is asked to write cannot be written there.
    #[error("{} cannot be written: {why}", .path.display())]
    Unwritable { path: PathBuf, why: &'static str },
    /// Writing a file failed.
    #[error("{} could not be written: {source}", .path.display())]
    Write { path: PathBuf, source: std::io::Error },
    /// `rea record-scenario` could not record.
    #[error("the recording failed: {message}")]
    Recording { message: String },
    /// `rea export-asciicast` was given a comparison.
    #[error("{path} is comparison Evidence; only a capture holds a terminal recording to export")]
    NotACapture { path: PathBuf },
}

impl UserError for CliError {
    fn category(&self) -> Category {
        Category::InvalidInput
    }
    fn code(&self) -> &'static str {
        match self {
            CliError::Usage { .. } => "invalid_arguments",
            CliError::CurrentDirectory { .. } => "current_directory_unreadable",
            CliError::StdoutIsInput { .. } => "output_is_input",
            CliError::NotACapture { .. } => "not_a_capture",
            CliError::StartupSetting { .. } => "invalid_configuration",
            CliError::Unwritable { .. } => "output_unwritable",
            CliError::Write { .. } => "write_failed",
            CliError::Recording { .. } => "recording_failed",
        }
    }
    fn remediation(&self) -> String {
        match self {
            CliError::Usage { .. } => "Run `rea --help`, correct the arguments, then try again.".into(),
            CliError::CurrentDirectory { .. } => "Run rea from an existing, readable directory.".into(),
            CliError::StdoutIsInput { .. } => {
                "Restore the scenario file (for example from version control), then redirect the capture to a different file: `rea capture-process scenario.json --json > capture.json`.".into()
            }
            CliError::NotACapture { path } => format!(
                "Export one of the captures it compares instead; `rea show {}` shows the comparison.",
                path.display()
            ),
            CliError::StartupSetting { .. } => {
                "Correct or unset the named environment variable, then start rea again (it reads these settings once, at start-up).".into()
            }
            CliError::Unwritable { .. } => "Name a file in an existing directory, then run again. Nothing was run.".into(),
            CliError::Write { .. } => "Free space or fix the permissions, then run again.".into(),
            CliError::Recording { .. } => {
                "Run `rea record-scenario` from an interactive terminal (or with --size), then try again; nothing was written.".into()
            }
        }
    }
    fn details(&self) -> Option<Value> {
        match self {
            CliError::Usage { .. }
            | CliError::CurrentDirectory { .. }
            | CliError::StartupSetting { .. }
            | CliError::Recording { .. } => None,
            CliError::StdoutIsInput { path }
            | CliError::NotACapture { path }
            | CliError::Unwritable { path, .. }
            | CliError::Write { path, .. } => Some(json!({ "file": path.display().to_string() })),
        }
    }
}

/// The outcome of a failed command.
pub(crate) fn failure(err: &dyn UserError) -> Outcome {
    let document = serde_json::to_value(ErrorDocument::from_error(err)).unwrap_or_else(|e| unserializable(err, &e));
    Outcome { document, success: false }
}

/// The error document when `err`'s own document cannot be serialized: an
/// `internal_error` that names the lost code, never `null`.
fn unserializable(err: &dyn UserError, source: &serde_json::Error) -> Value {
    json!({
        "error": "Process command failed",
        "code": "internal_error",
        "category": "execution_failure",
        "message": format!("rea could not serialize the error document of a `{}` error: {source}; the error was: {err}", err.code()),
        "retryable": false,
        "remediation": { "action": "Report this as a bug in rea, with the command that failed." },
    })
}
