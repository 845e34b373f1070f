//! Terminal output: streaming UTF-8 decoding and frame admission.
//!
//! PTY bytes are decoded as one UTF-8 stream: a sequence split across reads
//! is carried to the next read, and each invalid byte sequence becomes one
//! U+FFFD (the "maximal subpart" rule of `String::from_utf8_lossy`). Invalid
//! bytes are never dropped silently: they are counted in
//! `truncation_details.raw_terminal.invalid_utf8_bytes`, and the frame that
//! holds each U+FFFD records the bytes it replaced (`invalid_utf8`), so two
//! outputs that differ only in invalid bytes never compare equal.
//!
//! Admission keeps each chunk whole or omits it whole. A chunk is retained
//! when the frame count is below `limits.frames`, its original text fits the
//! remaining original-text budget, and its normalized text fits the remaining
//! normalized-text budget (both `limits.output_bytes`). A later, smaller chunk
//! can still fit after an omission.
//!
//! Every decoded chunk's original text, retained or omitted, and each
//! dispatched resize is handed to the renderer (`render`), which produces
//! the rendered states off the read path: a state follows each retained
//! chunk, and the screens pinned at events and at the end are built from
//! the whole stream.

use std::task::Context;
use std::time::Instant;

use super::normalize::{Normalized, Normalizer};
use super::render::{PinRef, Rendered, Renderer, RendererState, ScreenWatch, TerminalReply};
use crate::evidence::{Frame, NormalizedTerminalTruncation, RawTerminalTruncation, ScreenBefore};

/// Decodes a byte stream as UTF-8 across chunk boundaries.
#[derive(Debug, Default)]
pub struct Utf8Stream {
    pending: Vec<u8>,
    invalid_bytes: u64,
    /// Hex groups of the invalid sequences decoded since the last take.
    invalid: Vec<String>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Utf8Stream {
    /// Decodes `bytes`, keeping an incomplete trailing sequence for later.
    pub fn decode<'b>(&mut self, bytes: &'b [u8]) -> std::borrow::Cow<'b, str> {
        if self.pending.is_empty()
            && let Ok(text) = std::str::from_utf8(bytes)
        {
            return std::borrow::Cow::Borrowed(text);
        }
        let mut input = std::mem::take(&mut self.pending);
        input.extend_from_slice(bytes);
        let mut out = String::with_capacity(input.len());
        let mut rest: &[u8] = &input;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out.push_str(s);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // `valid` was just checked to be UTF-8.
                    out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match e.error_len() {
                        Some(n) => {
                            out.push('\u{FFFD}');
                            self.invalid_bytes += n as u64;
                            self.invalid.push(hex(&after[..n]));
                            rest = &after[n..];
                        }
                        None => {
                            self.pending = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        std::borrow::Cow::Owned(out)
    }

    /// Ends the stream: an incomplete trailing sequence becomes U+FFFD.
    pub fn finish(&mut self) -> String {
        if self.pending.is_empty() {
            return String::new();
        }
        self.invalid_bytes += self.pending.len() as u64;
        self.invalid.push(hex(&self.pending));
        self.pending.clear();
        "\u{FFFD}".to_owned()
    }

    /// The invalid sequences behind the U+FFFDs of the text decoded since
    /// the last call, or `None` when there were none.
    pub fn take_invalid(&mut self) -> Option<String> {
        (!self.invalid.is_empty()).then(|| std::mem::take(&mut self.invalid).join(" "))
    }

    /// Invalid bytes seen so far.
    pub fn invalid_bytes(&self) -> u64 {
        self.invalid_bytes
    }
}

/// Admits decoded chunks into frames within the budgets.
#[derive(Debug)]
pub struct TerminalRecorder {
    normalizer: Normalizer,
    time_bucket_ms: u64,
    frames: Vec<Frame>,
    raw: RawTerminalTruncation,
    normalized: NormalizedTerminalTruncation,
    renderer: Option<Renderer>,
    rendered: Option<Rendered>,
    /// Invalid sequences behind the next offered chunk's U+FFFDs.
    invalid_utf8: Option<String>,
    /// The pin behind each recorded interaction event, in record order.
    screen_pins: Vec<Option<PinRef>>,
}

impl TerminalRecorder {
    /// A recorder with `limits.output_bytes` and `limits.frames`.
    pub fn new(normalizer: Normalizer, output_bytes: u64, frame_limit: u64, time_bucket_ms: u64) -> TerminalRecorder {
        TerminalRecorder {
            normalizer,
            time_bucket_ms: time_bucket_ms.max(1),
            frames: Vec::new(),
            raw: RawTerminalTruncation {
                truncated: false,
                budget_bytes: output_bytes,
                frame_limit,
                observed_bytes: 0,
                retained_bytes: 0,
                observed_chunks: 0,
                retained_chunks: 0,
                omitted_for_budget: 0,
                omitted_for_normalized_budget: 0,
                omitted_for_frame_limit: 0,
                invalid_utf8_bytes: 0,
            },
            normalized: NormalizedTerminalTruncation {
                truncated: false,
                budget_bytes: output_bytes,
                retained_bytes: 0,
                omitted_frames: 0,
                unknown_size_frames: 0,
            },
            renderer: None,
            rendered: None,
            invalid_utf8: None,
            screen_pins: Vec::new(),
        }
    }

