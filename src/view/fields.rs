//! Reading fields of an Evidence document as it is written, so a view works
//! on any version of the record: a missing or renamed field shows as absent
//! instead of failing the view.

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::Value;

/// The value at `path`, if every step exists.
pub(crate) fn at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, key| v.get(key))
}

/// The string at `path`.
pub(crate) fn str_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    at(value, path)?.as_str()
}

/// The unsigned integer at `path`.
pub(crate) fn u64_at(value: &Value, path: &[&str]) -> Option<u64> {
    at(value, path)?.as_u64()
}

/// The array at `path`, empty when absent.
pub(crate) fn list<'a>(value: &'a Value, path: &[&str]) -> &'a [Value] {
    at(value, path).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

/// The capture order of each journalled entry, to order entries recorded at
/// the same millisecond as they happened.
pub(crate) struct JournalOrder(HashMap<(String, u64), u64>);

impl JournalOrder {
    /// Reads a capture record's `event_journal`.
    pub(crate) fn of(record: &Value) -> JournalOrder {
        let entries = list(record, &["event_journal"]).iter().filter_map(|e| {
            let key = (str_at(e, &["collection"])?.to_owned(), u64_at(e, &["index"])?);
            Some((key, u64_at(e, &["capture_order"])?))
        });
        JournalOrder(entries.collect())
    }

    /// The capture order of `collection[index]`; unjournalled entries sort last.
    pub(crate) fn of_entry(&self, collection: &str, index: usize) -> u64 {
        self.0.get(&(collection.to_owned(), index as u64)).copied().unwrap_or(u64::MAX)
    }
}

/// Milliseconds since the Unix epoch of an RFC 3339 UTC timestamp as rea
/// writes it (`2026-12-01T06:30:05.434Z`).
pub(crate) fn iso8601_ms(text: &str) -> Option<i64> {
    let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
    let mut d = date.splitn(3, '-').map(str::parse::<i64>);
    let (year, month, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let (hms, millis) = time.split_once('.').unwrap_or((time, "0"));
    let mut t = hms.splitn(3, ':').map(str::parse::<i64>);
    let (hour, minute, second) = (t.next()?.ok()?, t.next()?.ok()?, t.next()?.ok()?);
    let millis: i64 = format!("{millis:0<3}").get(..3)?.parse().ok()?;
    // Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis)
}

/// The scenario's command as a shell-like line: executable and quoted arguments.
pub(crate) fn command_line(scenario: &Value) -> String {
    let mut line = str_at(scenario, &["executable"]).unwrap_or("(unknown executable)").to_owned();
    for arg in list(scenario, &["arguments"]) {
        line.push(' ');
        line.push_str(&shell_quote(arg.as_str().unwrap_or_default()));
    }
    line
}

fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if plain { arg.to_owned() } else { format!("'{}'", arg.replace('\'', "'\\''")) }
}

/// A signal number's name, for the common ones.
fn signal_name(number: u64) -> Option<&'static str> {
    Some(match number {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// `code 0 (exited)` or `signal 15 SIGTERM (timeout)`.
pub(crate) fn exit_summary(exit: &Value) -> String {
    let reason = str_at(exit, &["reason"]).unwrap_or("reason unknown");
    match (at(exit, &["code"]).and_then(Value::as_i64), u64_at(exit, &["signal"])) {
        (_, Some(signal)) if signal != 0 => match signal_name(signal) {
            Some(name) => format!("signal {signal} {name} ({reason})"),
            None => format!("signal {signal} ({reason})"),
        },
        (Some(code), _) => format!("code {code} ({reason})"),
        (None, _) => format!("no exit status ({reason})"),
    }
}

/// `text` with control characters made visible (`\r`, `\n`, `\t`, `\e`,
/// `\xNN`), cut to about `max` characters with `…`.
pub(crate) fn escape_excerpt(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count >= max {
            out.push('…');
            break;
        }
        match c {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\u{1b}' => out.push_str("\\e"),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_and_exits_read_as_written() {
        assert_eq!(iso8601_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(iso8601_ms("2026-12-01T06:30:05.434Z"), Some(1_796_106_605_434));
        assert_eq!(iso8601_ms("2000-02-29T23:59:59.5Z"), Some(951_868_799_500));
        assert_eq!(iso8601_ms("yesterday"), None);
        let exit = |v: Value| exit_summary(&v);
        assert_eq!(exit(serde_json::json!({"code": 3, "signal": 0, "reason": "exited"})), "code 3 (exited)");
        assert_eq!(
            exit(serde_json::json!({"code": null, "signal": 9, "reason": "timeout"})),
            "signal 9 SIGKILL (timeout)"
        );
        assert_eq!(escape_excerpt("a\r\n\u{1b}[1mb", 100), "a\\r\\n\\e[1mb");
        assert_eq!(escape_excerpt("abcdef", 3), "abc…");
        let scenario = serde_json::json!({"executable": "/bin/sh", "arguments": ["-c", "echo 'hi'"]});
        assert_eq!(command_line(&scenario), "/bin/sh -c 'echo '\\''hi'\\'''");
    }
}
