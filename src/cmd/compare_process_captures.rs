//! `rea compare-process-captures LEFT RIGHT [TRACE]`.

use std::path::Path;
use std::process::ExitCode;

use rea_engine::UserError;
use rea_engine::compare::{CompareOptions, SealedComparison, Side, TraceSpec, compare_with, parse_trace_spec};
use rea_engine::evidence::{CaptureRecord, Evidence, LoadError, load_capture};
use rea_engine::input::read_json_file;

use crate::cli::CompareArgs;
use crate::errors::failure;
use crate::output::Format;
use crate::{Outcome, exit};

type Loaded = Result<(Evidence, CaptureRecord), LoadError>;

/// Reads and imports one capture (the engine's one capture loader).
fn load(path: &Path) -> Loaded {
    load_capture(path, crate::host::open_input)
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

pub(crate) fn run(args: CompareArgs) -> Result<SealedComparison, Outcome> {
    let (left, right) = match load_both(&args.left, &args.right) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => return Err(failure(&e)),
    };
    let trace = args.trace.as_deref().map(load_trace).transpose().map_err(|e| failure(e.as_ref()))?;
    let (l, r) = (Side { evidence: &left.0, record: &left.1 }, Side { evidence: &right.0, record: &right.1 });
    let options = CompareOptions { timing_tolerance_ms: args.timing_tolerance_ms, terminal_lens: args.terminal_lens };
    let compared = compare_with(l, r, trace.as_ref(), options).map_err(|e| failure(&e));
    // The process ends once the comparison is printed, and the system takes
    // back its memory whole: freeing two records of tens of thousands of
    // strings one by one first would only cost time (a few percent of a
    // large comparison).
    std::mem::forget((left, right));
    compared
}

/// Prints the comparison (written from the typed record, in either format)
/// or the failure; with `--exit-code`, a comparison that observed
/// a difference exits 3.
pub(crate) fn emit(result: Result<SealedComparison, Outcome>, format: Format, exit_code: bool) -> ExitCode {
    let sealed = match result {
        Ok(sealed) => sealed,
        Err(outcome) => return crate::emit(&outcome, format),
    };
    let difference = sealed.record().observed_difference();
    let written = crate::output::print_sealed(&sealed, format);
    match written {
        Err(e) => crate::output::failed("the document", &e),
        Ok(()) if exit_code && difference => ExitCode::from(exit::DIFFERENCE),
        Ok(()) => ExitCode::from(exit::SUCCESS),
    }
}
