//! `rea capture-process SCENARIO`.

use rea_engine::host::{CaptureSupport, HostError};
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

pub(crate) fn run(args: CaptureProcessArgs) -> Outcome {
    if stdout_is(&args.scenario) {
        return failure(&CliError::StdoutIsInput { path: args.scenario });
    }
    let _scenario = match load_scenario(&args.scenario) {
        Ok(s) => s,
        Err(e) => return failure(&e),
    };
    let host = crate::host::host();
    match host.capture {
        CaptureSupport::Unavailable { reason } => {
            failure(&HostError::Unsupported { capability: "process capture", reason })
        }
        CaptureSupport::Available => failure(&HostError::Unsupported {
            capability: "process capture",
            reason: "capture is not wired into this build yet",
        }),
    }
}
