//! Normalization of terminal text for comparison, in ordered, bounded stages.
//!
//! Stages run in this order, each a literal replace-all: host paths
//! (temporary root, working directory, executable, each observation root),
//! the launched process's PID where the text names it as a PID (see
//! [`replace_pid`]), endpoint ports (`endpoint-ports-v1`), then the
//! scenario's literal patterns (`literal-replacements-v1`). Every stage is
//! bounded by the remaining normalized-text budget: when a stage's output
//! would exceed it, normalization stops and reports whether the final size is
//! known (only after the last stage) or unknown.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::scenario::{Normalization, Pattern};

/// Result of normalizing one chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Normalized {
    /// The normalized text, within the budget.
    Text(String),
    /// The final text would exceed the budget; its size is `Some` when the
    /// last stage finished, `None` when an earlier stage already exceeded.
    OverBudget(Option<u64>),
}

/// The normalization rules of one capture.
#[derive(Debug, Clone)]
pub struct Normalizer {
    paths: Vec<(String, String)>,
    pid: Option<String>,
    ports: bool,
    patterns: Vec<Pattern>,
}

/// Host values the path and PID stages replace.
#[derive(Debug, Clone, Default)]
pub struct HostValues {
    /// The private temporary root.
    pub temporary_root: Option<String>,
    /// The resolved working directory.
    pub working_directory: Option<String>,
    /// The resolved executable.
    pub executable: Option<String>,
    /// The resolved observation roots.
    pub roots: Vec<String>,
    /// The launched process's PID.
    pub pid: Option<u32>,
}

impl Normalizer {
    /// Builds the rules for `settings` and this run's host values.
    pub fn new(settings: &Normalization, host: &HostValues) -> Normalizer {
        let mut paths = Vec::new();
        if settings.paths {
            let mut push = |value: &Option<String>, placeholder: String| {
                if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
                    paths.push((v.clone(), placeholder));
                }
            };
            push(&host.temporary_root, "<temporary-root>".into());
            push(&host.working_directory, "<working-directory>".into());
            push(&host.executable, "<executable>".into());
            for (i, root) in host.roots.iter().enumerate() {
                push(&Some(root.clone()), format!("<filesystem-root-{i}>"));
            }
        }
        Normalizer {
            paths,
            pid: if settings.pids { host.pid.map(|p| p.to_string()) } else { None },
            ports: settings.ports,
            patterns: settings.patterns.clone(),
        }
    }

    /// Normalizes `text` within `budget` bytes.
    pub fn normalize(&self, text: &str, budget: u64) -> Normalized {
        let stages = self.paths.len() + usize::from(self.pid.is_some()) + usize::from(self.ports) + self.patterns.len();
        // A stage that changes nothing keeps the borrowed text: chunks without
        // host paths, PIDs or ports are not copied once per stage.
        let mut current = Cow::Borrowed(text);
        let mut stage = 0;
        let mut apply = |current: &mut Cow<'_, str>, run: &dyn Fn(&str) -> Step| -> Option<Normalized> {
            stage += 1;
            match run(current) {
                Step::Same => None,
                Step::Changed(s) => {
                    *current = Cow::Owned(s);
                    None
                }
                Step::Over(size) => Some(Normalized::OverBudget(size.filter(|_| stage == stages))),
            }
        };
        for (from, to) in &self.paths {
            if let Some(over) = apply(&mut current, &|t| literal(t, from, to, budget)) {
                return over;
            }
        }
        if let Some(pid) = &self.pid
            && let Some(over) = apply(&mut current, &|t| replace_pid(t, pid, "<pid>", budget).unknown_size())
        {
            return over;
        }
        if self.ports
            && let Some(over) = apply(&mut current, &|t| normalize_ports(t, budget).unknown_size())
        {
            return over;
        }
        for p in &self.patterns {
            if let Some(over) = apply(&mut current, &|t| literal(t, &p.pattern, &p.replacement, budget)) {
                return over;
            }
        }
        if current.len() as u64 > budget {
            return Normalized::OverBudget(Some(current.len() as u64));
        }
        Normalized::Text(current.into_owned())
    }

    /// Normalizes text that has no budget (recorded inputs, sampled commands).
    pub fn normalize_unbounded(&self, text: &str) -> String {
        match self.normalize(text, u64::MAX) {
            Normalized::Text(t) => t,
            // Nothing exceeds u64::MAX bytes.
            Normalized::OverBudget(_) => text.to_owned(),
        }
    }
}

