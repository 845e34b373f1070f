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
        Err(e @ InputError::InvalidJson { .. }) => decode_toon_evidence(bytes).map(|v| (v, Encoding::Toon)).ok_or(e),
        Err(e) => Err(e),
    }
}

/// Decodes `bytes` as a TOON Evidence document (an object with a
/// `predicate_type`), if it is one.
fn decode_toon_evidence(bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    let value: Value = toon_format::decode_default(text).ok()?;
    value.get("predicate_type")?.as_str()?;
    Some(value)
}
