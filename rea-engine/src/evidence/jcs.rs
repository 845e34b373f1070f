//! A direct RFC 8785 (JCS) writer for any `Serialize` value: the canonical
//! text of a typed value without building a `serde_json::Value` tree first.
//!
//! It writes what `serde_json_canonicalizer` writes for the value's
//! `serde_json::to_value` form (the differential tests in `canonical.rs`
//! hold it to that): object members in UTF-16 order of their keys (a later
//! member with the same key replaces an earlier one, as in a JSON map),
//! strings with only `"`, `\` and the C0 controls escaped (the short forms
//! `\b \t \n \f \r`, else `\u00xx` in lowercase hex), and every number as an
//! ECMAScript double. Integers of at most 2^53 in magnitude are exact
//! doubles printed as their digits; every other number is formatted by the
//! canonicalizer crate itself.

use std::borrow::Cow;
use std::ops::Range;

use serde::Serialize;
use serde::ser::{self, Impossible};

/// Why a value has no canonical JSON form.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct JcsError(String);

impl ser::Error for JcsError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        JcsError(msg.to_string())
    }
}

impl From<JcsError> for serde_json::Error {
    fn from(e: JcsError) -> serde_json::Error {
        <serde_json::Error as ser::Error>::custom(e.0)
    }
}

impl From<serde_json::Error> for JcsError {
    fn from(e: serde_json::Error) -> JcsError {
        JcsError(e.to_string())
    }
}

/// Appends the canonical JSON of `value` to `out`.
pub(crate) fn append<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), JcsError> {
    value.serialize(Jcs { out })
}

/// The largest magnitude up to which every integer is an exact double.
const EXACT: u64 = 1 << 53;

/// The bytes of `word` (eight string bytes, little-endian) that need an
/// escape, as the high bit of each such byte. Exact for the lowest set bit:
/// the subtraction's borrow can mark a byte only above a byte that truly
/// needs an escape, so the first escape of a word is where its lowest bit
/// says (bytes of 0x80 and above, UTF-8, never need one).
fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    control | zero_byte(word ^ (ONES * u64::from(b'"'))) | zero_byte(word ^ (ONES * u64::from(b'\\')))
}

/// The escape of byte `b` in a JSON string, if it needs one.
fn escape(b: u8) -> Option<[u8; 6]> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = |c: u8| Some([b'\\', c, 0, 0, 0, 0]);
    match b {
        b'"' => short(b'"'),
        b'\\' => short(b'\\'),
        0x08 => short(b'b'),
        0x09 => short(b't'),
        0x0a => short(b'n'),
        0x0c => short(b'f'),
        0x0d => short(b'r'),
        0x00..=0x1f => Some([b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]),
        _ => None,
    }
}

/// Appends `s` as a JSON string, escaped the RFC 8785 way. Bytes are read
/// eight at a time; a word's first escape is found from its mask, and the
/// runs between escapes are copied whole.
pub(crate) fn append_str(s: &str, out: &mut Vec<u8>) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let (mut start, mut i) = (0, 0);
    while let Some(word) = bytes.get(i..i + 8) {
        let word = u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]]);
        match escape_mask(word) {
            0 => i += 8,
            mask => {
                let at = i + (mask.trailing_zeros() / 8) as usize;
                append_escape(bytes, &mut start, at, out);
                i = at + 1;
            }
        }
    }
    for at in i..bytes.len() {
        append_escape(bytes, &mut start, at, out);
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// If `bytes[at]` needs an escape: appends the run from `start` before it
/// and its escape, and moves `start` past it.
fn append_escape(bytes: &[u8], start: &mut usize, at: usize, out: &mut Vec<u8>) {
    if let Some(escaped) = escape(bytes[at]) {
        out.extend_from_slice(&bytes[*start..at]);
        let len = if escaped[1] == b'u' { 6 } else { 2 };
        out.extend_from_slice(&escaped[..len]);
        *start = at + 1;
    }
}

/// Appends an integer's digits (exact as a double) or, beyond 2^53, what
/// the canonicalizer prints for it.
fn append_int<T: Serialize + std::fmt::Display>(value: T, magnitude: u128, out: &mut Vec<u8>) -> Result<(), JcsError> {
    if magnitude <= u128::from(EXACT) {
        use std::io::Write as _;
        write!(out, "{value}").map_err(|e| JcsError(e.to_string()))
    } else {
        Ok(serde_json_canonicalizer::to_writer(&value, out)?)
    }
}

/// Orders `members` (key text without quotes, where its canonical value
/// lies in `values`) the RFC 8785
/// way, keeps the last of equal keys, and appends the object.
fn append_object(mut members: Vec<(Cow<'static, str>, Range<usize>)>, values: &[u8], out: &mut Vec<u8>) {
    // Stable, so among equal keys the last written stays last.
    members.sort_by(|(a, _), (b, _)| utf16_order(a, b));
    out.push(b'{');
    let mut first = true;
    for (i, (key, value)) in members.iter().enumerate() {
        if members.get(i + 1).is_some_and(|(next, _)| next == key) {
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        append_str(key, out);
        out.push(b':');
        out.extend_from_slice(&values[value.clone()]);
    }
    out.push(b'}');
}

struct Jcs<'a> {
    out: &'a mut Vec<u8>,
}

/// An array being written.
struct Seq<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
    /// Set for a tuple variant: the `{"Variant":` around the array.
    close_variant: bool,
}

/// An object being gathered, to be ordered when it ends: its members'
/// canonical values are written one after another into one buffer.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    members: Vec<(Cow<'static, str>, Range<usize>)>,
    values: Vec<u8>,
    key: Option<String>,
    /// Set for a struct variant: the variant name wrapping the object.
    variant: Option<&'static str>,
}