/// The outcome of one normalization stage.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Nothing matched and the text fits.
    Same,
    /// The replaced text, within the cap.
    Changed(String),
    /// The result exceeds the cap; its size when it was determined exactly.
    Over(Option<u64>),
}

impl Step {
    /// Forgets an exceeded size: the stage stopped before knowing it.
    fn unknown_size(self) -> Step {
        match self {
            Step::Over(_) => Step::Over(None),
            other => other,
        }
    }

    /// The text after this stage.
    #[cfg(test)]
    pub(crate) fn into_text(self, original: &str) -> Option<String> {
        match self {
            Step::Same => Some(original.to_owned()),
            Step::Changed(s) => Some(s),
            Step::Over(_) => None,
        }
    }
}

/// Length of `text` with every `from` replaced by `to` (no allocation).
fn replaced_len(text: &str, from: &str, to: &str) -> u64 {
    if from.is_empty() {
        let boundaries = text.chars().count() + 1;
        return (text.len() + boundaries * to.len()) as u64;
    }
    let n = text.matches(from).count();
    (text.len() - n * from.len() + n * to.len()) as u64
}

/// Literal replace-all within `cap` bytes. An empty `from` matches at every
/// character boundary, start and end included.
fn literal(text: &str, from: &str, to: &str, cap: u64) -> Step {
    let len = replaced_len(text, from, to);
    if len > cap {
        Step::Over(Some(len))
    } else if !from.is_empty() && len == text.len() as u64 && !text.contains(from) {
        Step::Same
    } else {
        Step::Changed(text.replace(from, to))
    }
}

/// Replaces the byte ranges `spans` (ascending, disjoint) of `text` with
/// `to`, within `cap` bytes.
fn splice(text: &str, spans: impl IntoIterator<Item = (usize, usize)>, to: &str, cap: u64) -> Step {
    let mut out = String::new();
    let mut last = 0;
    for (start, end) in spans {
        if last == 0 && out.is_empty() {
            out.reserve(text.len());
        }
        out.push_str(&text[last..start]);
        out.push_str(to);
        last = end;
        if out.len() as u64 > cap {
            return Step::Over(None);
        }
    }
    if last == 0 && out.is_empty() {
        return if text.len() as u64 > cap { Step::Over(Some(text.len() as u64)) } else { Step::Same };
    }
    out.push_str(&text[last..]);
    if out.len() as u64 > cap { Step::Over(Some(out.len() as u64)) } else { Step::Changed(out) }
}

/// Replaces each of `numbers` (decimal digits) where no ASCII digit is
/// adjacent on either side, that is each whole run of digits that is one
/// of them, with `to`; `None`: nothing replaced. One pass over `text`
/// whatever the count of numbers (a journal of thousands of processes
/// looks for every PID in every command).
pub(crate) fn replace_numbers(text: &str, numbers: &HashSet<String>, to: &str) -> Option<String> {
    if numbers.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let mut at = 0;
    let runs = std::iter::from_fn(|| {
        loop {
            let start = at + bytes.get(at..)?.iter().position(u8::is_ascii_digit)?;
            let end = bytes[start..].iter().position(|b| !b.is_ascii_digit()).map_or(bytes.len(), |n| start + n);
            at = end;
            if numbers.contains(&text[start..end]) {
                return Some((start, end));
            }
        }
    });
    match splice(text, runs, to, u64::MAX) {
        Step::Changed(replaced) => Some(replaced),
        Step::Same | Step::Over(_) => None,
    }
}

/// Replaces `pid` (with no ASCII digit adjacent) only where the text names
/// it as a process ID: after the word `pid`, `ppid` or `process` (any case:
/// `pid 42`, `PID: 42`, `ppid=42`, `pid #42`) or a name ending in `_pid` or
/// `Pid` (`child_pid=42`, `childPid: 42`), after `/proc/`, or as
/// `name[42]`. A bare number that happens to equal the PID (`seq 1 40000`
/// prints every PID up to 40000) is data and stays, so a capture compares
/// equal to itself whatever PID the run got.
pub(crate) fn replace_pid(text: &str, pid: &str, to: &str, cap: u64) -> Step {
    let bytes = text.as_bytes();
    let spans = text.match_indices(pid).map(|(i, m)| (i, i + m.len())).filter(|&(start, end)| {
        let before = start.checked_sub(1).map(|j| bytes[j]);
        !before.is_some_and(|b| b.is_ascii_digit())
            && !bytes.get(end).is_some_and(u8::is_ascii_digit)
            && names_a_pid(bytes, start, end)
    });
    splice(text, spans, to, cap)
}

