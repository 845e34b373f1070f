//! `rea capture-process SCENARIO`.

use std::io::Write;
use std::sync::Arc;

use rea_engine::capture::progress::{ProgressLine, ProgressSink};
use rea_engine::capture::{CaptureError, CaptureRequest, capture};
use rea_engine::host::CaptureSupport;
use rea_engine::scenario::{Resolver, load_scenario};

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
    if let CaptureSupport::Unavailable { reason } = host.capture {
        return failure(&CaptureError::Unsupported { reason });
    }
    let invocation_dir = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return failure(&CliError::CurrentDirectory { source: e }),
    };
    let host_environment: Vec<_> = std::env::vars_os().collect();
    let pty = Arc::clone(&host.pty);
    let is_executable = move |p: &std::path::Path| pty.is_executable(p);
    let resolver = Resolver {
        invocation_dir: &invocation_dir,
        host_environment: &host_environment,
        is_executable: &is_executable,
    };
    let resolved = match resolver.resolve(scenario) {
        Ok(r) => r,
        Err(e) => return failure(&e),
    };
    let request = CaptureRequest { resolved, host_environment, build: crate::BUILD };
    match capture(&host, request, Arc::new(StderrProgress)) {
        Ok(evidence) => Outcome { document: serde_json::to_value(evidence).unwrap_or_default(), success: true },
        Err(mut e) => {
            // A failed cleanup is retried once before the error is printed.
            e.retry_cleanup(&host);
            failure(&e)
        }
    }
}