impl<'a> Seq<'a> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JcsError> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        append(value, self.out)
    }
    fn finish(self) -> Result<(), JcsError> {
        self.out.push(b']');
        if self.close_variant {
            self.out.push(b'}');
        }
        Ok(())
    }
}

impl<'a> Object<'a> {
    fn new(out: &'a mut Vec<u8>, variant: Option<&'static str>) -> Object<'a> {
        Object { out, members: Vec::new(), values: Vec::new(), key: None, variant }
    }
    fn member<T: Serialize + ?Sized>(&mut self, key: Cow<'static, str>, value: &T) -> Result<(), JcsError> {
        let start = self.values.len();
        append(value, &mut self.values)?;
        self.members.push((key, start..self.values.len()));
        Ok(())
    }
    fn finish(self) -> Result<(), JcsError> {
        match self.variant {
            None => append_object(self.members, &self.values, self.out),
            Some(variant) => {
                let mut inner = Vec::new();
                append_object(self.members, &self.values, &mut inner);
                let whole = 0..inner.len();
                append_object(vec![(Cow::Borrowed(variant), whole)], &inner, self.out);
            }
        }
        Ok(())
    }
}

macro_rules! ints {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<(), JcsError> {
            append_int(v, v.unsigned_abs().into(), self.out)
        }
    )*};
}

macro_rules! uints {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<(), JcsError> {
            append_int(v, v.into(), self.out)
        }
    )*};
}

impl<'a> ser::Serializer for Jcs<'a> {
    type Ok = ();
    type Error = JcsError;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Object<'a>;

    ints!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64, serialize_i128: i128);
    uints!(serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_u128: u128);

    fn serialize_bool(self, v: bool) -> Result<(), JcsError> {
        self.out.extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), JcsError> {
        // As serde_json's `to_value` does: an f32 becomes the double nearest it.
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), JcsError> {
        if !v.is_finite() {
            // `to_value` turns a non-finite number into null.
            self.out.extend_from_slice(b"null");
            return Ok(());
        }
        Ok(serde_json_canonicalizer::to_writer(&v, self.out)?)
    }
    fn serialize_char(self, v: char) -> Result<(), JcsError> {
        append_str(v.encode_utf8(&mut [0; 4]), self.out);
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), JcsError> {
        append_str(v, self.out);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), JcsError> {
        // As `to_value` does: an array of numbers.
        let mut seq = Seq { out: self.out, first: true, close_variant: false };
        seq.out.push(b'[');
        v.iter().try_for_each(|b| seq.element(b))?;
        seq.finish()
    }
    fn serialize_none(self) -> Result<(), JcsError> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), JcsError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), JcsError> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), JcsError> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), JcsError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), JcsError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), JcsError> {
        let mut object = Object::new(self.out, None);
        object.member(Cow::Borrowed(variant), value)?;
        object.finish()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, JcsError> {
        self.out.push(b'[');
        Ok(Seq { out: self.out, first: true, close_variant: false })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'a>, JcsError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq<'a>, JcsError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Seq<'a>, JcsError> {
        // A one-member object: its only key needs no ordering.
        self.out.push(b'{');
        append_str(variant, self.out);
        self.out.extend_from_slice(b":[");
        Ok(Seq { out: self.out, first: true, close_variant: true })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Object<'a>, JcsError> {
        Ok(Object::new(self.out, None))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Object<'a>, JcsError> {
        Ok(Object::new(self.out, None))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Object<'a>, JcsError> {
        Ok(Object::new(self.out, Some(variant)))
    }
}

impl ser::SerializeSeq for Seq<'_> {
    type Ok = ();
    type Error = JcsError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JcsError> {
        self.element(value)
    }
    fn end(self) -> Result<(), JcsError> {
        self.finish()
    }
}

