//! Normalization of terminal text for comparison, in ordered, bounded stages.
//!
//! Stages run in this order, each a literal replace-all: host paths
//! (temporary root, working directory, executable, each observation root),
//! the launched process's PID, endpoint ports (`endpoint-ports-v1`), then the
//! scenario's literal patterns (`literal-replacements-v1`). Every stage is
//! bounded by the remaining normalized-text budget: when a stage's output
//! would exceed it, normalization stops and reports whether the final size is
//! known (only after the last stage) or unknown.

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

    /// Whether every stage is a no-op.
    pub fn is_identity(&self) -> bool {
        self.paths.is_empty() && self.pid.is_none() && !self.ports && self.patterns.is_empty()
    }

    /// Normalizes `text` within `budget` bytes.
    pub fn normalize(&self, text: &str, budget: u64) -> Normalized {
        let stages = self.paths.len() + usize::from(self.pid.is_some()) + usize::from(self.ports) + self.patterns.len();
        let mut current = std::borrow::Cow::Borrowed(text);
        let mut stage = 0;
        let over = |len: usize, stage: usize| -> Option<Normalized> {
            (len as u64 > budget).then(|| Normalized::OverBudget((stage == stages).then_some(len as u64)))
        };
        if stages == 0 {
            return match over(text.len(), 0) {
                Some(o) => o,
                None => Normalized::Text(text.to_owned()),
            };
        }
        for (from, to) in &self.paths {
            stage += 1;
            match replace_bounded(&current, from, to, budget) {
                Some(s) => current = std::borrow::Cow::Owned(s),
                None => return Normalized::OverBudget((stage == stages).then(|| replaced_len(&current, from, to))),
            }
        }
        if let Some(pid) = &self.pid {
            stage += 1;
            match replace_number(&current, pid, "<pid>", budget) {
                Some(s) => current = std::borrow::Cow::Owned(s),
                None => return Normalized::OverBudget(None),
            }
        }
        if self.ports {
            stage += 1;
            match normalize_ports(&current, budget) {
                Some(s) => current = std::borrow::Cow::Owned(s),
                None => return Normalized::OverBudget(None),
            }
        }
        for p in &self.patterns {
            stage += 1;
            match replace_bounded(&current, &p.pattern, &p.replacement, budget) {
                Some(s) => current = std::borrow::Cow::Owned(s),
                None => {
                    return Normalized::OverBudget(
                        (stage == stages).then(|| replaced_len(&current, &p.pattern, &p.replacement)),
                    );
                }
            }
        }
        match over(current.len(), stages) {
            Some(o) => o,
            None => Normalized::Text(current.into_owned()),
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

/// Literal replace-all, or `None` when the result would exceed `cap` bytes.
/// An empty `from` matches at every character boundary, start and end included.
pub(crate) fn replace_bounded(text: &str, from: &str, to: &str, cap: u64) -> Option<String> {
    if replaced_len(text, from, to) > cap {
        return None;
    }
    Some(text.replace(from, to))
}

/// Replaces `number` where no ASCII digit is adjacent on either side.
fn replace_number(text: &str, number: &str, to: &str, cap: u64) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (i, _) in text.match_indices(number) {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + number.len()).copied();
        if before.is_some_and(|b| b.is_ascii_digit()) || after.is_some_and(|b| b.is_ascii_digit()) {
            continue;
        }
        out.push_str(&text[last..i]);
        out.push_str(to);
        last = i + number.len();
        if out.len() as u64 > cap {
            return None;
        }
    }
    out.push_str(&text[last..]);
    (out.len() as u64 <= cap).then_some(out)
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

/// Replaces recognized endpoint ports with `<port>` (`endpoint-ports-v1`),
/// or `None` when the result would exceed `cap` bytes.
pub(crate) fn normalize_ports(text: &str, cap: u64) -> Option<String> {
    let bytes = text.as_bytes();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let lower = text.to_ascii_lowercase();
    let lbytes = lower.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = lbytes[i];
        let mut found = None;
        if b == b':' && endpoint_before(bytes, i) {
            found = port_after(bytes, i + 1);
        } else if matches!(b, b'p' | b't' | b'u' | b'l') {
            for key in PORT_KEYS {
                if lbytes[i..].starts_with(key.as_bytes()) {
                    if let Some(v) = field_value_start(lbytes, i, i + key.len()) {
                        found = port_after(bytes, v);
                    }
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
    if spans.is_empty() {
        return (text.len() as u64 <= cap).then(|| text.to_owned());
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (s, e) in spans {
        out.push_str(&text[last..s]);
        out.push_str("<port>");
        last = e;
        if out.len() as u64 > cap {
            return None;
        }
    }
    out.push_str(&text[last..]);
    (out.len() as u64 <= cap).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ports(s: &str) -> String {
        normalize_ports(s, u64::MAX).unwrap()
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
        let settings = Normalization {
            paths: false,
            pids: false,
            ports: false,
            time_bucket_ms: 10,
            patterns: vec![Pattern { pattern: "id".into(), replacement: "$&-$$".into() }],
        };
        let n = Normalizer::new(&settings, &HostValues::default());
        assert_eq!(n.normalize("an id", 100), Normalized::Text("an $&-$$".into()));
    }

    #[test]
    fn empty_pattern_matches_every_boundary() {
        let settings = Normalization {
            paths: false,
            pids: false,
            ports: false,
            time_bucket_ms: 10,
            patterns: vec![Pattern { pattern: String::new(), replacement: "|".into() }],
        };
        let n = Normalizer::new(&settings, &HostValues::default());
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
    fn budget_unknown_before_last_stage() {
        let host = HostValues { working_directory: Some("/w".into()), ..HostValues::default() };
        let n = Normalizer::new(&Normalization::default(), &host);
        // The path stage already exceeds 10 bytes; ports and pids follow.
        assert_eq!(n.normalize("/w", 10), Normalized::OverBudget(None));
        let plain = Normalizer::new(
            &Normalization { paths: false, pids: false, ports: false, ..Normalization::default() },
            &HostValues::default(),
        );
        assert_eq!(plain.normalize("hello", 3), Normalized::OverBudget(Some(5)));
    }
}
