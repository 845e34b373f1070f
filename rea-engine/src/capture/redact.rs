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
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use aho_corasick::{AhoCorasick, MatchKind};

use super::redact_screen::ScreenSecrets;
use super::terminal::Utf8Stream;
#[cfg(doc)]
use crate::scenario::MIN_SENSITIVE_INPUT_BYTES;
use crate::scenario::{Event, redacted_input};

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

/// The part of a sensitive input that a terminal would echo back.
pub fn secret_part(data: &str) -> &str {
    data.strip_suffix("\r\n").or_else(|| data.strip_suffix('\n')).or_else(|| data.strip_suffix('\r')).unwrap_or(data)
}

/// Each sensitive input's secret (see [`secret_part`]) and its marker.
fn secret_pairs(events: &[Event]) -> impl Iterator<Item = (&str, String)> {
    events.iter().filter_map(|e| match e {
        Event::Input { data, sensitive: true, .. } => Some((secret_part(data), redacted_input(data.len()))),
        _ => None,
    })
}

/// The sensitive inputs of one capture: their secrets, the markers that
/// replace them, and the one count of replacements.
///
/// Built once when the capture is prepared and handed to every writer that
/// could show a secret: the terminal stream ([`RedactingDecoder`]), the
/// rendered screens ([`Secrets::screens`], on the renderer's thread), the
/// interaction events ([`Secrets::input_text`]), the sampled command lines
/// and the names snapshots record ([`Secrets::redactor`]). Every writer
/// counts into the same tally, which the record's limitation reads
/// ([`Secrets::limitation`]). Clones share the secrets and the tally.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    inner: Option<Arc<SecretSet>>,
}

#[derive(Debug)]
pub(super) struct SecretSet {
    pub(super) matcher: AhoCorasick,
    secrets: Vec<String>,
    pub(super) markers: Vec<String>,
    /// Replacements in text (terminal stream, command lines, names).
    in_text: AtomicU64,
    /// Replacements on rendered screens.
    on_screens: AtomicU64,
}

impl SecretSet {
    /// Counts `n` replacements made on rendered screens.
    pub(super) fn count_on_screens(&self, n: u64) {
        self.on_screens.fetch_add(n, Ordering::Relaxed);
    }

    /// Replacements made on rendered screens so far.
    pub(super) fn on_screens(&self) -> u64 {
        self.on_screens.load(Ordering::Relaxed)
    }
}

/// Replacements made so far, in all and on rendered screens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Redactions {
    /// Every replacement.
    pub total: u64,
    /// Those made on rendered screens.
    pub on_screens: u64,
}

impl Secrets {
    /// The secrets of the sensitive inputs among `events`.
    pub fn for_events(events: &[Event]) -> Secrets {
        Secrets::new(secret_pairs(events))
    }

    /// Secrets from `(secret, marker)` pairs; empty secrets are ignored and
    /// a repeated secret keeps its first marker.
    pub fn new<'s>(pairs: impl IntoIterator<Item = (&'s str, String)>) -> Secrets {
        let mut secrets: Vec<String> = Vec::new();
        let mut markers = Vec::new();
        for (secret, marker) in pairs {
            if !secret.is_empty() && !secrets.iter().any(|s| s == secret) {
                secrets.push(secret.to_owned());
                markers.push(marker);
            }
        }
        if secrets.is_empty() {
            return Secrets::default();
        }
        // Building fails only beyond the automaton's size limits, which the
        // scenario's input bounds keep far away.
        let Ok(matcher) = AhoCorasick::builder().match_kind(MatchKind::LeftmostLongest).build(&secrets) else {
            return Secrets::default();
        };
        let set = SecretSet { matcher, secrets, markers, in_text: AtomicU64::new(0), on_screens: AtomicU64::new(0) };
        Secrets { inner: Some(Arc::new(set)) }
    }

    /// Whether any secret is being looked for.
    pub fn is_active(&self) -> bool {
        self.inner.is_some()
    }

    /// A redactor of one text stream (or of separate whole texts).
    pub fn redactor(&self) -> Redactor {
        Redactor { secrets: self.clone(), held: String::new() }
    }

    /// The same secrets, for the rendered screens.
    pub fn screens(&self) -> ScreenSecrets {
        ScreenSecrets::new(self.inner.clone())
    }

    /// What an interaction event records for an input: the marker when the
    /// input is sensitive, `None` when its text may be shown.
    pub fn input_text(&self, data: &str, sensitive: bool) -> Option<String> {
        sensitive.then(|| redacted_input(data.len()))
    }

    /// Replacements made so far by every writer.
    pub fn redactions(&self) -> Redactions {
        self.inner.as_ref().map_or_else(Redactions::default, |set| {
            let on_screens = set.on_screens();
            Redactions { total: set.in_text.load(Ordering::Relaxed) + on_screens, on_screens }
        })
    }

    /// The record's limitation about the replacements, when the capture had
    /// a secret to look for.
    pub fn limitation(&self) -> Option<String> {
        self.is_active().then(|| {
            let Redactions { total, on_screens } = self.redactions();
            redaction_limitation(total, on_screens)
        })
    }
}

