//! The token reader's output format, version 1 (documented in
//! `swift-helper/README.md`).
//!
//! ```text
//! rea-token-reader 1
//! process 4242 start 1733040000.123456 unique 98765 token 3f2a
//! process 4243 start 1733040001.000001 unique - no-token
//! error 4244 gone
//! error 4245 permission-denied
//! error 4246 malformed-arguments
//! done 5
//! ```
//!
//! Every requested PID gets exactly one `process` or `error` line; the
//! `done` line counts them, so a helper that died half-way is told apart
//! from one that answered. Token values are hex-encoded bytes, so any value
//! a foreign process placed in its environment stays on one line.

use rea_engine::host::{Pid, StartTime};

/// The first line of every answer.
pub const HEADER: &str = "rea-token-reader 1";

/// A process's native start identity: `proc_bsdinfo`'s start time and, where
/// the kernel provides it, `p_uniqueid` (unique per boot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StartIdentity {
    /// `pbi_start_tvsec`.
    pub seconds: u64,
    /// `pbi_start_tvusec` (below 1,000,000).
    pub micros: u32,
    /// `p_uniqueid`, when available.
    pub unique: Option<u64>,
}

impl StartIdentity {
    /// The engine's opaque start identity: microseconds since the epoch.
    pub fn start_time(&self) -> StartTime {
        StartTime(self.seconds.saturating_mul(1_000_000).saturating_add(u64::from(self.micros)))
    }

    /// Whether two reads name the same process: equal start times, and equal
    /// unique IDs when both reads have one.
    pub fn same_process(&self, other: &StartIdentity) -> bool {
        self.seconds == other.seconds
            && self.micros == other.micros
            && match (self.unique, other.unique) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

/// Why the helper could not give a PID's token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError {
    /// No such process (or it exited during the read).
    Gone,
    /// The kernel refused to show its arguments area (another user's process,
    /// or a sandbox).
    PermissionDenied,
    /// Its `KERN_PROCARGS2` area did not have the documented layout (for
    /// example after the process rewrote its argv memory).
    MalformedArguments,
}

/// What the helper read for one PID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// The process, its identity, and its `REA_PROCESS_RUN_ID` value if set.
    Process {
        /// Start identity read together with the token.
        identity: StartIdentity,
        /// The raw bytes of the token's value; `None` when the variable is absent.
        token: Option<Vec<u8>>,
    },
    /// The read failed.
    Error(ReadError),
}

/// Why an answer could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The first line is not the version-1 header.
    #[error(
        "the token reader answered {found:?} instead of the header {HEADER:?}; rebuild rea so the helper and its parser match"
    )]
    Header {
        /// The first line (cut to 80 bytes).
        found: String,
    },
    /// A line has an unknown shape.
    #[error("line {line} of the token reader's answer is malformed: {text:?}")]
    Malformed {
        /// 1-based line number.
        line: usize,
        /// The line (cut to 80 bytes).
        text: String,
    },
    /// The answer has no `done` line, or its count disagrees.
    #[error("the token reader's answer is incomplete: {0}")]
    Incomplete(String),
    /// A PID was answered that was not asked, or twice, or not at all.
    #[error("the token reader answered for the wrong PIDs: {0}")]
    Pids(String),
}

fn cut(text: &str) -> String {
    let mut end = text.len().min(80);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

fn parse_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok()).collect()
}

fn parse_start(text: &str) -> Option<(u64, u32)> {
    let (seconds, micros) = text.split_once('.')?;
    if micros.len() != 6 || !micros.bytes().all(|b| b.is_ascii_digit()) || !seconds.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some((seconds.parse().ok()?, micros.parse().ok()?))
}

fn parse_pid(text: &str) -> Option<Pid> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|p| *p > 0).map(Pid)
}

/// One `process` or `error` line.
fn parse_line(line: &str) -> Option<(Pid, Reading)> {
    let fields: Vec<&str> = line.split(' ').collect();
    match fields.as_slice() {
        ["process", pid, "start", start, "unique", unique, rest @ ..] => {
            let (seconds, micros) = parse_start(start)?;
            let unique = match *unique {
                "-" => None,
                u if u.bytes().all(|b| b.is_ascii_digit()) => Some(u.parse().ok()?),
                _ => return None,
            };
            let token = match rest {
                ["token", hex] => Some(parse_hex(hex)?),
                ["no-token"] => None,
                _ => return None,
            };
            Some((parse_pid(pid)?, Reading::Process { identity: StartIdentity { seconds, micros, unique }, token }))
        }
        ["error", pid, kind] => {
            let error = match *kind {
                "gone" => ReadError::Gone,
                "permission-denied" => ReadError::PermissionDenied,
                "malformed-arguments" => ReadError::MalformedArguments,
                _ => return None,
            };
            Some((parse_pid(pid)?, Reading::Error(error)))
        }
        _ => None,
    }
}

