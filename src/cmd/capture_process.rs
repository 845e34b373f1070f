//! `rea capture-process SCENARIO`.

use std::io::Write;
use std::sync::Arc;

use rea_engine::capture::progress::{ProgressLine, ProgressSink};
use rea_engine::capture::{Cancellation, capture_with_cleanup_retry, prepare};
use rea_engine::scenario::load_scenario;

use std::process::ExitCode;

use rea_engine::evidence::SealedCapture;

use crate::Outcome;
use crate::cli::CaptureProcessArgs;
use crate::errors::{CliError, failure};
use crate::output::Format;

/// Whether stdout is the file at `path` (same device and inode). The file
/// is opened as every input is, so a FIFO cannot block here either.
fn stdout_is(path: &std::path::Path) -> bool {
    use rea_engine::input::OpenedInput;
    let (Ok(OpenedInput::Regular(file)) | Ok(OpenedInput::Mapped(file, _))) = crate::host::open_input(path) else {
        return false;
    };
    match (same_file::Handle::stdout(), same_file::Handle::from_file(file)) {
        (Ok(out), Ok(file)) => out == file,
        _ => false,
    }
}

/// Writes progress lines to stderr; a closed stderr is ignored.
struct StderrProgress;

impl ProgressSink for StderrProgress {
    fn write(&self, line: &ProgressLine) {
        let mut err = std::io::stderr().lock();
        let _ = match line.to_json() {
            Ok(json) => writeln!(err, "{json}"),
            Err(e) => writeln!(err, "rea: progress line {} could not be written as JSON: {e}", line.sequence),
        };
    }
}

/// Runs the capture: the sealed capture, or the failure to print.
pub(crate) fn run(args: CaptureProcessArgs) -> Result<SealedCapture, Outcome> {
    if stdout_is(&args.scenario) {
        return Err(failure(&CliError::StdoutIsInput { path: args.scenario }));
    }
    let scenario = load_scenario(&args.scenario, crate::host::open_input).map_err(|e| failure(&e))?;
    let host = crate::host::host();
    let invocation_dir = std::env::current_dir().map_err(|e| failure(&CliError::CurrentDirectory { source: e }))?;
    let request = prepare(&host, scenario, &invocation_dir, std::env::vars_os().collect(), crate::BUILD)
        .map_err(|e| failure(&e))?;
    // A failed cleanup is retried (the engine's policy) before the error is printed.
    capture_with_cleanup_retry(&host, request, Cancellation::on_host_signals(), Arc::new(StderrProgress))
        .map_err(|e| failure(&e))
}

/// Prints the capture (written as the record is serialized, in either
/// format, with no value tree) or the failure, and maps it to the exit
/// status.
pub(crate) fn emit(result: Result<SealedCapture, Outcome>, format: Format) -> ExitCode {
    let sealed = match result {
        Ok(sealed) => sealed,
        Err(outcome) => return crate::emit(&outcome, format),
    };
    let written = crate::output::print_sealed(&sealed, format);
    match written {
        Ok(()) => ExitCode::from(crate::exit::SUCCESS),
        Err(e) => crate::output::failed("the document", &e),
    }
}
