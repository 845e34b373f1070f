//! Secret echo redaction: sensitive input never reaches a record.
//!
//! A `sensitive: true` input is typed into the terminal in clear; a program
//! (or the terminal's own echo) may print it back. [`Redactor`] sits at the
//! earliest point where decoded terminal text exists, before normalization,
//! `raw_data`, budgets and rendering, and replaces every occurrence of a
//! secret with the marker the interaction log already uses for that input
//! (`<redacted-input:N-bytes>`, N the input's UTF-8 length).
//!
//! The secret is the input's text without one trailing line terminator
//! (`\r\n`, `\n` or `\r`): a terminal echoes the line, not the key that ended
//! it. Matching is leftmost-longest over the whole output stream, so a secret
//! split across PTY reads is still found: a chunk's tail that could begin a
//! secret is held back (at most the longest secret's length minus one byte)
//! until the next chunk or the end of the stream decides it.
//!
//! Secrets shorter than [`MIN_SENSITIVE_INPUT_BYTES`] are refused when the
//! scenario is validated (see `docs/decisions.md`), so matching never has to
//! redact unrelated short text.

use std::borrow::Cow;

use aho_corasick::{AhoCorasick, MatchKind};

use super::redact_screen::ScreenSecrets;
use super::terminal::Utf8Stream;
#[cfg(doc)]
use crate::scenario::MIN_SENSITIVE_INPUT_BYTES;
use crate::scenario::{Event, redacted_input, secret_part};

/// The limitation a capture with sensitive inputs carries: `count`
/// replacements in all, `on_screens` of them in rendered screens.
pub fn redaction_limitation(count: u64, on_screens: u64) -> String {
    let times = if count == 1 { "time" } else { "times" };
    let screens = match on_screens {
        0 => String::new(),
        n => format!(
            " ({n} of them on rendered screens, where the program had rebuilt it from pieces; every rendered state was searched, so a copy that stays on screen counts once per state)"
        ),
    };
    format!(
        "Terminal text, rendered screens, sampled command lines and the names filesystem snapshots record were searched for the sensitive inputs' text; it was found and replaced by <redacted-input:N-bytes> {count} {times}{screens}, so the record does not show what was echoed there."
    )
}

/// Each sensitive input's secret (see [`secret_part`]) and its marker.
pub(crate) fn secret_pairs(events: &[Event]) -> impl Iterator<Item = (&str, String)> {
    events.iter().filter_map(|e| match e {
        Event::Input { data, sensitive: true, .. } => Some((secret_part(data), redacted_input(data.len()))),
        _ => None,
    })
}

/// Replaces the secrets of a scenario's sensitive inputs in a text stream.
#[derive(Debug, Default)]
pub struct Redactor {
    matcher: Option<AhoCorasick>,
    secrets: Vec<String>,
    markers: Vec<String>,
    held: String,
    redactions: u64,
}

impl Redactor {
    /// A redactor for the sensitive inputs among `events`.
    pub fn for_events(events: &[Event]) -> Redactor {
        Redactor::new(secret_pairs(events))
    }