/// Parses a complete answer to a request for `requested`, in request order.
pub fn parse(text: &str, requested: &[Pid]) -> Result<Vec<(Pid, Reading)>, ProtocolError> {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    if first != HEADER {
        return Err(ProtocolError::Header { found: cut(first) });
    }
    let mut readings: Vec<(Pid, Reading)> = Vec::with_capacity(requested.len());
    let mut done = None;
    for (index, line) in lines.enumerate() {
        let number = index + 2;
        if done.is_some() {
            return Err(ProtocolError::Malformed { line: number, text: cut(line) });
        }
        if let Some(count) = line.strip_prefix("done ") {
            done =
                Some(count.parse::<usize>().map_err(|_| ProtocolError::Malformed { line: number, text: cut(line) })?);
            continue;
        }
        let (pid, reading) =
            parse_line(line).ok_or_else(|| ProtocolError::Malformed { line: number, text: cut(line) })?;
        if !requested.contains(&pid) || readings.iter().any(|(p, _)| *p == pid) {
            return Err(ProtocolError::Pids(format!("PID {pid} was not asked for, or was answered twice")));
        }
        readings.push((pid, reading));
    }
    match done {
        None => return Err(ProtocolError::Incomplete("no `done` line (the helper stopped early)".into())),
        Some(n) if n != readings.len() => {
            return Err(ProtocolError::Incomplete(format!("`done {n}` after {} answers", readings.len())));
        }
        Some(_) => {}
    }
    requested
        .iter()
        .map(|pid| {
            let index = readings
                .iter()
                .position(|(p, _)| p == pid)
                .ok_or_else(|| ProtocolError::Pids(format!("PID {pid} was asked for and not answered")))?;
            Ok(readings.swap_remove(index))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer recorded in the documented format, covering every outcome.
    const RECORDED: &str = "rea-token-reader 1
process 4242 start 1733040000.123456 unique 98765 token 3f2a
process 4243 start 1733040001.000001 unique - no-token
error 4244 gone
error 4245 permission-denied
error 4246 malformed-arguments
done 5
";

    fn pids(list: &[u32]) -> Vec<Pid> {
        list.iter().copied().map(Pid).collect()
    }

    #[test]
    fn every_outcome_of_a_recorded_answer_parses() {
        let got = parse(RECORDED, &pids(&[4242, 4243, 4244, 4245, 4246])).unwrap();
        assert_eq!(
            got,
            vec![
                (
                    Pid(4242),
                    Reading::Process {
                        identity: StartIdentity { seconds: 1_733_040_000, micros: 123_456, unique: Some(98765) },
                        token: Some(vec![0x3f, 0x2a]),
                    }
                ),
                (
                    Pid(4243),
                    Reading::Process {
                        identity: StartIdentity { seconds: 1_733_040_001, micros: 1, unique: None },
                        token: None,
                    }
                ),
                (Pid(4244), Reading::Error(ReadError::Gone)),
                (Pid(4245), Reading::Error(ReadError::PermissionDenied)),
                (Pid(4246), Reading::Error(ReadError::MalformedArguments)),
            ]
        );
    }

    #[test]
    fn answers_come_back_in_request_order() {
        let got = parse(RECORDED, &pids(&[4246, 4242, 4245, 4244, 4243])).unwrap();
        let order: Vec<u32> = got.iter().map(|(p, _)| p.0).collect();
        assert_eq!(order, [4246, 4242, 4245, 4244, 4243]);
    }

    #[test]
    fn an_empty_token_value_is_present_and_empty() {
        let text = "rea-token-reader 1\nprocess 7 start 1.000000 unique 1 token \ndone 1\n";
        let got = parse(text, &pids(&[7])).unwrap();
        assert!(matches!(&got[0].1, Reading::Process { token: Some(t), .. } if t.is_empty()));
    }

    #[test]
    fn a_wrong_header_names_what_was_found() {
        let err = parse("rea-token-reader 2\ndone 0\n", &[]).unwrap_err();
        assert_eq!(err, ProtocolError::Header { found: "rea-token-reader 2".into() });
        assert!(err.to_string().contains("rebuild rea"));
        assert!(matches!(parse("", &[]), Err(ProtocolError::Header { .. })));
    }

    #[test]
    fn malformed_lines_are_rejected_with_their_number() {
        let bad = [
            "process 7 start 1.5 unique 1 no-token",       // micros not six digits
            "process 7 start 1.000000 unique x no-token",  // unique not a number
            "process 7 start 1.000000 unique 1 token 3g",  // not hex
            "process 7 start 1.000000 unique 1 token abc", // odd length
            "process 7 start 1.000000 unique 1",           // no token field
            "process 0 start 1.000000 unique 1 no-token",  // PID 0
            "process -7 start 1.000000 unique 1 no-token", // sign
            "error 7 vanished",                            // unknown error
            "error 7",                                     // short
            "process  7 start 1.000000 unique 1 no-token", // double space
        ];
        for line in bad {
            let text = format!("{HEADER}\n{line}\ndone 1\n");
            assert_eq!(
                parse(&text, &pids(&[7])),
                Err(ProtocolError::Malformed { line: 2, text: line.to_owned() }),
                "{line}"
            );
        }
    }

    #[test]
    fn an_answer_cut_short_or_miscounted_is_incomplete() {
        let short = "rea-token-reader 1\nerror 7 gone\n";
        assert!(matches!(parse(short, &pids(&[7, 8])), Err(ProtocolError::Incomplete(_))));
        let miscounted = "rea-token-reader 1\nerror 7 gone\ndone 2\n";
        assert!(matches!(parse(miscounted, &pids(&[7])), Err(ProtocolError::Incomplete(_))));
        let trailing = "rea-token-reader 1\nerror 7 gone\ndone 1\nerror 8 gone\n";
        assert!(matches!(parse(trailing, &pids(&[7, 8])), Err(ProtocolError::Malformed { line: 4, .. })));
    }

    #[test]
    fn unasked_duplicate_or_missing_pids_are_rejected() {
        let unasked = "rea-token-reader 1\nerror 9 gone\ndone 1\n";
        assert!(matches!(parse(unasked, &pids(&[7])), Err(ProtocolError::Pids(_))));
        let twice = "rea-token-reader 1\nerror 7 gone\nerror 7 gone\ndone 2\n";
        assert!(matches!(parse(twice, &pids(&[7])), Err(ProtocolError::Pids(_))));
        let missing = "rea-token-reader 1\nerror 7 gone\ndone 1\n";
        assert!(matches!(parse(missing, &pids(&[7, 8])), Err(ProtocolError::Pids(_))));
    }

    /// The Swift source cannot be compiled here; at least its output
    /// vocabulary must be the one this parser reads.
    #[cfg(unix)]
    #[test]
    fn the_swift_helper_prints_this_vocabulary() {
        let source = crate::compile::SOURCE;
        for needle in [
            format!("let header = \"{HEADER}\""),
            "case gone = \"gone\"".to_owned(),
            "case permissionDenied = \"permission-denied\"".to_owned(),
            "case malformedArguments = \"malformed-arguments\"".to_owned(),
            "\"error \\(pid) \\(f.rawValue)\"".to_owned(),
            "\"process \\(pid) start \\(start) unique \\(unique) \\(tail)\"".to_owned(),
            "\"no-token\"".to_owned(),
            "\"token \" + hex($0)".to_owned(),
            "print(\"done \\(pids.count)\")".to_owned(),
            "Array(\"REA_PROCESS_RUN_ID=\".utf8)".to_owned(),
        ] {
            assert!(source.contains(&needle), "main.swift lacks {needle}");
        }
        assert_eq!(rea_engine::scenario::RUN_TOKEN_VARIABLE, "REA_PROCESS_RUN_ID");
    }

    #[test]
    fn start_identities_compare_unique_ids_only_when_both_have_one() {
        let a = StartIdentity { seconds: 10, micros: 5, unique: Some(1) };
        assert!(a.same_process(&StartIdentity { unique: None, ..a }));
        assert!(!a.same_process(&StartIdentity { unique: Some(2), ..a }));
        assert!(!a.same_process(&StartIdentity { micros: 6, ..a }));
        assert_eq!(a.start_time(), StartTime(10_000_005));
    }
}
