//! Secrets replaced in a text stream (or in separate whole texts).
//!
//! Matching is leftmost-longest over the whole stream, so a secret split
//! across PTY reads is still found: a chunk's tail that could begin a secret
//! is held back (at most the longest secret's length minus one byte) until
//! the next chunk or the end of the stream decides it.

use std::borrow::Cow;
use std::sync::Arc;

use super::set::SecretSet;

/// Replaces the secrets of a scenario's sensitive inputs in a text stream,
/// counting into the capture's one tally.
/// Made by [`super::Secrets::redactor`].
#[derive(Debug, Default)]
pub struct Redactor {
    set: Option<Arc<SecretSet>>,
    pub(super) held: String,
}

impl Redactor {
    /// A redactor of `set` (none: nothing to replace).
    pub(super) fn new(set: Option<Arc<SecretSet>>) -> Redactor {
        Redactor { set, held: String::new() }
    }

    /// Whether any secret is being looked for.
    pub fn is_active(&self) -> bool {
        self.set.is_some()
    }

    /// Replacements in text counted so far by the tally this redactor
    /// shares (see [`super::Secrets::redactions`]).
    pub fn redactions(&self) -> u64 {
        self.set.as_ref().map_or(0, |set| set.in_text())
    }

    /// The text of `chunk` that is decided, secrets replaced; an undecided
    /// tail is kept for the next call.
    pub fn push<'t>(&mut self, chunk: &'t str) -> Cow<'t, str> {
        let Some(set) = self.set.clone() else { return Cow::Borrowed(chunk) };
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
        match self.set.clone() {
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
            set.count_in_text(1);
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
