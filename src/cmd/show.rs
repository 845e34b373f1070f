//! `rea show FILE`.

use std::io::IsTerminal;
use std::process::ExitCode;

use rea_engine::report::load_document;

use crate::cli::ShowArgs;
use crate::view::{Style, render};

pub(crate) fn run(args: &ShowArgs) -> ExitCode {
    let document = match load_document(&args.file, crate::host::open_input) {
        Ok(d) => d,
        Err(e) => return super::text::fail(&e),
    };
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    match render(&document, Style::new(colour), args.screens) {
        Ok(text) => super::text::write_stdout("the view", text.as_bytes()),
        Err(e) => super::text::fail(&e),
    }
}
