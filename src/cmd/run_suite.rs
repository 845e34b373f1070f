//! `rea run-suite SUITE`: arguments in, the engine's plan and run, progress
//! on stderr, the suite record on stdout (and `--junit`).

use std::path::Path;
use std::process::ExitCode;

use rea_engine::capture::Cancellation;
use rea_engine::suite::{Goldens, SealedSuite, SuiteOptions, SuiteOutcome, SuiteSource, junit};

use super::suite_progress::Drawer;
use crate::cli::RunSuiteArgs;
use crate::errors::{CliError, failure};
use crate::output::Format;
use crate::{Outcome, exit};

fn options(args: &RunSuiteArgs) -> SuiteOptions {
    let goldens = match (&args.goldens, &args.record_goldens) {
        (Some(dir), _) => Some(Goldens::Check(dir.clone())),
        (None, Some(dir)) => Some(Goldens::Record(dir.clone())),
        (None, None) => None,
    };
    SuiteOptions {
        out: args.out.clone(),
        work_root: args.work_root.clone(),
        jobs: args.jobs.map(|j| j as usize),
        self_check: args.self_check,
        goldens,
        partition: args.partition,
        case_globs: args.cases.clone(),
        terminal_lens: args.terminal_lens,
    }
}

/// The JUnit file must be writable where it is named, before anything runs.
fn check_junit(path: &Path) -> Result<(), Outcome> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let problem = if path.is_dir() {
        Some("it is a directory")
    } else if !parent.is_dir() {
        Some("its directory does not exist")
    } else {
        None
    };
    match problem {
        Some(why) => Err(failure(&CliError::Unwritable { path: path.to_owned(), why })),
        None => Ok(()),
    }
}

/// Plans and runs the suite: the sealed record, or the failure to print.
fn run_suite(args: &RunSuiteArgs) -> Result<SealedSuite, Outcome> {
    if let Some(path) = &args.junit {
        check_junit(path)?;
    }
    let host = crate::host::host();
    let cwd = std::env::current_dir().map_err(|e| failure(&CliError::CurrentDirectory { source: e }))?;
    let source = SuiteSource::File(args.suite.clone());
    let plan = rea_engine::suite::plan(&host, source, options(args), &cwd, std::env::vars_os().collect())
        .map_err(|e| failure(&e))?;
    let mut drawer = Drawer::for_stderr();
    let result = rea_engine::suite::run(&host, &plan, crate::BUILD, Cancellation::on_host_signals(), &mut drawer);
    drawer.finish(result.as_ref().ok().map(SealedSuite::record));
    let sealed = result.map_err(|e| failure(&e))?;
    if let Some(path) = &args.junit {
        std::fs::File::create(path)
            .and_then(|file| junit::write_junit(sealed.record(), file))
            .map_err(|e| failure(&CliError::Write { path: path.clone(), source: e }))?;
    }
    Ok(sealed)
}

/// Runs the command and maps its outcome to the exit status.
pub(crate) fn run(args: &RunSuiteArgs) -> ExitCode {
    let format = Format::from_flag(args.format.json);
    emit(run_suite(args), format)
}

/// Prints the suite record (or the failure) and maps the verdicts to the
/// exit status: 0 passed, 3 a case changed, 1 a case failed.
pub(crate) fn emit(result: Result<SealedSuite, Outcome>, format: Format) -> ExitCode {
    let sealed = match result {
        Ok(sealed) => sealed,
        Err(outcome) => return crate::emit(&outcome, format),
    };
    let outcome = sealed.record().outcome();
    match crate::output::print_sealed(&sealed, format) {
        Err(e) => crate::output::failed("the document", &e),
        Ok(()) => ExitCode::from(match outcome {
            SuiteOutcome::Passed => exit::SUCCESS,
            SuiteOutcome::Changed => exit::DIFFERENCE,
            SuiteOutcome::Failed => exit::FAILURE,
        }),
    }
}
