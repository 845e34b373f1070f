//! A person's terminal answers the queries a program writes (device
//! attributes, cursor position, colours); while `rea record-scenario`
//! shows the output, those answers arrive among the typed keys. rea's own
//! renderer already answers the program, so the person's answers are
//! dropped from the keys: they are no keys the person typed.
//!
//! Dropped: device attributes (`CSI ? … c`, `CSI > … c`), mode reports
//! (`CSI … $ y`), OSC and DCS strings (`ESC ] …`, `ESC P …`, ended by BEL
//! or ST) and APC strings, which no key produces; and cursor position
//! reports (`CSI row ; col R`, which Shift-F3 can also produce) only as
//! many as the program asked for (`CSI 6 n`, `CSI ? 6 n`). A sequence is
//! recognized within one read of the keys.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts the cursor-position queries the program wrote (shared between
/// the thread that shows the output and the one that reads the keys).
#[derive(Debug, Clone, Default)]
pub struct QueryCounter {
    pending: Arc<AtomicUsize>,
}

impl QueryCounter {
    /// Output shown to the person: its cursor-position queries are counted.
    pub fn saw(&self, output: &[u8]) {
        let n = count(output, b"\x1b[6n") + count(output, b"\x1b[?6n");
        if n > 0 {
            self.pending.fetch_add(n, Ordering::SeqCst);
        }
    }

    /// Takes one pending query, if there is one.
    fn take(&self) -> bool {
        self.pending.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok()
    }
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack.windows(needle.len()).filter(|w| *w == needle).count()
}

/// Drops the person's terminal's answers from the keys it reads.
#[derive(Debug, Default)]
pub struct ReplyFilter {
    queries: QueryCounter,
}

impl ReplyFilter {
    /// The counter the output's side feeds.
    pub fn queries(&self) -> QueryCounter {
        self.queries.clone()
    }

    /// The keys of one read, answers dropped.
    pub fn keys(&mut self, read: &[u8]) -> Vec<u8> {
        let mut keys = Vec::with_capacity(read.len());
        let mut i = 0;
        while i < read.len() {
            match self.answer_len(&read[i..]) {
                Some(n) => i += n,
                None => {
                    keys.push(read[i]);
                    i += 1;
                }
            }
        }
        keys
    }

    /// The length of the answer `bytes` starts with, if it starts with one.
    fn answer_len(&self, bytes: &[u8]) -> Option<usize> {
        match bytes {
            [0x1b, b'[', rest @ ..] => self.csi_answer(rest).map(|n| n + 2),
            [0x1b, b']' | b'P' | b'_', rest @ ..] => string_end(rest).map(|n| n + 2),
            _ => None,
        }
    }

    /// A CSI answer after `ESC [`: its length.
    fn csi_answer(&self, rest: &[u8]) -> Option<usize> {
        let params = rest.iter().take_while(|b| (0x30..=0x3f).contains(*b)).count();
        let inter = rest[params..].iter().take_while(|b| (0x20..=0x2f).contains(*b)).count();
        let end = *rest.get(params + inter)?;
        let (p, i) = (&rest[..params], &rest[params..params + inter]);
        let answer = match (end, i) {
            (b'c', []) => matches!(p.first(), Some(b'?' | b'>')),
            (b'y', [b'$']) => true,
            (b'R', []) => is_position(p) && self.queries.take(),
            _ => false,
        };
        answer.then_some(params + inter + 1)
    }
}

/// `row;col` in digits.
fn is_position(p: &[u8]) -> bool {
    let mut parts = p.split(|b| *b == b';');
    let digits = |s: Option<&[u8]>| s.is_some_and(|s| !s.is_empty() && s.iter().all(u8::is_ascii_digit));
    digits(parts.next()) && digits(parts.next()) && parts.next().is_none()
}

/// The length of a string's body and terminator (BEL or `ESC \`).
fn string_end(rest: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            0x07 => return Some(i + 1),
            0x1b if rest.get(i + 1) == Some(&b'\\') => return Some(i + 2),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_dropped_and_keys_kept() {
        let mut f = ReplyFilter::default();
        assert_eq!(f.keys(b"ls\x1b[?1;2c\x1b[>0;95;0c -l\r"), b"ls -l\r");
        assert_eq!(f.keys(b"\x1b]11;rgb:0000/0000/0000\x07x\x1bP>|tmux\x1b\\y"), b"xy");
        assert_eq!(f.keys(b"\x1b[?2004;1$y"), b"");
        // Arrow keys, Escape and Alt-keys pass.
        assert_eq!(f.keys(b"\x1b[A\x1b\x1bx\x1b[1;5C"), b"\x1b[A\x1b\x1bx\x1b[1;5C");
    }

    #[test]
    fn a_cursor_report_is_dropped_only_when_the_program_asked() {
        let mut f = ReplyFilter::default();
        assert_eq!(f.keys(b"\x1b[1;2R"), b"\x1b[1;2R");
        f.queries().saw(b"prompt\x1b[6n");
        assert_eq!(f.keys(b"\x1b[12;40Ra"), b"a");
        assert_eq!(f.keys(b"\x1b[12;40R"), b"\x1b[12;40R");
    }
}
