//! Errors the binary itself raises, and the error-document projection.

use std::path::PathBuf;
use std::process::ExitCode;

use rea_engine::{Category, ErrorDocument, UserError};
use serde_json::{Value, json};

use crate::Outcome;
use crate::output::Format;

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
        }
    }
    fn remediation(&self) -> String {
        match self {
            CliError::Usage { .. } => "Run `rea --help`, correct the arguments, then try again.".into(),
            CliError::CurrentDirectory { .. } => "Run rea from an existing, readable directory.".into(),
            CliError::StdoutIsInput { .. } => {
                "Restore the scenario file (for example from version control), then redirect the capture to a different file: `rea capture-process scenario.json --json > capture.json`.".into()
            }
        }
    }
    fn details(&self) -> Option<Value> {
        match self {
            CliError::Usage { .. } | CliError::CurrentDirectory { .. } => None,
            CliError::StdoutIsInput { path } => Some(json!({ "file": path.display().to_string() })),
        }
    }
}

/// The outcome of a failed command.
pub(crate) fn failure(err: &dyn UserError) -> Outcome {
    let document = serde_json::to_value(ErrorDocument::from_error(err)).unwrap_or(Value::Null);
    Outcome { document, success: false }
}

/// Handles a clap error: help and version print normally; anything else
/// becomes an error document.
pub(crate) fn usage(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(err.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let json = std::env::args().any(|a| a == "--json");
    let message = err.render().to_string();
    let message = message.trim().trim_start_matches("error: ").replace('\n', " ").replace("  ", " ");
    let outcome = failure(&CliError::Usage { message });
    crate::emit(&outcome, Format::from_flag(json))
}
