//! `rea compare-process-captures LEFT RIGHT [TRACE]`.

use std::path::Path;
use std::process::ExitCode;

use rea_engine::UserError;
use rea_engine::compare::{CompareOptions, Side, TraceSpec, compare_with, parse_trace_spec};
use rea_engine::evidence::{CaptureRecord, Evidence, import_capture_record};
use rea_engine::input::{InputError, parse_json_bytes, read_capped, read_json_file};

use crate::cli::CompareArgs;
use crate::errors::{CliError, failure};
use crate::output::Format;
use crate::{Outcome, exit};

type Loaded = Result<(Evidence, CaptureRecord), Box<dyn UserError + Send>>;

/// Reads and imports one capture. The comparison needs only the envelope's
/// identity and locations beside the typed record, so the JSON tree of the
/// record is released at once.
fn load(path: &Path) -> Loaded {
    let bytes =
        read_capped("capture", path, crate::host::open_input).map_err(|e| Box::new(e) as Box<dyn UserError + Send>)?;
    let value = match parse_json_bytes("capture", path, &bytes) {
        Ok(value) => value,
        // rea's default output is TOON: say exactly what to do with it.
        Err(InputError::InvalidJson { .. }) if crate::document::decode_toon_evidence(&bytes).is_some() => {
            return Err(Box::new(CliError::ToonCapture { path: path.to_owned() }));
        }
        Err(e) => return Err(Box::new(e)),
    };
    drop(bytes);
    // The record takes the tree's strings; the envelope keeps no copy.
    import_capture_record(&path.display().to_string(), value).map_err(|e| Box::new(e) as Box<dyn UserError + Send>)
}

/// Loads both sides at once, one on another thread.
fn load_both(left: &Path, right: &Path) -> (Loaded, Loaded) {
    std::thread::scope(|scope| {
        let other = scope.spawn(|| load(right));
        let l = load(left);
        (l, other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

fn load_trace(path: &Path) -> Result<TraceSpec, Box<dyn UserError>> {
    let value = read_json_file("trace specification", path, crate::host::open_input)
        .map_err(|e| Box::new(e) as Box<dyn UserError>)?;
    parse_trace_spec(value).map_err(|mut e| {
        e.file = Some(path.to_owned());
        Box::new(e) as Box<dyn UserError>
    })
}

pub(crate) fn run(args: CompareArgs) -> Outcome {
    let (left, right) = match load_both(&args.left, &args.right) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => return failure(e.as_ref()),
    };
    let trace = match args.trace.as_deref().map(load_trace).transpose() {
        Ok(t) => t,
        Err(e) => return failure(e.as_ref()),
    };
    let (l, r) = (Side { evidence: &left.0, record: &left.1 }, Side { evidence: &right.0, record: &right.1 });
    let options = CompareOptions { timing_tolerance_ms: args.timing_tolerance_ms };
    match compare_with(l, r, trace.as_ref(), options) {
        Ok(evidence) => Outcome { document: serde_json::to_value(evidence).unwrap_or_default(), success: true },
        Err(e) => failure(&e),
    }
}

/// Whether a comparison document reports an observed difference.
fn observed_difference(outcome: &Outcome) -> bool {
    outcome.success && outcome.document["normalized_result"]["status"] == "changed"
}

/// Prints the outcome; with `--exit-code`, a successful comparison that
/// observed a difference exits 3.
pub(crate) fn emit(outcome: &Outcome, format: Format, exit_code: bool) -> ExitCode {
    let status = crate::emit(outcome, format);
    if exit_code && observed_difference(outcome) && status == ExitCode::from(exit::SUCCESS) {
        ExitCode::from(exit::DIFFERENCE)
    } else {
        status
    }
}
