//! JSON-RPC ids echoed exactly as sent.
//!
//! The SDK holds a numeric id as an `i64` and `serde_json` a number as an
//! `i64`, `u64` or `f64`, so an id such as `1000000000000000000000000000000`,
//! `1.0` or `1e2` would come back as `1e+30` (or be refused as no id at all),
//! `1` or `100`. So on the way in, the transport gives every id whose text
//! would not come back as sent a stand-in, a string that starts with
//! [`STAND_IN`] (no client id can keep that prefix: a client string id that
//! has it gets a stand-in too), and on the way out it writes the id's own
//! text in the stand-in's place. An id inside a batch is not rewritten (a
//! batch is refused member by member).

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::Value;

/// The start of every stand-in id.
pub(crate) const STAND_IN: &str = "\u{0}rea-mcp-id-";

/// The ids given a stand-in and not yet answered: stand-in -> the id's text.
#[derive(Debug, Default)]
pub(crate) struct ExactIds {
    next: u64,
    sent: HashMap<String, String>,
}

impl ExactIds {
    /// `line` with its top-level `id` replaced by a stand-in when the id's
    /// text would not come back as sent.
    pub(crate) fn stand_in<'l>(&mut self, line: &'l [u8]) -> Cow<'l, [u8]> {
        let Some(span) = id_span(line) else { return Cow::Borrowed(line) };
        let Ok(text) = std::str::from_utf8(&line[span.clone()]) else { return Cow::Borrowed(line) };
        if echoed_as_sent(text) {
            return Cow::Borrowed(line);
        }
        let stand_in = format!("{STAND_IN}{}", self.next);
        self.next += 1;
        let mut out = Vec::with_capacity(line.len() + stand_in.len() + 8);
        out.extend_from_slice(&line[..span.start]);
        out.extend_from_slice(Value::String(stand_in.clone()).to_string().as_bytes());
        out.extend_from_slice(&line[span.end..]);
        self.sent.insert(stand_in, text.to_owned());
        Cow::Owned(out)
    }

    /// Whether any id is waiting for its answer.
    pub(crate) fn is_empty(&self) -> bool {
        self.sent.is_empty()
    }

    /// `reply` as one line (with its newline), a stand-in id written as the
    /// id's own text (and forgotten: a request has one answer).
    pub(crate) fn line(&mut self, reply: &Value) -> Vec<u8> {
        let stand_in = reply.get("id").and_then(Value::as_str).filter(|id| id.starts_with(STAND_IN));
        let Some(text) = stand_in.and_then(|id| self.sent.remove(id)) else {
            let mut bytes = reply.to_string().into_bytes();
            bytes.push(b'\n');
            return bytes;
        };
        let mut rest = reply.clone();
        if let Some(object) = rest.as_object_mut() {
            object.remove("id");
        }
        let rest = rest.to_string();
        let members = rest.strip_prefix('{').unwrap_or(&rest);
        let comma = if members == "}" { "" } else { "," };
        format!("{{\"id\":{text}{comma}{members}\n").into_bytes()
    }
}

/// Whether the id written as `text` comes back as sent: a string that is
/// not a stand-in, an integer written as Rust writes an `i64`, or what is
/// no usable id at all (an object, `null`: it is answered with `null`).
fn echoed_as_sent(text: &str) -> bool {
    match text.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<String>(text).is_ok_and(|s| !s.starts_with(STAND_IN)),
        Some(b'-' | b'0'..=b'9') => text.parse::<i64>().is_ok_and(|n| n.to_string() == text),
        _ => true,
    }
}

/// The bytes of the top-level object's `id` value in `line`, when the
/// object's members up to it are well formed (the rest need not be).
pub(crate) fn id_span(line: &[u8]) -> Option<Range<usize>> {
    let mut at = skip_space(line, 0);
    at = skip_space(line, expect(line, at, b'{')?);
    loop {
        let (key, len) = value_at::<String>(line, at)?;
        at = skip_space(line, expect(line, skip_space(line, at + len), b':')?);
        let (_, len) = value_at::<IgnoredAny>(line, at)?;
        if key == "id" {
            return Some(at..at + len);
        }
        at = skip_space(line, expect(line, skip_space(line, at + len), b',')?);
    }
}

fn skip_space(line: &[u8], mut at: usize) -> usize {
    while line.get(at).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

fn expect(line: &[u8], at: usize, byte: u8) -> Option<usize> {
    (line.get(at) == Some(&byte)).then_some(at + 1)
}

/// The JSON value that starts at `at` and its length in bytes.
fn value_at<T: DeserializeOwned>(line: &[u8], at: usize) -> Option<(T, usize)> {
    let mut values = serde_json::Deserializer::from_slice(line.get(at..)?).into_iter::<T>();
    let value = values.next()?.ok()?;
    Some((value, values.byte_offset()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_would_change_get_a_stand_in_and_come_back_as_sent() {
        for id in [
            "1000000000000000000000000000000",
            "1.0",
            "1e2",
            "-0",
            "2.5",
            "18446744073709551616",
            r#""\u0000rea-mcp-id-0""#,
        ] {
            let mut ids = ExactIds::default();
            let line = format!(r#"{{"jsonrpc":"2.0", "id" : {id},"method":"ping"}}"#);
            let rewritten = ids.stand_in(line.as_bytes()).into_owned();
            let message: Value = serde_json::from_slice(&rewritten).unwrap();
            let stand_in = message["id"].as_str().expect("a stand-in string").to_owned();
            assert!(stand_in.starts_with(STAND_IN), "{id}");
            assert_eq!(message["method"], "ping");
            let reply = serde_json::json!({"jsonrpc": "2.0", "id": stand_in, "result": {}});
            let out = String::from_utf8(ids.line(&reply)).unwrap();
            assert_eq!(out, format!("{{\"id\":{id},\"jsonrpc\":\"2.0\",\"result\":{{}}}}\n"));
            assert!(ids.is_empty(), "answered once, forgotten");
        }
    }

    #[test]
    fn ids_that_come_back_as_sent_are_left_alone() {
        let mut ids = ExactIds::default();
        for line in [
            r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
            r#"{"id":-9223372036854775808}"#,
            r#"{"jsonrpc":"2.0","id":{"n":1e30},"method":"ping"}"#,
            r#"{"id":null}"#,
            r#"{"params":{"id":1e30},"id":"a\u0000"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"[{"id":1e30}]"#,
            "not json",
        ] {
            assert!(matches!(ids.stand_in(line.as_bytes()), Cow::Borrowed(_)), "{line}");
        }
        assert_eq!(ids.line(&serde_json::json!({"id": 7})), b"{\"id\":7}\n");
    }

    #[test]
    fn the_id_is_found_after_other_members_and_in_a_cut_line() {
        let line = br#"{"params":{"x":[1,{"id":3}]}, "id":1e30, "more":"#;
        assert_eq!(&line[id_span(line).unwrap()], b"1e30");
        assert_eq!(id_span(br#"{"params":{"x":"cut"#), None);
        assert_eq!(id_span(br#"{}"#), None);
    }
}
