//! `rea completions SHELL`.

use std::process::ExitCode;

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

pub(crate) fn run(args: &CompletionsArgs) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "rea", &mut script);
    super::text::write_stdout("the completion script", &script)
}
