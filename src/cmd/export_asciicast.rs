//! `rea export-asciicast CAPTURE`.

use std::process::ExitCode;

use rea_engine::report::export;
use rea_engine::report::{Contents, load_document};

use crate::cli::ExportAsciicastArgs;
use crate::errors::CliError;

pub(crate) fn run(args: &ExportAsciicastArgs) -> ExitCode {
    let document = match load_document(&args.capture, crate::host::open_input) {
        Ok(d) => d,
        Err(e) => return super::text::fail(&e),
    };
    let Contents::Capture(record) = &document.contents else {
        return super::text::fail(&CliError::NotACapture { path: args.capture.clone() });
    };
    match export(&document.source_name, record) {
        Ok(cast) => super::text::write_stdout("the recording", cast.as_bytes()),
        Err(e) => super::text::fail(&e),
    }
}
