//! `rea export-asciicast CAPTURE`.

use std::process::ExitCode;

use crate::cli::ExportAsciicastArgs;
use crate::document::{Kind, load};
use crate::errors::CliError;

pub(crate) fn run(args: &ExportAsciicastArgs) -> ExitCode {
    let loaded = match load(&args.capture) {
        Ok(l) => l,
        Err(e) => return super::text::fail(e.as_ref()),
    };
    if loaded.kind != Kind::Capture {
        return super::text::fail(&CliError::NotACapture { path: args.capture.clone() });
    }
    let cast = crate::asciicast::export(&loaded.value["normalized_result"]);
    super::text::write_stdout("the recording", cast.as_bytes())
}
