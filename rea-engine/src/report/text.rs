//! What the reports share: the committed scenario's command, the journal
//! order of entries recorded at the same millisecond, timestamps, exits and
//! excerpts as a person reads them.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use serde::Deserialize;

use super::ReportError;
use serde_json::Value;

use crate::evidence::{CaptureRecord, Evidence, Exit, JournalCollection};

/// The parts of a record's committed scenario (`manifest.scenario`) that
/// the reports show. The commitment is checked against its digest on
/// import; this reads it, keys the reports do not show are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CommittedScenario {
    /// The executable as resolved.
    pub executable: String,
    /// Its arguments.
    pub arguments: Vec<String>,
    /// The working directory.
    pub working_directory: String,
    /// The environment given to the command (beyond rea's own).
    pub environment: BTreeMap<String, String>,
    /// The observed filesystem roots.
    pub filesystem_observation_paths: Vec<String>,
    /// The terminal size.
    pub terminal: CommittedTerminal,
}

/// `manifest.scenario.terminal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct CommittedTerminal {
    /// Width in cells.
    pub columns: u16,
    /// Height in cells.
    pub rows: u16,
}

impl CommittedScenario {
    /// The committed scenario of `record`, read from `source_name`; an
    /// error names the JSON path of what does not have the shape this build
    /// commits.
    pub fn of(source_name: &str, record: &CaptureRecord) -> Result<CommittedScenario, ReportError> {
        read(source_name, &record.manifest.scenario, "normalized_result.manifest.scenario")
    }
}

/// What a comparison's `parameters` say about the two captures it compares.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ComparedCaptures {
    /// The left (authority) capture.
    pub left_evidence_id: String,
    /// The right (reconstruction) capture.
    pub right_evidence_id: String,
    /// The timing tolerance the comparison applied.
    pub timing_tolerance_ms: u64,
    /// What decided the terminal dimension (absent: `stream`).
    #[serde(default)]
    pub terminal_lens: crate::compare::TerminalLens,
    /// The sides' commands named `<side>` in the process dimension (absent:
    /// none).
    #[serde(default)]
    pub side_commands: Option<SideCommandNames>,
}

/// The words each side's root command line holds where the other's holds
/// other words (`parameters.side_commands`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SideCommandNames {
    /// The left side's words.
    pub left: String,
    /// The right side's words.
    pub right: String,
}

impl ComparedCaptures {
    /// The parameters of the comparison `envelope`, read from `source_name`.
    pub fn of(source_name: &str, envelope: &Evidence) -> Result<ComparedCaptures, ReportError> {
        read(source_name, &envelope.parameters, "parameters")
    }
}

/// `value` (at `path` of `source_name`) as `T`.
fn read<T: serde::de::DeserializeOwned>(source_name: &str, value: &Value, path: &str) -> Result<T, ReportError> {
    crate::evidence::typed(value, path).map_err(|(path, reason)| ReportError::Malformed {
        source_name: source_name.to_owned(),
        path,
        reason,
    })
}

/// The capture order of each journalled entry, to order entries recorded at
/// the same millisecond as they happened.
pub struct JournalOrder(HashMap<(JournalCollection, u64), u64>);

impl JournalOrder {
    /// Reads a capture record's `event_journal`.
    pub fn of(record: &CaptureRecord) -> JournalOrder {
        JournalOrder(record.event_journal.iter().map(|e| ((e.collection, e.index), e.capture_order)).collect())
    }

    /// The capture order of `collection[index]`; unjournalled entries sort last.
    pub fn of_entry(&self, collection: JournalCollection, index: usize) -> u64 {
        self.0.get(&(collection, index as u64)).copied().unwrap_or(u64::MAX)
    }
}

/// Milliseconds since the Unix epoch of an RFC 3339 UTC timestamp as rea
/// writes it (`2026-12-01T06:30:05.434Z`).
pub fn iso8601_ms(text: &str) -> Option<i64> {
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
pub fn command_line(scenario: &CommittedScenario) -> String {
    let mut line = scenario.executable.clone();
    for arg in &scenario.arguments {
        line.push(' ');
        line.push_str(&shell_quote(arg));
    }
    line
}

fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if plain { arg.to_owned() } else { format!("'{}'", arg.replace('\'', "'\\''")) }
}

/// A signal number's name, for the common ones.
fn signal_name(number: i64) -> Option<&'static str> {
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
pub fn exit_summary(exit: &Exit) -> String {
    let reason = exit.reason;
    match (exit.code, exit.signal) {
        (_, signal) if signal > 0 => match signal_name(signal) {
            Some(name) => format!("signal {signal} {name} ({reason})"),
            None => format!("signal {signal} ({reason})"),
        },
        (Some(code), _) => format!("code {code} ({reason})"),
        (None, _) => format!("no exit status ({reason})"),
    }
}

/// `text` with control characters made visible (`\r`, `\n`, `\t`, `\e`,
/// `\xNN`), cut to about `max` characters with `…`.
pub fn escape_excerpt(text: &str, max: usize) -> String {
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
    use crate::evidence::ExitReason;

    #[test]
    fn timestamps_and_exits_read_as_written() {
        assert_eq!(iso8601_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(iso8601_ms("2026-12-01T06:30:05.434Z"), Some(1_796_106_605_434));
        assert_eq!(iso8601_ms("2000-02-29T23:59:59.5Z"), Some(951_868_799_500));
        assert_eq!(iso8601_ms("yesterday"), None);
        let exit = |code, signal, reason| exit_summary(&Exit { code, signal, reason, finalization: None });
        assert_eq!(exit(Some(3), 0, ExitReason::Exited), "code 3 (exited)");
        assert_eq!(exit(None, 9, ExitReason::Timeout), "signal 9 SIGKILL (timeout)");
        assert_eq!(exit(None, 0, ExitReason::Timeout), "no exit status (timeout)");
        assert_eq!(escape_excerpt("a\r\n\u{1b}[1mb", 100), "a\\r\\n\\e[1mb");
        assert_eq!(escape_excerpt("abcdef", 3), "abc…");
    }

    #[test]
    fn a_command_line_quotes_what_a_shell_would_split() {
        let scenario: CommittedScenario = serde_json::from_value(serde_json::json!({
            "executable": "/bin/sh", "arguments": ["-c", "echo 'hi'"], "working_directory": "/w",
            "environment": {}, "filesystem_observation_paths": [], "terminal": {"columns": 80, "rows": 24},
            "timeout_ms": 1
        }))
        .unwrap();
        assert_eq!(command_line(&scenario), "/bin/sh -c 'echo '\\''hi'\\'''");
    }
}
