//! The secrets of one capture: sensitive input never reaches a record.
//!
//! A `sensitive: true` input is typed into the terminal in clear; a program
//! (or the terminal's own echo) may print it back. The capture builds one
//! [`Secrets`] value when it is prepared and hands it to every writer that
//! could show a secret; each writer replaces every occurrence of a secret
//! with the marker the interaction log already uses for that input
//! ([`redacted_input`]: `<redacted-input:N-bytes>`, N the input's UTF-8
//! length), and counts into the value's one tally.
//!
//! The secret is the input's text without one trailing line terminator
//! ([`secret_part`]): a terminal echoes the line, not the key that ended it.
//! Secrets shorter than the scenario's minimum are refused when the scenario
//! is validated (see `docs/decisions.md`), so matching never has to redact
//! unrelated short text.
//!
//! The modules: `set` (the matcher and the tally), `stream` (the text
//! redactor, [`Redactor`]) and `screen` (rendered screens,
//! [`ScreenSecrets`]). This module imports nothing from the capture or the
//! scenario: both import it.

mod pieces;
mod screen;
mod set;
mod stream;

use std::sync::Arc;

pub use pieces::{DroppedPieces, MAX_ROUNDS, Replay, ReplayStep};
pub use screen::ScreenSecrets;
pub use stream::Redactor;

use set::SecretSet;

/// The placeholder persisted for a sensitive input of `len` UTF-8 bytes.
pub fn redacted_input(len: usize) -> String {
    format!("<redacted-input:{len}-bytes>")
}

/// The part of a sensitive input that a terminal would echo back.
pub fn secret_part(data: &str) -> &str {
    data.strip_suffix("\r\n").or_else(|| data.strip_suffix('\n')).or_else(|| data.strip_suffix('\r')).unwrap_or(data)
}

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

/// Chunks a limitation names one by one; the rest are counted.
const LISTED_CHUNKS: usize = 20;

/// The limitation a capture carries when chunks lost their text because a
/// replay of them drew a sensitive input on screen from pieces.
pub fn pieces_limitation(dropped: &DroppedPieces) -> Option<String> {
    const REST: &str = "The other chunks keep their text: a part of a sensitive input that was never on screen with the rest of it stays as printed, and a copy drawn and overwritten within one chunk (between two chunk ends) is not searched for.";
    if dropped.emptied_all {
        return Some(format!(
            "A replay of the terminal chunks drew a sensitive input on screen from pieces and {MAX_ROUNDS} rounds of replacing the chunks that drew it did not clear it, so every chunk's text (data, raw_data, invalid_utf8) was left out: the record's frames hold no terminal text."
        ));
    }
    let n = dropped.replaced.len();
    if n == 0 {
        return None;
    }
    let mut listed: Vec<String> = dropped.replaced.iter().take(LISTED_CHUNKS).map(u64::to_string).collect();
    if n > LISTED_CHUNKS {
        listed.push(format!("and {} more", n - LISTED_CHUNKS));
    }
    let (chunks, sequences) = if n == 1 { ("chunk", "sequence") } else { ("chunks", "sequences") };
    Some(format!(
        "Replayed chunk by chunk, the terminal output drew a sensitive input on screen from pieces; the text of the {n} {chunks} that drew it (frames with {sequences} {}) was replaced by <redacted-input:N-bytes>, their raw_data and invalid_utf8 left out, so a replay of the record's frames, in data or raw_data, shows no sensitive input at the end of any chunk. {REST}",
        listed.join(", ")
    ))
}

/// The sensitive inputs of one capture: their secrets, the markers that
/// replace them, and the one count of replacements.
///
/// Built once when the capture is prepared and handed to every writer that
/// could show a secret: the terminal stream and the sampled command lines
/// and the names snapshots record ([`Secrets::redactor`]), the rendered
/// screens ([`Secrets::screens`], on the renderer's thread) and the
/// interaction events ([`Secrets::input_text`]). Every writer counts into
/// the same tally, which the record's limitation reads
/// ([`Secrets::limitation`]). Clones share the secrets and the tally.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    inner: Option<Arc<SecretSet>>,
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
    /// The secrets of sensitive inputs, each given with its whole text (as
    /// the scenario holds it): the secret is its [`secret_part`], the marker
    /// its [`redacted_input`]. Empty secrets are ignored and a repeated
    /// secret keeps its first marker.
    pub fn of_inputs<'s>(inputs: impl IntoIterator<Item = &'s str>) -> Secrets {
        Secrets::new(inputs.into_iter().map(|data| (secret_part(data), redacted_input(data.len()))))
    }

    /// Secrets from `(secret, marker)` pairs; empty secrets are ignored and
    /// a repeated secret keeps its first marker.
    pub fn new<'s>(pairs: impl IntoIterator<Item = (&'s str, String)>) -> Secrets {
        Secrets { inner: SecretSet::build(pairs).map(Arc::new) }
    }

    /// Whether any secret is being looked for.
    pub fn is_active(&self) -> bool {
        self.inner.is_some()
    }

    /// A redactor of one text stream (or of separate whole texts).
    pub fn redactor(&self) -> Redactor {
        Redactor::new(self.inner.clone())
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
        self.inner.as_ref().map_or_else(Redactions::default, |set| Redactions {
            total: set.in_text() + set.on_screens(),
            on_screens: set.on_screens(),
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

#[cfg(test)]
mod tests;