    /// A redactor for `(secret, marker)` pairs; empty secrets are ignored and
    /// a repeated secret keeps its first marker.
    pub fn new<'s>(pairs: impl IntoIterator<Item = (&'s str, String)>) -> Redactor {
        let mut secrets: Vec<String> = Vec::new();
        let mut markers = Vec::new();
        for (secret, marker) in pairs {
            if !secret.is_empty() && !secrets.iter().any(|s| s == secret) {
                secrets.push(secret.to_owned());
                markers.push(marker);
            }
        }
        let matcher = if secrets.is_empty() {
            None
        } else {
            // Building fails only beyond the automaton's size limits, which
            // the scenario's input bounds keep far away.
            AhoCorasick::builder().match_kind(MatchKind::LeftmostLongest).build(&secrets).ok()
        };
        Redactor { matcher, secrets, markers, held: String::new(), redactions: 0 }
    }

    /// Whether any secret is being looked for.
    pub fn is_active(&self) -> bool {
        self.matcher.is_some()
    }

    /// Occurrences replaced so far.
    pub fn redactions(&self) -> u64 {
        self.redactions
    }

    /// The text of `chunk` that is decided, secrets replaced; an undecided
    /// tail is kept for the next call.
    pub fn push<'t>(&mut self, chunk: &'t str) -> Cow<'t, str> {
        if self.matcher.is_none() {
            return Cow::Borrowed(chunk);
        }
        let mut buffer = std::mem::take(&mut self.held);
        buffer.push_str(chunk);
        let undecided = self.undecided_tail(&buffer);
        Cow::Owned(self.replace(buffer, undecided))
    }

    /// Redacts one whole text (not part of the stream being pushed).
    pub fn whole(&mut self, text: &str) -> String {
        let mut out = self.push(text).into_owned();
        out.push_str(&self.finish());
        out
    }

    /// Redacts a text cut from a longer one: a tail that could be the start
    /// of a secret is left out, so no part of a secret is kept.
    pub fn prefix(&mut self, text: &str) -> String {
        let out = self.push(text).into_owned();
        self.held.clear();
        out
    }

    /// Ends the stream: the held tail is decided as it is.
    pub fn finish(&mut self) -> String {
        let buffer = std::mem::take(&mut self.held);
        if buffer.is_empty() {
            return buffer;
        }
        self.replace(buffer, 0)
    }

    /// Length of the longest suffix of `text` that is a proper prefix of a
    /// secret (and so may be completed by the next chunk).
    fn undecided_tail(&self, text: &str) -> usize {
        let bytes = text.as_bytes();
        let longest = self.secrets.iter().map(String::len).max().unwrap_or(0);
        let start = bytes.len().saturating_sub(longest.saturating_sub(1));
        (start..bytes.len())
            .find(|&i| {
                let tail = &bytes[i..];
                self.secrets.iter().any(|s| s.len() > tail.len() && s.as_bytes().starts_with(tail))
            })
            .map_or(0, |i| bytes.len() - i)
    }

    /// Replaces every match that starts before the last `undecided` bytes,
    /// returns the decided text and holds the rest.
    fn replace(&mut self, buffer: String, undecided: usize) -> String {
        let decided = buffer.len() - undecided;
        let mut out = String::with_capacity(buffer.len());
        let mut end = 0;
        if let Some(matcher) = &self.matcher {
            for m in matcher.find_iter(&buffer) {
                if m.start() >= decided {
                    break;
                }
                out.push_str(&buffer[end..m.start()]);
                out.push_str(&self.markers[m.pattern().as_usize()]);
                self.redactions += 1;
                end = m.end();
            }
        }
        // Matches start and end on character boundaries (secrets are UTF-8),
        // and the undecided tail starts where a secret could, so `cut` is one.
        let cut = end.max(decided);
        out.push_str(&buffer[end..cut]);
        self.held = buffer[cut..].to_owned();
        out
    }
}

/// The terminal's decoded text stream with secrets already replaced: the
/// only way the run loop reads terminal text.
#[derive(Debug, Default)]
pub struct RedactingDecoder {
    utf8: Utf8Stream,
    redactor: Redactor,
    /// The same secrets, for the rendered screens built from this text.
    screens: ScreenSecrets,
}

impl RedactingDecoder {
    /// A decoder that redacts the sensitive inputs among `events`.
    pub fn for_events(events: &[Event]) -> RedactingDecoder {
        RedactingDecoder {
            utf8: Utf8Stream::default(),
            redactor: Redactor::for_events(events),
            screens: ScreenSecrets::for_events(events),
        }
    }

    /// The secrets to replace on the rendered screens built from this text
    /// (a program can rebuild a secret on screen from pieces the stream
    /// never shows together), with their replacement count.
    pub fn screen_secrets(&self) -> &ScreenSecrets {
        &self.screens
    }

