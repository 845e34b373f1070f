//! RFC 8785 (JCS) canonical JSON and the digests built on it.
//!
//! Canonicalization of whole values is delegated to `serde_json_canonicalizer`,
//! a maintained RFC 8785 implementation (UTF-16 key order, ECMAScript number
//! and string forms); the tests below pin it to the RFC's own vectors. Large
//! typed records are written by [`super::jcs`] instead, straight from their
//! types, tested equal to the crate's output.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use super::jcs::utf16_order;
use sha2::{Digest, Sha256};

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

/// The canonical JSON bytes of `value`.
///
/// Fails only for values JSON cannot represent (non-finite numbers, map keys
/// that are not strings), which no Evidence type contains.
pub fn canonical_json<T: Serialize>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    serde_json_canonicalizer::to_vec(value)
}

/// Plain hex SHA-256 of the canonical JSON of `value` (a commitment). The
/// canonical bytes are hashed as they are produced, never held whole.
pub fn digest<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    let mut hasher = HashWriter::new();
    serde_json_canonicalizer::to_writer(value, &mut hasher)?;
    Ok(hasher.finish())
}

/// Plain hex SHA-256 of the canonical JSON of an object given as its
/// members, for large documents: objects and arrays are framed here, in
/// RFC 8785 member order (UTF-16 code units of the keys), and every key and
/// scalar is written by the canonicalizer crate, so no member's canonical
/// text is buffered whole. Equal to [`digest`] of the same object (tested).
pub fn digest_members(members: &[(&str, &Value)]) -> Result<String, serde_json::Error> {
    let mut hasher = HashWriter::new();
    write_members(members.iter().map(|(k, v)| (*k, *v)).collect(), &mut hasher)?;
    Ok(hasher.finish())
}