/// Replaces the secrets of a scenario's sensitive inputs in a text stream,
/// counting into the capture's one tally.
#[derive(Debug, Default)]
pub struct Redactor {
    secrets: Secrets,
    held: String,
}

impl Redactor {
    /// A redactor for the sensitive inputs among `events`, with its own tally.
    #[cfg(test)]
    pub fn for_events(events: &[Event]) -> Redactor {
        Secrets::for_events(events).redactor()
    }

    /// A redactor for `(secret, marker)` pairs, with its own tally.
    #[cfg(test)]
    pub fn new<'s>(pairs: impl IntoIterator<Item = (&'s str, String)>) -> Redactor {
        Secrets::new(pairs).redactor()
    }

    /// Whether any secret is being looked for.
    pub fn is_active(&self) -> bool {
        self.secrets.is_active()
    }

    /// Replacements in text counted so far by the tally this redactor
    /// shares (see [`Secrets::redactions`]).
    pub fn redactions(&self) -> u64 {
        let counted = self.secrets.redactions();
        counted.total - counted.on_screens
    }

    /// The text of `chunk` that is decided, secrets replaced; an undecided
    /// tail is kept for the next call.
    pub fn push<'t>(&mut self, chunk: &'t str) -> Cow<'t, str> {
        let Some(set) = self.secrets.inner.clone() else { return Cow::Borrowed(chunk) };
        let mut buffer = std::mem::take(&mut self.held);
        buffer.push_str(chunk);
        let undecided = undecided_tail(&set.secrets, &buffer);
        Cow::Owned(self.replace(&set, buffer, undecided))
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
        match self.secrets.inner.clone() {
            Some(set) if !buffer.is_empty() => self.replace(&set, buffer, 0),
            _ => buffer,
        }
    }

    /// Replaces every match that starts before the last `undecided` bytes,
    /// returns the decided text and holds the rest.
    fn replace(&mut self, set: &SecretSet, buffer: String, undecided: usize) -> String {
        let decided = buffer.len() - undecided;
        let mut out = String::with_capacity(buffer.len());
        let mut end = 0;
        for m in set.matcher.find_iter(&buffer) {
            if m.start() >= decided {
                break;
            }
            out.push_str(&buffer[end..m.start()]);
            out.push_str(&set.markers[m.pattern().as_usize()]);
            set.in_text.fetch_add(1, Ordering::Relaxed);
            end = m.end();
        }
        // Matches start and end on character boundaries (secrets are UTF-8),
        // and the undecided tail starts where a secret could, so `cut` is one.
        let cut = end.max(decided);
        out.push_str(&buffer[end..cut]);
        self.held = buffer[cut..].to_owned();
        out
    }
}

/// Length of the longest suffix of `text` that is a proper prefix of a
/// secret (and so may be completed by the next chunk).
fn undecided_tail(secrets: &[String], text: &str) -> usize {
    let bytes = text.as_bytes();
    let longest = secrets.iter().map(String::len).max().unwrap_or(0);
    let start = bytes.len().saturating_sub(longest.saturating_sub(1));
    (start..bytes.len())
        .find(|&i| {
            let tail = &bytes[i..];
            secrets.iter().any(|s| s.len() > tail.len() && s.as_bytes().starts_with(tail))
        })
        .map_or(0, |i| bytes.len() - i)
}

/// The terminal's decoded text stream with secrets already replaced: the
/// only way the run loop reads terminal text.
#[derive(Debug, Default)]
pub struct RedactingDecoder {
    utf8: Utf8Stream,
    redactor: Redactor,
}

impl RedactingDecoder {
    /// A decoder that redacts `secrets`.
    pub fn new(secrets: &Secrets) -> RedactingDecoder {
        RedactingDecoder { utf8: Utf8Stream::default(), redactor: secrets.redactor() }
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