impl ser::SerializeTuple for Seq<'_> {
    type Ok = ();
    type Error = JcsError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JcsError> {
        self.element(value)
    }
    fn end(self) -> Result<(), JcsError> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Seq<'_> {
    type Ok = ();
    type Error = JcsError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JcsError> {
        self.element(value)
    }
    fn end(self) -> Result<(), JcsError> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Seq<'_> {
    type Ok = ();
    type Error = JcsError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JcsError> {
        self.element(value)
    }
    fn end(self) -> Result<(), JcsError> {
        self.finish()
    }
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = JcsError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), JcsError> {
        self.key = Some(key.serialize(KeyText)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JcsError> {
        let key = self.key.take().ok_or_else(|| JcsError("a map value without its key".into()))?;
        self.member(Cow::Owned(key), value)
    }
    fn end(self) -> Result<(), JcsError> {
        self.finish()
    }
}

impl ser::SerializeStruct for Object<'_> {
    type Ok = ();
    type Error = JcsError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), JcsError> {
        self.member(Cow::Borrowed(key), value)
    }
    fn end(self) -> Result<(), JcsError> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Object<'_> {
    type Ok = ();
    type Error = JcsError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), JcsError> {
        self.member(Cow::Borrowed(key), value)
    }
    fn end(self) -> Result<(), JcsError> {
        self.finish()
    }
}

/// A map key's text, as `serde_json::to_value` accepts keys: strings,
/// characters, unit variants and integers (as their digits).
struct KeyText;

fn refused_key() -> JcsError {
    JcsError("a map key that is not a string".into())
}

macro_rules! int_keys {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<String, JcsError> {
            Ok(v.to_string())
        }
    )*};
}

macro_rules! refused_keys {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, _: $t) -> Result<String, JcsError> {
            Err(refused_key())
        }
    )*};
}

impl ser::Serializer for KeyText {
    type Ok = String;
    type Error = JcsError;
    type SerializeSeq = Impossible<String, JcsError>;
    type SerializeTuple = Impossible<String, JcsError>;
    type SerializeTupleStruct = Impossible<String, JcsError>;
    type SerializeTupleVariant = Impossible<String, JcsError>;
    type SerializeMap = Impossible<String, JcsError>;
    type SerializeStruct = Impossible<String, JcsError>;
    type SerializeStructVariant = Impossible<String, JcsError>;

