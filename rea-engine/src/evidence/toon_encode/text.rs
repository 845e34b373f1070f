//! TOON's lexical rules (spec v4.4 §2, §7): when a string is quoted, how
//! it is escaped, which keys stand bare, and the canonical number form.

use std::io::{self, Write};

use super::events::Prim;

/// The one delimiter rea writes (the default, comma).
pub(super) const DELIMITER: char = ',';

/// Writes `value` as a cell or field value: a string quoted when it must
/// be, a number in canonical form.
pub(super) fn primitive(out: &mut dyn Write, value: Prim<'_>) -> io::Result<()> {
    match value {
        Prim::Null => out.write_all(b"null"),
        Prim::Bool(b) => out.write_all(if b { b"true" } else { b"false" }),
        Prim::I64(n) => write!(out, "{n}"),
        Prim::U64(n) => write!(out, "{n}"),
        Prim::F64(f) => float(out, f),
        Prim::Str(s) if needs_quoting(s) => quoted(out, s),
        Prim::Str(s) => out.write_all(s.as_bytes()),
    }
}

/// Writes a key: bare when it matches `^[A-Za-z_][A-Za-z0-9_.]*$`, quoted
/// otherwise.
pub(super) fn key(out: &mut dyn Write, key: &str) -> io::Result<()> {
    if is_bare_key(key) { out.write_all(key.as_bytes()) } else { quoted(out, key) }
}

fn is_bare_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    let Some((&first, rest)) = bytes.split_first() else { return false };
    (first.is_ascii_alphabetic() || first == b'_')
        && rest.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

/// A finite float in canonical form: integral values as integers (when an
/// `i64` or `u64` holds them exactly), others in Rust's shortest plain
/// decimal form, which has no exponent; `-0` is `0`.
fn float(out: &mut dyn Write, f: f64) -> io::Result<()> {
    // `i64::MAX as f64` is 2^63 and `u64::MAX as f64` is 2^64: both bounds
    // are exclusive, so the casts below are exact.
    if f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64 {
        return write!(out, "{}", f as i64);
    }
    if f.fract() == 0.0 && f >= 0.0 && f < u64::MAX as f64 {
        return write!(out, "{}", f as u64);
    }
    let text = format!("{f}");
    match text.split_once('.') {
        Some((int, frac)) if !frac.contains('.') => {
            let frac = frac.trim_end_matches('0');
            if frac.is_empty() { write!(out, "{int}") } else { write!(out, "{int}.{frac}") }
        }
        _ => out.write_all(text.as_bytes()),
    }
}

/// Whether a string value must be quoted to read back as itself (§7.2).
pub(super) fn needs_quoting(s: &str) -> bool {
    s.is_empty()
        || s.starts_with([' ', '\t'])
        || s.ends_with([' ', '\t'])
        || matches!(s, "null" | "true" | "false")
        || is_numeric_like(s)
        || s.contains([':', '"', '\\', '[', ']', '{', '}', DELIMITER])
        || s.bytes().any(|b| b <= 0x1f)
        || s.starts_with(['-', '#'])
}

/// `^[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`.
fn is_numeric_like(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut at = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let digits = |at: &mut usize| {
        let start = *at;
        while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        *at > start
    };
    if !digits(&mut at) {
        return false;
    }
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        if !digits(&mut at) {
            return false;
        }
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        if !digits(&mut at) {
            return false;
        }
    }
    at == bytes.len()
}

/// Writes `s` in double quotes: `\\`, `\"`, `\n`, `\r`, `\t`, and other
/// controls below U+0020 as lowercase `\u00xx`.
pub(super) fn quoted(out: &mut dyn Write, s: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    let bytes = s.as_bytes();
    let mut plain = 0;
    for (at, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'\\' => b"\\\\",
            b'"' => b"\\\"",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.write_all(&bytes[plain..at])?;
        plain = at + 1;
        if escape.is_empty() {
            write!(out, "\\u{b:04x}")?;
        } else {
            out.write_all(escape)?;
        }
    }
    out.write_all(&bytes[plain..])?;
    out.write_all(b"\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: Prim<'_>) -> String {
        let mut out = Vec::new();
        primitive(&mut out, value).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_are_canonical() {
        assert_eq!(text(Prim::F64(1.0)), "1");
        assert_eq!(text(Prim::F64(-0.0)), "0");
        assert_eq!(text(Prim::F64(1.5)), "1.5");
        assert_eq!(text(Prim::F64(1e-7)), "0.0000001");
        assert_eq!(text(Prim::F64(9223372036854775808.0)), "9223372036854775808");
        assert_eq!(text(Prim::F64(1e20)), "100000000000000000000");
        assert_eq!(text(Prim::F64(-1e19)), "-10000000000000000000");
    }

    #[test]
    fn strings_that_read_as_something_else_are_quoted() {
        for s in ["", " a", "a\t", "true", "null", "12", "-1.5e3", "+1", "05", "a:b", "a,b", "-x", "#x", "[", "a\u{1}"]
        {
            assert!(needs_quoting(s), "{s:?}");
        }
        for s in ["a b", "1.", ".5", "1e", "café", "a|b", "x-1", "True"] {
            assert!(!needs_quoting(s), "{s:?}");
        }
        assert_eq!(text(Prim::Str("a\"b\\c\n\u{1f}\u{7f}")), "\"a\\\"b\\\\c\\n\\u001f\u{7f}\"");
    }

    #[test]
    fn keys_are_bare_only_when_ascii_identifiers() {
        let key_text = |k: &str| {
            let mut out = Vec::new();
            key(&mut out, k).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(key_text("a.b_1"), "a.b_1");
        assert_eq!(key_text("_"), "_");
        assert_eq!(key_text("1a"), "\"1a\"");
        assert_eq!(key_text("a-b"), "\"a-b\"");
        assert_eq!(key_text(""), "\"\"");
        assert_eq!(key_text("café"), "\"café\"");
    }
}
