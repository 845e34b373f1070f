//! `rea show FILE`.

use std::io::IsTerminal;
use std::process::ExitCode;

use rea_engine::report::{DocumentError, load_document};
use rea_engine::suite::{SUITE_PREDICATE, read_suite_document};

use crate::cli::ShowArgs;
use crate::view::{Style, render};

pub(crate) fn run(args: &ShowArgs) -> ExitCode {
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let document = match load_document(&args.file, crate::host::open_input) {
        Ok(d) => d,
        Err(DocumentError::NotViewable { found, .. }) if found.contains(SUITE_PREDICATE) => return suite(args, colour),
        Err(e) => return super::text::fail(&e),
    };
    let view = if args.html {
        crate::view::html::render(&document)
    } else {
        render(&document, Style::new(colour), args.screens)
    };
    match view {
        Ok(text) => super::text::write_stdout("the view", text.as_bytes()),
        Err(e) => super::text::fail(&e),
    }
}

/// A suite record: its own loader and view.
fn suite(args: &ShowArgs, colour: bool) -> ExitCode {
    match read_suite_document(&args.file, crate::host::open_input) {
        Ok(document) => {
            let name = args.file.display().to_string();
            let text = if args.html {
                crate::view::html::suite(&document, &name)
            } else {
                crate::view::suite::render(&document, &name, Style::new(colour))
            };
            super::text::write_stdout("the view", text.as_bytes())
        }
        Err(e) => super::text::fail(&e),
    }
}
