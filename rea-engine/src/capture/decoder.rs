//! The terminal's decoded text, secrets replaced on the way in.

use std::borrow::Cow;

use super::terminal::Utf8Stream;
use crate::secrets::{Redactor, Secrets};

/// The terminal's decoded text stream with secrets already replaced: the
/// only way the run loop reads terminal text.
#[derive(Debug, Default)]
pub(super) struct RedactingDecoder {
    utf8: Utf8Stream,
    redactor: Redactor,
}

impl RedactingDecoder {
    /// A decoder that redacts `secrets`.
    pub(super) fn new(secrets: &Secrets) -> RedactingDecoder {
        RedactingDecoder { utf8: Utf8Stream::default(), redactor: secrets.redactor() }
    }

    /// Decodes `bytes` (see [`Utf8Stream::decode`]) and redacts the result.
    pub(super) fn decode<'b>(&mut self, bytes: &'b [u8]) -> Cow<'b, str> {
        match self.utf8.decode(bytes) {
            Cow::Borrowed(text) => self.redactor.push(text),
            Cow::Owned(text) => Cow::Owned(self.redactor.push(&text).into_owned()),
        }
    }

    /// Ends the stream: the incomplete sequence and any held-back text.
    pub(super) fn finish(&mut self) -> String {
        let tail = self.utf8.finish();
        let mut out = self.redactor.push(&tail).into_owned();
        out.push_str(&self.redactor.finish());
        out
    }

    /// Invalid UTF-8 bytes seen so far.
    pub(super) fn invalid_bytes(&self) -> u64 {
        self.utf8.invalid_bytes()
    }

    /// The invalid sequences decoded since the last call (see
    /// [`Utf8Stream::take_invalid`]). Text the redactor holds back can reach
    /// the next frame, so a group may be recorded one frame before its
    /// U+FFFD; the comparison gathers groups per segment, where that is moot.
    pub(super) fn take_invalid(&mut self) -> Option<String> {
        self.utf8.take_invalid()
    }
}
