//! Secret redaction on rendered screens.
//!
//! The stream redactor ([`super::Redactor`]) replaces a sensitive input's text
//! wherever the program prints it in one piece. A program can also rebuild
//! it on screen from pieces the stream never shows together (for example
//! `printf 'X%s\r%s\n' "${x:1}" "${x:0:1}"`: the stream holds `Xz...\rQ`,
//! the screen row shows the secret). [`ScreenSecrets`] searches each rendered
//! state before it is recorded:
//!
//! - the rows (`lines`), as the screen shows them: a row as wide as the
//!   screen continues on the next, so a secret that wraps is found across
//!   that boundary; the row where the secret starts gets the marker and the
//!   rows it continues on lose their part of it;
//! - the emulator's dump (`serialized_state`), as the characters it prints:
//!   escape sequences between them (a colour change inside the secret, a
//!   cursor move) do not hide it; the printed characters are replaced by
//!   the marker and the sequences between them are kept.
//!
//! Each replacement is counted, in every rendered state produced (a state
//! later dropped for the budget included), so the capture's limitation can
//! say how many were made on screens.

use std::sync::Arc;

use super::set::SecretSet;
use crate::evidence::{RenderedFrame, ScreenLines};

/// The capture's secrets as the renderer looks for them on rendered screens
/// (see [`super::Secrets::screens`]); replacements count into the capture's tally.
#[derive(Debug, Clone, Default)]
pub struct ScreenSecrets {
    inner: Option<Arc<SecretSet>>,
}

/// Text assembled from parts of a source text: each byte of `text` comes
/// from the source byte `from[i]`, or from nowhere (`None`: a separator).
#[derive(Debug, Default)]
struct Projection {
    text: String,
    from: Vec<Option<usize>>,
}

impl Projection {
    fn push(&mut self, c: char, at: Option<usize>) {
        let start = self.text.len();
        self.text.push(c);
        self.from.extend((0..self.text.len() - start).map(|k| at.map(|at| at + k)));
    }
}

impl ScreenSecrets {
    pub(super) fn new(inner: Option<Arc<SecretSet>>) -> ScreenSecrets {
        ScreenSecrets { inner }
    }

    /// Replacements made on screens so far, by every clone.
    pub fn redactions(&self) -> u64 {
        self.inner.as_ref().map_or(0, |set| set.on_screens())
    }

    /// The rows of a screen shown to a live session's caller, the secrets
    /// replaced (not counted: no record holds these rows).
    pub(crate) fn redact_rows(&self, rows: Vec<String>, columns: u16) -> Vec<String> {
        let Some(inner) = &self.inner else { return rows };
        let mut lines = ScreenLines::new();
        for row in &rows {
            lines.push(row);
        }
        match inner.rows(&lines, usize::from(columns), &mut 0) {
            Some(redacted) => redacted.iter().map(str::to_owned).collect(),
            None => rows,
        }
    }

    /// Replaces the secrets in `frame`'s rows and dump; returns `bytes` (the
    /// frame's rendered size, when known) adjusted to the new text.
    pub(crate) fn redact(&self, frame: &mut RenderedFrame, bytes: Option<u64>) -> Option<u64> {
        let Some(inner) = &self.inner else { return bytes };
        let before = frame.lines.text_bytes() + frame.serialized_state.len() as u64;
        let mut count = 0;
        if let Some(lines) = inner.rows(&frame.lines, usize::from(frame.columns), &mut count) {
            frame.lines = lines;
        }
        if let Some(state) = inner.dump(&frame.serialized_state, &mut count) {
            frame.serialized_state = state;
        }
        if count == 0 {
            return bytes;
        }
        inner.count_on_screens(count);
        let after = frame.lines.text_bytes() + frame.serialized_state.len() as u64;
        bytes.map(|b| b + after - before)
    }
}

