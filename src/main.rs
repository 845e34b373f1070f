//! `rea`: run one command under a pseudo-terminal as a scenario says, record
//! bounded evidence, and compare two records.
//!
//! The binary is a thin adapter: it parses arguments, reads files, picks the
//! host backend (in `host.rs`, the only OS switch), calls the engine, and
//! prints one document on stdout.

mod cli;
mod cmd;
mod errors;
mod exit;
mod host;
mod output;
mod view;

use std::process::ExitCode;

use clap::Parser;
use serde_json::Value;

use crate::output::Format;

/// `rea --version` text: version, git revision and target.
pub(crate) const VERSION_TEXT: &str = env!("REA_VERSION_TEXT");

/// Build identity handed to the engine.
pub(crate) const BUILD: rea_engine::BuildInfo = rea_engine::BuildInfo {
    version: env!("CARGO_PKG_VERSION"),
    revision: option_env!("REA_GIT_REVISION"),
    target: env!("REA_TARGET"),
};

/// What a command produced: a document and whether it is a success.
pub(crate) struct Outcome {
    pub(crate) document: Value,
    pub(crate) success: bool,
}

fn main() -> ExitCode {
    if let Some(status) = host::keeper() {
        return status;
    }
    // Before anything else: once stdout is gone, every output is lost.
    if host::stdout_closed_at_start() {
        return output::stdout_closed();
    }
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage(err),
    };
    // Settings read once at start-up: an invalid one stops the commands that
    // may capture before anything runs (comparison and the views need none).
    if let (
        cli::Command::CaptureProcess(_)
        | cli::Command::RunSuite(_)
        | cli::Command::RecordScenario(_)
        | cli::Command::Mcp,
        Err(message),
    ) = (&cli.command, host::validate_startup_settings())
    {
        let json = match &cli.command {
            cli::Command::CaptureProcess(a) => a.format.json,
            cli::Command::RunSuite(a) => a.format.json,
            _ => false,
        };
        return emit(&errors::failure(&errors::CliError::StartupSetting { message }), Format::from_flag(json));
    }
    let (outcome, format) = match cli.command {
        cli::Command::CaptureProcess(args) => {
            let format = Format::from_flag(args.format.json);
            return cmd::capture_process::emit(cmd::capture_process::run(args), format);
        }
        cli::Command::CompareProcessCaptures(args) => {
            let format = Format::from_flag(args.format.json);
            let exit_code = args.exit_code;
            return cmd::compare_process_captures::emit(cmd::compare_process_captures::run(args), format, exit_code);
        }
        cli::Command::RunSuite(args) => return cmd::run_suite::run(&args),
        cli::Command::RecordScenario(args) => return cmd::record_scenario::run(args),
        cli::Command::MergeSuiteResults(args) => return cmd::merge_suite_results::run(&args),
        cli::Command::Doctor(args) => (cmd::doctor::run(), Format::from_flag(args.format.json)),
        // Text (not document) commands print their own output.
        cli::Command::Show(args) => return cmd::show::run(&args),
        cli::Command::ExportAsciicast(args) => return cmd::export_asciicast::run(&args),
        cli::Command::Completions(args) => return cmd::completions::run(&args),
        cli::Command::Mcp => return rea_mcp::serve(host::host(), BUILD),
    };
    emit(&outcome, format)
}

/// Prints an outcome and maps it to the exit status.
pub(crate) fn emit(outcome: &Outcome, format: Format) -> ExitCode {
    if let Err(e) = output::print(&outcome.document, format) {
        return output::failed("the document", &e);
    }
    ExitCode::from(if outcome.success { exit::SUCCESS } else { exit::FAILURE })
}

/// Handles a clap error the way clap does: help and version on stdout with
/// status 0; anything else (including `rea` alone, which prints the help) on
/// stderr with a hint and status 2. With `--json` among the arguments the
/// error document also goes to stdout, for agents that parse it.
fn usage(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let _ = err.print();
    if matches!(err.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return ExitCode::SUCCESS;
    }
    if std::env::args().any(|a| a == "--json") {
        let message = err.render().to_string();
        let message = message.trim().trim_start_matches("error: ").replace('\n', " ").replace("  ", " ");
        let outcome = errors::failure(&errors::CliError::Usage { message });
        let _ = output::print(&outcome.document, Format::Json);
    }
    ExitCode::from(crate::exit::USAGE)
}
