//! `rea capture-process SCENARIO`.

use std::io::Write;
use std::sync::Arc;

use rea_engine::capture::progress::{ProgressLine, ProgressSink};
use rea_engine::capture::{capture_with_cleanup_retry, prepare};
use rea_engine::scenario::load_scenario;

use crate::Outcome;
use crate::cli::CaptureProcessArgs;
use crate::errors::{CliError, failure};

/// Whether stdout is the file at `path` (same device and inode).
fn stdout_is(path: &std::path::Path) -> bool {
    match (same_file::Handle::stdout(), same_file::Handle::from_path(path)) {
        (Ok(out), Ok(file)) => out == file,
        _ => false,
    }
}

/// Writes progress lines to stderr; a closed stderr is ignored.
struct StderrProgress;

impl ProgressSink for StderrProgress {
    fn write(&self, line: &ProgressLine) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", line.to_json());
    }
}

pub(crate) fn run(args: CaptureProcessArgs) -> Outcome {
    if stdout_is(&args.scenario) {
        return failure(&CliError::StdoutIsInput { path: args.scenario });
    }
    let scenario = match load_scenario(&args.scenario) {
        Ok(s) => s,
        Err(e) => return failure(&e),
    };
    let host = crate::host::host();
    let invocation_dir = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return failure(&CliError::CurrentDirectory { source: e }),
    };
    let request = match prepare(&host, scenario, &invocation_dir, std::env::vars_os().collect(), crate::BUILD) {
        Ok(r) => r,
        Err(e) => return failure(&e),
    };
    // A failed cleanup is retried (the engine's policy) before the error is printed.
    match capture_with_cleanup_retry(&host, request, Arc::new(StderrProgress)) {
        Ok(evidence) => Outcome { document: serde_json::to_value(evidence).unwrap_or_default(), success: true },
        Err(e) => failure(&e),
    }
}