    /// Renders every retained chunk and resize with `renderer`.
    pub fn with_renderer(mut self, renderer: Renderer) -> TerminalRecorder {
        self.renderer = Some(renderer);
        self
    }

    fn bucket(&self, elapsed_ms: u64) -> u64 {
        elapsed_ms / self.time_bucket_ms * self.time_bucket_ms
    }

    /// A resize was dispatched `elapsed_ms` after launch and recorded at
    /// `at`: a rendered state follows it.
    pub fn resize(&mut self, columns: u16, rows: u16, at: Instant, elapsed_ms: u64) {
        let at_ms = self.bucket(elapsed_ms);
        if let Some(r) = self.renderer.as_mut() {
            r.resize(columns, rows, at, at_ms);
        }
    }

    /// An event is dispatched `elapsed_ms` after launch: the screen it sees
    /// is recorded at `at` and kept in preference to intermediate states.
    pub fn pin_screen(&mut self, at: Instant, elapsed_ms: u64) -> Option<PinRef> {
        let at_ms = self.bucket(elapsed_ms);
        self.renderer.as_mut().map(|r| r.pin(at, at_ms))
    }

    /// Hands the screen, once the renderer parsed what came before, to `to`
    /// (dropped when no renderer runs).
    pub fn peek_screen(&mut self, to: super::render::Peek, at: Instant, elapsed_ms: u64) {
        let at_ms = self.bucket(elapsed_ms);
        if let Some(r) = self.renderer.as_mut() {
            r.peek(to, at, at_ms);
        }
    }

    /// The next recorded interaction event saw the screen of `pin`.
    pub fn record_screen(&mut self, pin: Option<PinRef>) {
        self.screen_pins.push(pin);
    }

    /// Whether more output may be read; when not, `cx` is woken when it may.
    pub fn poll_room(&mut self, cx: &mut Context<'_>) -> bool {
        self.renderer.as_mut().is_none_or(|r| r.poll_room(cx))
    }

    /// Whether more output may be read now.
    pub fn has_room(&self) -> bool {
        self.renderer.as_ref().is_none_or(Renderer::has_room)
    }

    /// Replies to terminal queries ready to be written; `cx` is woken when one is.
    pub fn poll_replies(&mut self, cx: &mut Context<'_>) -> Vec<TerminalReply> {
        self.renderer.as_mut().map_or_else(Vec::new, |r| r.poll_replies(cx))
    }

    /// Starts (or, with `None`, stops) deciding a screen condition on the
    /// screen from now on; `false` when there is no renderer to decide it.
    pub fn watch_screen(&mut self, watch: Option<ScreenWatch>, at: Instant, elapsed_ms: u64) -> bool {
        match self.renderer.as_mut() {
            Some(r) => {
                r.watch(watch, at, elapsed_ms);
                true
            }
            None => false,
        }
    }

