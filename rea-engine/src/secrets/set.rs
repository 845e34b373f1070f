//! The matcher of one capture's secrets and its one tally.

use std::sync::atomic::{AtomicU64, Ordering};

use aho_corasick::{AhoCorasick, MatchKind};

/// The secrets, their markers, the matcher, and the tally every writer
/// counts into.
#[derive(Debug)]
pub(super) struct SecretSet {
    pub(super) matcher: AhoCorasick,
    pub(super) secrets: Vec<String>,
    pub(super) markers: Vec<String>,
    /// Replacements in text (terminal stream, command lines, names).
    in_text: AtomicU64,
    /// Replacements on rendered screens.
    on_screens: AtomicU64,
}

impl SecretSet {
    /// The set of `(secret, marker)` pairs; `None` when no secret is left
    /// (empty ones are ignored, a repeated one keeps its first marker).
    pub(super) fn build<'s>(pairs: impl IntoIterator<Item = (&'s str, String)>) -> Option<SecretSet> {
        let mut secrets: Vec<String> = Vec::new();
        let mut markers = Vec::new();
        for (secret, marker) in pairs {
            if !secret.is_empty() && !secrets.iter().any(|s| s == secret) {
                secrets.push(secret.to_owned());
                markers.push(marker);
            }
        }
        if secrets.is_empty() {
            return None;
        }
        let matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&secrets)
            // A scenario's inputs total at most `MAX_TOTAL_INPUT_BYTES`
            // (256 KiB), far below the automaton's limits, so building cannot
            // fail for a valid scenario; an empty set in its place would leak
            // the secrets.
            .expect("the scenario's bounded sensitive inputs build a matcher");
        Some(SecretSet { matcher, secrets, markers, in_text: AtomicU64::new(0), on_screens: AtomicU64::new(0) })
    }

    /// Counts `n` replacements made in text.
    pub(super) fn count_in_text(&self, n: u64) {
        self.in_text.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts `n` replacements made on rendered screens.
    pub(super) fn count_on_screens(&self, n: u64) {
        self.on_screens.fetch_add(n, Ordering::Relaxed);
    }

    /// Replacements made in text so far.
    pub(super) fn in_text(&self) -> u64 {
        self.in_text.load(Ordering::Relaxed)
    }

    /// Replacements made on rendered screens so far.
    pub(super) fn on_screens(&self) -> u64 {
        self.on_screens.load(Ordering::Relaxed)
    }
}