/// Whether the number at `start..end` stands in a PID context.
fn names_a_pid(bytes: &[u8], start: usize, end: usize) -> bool {
    let head = &bytes[..start];
    if head.ends_with(b"/proc/") {
        return true;
    }
    if head.ends_with(b"[") && start >= 2 && is_word(bytes[start - 2]) && bytes.get(end) == Some(&b']') {
        return true;
    }
    // Up to three separators (` `, `:`, `=`, `#`) between the word and the number.
    let mut j = start;
    while j > 0 && start - j < 3 && matches!(bytes[j - 1], b' ' | b':' | b'=' | b'#') {
        j -= 1;
    }
    let mut k = j;
    while k > 0 && is_word(bytes[k - 1]) {
        k -= 1;
    }
    let word = &bytes[k..j];
    let lower = word.to_ascii_lowercase();
    matches!(lower.as_slice(), b"pid" | b"ppid" | b"process") || lower.ends_with(b"_pid") || word.ends_with(b"Pid")
}

const PORT_KEYS: [&str; 4] = ["tcp_port", "udp_port", "port", "listen"];

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Where a port value starts after a recognized context ending at `i`
/// (the index of the byte after the context).
fn port_after(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    let start = i;
    let mut end = start;
    while end < bytes.len() && bytes[end].is_ascii_digit() && end - start < 6 {
        end += 1;
    }
    let digits = end - start;
    if digits == 0 || digits > 5 {
        return None;
    }
    let value: u32 = std::str::from_utf8(&bytes[start..end]).ok()?.parse().ok()?;
    if value > 65_535 {
        return None;
    }
    match bytes.get(end) {
        None => Some((start, end)),
        Some(b'.') => match bytes.get(end + 1) {
            // A period ending the chunk: the continuation is unknown.
            None => None,
            // A period followed by a letter or digit continues a decimal,
            // version or host name.
            Some(&c) if c.is_ascii_alphanumeric() => None,
            // A sentence-ending period.
            Some(_) => Some((start, end)),
        },
        Some(&c) if is_word(c) => None,
        Some(_) => Some((start, end)),
    }
}