    /// Decodes `bytes` (see [`Utf8Stream::decode`]) and redacts the result.
    pub fn decode<'b>(&mut self, bytes: &'b [u8]) -> Cow<'b, str> {
        match self.utf8.decode(bytes) {
            Cow::Borrowed(text) => self.redactor.push(text),
            Cow::Owned(text) => Cow::Owned(self.redactor.push(&text).into_owned()),
        }
    }

    /// Ends the stream: the incomplete sequence and any held-back text.
    pub fn finish(&mut self) -> String {
        let tail = self.utf8.finish();
        let mut out = self.redactor.push(&tail).into_owned();
        out.push_str(&self.redactor.finish());
        out
    }

    /// Invalid UTF-8 bytes seen so far.
    pub fn invalid_bytes(&self) -> u64 {
        self.utf8.invalid_bytes()
    }

    /// The invalid sequences decoded since the last call (see
    /// [`Utf8Stream::take_invalid`]). Text the redactor holds back can reach
    /// the next frame, so a group may be recorded one frame before its
    /// U+FFFD; the comparison gathers groups per segment, where that is moot.
    pub fn take_invalid(&mut self) -> Option<String> {
        self.utf8.take_invalid()
    }

    /// Whether the scenario has a secret to look for.
    pub fn is_redacting(&self) -> bool {
        self.redactor.is_active()
    }

    /// Secrets replaced so far.
    pub fn redactions(&self) -> u64 {
        self.redactor.redactions()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor(secrets: &[&str]) -> Redactor {
        Redactor::new(secrets.iter().map(|s| (*s, format!("<R{}>", s.len()))))
    }

    fn run(r: &mut Redactor, chunks: &[&str]) -> String {
        let mut out: String = chunks.iter().map(|c| r.push(c).into_owned()).collect();
        out.push_str(&r.finish());
        out
    }

    #[test]
    fn the_line_terminator_is_not_part_of_the_secret() {
        assert_eq!(secret_part("hunter2\r\n"), "hunter2");
        assert_eq!(secret_part("hunter2\n"), "hunter2");
        assert_eq!(secret_part("hunter2\r"), "hunter2");
        assert_eq!(secret_part("hunter2\n\n"), "hunter2\n");
        assert_eq!(secret_part("hunter2"), "hunter2");
    }

    #[test]
    fn every_split_of_a_secret_across_chunks_is_redacted() {
        let text = "pw: s3cr3t-X\r\nagain s3cr3t-X!";
        for a in 0..=text.len() {
            for b in a..=text.len() {
                let mut r = redactor(&["s3cr3t-X"]);
                let out = run(&mut r, &[&text[..a], &text[a..b], &text[b..]]);
                assert_eq!(out, "pw: <R8>\r\nagain <R8>!", "split at {a},{b}");
                assert_eq!(r.redactions(), 2);
            }
        }
    }

    #[test]
    fn held_back_text_is_at_most_one_byte_short_of_a_secret_and_released_when_decided() {
        let mut r = redactor(&["abcdef"]);
        assert_eq!(r.push("xxabcde"), "xx");
        assert_eq!(r.held.len(), 5);
        assert_eq!(r.push("Z"), "abcdeZ");
        assert_eq!(r.push("abc"), "");
        assert_eq!(r.finish(), "abc");
        assert_eq!(r.redactions(), 0);
    }

    #[test]
    fn the_longest_secret_wins_even_when_a_shorter_one_completes_first() {
        let mut r = redactor(&["abcd", "abcdefgh"]);
        assert_eq!(run(&mut r, &["_abcd", "efgh_abcd_"]), "_<R8>_<R4>_");
        assert_eq!(r.redactions(), 2);
    }

    #[test]
    fn text_without_secrets_is_borrowed_and_unchanged() {
        let mut r = Redactor::for_events(&[]);
        assert!(!r.is_active());
        assert!(matches!(r.push("hello"), Cow::Borrowed("hello")));
        let mut r = redactor(&["zzzz"]);
        assert_eq!(run(&mut r, &["héllo ", "wörld"]), "héllo wörld");
        assert_eq!(r.redactions(), 0);
    }

    #[test]
    fn multibyte_secrets_split_inside_a_character_still_match() {
        let mut r = redactor(&["pässwört"]);
        let text = "<pässwört>";
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            let mut r2 = redactor(&["pässwört"]);
            assert_eq!(run(&mut r2, &[&text[..cut], &text[cut..]]), "<<R10>>");
        }
        assert_eq!(run(&mut r, &[text]), "<<R10>>");
    }
}
