//! Output of the text commands (`show`, `export-asciicast`, `completions`):
//! their product goes to stdout, and an error goes to stderr as the error
//! document (TOON), so a redirected `.cast` or view file never holds one.

use std::io::Write;
use std::process::ExitCode;

use rea_engine::UserError;

use crate::exit;
use crate::output::{Format, render};

/// Writes `text` (`what` names it in an error) to stdout; any failure, a
/// reader that closed the pipe early included, loses it: exit status 4.
pub(crate) fn write_stdout(what: &str, text: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::from(exit::SUCCESS),
        Err(e) => crate::output::lost(what, &e),
    }
}

/// Prints the error document for `err` on stderr; exit status 1.
pub(crate) fn fail(err: &dyn UserError) -> ExitCode {
    let outcome = crate::errors::failure(err);
    match render(&outcome.document, Format::Toon) {
        Ok(text) => {
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
            ExitCode::from(exit::FAILURE)
        }
        // An error document is small and plain, so this is a bug in rea;
        // the report (on stderr) says so.
        Err(e) => crate::output::failed("the error document", &e),
    }
}