/// One member of an object hashed by [`digest_parts`]: a JSON value, or a
/// typed value written by the given function (so a large record is never
/// held as one value tree).
pub enum Part<'a> {
    /// A value already in JSON form.
    Value(&'a Value),
    /// A typed value that writes its own canonical JSON.
    Typed(&'a dyn CanonicalWrite),
}

/// A typed value that can write its RFC 8785 canonical JSON piece by piece.
pub trait CanonicalWrite {
    /// Writes the canonical JSON of `self` to `w`.
    fn write_canonical(&self, w: &mut dyn Write) -> Result<(), serde_json::Error>;
}

/// [`digest_members`] where some members are typed values.
pub fn digest_parts(members: &[(&str, Part<'_>)]) -> Result<String, serde_json::Error> {
    let mut hasher = HashWriter::new();
    let mut sorted: Vec<&(&str, Part<'_>)> = members.iter().collect();
    sorted.sort_by(|(a, _), (b, _)| utf16_order(a, b));
    let w: &mut dyn Write = &mut hasher;
    w.write_all(b"{").map_err(serde_json::Error::io)?;
    for (i, (key, part)) in sorted.into_iter().enumerate() {
        if i > 0 {
            w.write_all(b",").map_err(serde_json::Error::io)?;
        }
        serde_json_canonicalizer::to_writer(key, &mut &mut *w)?;
        w.write_all(b":").map_err(serde_json::Error::io)?;
        match part {
            Part::Value(value) => write_value(value, &mut *w)?,
            Part::Typed(typed) => typed.write_canonical(w)?,
        }
    }
    w.write_all(b"}").map_err(serde_json::Error::io)?;
    Ok(hasher.finish())
}

/// Writes one member's canonical JSON.
pub(super) type MemberWriter<'a> = &'a dyn Fn(&mut dyn Write) -> Result<(), serde_json::Error>;

/// Writes an object whose members are given in RFC 8785 order (the caller
/// guarantees it): each member is a typed value converted to JSON on its
/// own, and arrays of typed items one item at a time.
pub(super) fn write_sorted_object(
    w: &mut dyn Write,
    members: &[(&str, MemberWriter<'_>)],
) -> Result<(), serde_json::Error> {
    debug_assert!(members.windows(2).all(|p| utf16_order(p[0].0, p[1].0).is_lt()), "members out of order");
    w.write_all(b"{").map_err(serde_json::Error::io)?;
    for (i, (key, write)) in members.iter().enumerate() {
        if i > 0 {
            w.write_all(b",").map_err(serde_json::Error::io)?;
        }
        serde_json_canonicalizer::to_writer(key, &mut &mut *w)?;
        w.write_all(b":").map_err(serde_json::Error::io)?;
        write(w)?;
    }
    w.write_all(b"}").map_err(serde_json::Error::io)
}

/// Writes the canonical JSON of one typed value, written straight from the
/// type (no JSON value tree) and handed to `w` whole.
pub(super) fn write_typed<T: Serialize + ?Sized>(value: &T, w: &mut dyn Write) -> Result<(), serde_json::Error> {
    let mut text = Vec::new();
    super::jcs::append(value, &mut text)?;
    w.write_all(&text).map_err(serde_json::Error::io)
}

/// Writes the canonical JSON of an array of typed items, one item at a time,
/// through one reused buffer handed on in large slices.
pub(super) fn write_typed_items<T: Serialize>(items: &[T], w: &mut dyn Write) -> Result<(), serde_json::Error> {
    let mut text = Vec::with_capacity(HASH_BUFFER);
    text.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        super::jcs::append(item, &mut text)?;
        if text.len() >= HASH_BUFFER {
            w.write_all(&text).map_err(serde_json::Error::io)?;
            text.clear();
        }
    }
    text.push(b']');
    w.write_all(&text).map_err(serde_json::Error::io)
}

fn write_members<W: Write + ?Sized>(mut members: Vec<(&str, &Value)>, w: &mut W) -> Result<(), serde_json::Error> {
    members.sort_by(|(a, _), (b, _)| utf16_order(a, b));
    w.write_all(b"{").map_err(serde_json::Error::io)?;
    for (i, (key, value)) in members.into_iter().enumerate() {
        if i > 0 {
            w.write_all(b",").map_err(serde_json::Error::io)?;
        }
        serde_json_canonicalizer::to_writer(&key, &mut &mut *w)?;
        w.write_all(b":").map_err(serde_json::Error::io)?;
        write_value(value, w)?;
    }
    w.write_all(b"}").map_err(serde_json::Error::io)
}

fn write_value<W: Write + ?Sized>(value: &Value, w: &mut W) -> Result<(), serde_json::Error> {
    match value {
        Value::Object(map) => write_members(map.iter().map(|(k, v)| (k.as_str(), v)).collect(), w),
        Value::Array(items) => {
            w.write_all(b"[").map_err(serde_json::Error::io)?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.write_all(b",").map_err(serde_json::Error::io)?;
                }
                write_value(item, w)?;
            }
            w.write_all(b"]").map_err(serde_json::Error::io)
        }
        Value::String(text) => {
            let mut quoted = Vec::with_capacity(text.len() + 2);
            super::jcs::append_str(text, &mut quoted);
            w.write_all(&quoted).map_err(serde_json::Error::io)
        }
        scalar => serde_json_canonicalizer::to_writer(scalar, &mut &mut *w),
    }
}

/// Bytes gathered before they are hashed: the canonicalizer writes a member
/// in many small pieces, SHA-256 is fastest on whole blocks.
const HASH_BUFFER: usize = 64 * 1024;

/// Feeds written bytes to a SHA-256, in large slices.
struct HashWriter {
    sha: Sha256,
    pending: Vec<u8>,
}

impl HashWriter {
    fn new() -> HashWriter {
        HashWriter { sha: Sha256::new(), pending: Vec::with_capacity(HASH_BUFFER) }
    }

    /// Lowercase hex of the digest of everything written.
    fn finish(mut self) -> String {
        self.sha.update(&self.pending);
        hex(&self.sha.finalize())
    }
}

impl std::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.pending.len() + buf.len() > HASH_BUFFER {
            self.sha.update(&self.pending);
            self.pending.clear();
        }
        if buf.len() >= HASH_BUFFER {
            self.sha.update(buf);
        } else {
            self.pending.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether two values have the same canonical form.
pub fn same<T: Serialize>(a: &T, b: &T) -> bool {
    match (canonical_json(a), canonical_json(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streamed digest of members equals the crate's digest of the
    /// object, on the RFC's vectors and on nested, unsorted, escaped input.
    #[test]
    fn streamed_member_digest_equals_the_crate_digest() {
        let docs = [
            r#"{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}"#,
            r#"{"\u20ac": 1, "\r": [{"z": {}, "a": []}], "\ufb33": "x", "1": -0, "\ud83d\ude00": {"b": 1, "a": [1, {"d": null, "c": 2}]}, "\u0080": 0.1, "\u00f6": "\u001b[0m"}"#,
            r#"{}"#,
        ];
        for text in docs {
            let v: Value = serde_json::from_str(text).unwrap();
            let members: Vec<(&str, &Value)> = v.as_object().unwrap().iter().map(|(k, v)| (k.as_str(), v)).collect();
            assert_eq!(digest_members(&members).unwrap(), digest(&v).unwrap(), "{text}");
        }
    }

    /// Hashing through the buffer equals hashing the canonical bytes whole,
    /// for pieces smaller than, straddling and larger than the buffer.
    #[test]
    fn buffered_digest_equals_the_digest_of_the_canonical_bytes() {
        let big = "\u{1b}x\u{20ac}".repeat(HASH_BUFFER / 2);
        let v = serde_json::json!({"b": [big.clone(), "y".repeat(HASH_BUFFER - 3), 1.5], "a": {"\u{20ac}": big, "z": null}});
        let whole = hex(&Sha256::digest(canonical_json(&v).unwrap()));
        assert_eq!(digest(&v).unwrap(), whole);
        let members: Vec<(&str, &Value)> = v.as_object().unwrap().iter().map(|(k, v)| (k.as_str(), v)).collect();
        assert_eq!(digest_members(&members).unwrap(), whole);
    }

    fn canon(text: &str) -> String {
        let v: Value = serde_json::from_str(text).unwrap();
        String::from_utf8(canonical_json(&v).unwrap()).unwrap()
    }

    /// RFC 8785 section 3.2.2, the example input and its canonical output.
    #[test]
    fn rfc8785_section_3_2_2_example() {
        let input = r#"{
            "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
            "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
            "literals": [null, true, false]
        }"#;
        let expected = concat!(
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"#,
            r#""string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
        assert_eq!(canon(input), expected);
    }

    /// RFC 8785 section 3.2.3, sorting by UTF-16 code units.
    #[test]
    fn rfc8785_section_3_2_3_sorting() {
        let input = r#"{
            "\u20ac": "Euro Sign",
            "\r": "Carriage Return",
            "\ufb33": "Hebrew Letter Dalet With Dagesh",
            "1": "One",
            "\ud83d\ude00": "Emoji: Grinning Face",
            "\u0080": "Control",
            "\u00f6": "Latin Small Letter O With Diaeresis"
        }"#;
        let v: Value = serde_json::from_str(input).unwrap();
        let out = canon(input);
        let order: Vec<String> = {
            // Recover key order from the canonical text by re-parsing it with
            // an order-preserving scan of the original keys' positions.
            let obj = v.as_object().unwrap();
            let mut keys: Vec<(usize, String)> =
                obj.keys().map(|k| (out.find(&serde_json::to_string(k).unwrap()).unwrap(), k.clone())).collect();
            keys.sort();
            keys.into_iter().map(|(_, k)| k).collect()
        };
        let expected = ["\r", "1", "\u{80}", "\u{f6}", "\u{20ac}", "\u{1f600}", "\u{fb33}"];
        assert_eq!(order, expected);
    }

    /// RFC 8785 appendix B, number serialization samples.
    #[test]
    fn rfc8785_appendix_b_numbers() {
        let cases = [
            ("0", "0"),
            ("-0", "0"),
            ("5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("9007199254740992", "9007199254740992"),
            ("295147905179352830000", "295147905179352830000"),
            ("1e21", "1e+21"),
            ("1e-7", "1e-7"),
            ("0.000001", "0.000001"),
            ("333333333.3333333", "333333333.3333333"),
            ("-1.7976931348623157e308", "-1.7976931348623157e+308"),
        ];
        for (input, expected) in cases {
            assert_eq!(canon(input), expected, "input {input}");
        }
    }

    #[test]
    fn digest_is_plain_hex_sha256() {
        // SHA-256 of the two bytes `{}`.
        assert_eq!(
            digest(&serde_json::json!({})).unwrap(),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
