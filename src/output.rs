//! Printing documents: TOON by default, pretty JSON with `--json`.

use std::io::Write;

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

/// Writes `doc` to stdout. A closed pipe is not an error.
pub(crate) fn print(doc: &Value, format: Format) -> std::io::Result<()> {
    let text = render(doc, format);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