    /// The screen watch that held, if one did; `cx` is woken when one does.
    pub fn poll_screen_hit(&mut self, cx: &mut Context<'_>) -> Option<(u64, Instant)> {
        self.renderer.as_mut().and_then(|r| r.poll_hit(cx))
    }

    /// Waits until the renderer parsed everything handed over and returns
    /// the replies it produced that were not taken yet.
    pub fn settle_renderer(&mut self) -> Vec<TerminalReply> {
        self.renderer.as_mut().map_or_else(Vec::new, Renderer::settle)
    }

    /// Stops the renderer after the last chunk (the final screen is pinned)
    /// and reports its cleanup state; `None` when there was none.
    pub fn stop_renderer(&mut self) -> Option<RendererState> {
        if let Some(r) = self.renderer.take() {
            self.rendered = Some(r.finish());
        }
        self.rendered.as_ref().map(|r| r.state)
    }

    /// Records the invalid sequences (see [`Utf8Stream::take_invalid`])
    /// behind the U+FFFDs of the next chunk offered.
    pub fn invalid_utf8(&mut self, groups: Option<String>) {
        self.invalid_utf8 = groups;
    }

    /// Offers one decoded chunk observed `elapsed_ms` after launch; returns
    /// the frame index when it was retained.
    pub fn offer(&mut self, text: &str, elapsed_ms: u64) -> Option<usize> {
        let invalid_utf8 = self.invalid_utf8.take();
        if text.is_empty() {
            return None;
        }
        let at_ms = self.bucket(elapsed_ms);
        let admitted = self.admit(text, invalid_utf8, at_ms);
        if let Some(r) = self.renderer.as_mut() {
            match admitted {
                Some(_) => r.chunk(text, Instant::now(), at_ms),
                None => r.text(text, Instant::now(), at_ms),
            }
        }
        admitted
    }

    /// Retains a chunk when it fits the limits; returns its frame index.
    fn admit(&mut self, text: &str, invalid_utf8: Option<String>, at_ms: u64) -> Option<usize> {
        let len = text.len() as u64;
        self.raw.observed_chunks += 1;
        self.raw.observed_bytes += len;
        if self.frames.len() as u64 >= self.raw.frame_limit {
            self.raw.omitted_for_frame_limit += 1;
            self.raw.truncated = true;
            return None;
        }
        if self.raw.retained_bytes + len > self.raw.budget_bytes {
            self.raw.omitted_for_budget += 1;
            self.raw.truncated = true;
            return None;
        }
        let remaining = self.normalized.budget_bytes - self.normalized.retained_bytes;
        let data = match self.normalizer.normalize(text, remaining) {
            Normalized::Text(t) => t,
            Normalized::OverBudget(size) => {
                self.raw.omitted_for_normalized_budget += 1;
                self.raw.truncated = true;
                self.normalized.omitted_frames += 1;
                if size.is_none() {
                    self.normalized.unknown_size_frames += 1;
                }
                self.normalized.truncated = true;
                return None;
            }
        };
        self.raw.retained_bytes += len;
        self.raw.retained_chunks += 1;
        self.normalized.retained_bytes += data.len() as u64;
        let raw_data = (data != text).then(|| text.to_owned());
        let index = self.frames.len();
        self.frames.push(Frame { sequence: index as u64, at_ms, data, raw_data, invalid_utf8 });
        Some(index)
    }

