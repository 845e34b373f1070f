//! TOON, the encoding rea prints by default, read at the edge: a TOON
//! document is decoded into the JSON value it encodes, and from there on is
//! read exactly as the JSON twin is (the same strict import, the same
//! recomputed identity), so no reader has a TOON path of its own.

use std::path::Path;

use serde_json::Value;

use crate::input::{InputError, parse_json_bytes};

/// How an Evidence file was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// JSON (`--json`).
    Json,
    /// TOON (rea's default output).
    Toon,
}

/// Parses `bytes` as JSON or, when they are not JSON, as a TOON Evidence
/// document (an object with a `predicate_type`); otherwise the JSON error.
pub fn decode_evidence(what: &'static str, path: &Path, bytes: &[u8]) -> Result<(Value, Encoding), InputError> {
    match parse_json_bytes(what, path, bytes) {
        Ok(value) => Ok((value, Encoding::Json)),
        Err(e @ InputError::InvalidJson { .. }) => match decode_toon_evidence(bytes) {
            Some(Ok(value)) => Ok((value, Encoding::Toon)),
            Some(Err(detail)) => Err(InputError::InvalidToon { what, path: path.to_owned(), detail }),
            None => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// Decodes `bytes` as a TOON Evidence document (an object with a
/// `predicate_type`), if it is one: strictly (a repeated key is refused,
/// never "last one wins"), the strict decoder's message when only the
/// lenient decoder reads it as Evidence.
fn decode_toon_evidence(bytes: &[u8]) -> Option<Result<Value, String>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let is_evidence = |value: &Value| value.get("predicate_type").is_some_and(Value::is_string);
    match toon_format::decode_strict::<Value>(text) {
        Ok(value) => is_evidence(&value).then_some(Ok(value)),
        Err(strict) => {
            let lenient =
                toon_format::decode::<Value>(text, &toon_format::DecodeOptions::new().with_strict(false)).ok()?;
            is_evidence(&lenient).then(|| Err(strict.to_string()))
        }
    }
}
