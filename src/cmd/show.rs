//! `rea show FILE`.

use std::io::IsTerminal;
use std::process::ExitCode;

use crate::cli::ShowArgs;
use crate::document::load;
use crate::view::{Style, render};

pub(crate) fn run(args: &ShowArgs) -> ExitCode {
    let loaded = match load(&args.file) {
        Ok(l) => l,
        Err(e) => return super::text::fail(e.as_ref()),
    };
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let text = render(&loaded, Style::new(colour), args.screens);
    super::text::write_stdout("the view", text.as_bytes())
}
