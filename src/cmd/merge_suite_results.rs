//! `rea merge-suite-results DIR... --out DIR`.

use std::process::ExitCode;

use crate::cli::MergeSuiteResultsArgs;
use crate::errors::failure;
use crate::output::Format;

pub(crate) fn run(args: &MergeSuiteResultsArgs) -> ExitCode {
    let merged = rea_engine::suite::merge(&args.dirs, &args.out, crate::host::open_input).map_err(|e| failure(&e));
    super::run_suite::emit(merged, Format::from_flag(args.format.json))
}
