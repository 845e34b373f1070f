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

/// Renders `doc` as text ending in a newline.
pub(crate) fn render(doc: &Value, format: Format) -> String {
    let mut text = match format {
        Format::Json => serde_json::to_string_pretty(doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")),
        Format::Toon => toon_format::encode_default(doc).unwrap_or_else(|e| {
            // TOON cannot fail on a JSON value; fall back to JSON rather than lose the document.
            format!(
                "# TOON encoding failed ({e}); JSON follows\n{}",
                serde_json::to_string_pretty(doc).unwrap_or_default()
            )
        }),
    };
    text.push('\n');
    text
}

/// Writes `doc` to stdout. JSON is written as it is serialized, so no
/// second copy of the document is built; TOON needs its whole text first.
/// Any failure, a reader that closed the pipe early (`| head`) included,
/// means the document is lost: see [`lost`].
pub(crate) fn print(doc: &Value, format: Format) -> std::io::Result<()> {
    let out = std::io::stdout().lock();
    match format {
        Format::Json => write_json(doc, out),
        Format::Toon => {
            let text = render(doc, format);
            let mut out = out;
            out.write_all(text.as_bytes()).and_then(|()| out.flush())
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
    /// The Evidence with its record as a tree (what TOON needs).
    fn into_evidence(self) -> std::io::Result<rea_engine::evidence::Evidence>;
}

impl Sealed for rea_engine::evidence::SealedCapture {
    fn write_json(&self, out: std::io::StdoutLock<'static>) -> std::io::Result<()> {
        rea_engine::evidence::SealedCapture::write_json(self, out)
    }
    fn into_evidence(self) -> std::io::Result<rea_engine::evidence::Evidence> {
        rea_engine::evidence::SealedCapture::into_evidence(self).map_err(std::io::Error::other)
    }
}

impl Sealed for rea_engine::compare::SealedComparison {
    fn write_json(&self, out: std::io::StdoutLock<'static>) -> std::io::Result<()> {
        rea_engine::compare::SealedComparison::write_json(self, out)
    }
    fn into_evidence(self) -> std::io::Result<rea_engine::evidence::Evidence> {
        rea_engine::compare::SealedComparison::into_evidence(self).map_err(std::io::Error::other)
    }
}

/// Writes sealed Evidence to stdout: JSON straight from the typed record,
/// TOON from the tree it needs.
pub(crate) fn print_sealed(sealed: impl Sealed, format: Format) -> std::io::Result<()> {
    match format {
        Format::Json => sealed.write_json(std::io::stdout().lock()),
        Format::Toon => sealed.into_evidence().and_then(|evidence| print(&evidence.into_value(), format)),
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
        assert_eq!(String::from_utf8(streamed).unwrap(), render(&doc, Format::Json));
    }
}
