//! Printing documents: TOON by default, pretty JSON with `--json`.

use std::io::Write;
use std::process::ExitCode;

use serde_json::Value;

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Toon,
    Json,
}

impl Format {
    pub(crate) fn from_flag(json: bool) -> Format {
        if json { Format::Json } else { Format::Toon }
    }
}

/// Why a document could not be printed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OutputError {
    /// Writing to stdout failed (a closed pipe, a full disk).
    #[error("{0}")]
    Write(#[from] std::io::Error),
    /// The document could not be encoded (a bug in rea).
    #[error("{0}")]
    Encode(rea_engine::evidence::ToonEncodeError),
}

impl From<rea_engine::evidence::ToonEncodeError> for OutputError {
    fn from(e: rea_engine::evidence::ToonEncodeError) -> OutputError {
        match e {
            rea_engine::evidence::ToonEncodeError::Io(e) => OutputError::Write(e),
            e => OutputError::Encode(e),
        }
    }
}

/// Renders `doc` as text ending in a newline.
pub(crate) fn render(doc: &Value, format: Format) -> Result<String, OutputError> {
    let mut text = match format {
        Format::Json => serde_json::to_string_pretty(doc).map_err(|e| OutputError::Write(e.into()))?,
        Format::Toon => rea_engine::evidence::to_toon_string(doc)?,
    };
    text.push('\n');
    Ok(text)
}

/// Writes `doc` to stdout as it is encoded, with no second copy of the
/// document. Any failure, a reader that closed the pipe early (`| head`)
/// included, means the document is lost: see [`failed`].
pub(crate) fn print(doc: &Value, format: Format) -> Result<(), OutputError> {
    let out = std::io::stdout().lock();
    match format {
        Format::Json => Ok(write_json(doc, out)?),
        Format::Toon => Ok(rea_engine::evidence::write_toon_document(doc, out)?),
    }
}

/// Reports on stderr why `what` (\"the document\", ...) could not be printed
/// to stdout: a write failure (see [`lost`]), or an encoding failure, as an
/// `internal_error` document. Either way it is lost: exit status 4.
pub(crate) fn failed(what: &str, error: &OutputError) -> ExitCode {
    match error {
        OutputError::Write(e) => lost(what, e),
        OutputError::Encode(e) => {
            eprintln!("rea: could not encode {what} as TOON, so it is lost: what was written of it is incomplete.");
            let _ = write_json(&crate::errors::failure(e).document, std::io::stderr().lock());
            ExitCode::from(crate::exit::OUTPUT_FAILED)
        }
    }
}

/// Says on stderr that what was being written to stdout (`what`: "the
/// document", "the view", ...) is lost, and why; exit status 4.
pub(crate) fn lost(what: &str, error: &std::io::Error) -> ExitCode {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        eprintln!(
            "rea: stdout was closed by its reader before {what} was complete (broken pipe): {what} is lost. Let the reader take the whole output, or redirect it to a file."
        );
    } else {
        eprintln!("rea: could not write {what} to stdout ({error}): {what} is lost.");
    }
    ExitCode::from(crate::exit::OUTPUT_FAILED)
}

/// Says on stderr that stdout was closed when `rea` started, so nothing was
/// run; exit status 4.
pub(crate) fn stdout_closed() -> ExitCode {
    eprintln!(
        "rea: stdout is closed (descriptor 1 was not open when rea started), so no output could be written; nothing was run. Start rea with stdout open: redirect it to a file (`> out.json`), or to /dev/null to discard it."
    );
    ExitCode::from(crate::exit::OUTPUT_FAILED)
}

/// Streams pretty JSON and a final newline to `out`.
fn write_json(doc: &Value, out: impl Write) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    serde_json::to_writer_pretty(&mut out, doc).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Sealed Evidence whose record stays typed: a capture or a comparison.
pub(crate) trait Sealed {
    /// Writes the Evidence as pretty JSON, serializing the record as it goes.
    fn write_json(&self, out: std::io::StdoutLock<'static>) -> std::io::Result<()>;
    /// Writes the Evidence as TOON, serializing the record as it goes.
    fn write_toon(&self, out: std::io::StdoutLock<'static>) -> Result<(), rea_engine::evidence::ToonEncodeError>;
}

impl Sealed for rea_engine::evidence::SealedCapture {
    fn write_json(&self, out: std::io::StdoutLock<'static>) -> std::io::Result<()> {
        rea_engine::evidence::SealedCapture::write_json(self, out)
    }
    fn write_toon(&self, out: std::io::StdoutLock<'static>) -> Result<(), rea_engine::evidence::ToonEncodeError> {
        rea_engine::evidence::SealedCapture::write_toon(self, out)
    }
}

impl Sealed for rea_engine::compare::SealedComparison {
    fn write_json(&self, out: std::io::StdoutLock<'static>) -> std::io::Result<()> {
        rea_engine::compare::SealedComparison::write_json(self, out)
    }
    fn write_toon(&self, out: std::io::StdoutLock<'static>) -> Result<(), rea_engine::evidence::ToonEncodeError> {
        rea_engine::compare::SealedComparison::write_toon(self, out)
    }
}

impl Sealed for rea_engine::suite::SealedSuite {
    fn write_json(&self, out: std::io::StdoutLock<'static>) -> std::io::Result<()> {
        rea_engine::suite::SealedSuite::write_json(self, out)
    }
    fn write_toon(&self, out: std::io::StdoutLock<'static>) -> Result<(), rea_engine::evidence::ToonEncodeError> {
        rea_engine::suite::SealedSuite::write_toon(self, out)
    }
}

/// Writes sealed Evidence to stdout straight from the typed record, in
/// either format: no value tree, no whole text.
pub(crate) fn print_sealed(sealed: &impl Sealed, format: Format) -> Result<(), OutputError> {
    match format {
        Format::Json => Ok(sealed.write_json(std::io::stdout().lock())?),
        Format::Toon => Ok(sealed.write_toon(std::io::stdout().lock())?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_json_is_the_rendered_json() {
        let doc = serde_json::json!({"b": [1, {"c": "d\u{1b}"}], "a": null});
        let mut streamed = Vec::new();
        write_json(&doc, &mut streamed).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), render(&doc, Format::Json).unwrap());
    }

    #[test]
    fn rendered_toon_is_the_reference_toon() {
        let doc = serde_json::json!({"b": [1, {"c": "d\u{1b}"}], "a": null, "t": [{"x": 1}, {"x": 2}]});
        let expected = toon_format::encode_default(&doc).unwrap() + "\n";
        assert_eq!(render(&doc, Format::Toon).unwrap(), expected);
    }
}