    /// Frames retained so far.
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// The frames, the rendered states (stopping the renderer if it still
    /// runs) and the accounting.
    pub fn finish(mut self, invalid_utf8_bytes: u64) -> TerminalOutput {
        self.raw.invalid_utf8_bytes = invalid_utf8_bytes;
        self.stop_renderer();
        let screens_before = self
            .screen_pins
            .iter()
            .map(|pin| match (pin, &self.rendered) {
                (Some(pin), Some(r)) => r.screens.get(*pin),
                _ => ScreenBefore::NotRecorded,
            })
            .collect();
        TerminalOutput {
            frames: self.frames,
            raw: self.raw,
            normalized: self.normalized,
            rendered: self.rendered,
            screens_before,
        }
    }
}

/// Everything the terminal side of a capture recorded.
#[derive(Debug)]
pub struct TerminalOutput {
    /// Retained chunks.
    pub frames: Vec<Frame>,
    /// `truncation_details.raw_terminal`.
    pub raw: RawTerminalTruncation,
    /// `truncation_details.normalized_terminal`.
    pub normalized: NormalizedTerminalTruncation,
    /// Rendered states, when a renderer ran.
    pub rendered: Option<Rendered>,
    /// The screen each interaction event saw, in record order.
    pub screens_before: Vec<ScreenBefore>,
}

#[cfg(test)]
mod tests {
    use super::super::normalize::HostValues;
    use super::*;
    use crate::scenario::Normalization;

    #[test]
    fn split_sequences_are_carried_and_invalid_bytes_counted() {
        let mut d = Utf8Stream::default();
        let euro = "€".as_bytes();
        assert_eq!(d.decode(&euro[..1]), "");
        assert_eq!(d.decode(&euro[1..]), "€");
        assert_eq!(d.decode(b"a\xffb"), "a\u{FFFD}b");
        assert_eq!(d.take_invalid().as_deref(), Some("ff"));
        assert_eq!(d.take_invalid(), None);
        assert_eq!(d.invalid_bytes(), 1);
        assert_eq!(d.decode(b"\xe2\x82"), "");
        assert_eq!(d.finish(), "\u{FFFD}");
        assert_eq!(d.invalid_bytes(), 3);
    }

    fn plain() -> Normalizer {
        Normalizer::new(
            &Normalization { paths: false, pids: false, ports: false, ..Normalization::default() },
            &HostValues::default(),
        )
    }

    #[test]
    fn chunks_are_omitted_whole_and_smaller_ones_still_fit() {
        let mut r = TerminalRecorder::new(plain(), 10, 100, 10);
        assert_eq!(r.offer("12345678", 3), Some(0));
        assert_eq!(r.offer("abc", 14), None);
        assert_eq!(r.offer("xy", 27), Some(1));
        let TerminalOutput { frames, raw, normalized: norm, .. } = r.finish(0);
        assert_eq!(
            frames.iter().map(|f| (f.at_ms, f.data.as_str())).collect::<Vec<_>>(),
            [(0, "12345678"), (20, "xy")]
        );
        assert_eq!((raw.observed_chunks, raw.retained_chunks, raw.omitted_for_budget), (3, 2, 1));
        assert_eq!((raw.observed_bytes, raw.retained_bytes, raw.truncated), (13, 10, true));
        assert!(!norm.truncated);
    }

    #[test]
    fn frame_limit_is_permanent() {
        let mut r = TerminalRecorder::new(plain(), 100, 1, 10);
        assert_eq!(r.offer("a", 0), Some(0));
        assert_eq!(r.offer("b", 0), None);
        let raw = r.finish(0).raw;
        assert_eq!(raw.omitted_for_frame_limit, 1);
    }

    #[test]
    fn normalized_growth_omits_the_chunk_and_keeps_raw_data_when_changed() {
        let settings = Normalization {
            paths: false,
            pids: false,
            ports: false,
            time_bucket_ms: 10,
            patterns: vec![crate::scenario::Pattern { pattern: "a".into(), replacement: "AAAA".into() }],
        };
        let mut r = TerminalRecorder::new(Normalizer::new(&settings, &HostValues::default()), 8, 100, 10);
        assert_eq!(r.offer("ab", 0), Some(0));
        assert_eq!(r.offer("aa", 0), None);
        let TerminalOutput { frames, raw, normalized: norm, .. } = r.finish(0);
        assert_eq!(frames[0].data, "AAAAb");
        assert_eq!(frames[0].raw_data.as_deref(), Some("ab"));
        assert_eq!(raw.omitted_for_normalized_budget, 1);
        assert_eq!((norm.omitted_frames, norm.unknown_size_frames, norm.retained_bytes), (1, 0, 5));
    }
}