    int_keys!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64, serialize_i128: i128);
    int_keys!(serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_u128: u128);
    refused_keys!(serialize_bool: bool, serialize_f32: f32, serialize_f64: f64, serialize_bytes: &[u8]);

    fn serialize_char(self, v: char) -> Result<String, JcsError> {
        Ok(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<String, JcsError> {
        Ok(v.to_owned())
    }
    fn serialize_none(self) -> Result<String, JcsError> {
        Err(refused_key())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, JcsError> {
        Err(refused_key())
    }
    fn serialize_unit(self) -> Result<String, JcsError> {
        Err(refused_key())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, JcsError> {
        Err(refused_key())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<String, JcsError> {
        Ok(variant.to_owned())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<String, JcsError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, JcsError> {
        Err(refused_key())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, JcsError> {
        Err(refused_key())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, JcsError> {
        Err(refused_key())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, JcsError> {
        Err(refused_key())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, JcsError> {
        Err(refused_key())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, JcsError> {
        Err(refused_key())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, JcsError> {
        Err(refused_key())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, JcsError> {
        Err(refused_key())
    }
}

/// RFC 8785 member order: the keys' UTF-16 code units. For ASCII keys (all
/// of rea's own) that is their byte order, compared without re-encoding.
pub(super) fn utf16_order(a: &str, b: &str) -> std::cmp::Ordering {
    if a.is_ascii() && b.is_ascii() { a.cmp(b) } else { a.encode_utf16().cmp(b.encode_utf16()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    use crate::testing::Rng;

    fn crate_form<T: Serialize>(value: &T) -> Vec<u8> {
        serde_json_canonicalizer::to_vec(&serde_json::to_value(value).unwrap()).unwrap()
    }

    fn direct_form<T: Serialize>(value: &T) -> Vec<u8> {
        let mut out = Vec::new();
        append(value, &mut out).unwrap();
        out
    }

    /// Every capture record in the test fixtures (typed: enums, options,
    /// rendered frames, maps) has the same canonical text written directly
    /// as through its value tree and the canonicalizer crate.
    #[test]
    fn typed_records_of_the_fixtures_match_the_canonicalizer() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let mut seen = 0;
        for dir in ["captures", "comparisons/captures", "view/captures"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let Ok(value) = serde_json::from_slice::<Value>(&std::fs::read(&path).unwrap()) else { continue };
                let Ok((envelope, record)) = super::super::import_capture_record("x", value) else { continue };
                assert_eq!(direct_form(&record), crate_form(&record), "{}", path.display());
                assert_eq!(direct_form(&envelope), crate_form(&envelope), "{}", path.display());
                seen += 1;
            }
        }
        assert!(seen >= 3, "only {seen} fixture captures were read");
    }

    /// A generated string: controls, quotes, escapes and characters of every
    /// UTF-8 length.
    fn text(g: &mut Rng) -> String {
        const PIECES: &[&str] =
            &["a", "Z", " ", "\"", "\\", "/", "\u{1b}[0m", "\u{7f}", "\u{80}", "é", "€", "😀", "\u{2028}", "\u{fb33}"];
        (0..g.below(12))
            .map(|_| match g.below(3) {
                0 => char::from(g.below(0x20) as u8).to_string(),
                _ => PIECES[g.below(PIECES.len() as u64) as usize].to_owned(),
            })
            .collect()
    }

    fn number(g: &mut Rng) -> Value {
        match g.below(6) {
            0 => json!(g.next_u64()),
            1 => json!(-(g.below(1 << 60) as i64)),
            2 => json!(g.below(1 << 54)),
            3 => json!(f64::from_bits(g.next_u64() >> 2)),
            4 => json!(g.below(1000) as f64 / 8.0),
            _ => json!(g.below(10)),
        }
    }

    fn value(g: &mut Rng, depth: u32) -> Value {
        match g.below(if depth == 0 { 5 } else { 7 }) {
            0 => Value::Null,
            1 => Value::Bool(g.below(2) == 0),
            2 => number(g),
            3 | 4 => Value::String(text(g)),
            5 => Value::Array((0..g.below(5)).map(|_| value(g, depth - 1)).collect()),
            _ => Value::Object((0..g.below(6)).map(|_| (text(g), value(g, depth - 1))).collect()),
        }
    }

    #[test]
    fn generated_values_match_the_canonicalizer() {
        let mut g = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..5000 {
            let v = value(&mut g, 4);
            assert_eq!(direct_form(&v), crate_form(&v), "case {case}: {v}");
        }
    }

    /// Every byte value that can stand in UTF-8 text, at every offset of a
    /// string longer than the eight-byte scan, alone and beside others.
    #[test]
    fn every_character_at_every_offset_is_escaped_as_the_canonicalizer_does() {
        let specials: Vec<char> = (0u8..0x80).map(char::from).chain(['é', '€', '😀', '\u{2028}']).collect();
        for c in specials {
            for offset in 0..20 {
                let text: String =
                    "abcdefghijklmnopqrst".chars().take(offset).chain([c]).chain("uvwxyz0123".chars()).collect();
                let doubled = format!("{text}{c}{c}{text}");
                for t in [text, doubled] {
                    assert_eq!(direct_form(&t), crate_form(&t), "{t:?}");
                }
            }
        }
    }

    /// Strings dense in escapes (terminal text: CR LF every few bytes,
    /// escape sequences, quotes), several escapes to a word.
    #[test]
    fn strings_dense_in_escapes_are_escaped_as_the_canonicalizer_does() {
        let alphabet = ['a', 'b', '\r', '\n', '\u{1b}', '"', '\\', '\u{7f}', 'é', '[', '\0', '\t'];
        let mut g = Rng(0x2545_f491_4f6c_dd1d);
        for case in 0..5000 {
            let len = g.below(40);
            let text: String = (0..len).map(|_| *g.pick(&alphabet)).collect();
            assert_eq!(direct_form(&text), crate_form(&text), "case {case}: {text:?}");
        }
    }

    #[derive(Serialize)]
    enum Shape {
        Unit,
        Newtype(u8),
        Tuple(i32, String),
        Struct { b: Option<u64>, a: char },
    }

    #[derive(Serialize)]
    struct Typed {
        z: Vec<Shape>,
        bytes: serde_bytes_like::Bytes,
        map: std::collections::HashMap<u32, f32>,
        unit: (),
        nan: f64,
    }

    mod serde_bytes_like {
        pub(super) struct Bytes(pub(super) Vec<u8>);
        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
    }

    #[test]
    fn every_serde_shape_matches_the_canonicalizer() {
        let typed = Typed {
            z: vec![Shape::Unit, Shape::Newtype(7), Shape::Tuple(-3, "t".into()), Shape::Struct { b: None, a: '€' }],
            bytes: serde_bytes_like::Bytes(vec![0, 255, 16]),
            map: [(10, 0.1), (9, 1.5), (100, -2.0)].into_iter().collect(),
            unit: (),
            nan: f64::NAN,
        };
        assert_eq!(String::from_utf8(direct_form(&typed)).unwrap(), String::from_utf8(crate_form(&typed)).unwrap());
    }
}