/// If an explicit port field (`port`, `tcp_port`, `udp_port`, `listen`) ends
/// at `key_end`, returns the index where its value starts.
fn field_value_start(bytes: &[u8], key_start: usize, key_end: usize) -> Option<usize> {
    if key_start > 0 && is_word(bytes[key_start - 1]) {
        return None;
    }
    let mut i = key_end;
    if matches!(bytes.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    if !matches!(bytes.get(i), Some(b':' | b'=')) {
        return None;
    }
    i += 1;
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    if matches!(bytes.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    Some(i)
}

/// Scans backwards from a `:` at `colon` for a recognized endpoint host:
/// `localhost`, an IPv4 address, a bracketed IPv6 address, or any host of a
/// URL authority (`scheme://[userinfo@]host`).
fn endpoint_before(bytes: &[u8], colon: usize) -> bool {
    let host_end = colon;
    let mut start = host_end;
    if start > 0 && bytes[start - 1] == b']' {
        // Bracketed IPv6.
        match bytes[..start - 1].iter().rposition(|&b| b == b'[') {
            Some(open) => {
                let inner = &bytes[open + 1..start - 1];
                return !inner.is_empty() && inner.iter().all(|b| b.is_ascii_hexdigit() || *b == b':' || *b == b'.');
            }
            None => return false,
        }
    }
    while start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || matches!(bytes[start - 1], b'.' | b'-' | b'_')) {
        start -= 1;
    }
    let host = &bytes[start..host_end];
    if host.is_empty() {
        return false;
    }
    // URL authority: `scheme://` or `scheme://user@` precedes the host.
    let mut k = start;
    if k > 0 && bytes[k - 1] == b'@' {
        k -= 1;
        while k > 0 && !matches!(bytes[k - 1], b'/' | b' ' | b'\t' | b'\n' | b'\r') {
            k -= 1;
        }
    }
    if k >= 3 && &bytes[k - 3..k] == b"://" {
        let mut s = k - 3;
        while s > 0 && (bytes[s - 1].is_ascii_alphanumeric() || matches!(bytes[s - 1], b'+' | b'.' | b'-')) {
            s -= 1;
        }
        if s < k - 3 && bytes[s].is_ascii_alphabetic() {
            return true;
        }
    }
    if start > 0 && is_word(bytes[start - 1]) {
        return false;
    }
    if host.eq_ignore_ascii_case(b"localhost") {
        return true;
    }
    let parts: Vec<&[u8]> = host.split(|&b| b == b'.').collect();
    parts.len() == 4
        && parts.iter().all(|p| !p.is_empty() && p.len() <= 3 && p.iter().all(u8::is_ascii_digit))
        && parts
            .iter()
            .all(|p| std::str::from_utf8(p).ok().and_then(|s| s.parse::<u16>().ok()).is_some_and(|v| v <= 255))
}

/// Replaces recognized endpoint ports with `<port>` (`endpoint-ports-v1`)
/// within `cap` bytes. Keys are matched case-insensitively in place.
pub(crate) fn normalize_ports(text: &str, cap: u64) -> Step {
    let bytes = text.as_bytes();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let mut found = None;
        if bytes[i] == b':' && endpoint_before(bytes, i) {
            found = port_after(bytes, i + 1);
        } else if matches!(bytes[i].to_ascii_lowercase(), b'p' | b't' | b'u' | b'l') {
            for key in PORT_KEYS {
                let end = i + key.len();
                if bytes.get(i..end).is_some_and(|k| k.eq_ignore_ascii_case(key.as_bytes()))
                    && let Some(v) = field_value_start(bytes, i, end)
                {
                    found = port_after(bytes, v);
                    if found.is_some() {
                        break;
                    }
                }
            }
        }
        match found {
            Some((s, e)) => {
                spans.push((s, e));
                i = e;
            }
            None => i += 1,
        }
    }
    splice(text, spans, "<port>", cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `replace_numbers` replaced before it was one pass: each number
    /// in turn, wherever no ASCII digit is adjacent.
    fn replace_each(text: &str, numbers: &[String], to: &str) -> String {
        let mut text = text.to_owned();
        for number in numbers {
            let bytes = text.as_bytes();
            let spans = text.match_indices(number.as_str()).map(|(i, m)| (i, i + m.len())).filter(|&(start, end)| {
                let before = start.checked_sub(1).map(|j| bytes[j]);
                !before.is_some_and(|b| b.is_ascii_digit()) && !bytes.get(end).is_some_and(u8::is_ascii_digit)
            });
            text = splice(&text, spans, to, u64::MAX).into_text(&text).unwrap();
        }
        text
    }

    #[test]
    fn replacing_numbers_in_one_pass_equals_replacing_each_in_turn() {
        // Texts of digits, letters, separators and multi-byte characters
        // from a small generator, against sets of short numbers (so that
        // they meet inside longer runs, at the edges and next to each other).
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let alphabet = ["1", "2", "3", "12", "0", "a", " ", "/", "é", "[", "]", "<pid>"];
        for case in 0..5_000 {
            let text: String = (0..next(24)).map(|_| alphabet[next(alphabet.len() as u64) as usize]).collect();
            let numbers: Vec<String> = (0..next(5)).map(|_| (1 + next(400)).to_string()).collect();
            let set: HashSet<String> = numbers.iter().cloned().collect();
            let expected = replace_each(&text, &numbers, "<pid>");
            let got = replace_numbers(&text, &set, "<pid>");
            assert_eq!(got.as_deref().unwrap_or(&text), expected, "case {case}: {text:?} with {numbers:?}");
            assert_eq!(got.is_some(), expected != text, "case {case}: None means unchanged");
        }
    }

    /// A normalizer with only the given literal patterns.
    fn patterns_only(patterns: &[(&str, &str)]) -> Normalizer {
        let settings = Normalization {
            paths: false,
            pids: false,
            ports: false,
            patterns: patterns
                .iter()
                .map(|(p, r)| Pattern { pattern: (*p).into(), replacement: (*r).into() })
                .collect(),
            ..Normalization::default()
        };
        Normalizer::new(&settings, &HostValues::default())
    }

    fn ports(s: &str) -> String {
        normalize_ports(s, u64::MAX).into_text(s).unwrap()
    }

    #[test]
    fn explicit_port_fields() {
        assert_eq!(ports("port: 8080"), "port: <port>");
        assert_eq!(ports("listen=3000 ok"), "listen=<port> ok");
        assert_eq!(ports(r#"{"tcp_port": 443}"#), r#"{"tcp_port": <port>}"#);
        assert_eq!(ports("PORT=5000"), "PORT=<port>");
        assert_eq!(ports("export_port=5000"), "export_port=5000");
        assert_eq!(ports("port: 70000"), "port: 70000");
    }

    #[test]
    fn endpoints() {
        assert_eq!(ports("http://example.com:8080/x"), "http://example.com:<port>/x");
        assert_eq!(ports("postgres://u:p@db:5432/app"), "postgres://u:p@db:<port>/app");
        assert_eq!(ports("on 127.0.0.1:9000"), "on 127.0.0.1:<port>");
        assert_eq!(ports("at [::1]:7000"), "at [::1]:<port>");
        assert_eq!(ports("localhost:3000"), "localhost:<port>");
    }

    #[test]
    fn sentence_periods_and_continuations() {
        assert_eq!(ports("port: 8080. Next"), "port: <port>. Next");
        assert_eq!(ports("port: 8080.5"), "port: 8080.5");
        assert_eq!(ports("localhost:80.example"), "localhost:80.example");
        // A period ending the chunk leaves the value unchanged.
        assert_eq!(ports("port: 8080."), "port: 8080.");
    }

    #[test]
    fn ordinary_numbers_stay() {
        assert_eq!(ports("12:30:45"), "12:30:45");
        assert_eq!(ports("a=42 size 80x24"), "a=42 size 80x24");
        assert_eq!(ports("src/main.rs:42"), "src/main.rs:42");
        assert_eq!(ports("db:5432"), "db:5432");
        assert_eq!(ports("999.1.1.1:80"), "999.1.1.1:80");
    }

    #[test]
    fn literal_patterns_keep_dollar_sequences() {
        let n = patterns_only(&[("id", "$&-$$")]);
        assert_eq!(n.normalize("an id", 100), Normalized::Text("an $&-$$".into()));
    }

    #[test]
    fn empty_pattern_matches_every_boundary() {
        let n = patterns_only(&[("", "|")]);
        assert_eq!(n.normalize("ab", 100), Normalized::Text("|a|b|".into()));
        assert_eq!(n.normalize("", 100), Normalized::Text("|".into()));
    }

    #[test]
    fn paths_then_pid() {
        let host = HostValues {
            working_directory: Some("/w".into()),
            roots: vec!["/w/r".into()],
            pid: Some(42),
            ..HostValues::default()
        };
        let n = Normalizer::new(&Normalization::default(), &host);
        assert_eq!(
            n.normalize("/w/r pid 42 not 420", 100),
            Normalized::Text("<working-directory>/r pid <pid> not 420".into())
        );
    }

    #[test]
    fn the_pid_is_replaced_only_where_it_names_a_process() {
        let host = HostValues { pid: Some(4242), ..HostValues::default() };
        let n = Normalizer::new(&Normalization::default(), &host);
        let text = |s: &str| match n.normalize(s, 1000) {
            Normalized::Text(t) => t,
            other => panic!("{other:?}"),
        };
        assert_eq!(text("pid 4242"), "pid <pid>");
        assert_eq!(text("PID: 4242, ppid=4242"), "PID: <pid>, ppid=<pid>");
        assert_eq!(text("server[4242]: up"), "server[<pid>]: up");
        assert_eq!(text("cat /proc/4242/stat"), "cat /proc/<pid>/stat");
        assert_eq!(text("process 4242 exited"), "process <pid> exited");
        // Data that happens to contain the number stays as it is.
        assert_eq!(text("4241\r\n4242\r\n4243\r\n"), "4241\r\n4242\r\n4243\r\n");
        assert_eq!(text("total 4242 bytes, [4242], rapid 4242"), "total 4242 bytes, [4242], rapid 4242");
        assert_eq!(text("child_pid=4242 childPid: 4242"), "child_pid=<pid> childPid: <pid>");
    }

    #[test]
    fn budget_unknown_before_last_stage() {
        let host = HostValues { working_directory: Some("/w".into()), ..HostValues::default() };
        let n = Normalizer::new(&Normalization::default(), &host);
        // The path stage already exceeds 10 bytes; ports and pids follow.
        assert_eq!(n.normalize("/w", 10), Normalized::OverBudget(None));
        let plain = patterns_only(&[]);
        assert_eq!(plain.normalize("hello", 3), Normalized::OverBudget(Some(5)));
    }
}