impl SecretSet {
    /// The rows with the secrets replaced, or `None` when none was found.
    fn rows(&self, lines: &ScreenLines, columns: usize, count: &mut u64) -> Option<ScreenLines> {
        let source: String = lines.iter().collect();
        let mut projection = Projection::default();
        let mut offset = 0;
        for row in lines.iter() {
            for (i, c) in row.char_indices() {
                projection.push(c, Some(offset + i));
            }
            offset += row.len();
            // A full row continues on the next; any other row ends there.
            if row.chars().count() < columns {
                projection.push('\n', None);
            }
        }
        let redacted = self.replace(&source, &projection, count)?;
        let mut out = ScreenLines::new();
        let mut start = 0;
        for row in lines.iter() {
            let end = start + row.len();
            out.push(&redacted.pieces[2 * start..2 * end].concat());
            start = end;
        }
        Some(out)
    }

    /// The dump with the secrets among its printed characters replaced, or
    /// `None` when none was found.
    fn dump(&self, dump: &str, count: &mut u64) -> Option<String> {
        let mut projection = Projection::default();
        let mut chars = dump.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '\u{1b}' {
                skip_escape(&mut chars);
                continue;
            }
            projection.push(c, Some(i));
        }
        Some(self.replace(dump, &projection, count)?.pieces.concat())
    }

    /// Finds the secrets in `projection` and rebuilds `source` without the
    /// bytes they cover, each marker where its secret began.
    fn replace<'s>(&'s self, source: &'s str, projection: &Projection, count: &mut u64) -> Option<Rebuilt<'s>> {
        let mut removed = vec![false; source.len()];
        let mut inserted: Vec<(usize, usize)> = Vec::new();
        for m in self.matcher.find_iter(&projection.text) {
            let covered: Vec<usize> = projection.from[m.start()..m.end()].iter().flatten().copied().collect();
            let Some(&first) = covered.first() else { continue };
            for &at in &covered {
                removed[at] = true;
            }
            inserted.push((first, m.pattern().as_usize()));
            *count += 1;
        }
        if inserted.is_empty() {
            return None;
        }
        // One piece per source byte position: the marker inserted there (if
        // any) and the byte's character start when the byte is kept.
        let mut pieces: Vec<&str> = Vec::with_capacity(source.len());
        let mut next = inserted.iter().peekable();
        for (i, c) in source.char_indices() {
            let marker = next.next_if(|(at, _)| *at == i).map_or("", |(_, p)| self.markers[*p].as_str());
            let kept = if removed[i] { "" } else { &source[i..i + c.len_utf8()] };
            pieces.push(marker);
            pieces.push(kept);
            pieces.extend(std::iter::repeat_n("", 2 * (c.len_utf8() - 1)));
        }
        Some(Rebuilt { pieces })
    }
}

/// A source text rebuilt as two pieces (the marker inserted there, the
/// character kept there) per source byte, so that the source bytes `a..b`
/// are the pieces `2a..2b`.
struct Rebuilt<'a> {
    pieces: Vec<&'a str>,
}

/// Skips the rest of an escape sequence whose ESC was just read: CSI
/// (`ESC [` ... final byte), OSC, DCS, SOS, PM and APC (to BEL or ST), or a
/// two-character sequence with its intermediates (`ESC ( B`).
fn skip_escape(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) {
    match chars.next().map(|(_, c)| c) {
        Some('[') => {
            for (_, c) in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    break;
                }
            }
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            while let Some((_, c)) = chars.next() {
                if c == '\u{7}' {
                    break;
                }
                if c == '\u{1b}' {
                    chars.next_if(|(_, c)| *c == '\\');
                    break;
                }
            }
        }
        Some(c) if ('\u{20}'..='\u{2f}').contains(&c) => {
            while chars.next_if(|(_, c)| ('\u{20}'..='\u{2f}').contains(c)).is_some() {}
            chars.next();
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "screen_tests.rs"]
mod tests;
