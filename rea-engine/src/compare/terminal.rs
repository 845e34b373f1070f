//! The terminal dimension: the normalized text stream (frames' `data`,
//! never `raw_data`) cut into segments at each dispatched interaction event,
//! and the rendered screen at each segment's end. Chunk boundaries and
//! `at_ms` inside a segment are transport and never make a difference.
//!
//! Segment *k* holds what was printed after the *k*-th dispatched event and
//! before the next; the order comes from the event journal (or, in a record
//! without a complete journal, from `at_ms` against `dispatched_at_ms`).
//! The screen ending segment *k* is the last rendered frame recorded before
//! that event; the one ending the last segment is the final screen.
//!
//! Invalid UTF-8 became U+FFFD in `data`, which loses the bytes; each
//! frame's `invalid_utf8` keeps them, and a segment's invalid sequences are
//! compared too, so different bytes never compare equal.
//!
//! Replies to terminal queries (`terminal_reply`) are no boundaries: rea
//! sends them where the program's query is parsed, so a boundary there
//! would depend on how the output was cut into reads.
//!
//! A screen never drawn is the blank screen of the terminal's size at that
//! point (the scenario's size, changed by each dispatched resize before it):
//! a side that drew nothing and one that drew only invisible sequences show
//! the same screen.

use std::collections::HashMap;

use serde_json::Value;

use super::diff::{Findings, Location, phase, text_difference};
use crate::evidence::{
    ActiveBuffer, CaptureRecord, InteractionEvent, InteractionKind, InteractionOutcome, RenderedFrame, ScreenLines,
};

/// A truncated terminal's retained text after its first omitted chunk can
/// hold later, smaller chunks, whose total is below the omitted chunk's
/// size. PTY reads are at most 64 KiB; normalization can grow a chunk, so
/// twice that is kept as the margin: only differences this far before the
/// end of both retained streams are proven observations.
pub const TRUNCATION_MARGIN_BYTES: usize = 128 * 1024;

/// One side's terminal, cut into segments.
pub(super) struct Segmented<'a> {
    segments: Vec<String>,
    /// Hex groups of each segment's invalid UTF-8 sequences, in order.
    invalid: Vec<Vec<&'a str>>,
    /// The screen ending each segment, when one was rendered before it.
    screens: Vec<Option<&'a RenderedFrame>>,
    /// The terminal's size (columns, rows) during each segment.
    sizes: Vec<(u16, u16)>,
    /// Bytes of the whole stream known to precede any omission.
    clean_bytes: usize,
    /// Whether rendered states were omitted.
    rendered_truncated: bool,
}

fn journal_positions(r: &CaptureRecord) -> HashMap<(&str, u64), u64> {
    r.event_journal.iter().map(|e| ((e.collection.as_str(), e.index), e.capture_order)).collect()
}

/// Whether an event cuts the stream into segments: a dispatched scripted event.
pub(super) fn is_boundary(e: &InteractionEvent) -> bool {
    e.outcome == InteractionOutcome::Dispatched && e.kind != InteractionKind::TerminalReply
}

/// The committed terminal size, then the size after each boundary event.
pub(super) fn segment_sizes(r: &CaptureRecord) -> Vec<(u16, u16)> {
    let terminal = &r.manifest.scenario["terminal"];
    let dimension =
        |key: &str, default: u16| terminal[key].as_u64().and_then(|v| u16::try_from(v).ok()).unwrap_or(default);
    let mut size = (dimension("columns", 80), dimension("rows", 24));
    let mut sizes = vec![size];
    for e in r.interaction_events.iter().filter(|e| is_boundary(e)) {
        if e.kind == InteractionKind::Resize
            && let Some((c, rows)) = e.data.split_once('x')
            && let (Ok(c), Ok(rows)) = (c.parse(), rows.parse())
        {
            size = (c, rows);
        }
        sizes.push(size);
    }
    sizes
}

/// The screen of a terminal nothing was drawn on.
fn blank((columns, rows): (u16, u16)) -> RenderedFrame {
    RenderedFrame {
        sequence: 0,
        at_ms: 0,
        columns,
        rows,
        cursor_x: 0,
        cursor_y: 0,
        active_buffer: ActiveBuffer::Normal,
        lines: (0..rows).map(|_| "").collect::<ScreenLines>(),
        serialized_state: String::new(),
    }
}

impl<'a> Segmented<'a> {
    pub(super) fn new(r: &'a CaptureRecord) -> Segmented<'a> {
        let journal = journal_positions(r);
        let complete = (0..r.frames.len() as u64).all(|i| journal.contains_key(&("frames", i)))
            && (0..r.rendered_frames.len() as u64).all(|i| journal.contains_key(&("rendered_frames", i)))
            && (0..r.interaction_events.len() as u64).all(|i| journal.contains_key(&("interaction_events", i)));
        // Order keys: journal positions, or times with a frame at an event's
        // millisecond placed before it.
        let key = |collection: &'static str, index: usize, at_ms: u64| -> u64 {
            if complete {
                journal[&(collection, index as u64)]
            } else {
                at_ms.saturating_mul(2) + u64::from(collection == "interaction_events")
            }
        };
        let boundaries: Vec<u64> = r
            .interaction_events
            .iter()
            .enumerate()
            .filter(|(_, e)| is_boundary(e))
            // A dispatched event has its time (the loader requires it).
            .map(|(i, e)| key("interaction_events", i, e.dispatched_at_ms.unwrap_or_default()))
            .collect();
        let segment_of = |k: u64| boundaries.partition_point(|&b| b < k);
        let mut segments = vec![String::new(); boundaries.len() + 1];
        let mut invalid = vec![Vec::new(); boundaries.len() + 1];
        for (i, f) in r.frames.iter().enumerate() {
            let k = segment_of(key("frames", i, f.at_ms));
            segments[k].push_str(&f.data);
            invalid[k].extend(f.invalid_utf8.iter().flat_map(|g| g.split(' ')));
        }
        let mut screens = vec![None; boundaries.len() + 1];
        for (i, f) in r.rendered_frames.iter().enumerate() {
            // Later frames of a segment replace earlier ones: intermediate screens are transport.
            screens[segment_of(key("rendered_frames", i, f.at_ms))] = Some(f);
        }
        // A segment without its own rendered frame ends on the screen before it.
        for k in 1..screens.len() {
            if screens[k].is_none() {
                screens[k] = screens[k - 1];
            }
        }
        let td = &r.truncation_details;
        let total: usize = segments.iter().map(String::len).sum();
        let budget_omission = td.raw_terminal.omitted_for_budget > 0
            || td.raw_terminal.omitted_for_normalized_budget > 0
            || td.normalized_terminal.as_ref().is_some_and(|n| n.truncated);
        // Only a frame-limit omission keeps an exact prefix.
        let clean_bytes = if budget_omission { total.saturating_sub(TRUNCATION_MARGIN_BYTES) } else { total };
        let sizes = segment_sizes(r);
        Segmented { segments, invalid, screens, sizes, clean_bytes, rendered_truncated: td.rendered_terminal.truncated }
    }

    /// The last rendered frame recorded in segment `k` or before it (the
    /// stream lens's screen ending segment `k`).
    pub(super) fn screen(&self, k: usize) -> Option<&'a RenderedFrame> {
        self.screens.get(k).copied().flatten()
    }

    /// Whether nothing was printed or rendered.
    pub(super) fn is_empty(&self) -> bool {
        self.segments.iter().all(String::is_empty) && self.screens.iter().all(Option::is_none)
    }

    fn offset_of(&self, segment: usize, offset: usize) -> usize {
        self.segments[..segment.min(self.segments.len())].iter().map(String::len).sum::<usize>() + offset
    }
}

/// Terminal findings, and whether any difference lies where both sides
/// retained everything (so truncation cannot explain it: a seen change).
pub(super) fn compare(l: &Segmented<'_>, r: &Segmented<'_>) -> (Findings, bool) {
    let mut f = Findings::default();
    let (mut any_observed, complete) = stream(&mut f, l, r);
    let n = l.segments.len().max(r.segments.len());
    let rendered_exact = !l.rendered_truncated && !r.rendered_truncated;
    for k in 0..n {
        let (a, b) = (l.screens.get(k).copied().flatten(), r.screens.get(k).copied().flatten());
        // A side that drew nothing shows the blank screen of its size.
        let size = |s: &Segmented<'_>| s.sizes.get(k).or(s.sizes.last()).copied().unwrap_or((80, 24));
        let (blank_a, blank_b) = (a.is_none().then(|| blank(size(l))), b.is_none().then(|| blank(size(r))));
        let (a, b) = (a.or(blank_a.as_ref()), b.or(blank_b.as_ref()));
        let before = f.differences.len();
        screen(&mut f, k, a, b);
        if f.differences.len() > before {
            any_observed |= rendered_exact && complete;
        }
    }
    (f, any_observed)
}

/// The text of each segment and its invalid UTF-8 groups. Returns whether
/// any difference lies where both sides retained everything, and whether
/// both streams are complete.
pub(super) fn stream(f: &mut Findings, l: &Segmented<'_>, r: &Segmented<'_>) -> (bool, bool) {
    let mut any_observed = false;
    let n = l.segments.len().max(r.segments.len());
    for k in 0..n {
        let (a, b) = (l.segments.get(k).map_or("", String::as_str), r.segments.get(k).map_or("", String::as_str));
        if let Some((offset, line, column, le, re)) = text_difference(a, b) {
            let observed = l.offset_of(k, offset) < l.clean_bytes && r.offset_of(k, offset) < r.clean_bytes;
            any_observed |= observed;
            f.push(
                format!("terminal.segments[{k}]"),
                le.into(),
                re.into(),
                Some(Location::Stream { segment: k, byte_offset: offset, line, column }),
                (k, phase::STREAM, offset),
            );
        }
    }
    let complete = l.clean_bytes == l.offset_of(n, 0) && r.clean_bytes == r.offset_of(n, 0);
    for k in 0..n {
        let (a, b) = (l.invalid.get(k).map_or(&[][..], Vec::as_slice), r.invalid.get(k).map_or(&[][..], Vec::as_slice));
        if a != b {
            any_observed |= complete;
            f.push(
                format!("terminal.segments[{k}].invalid_utf8"),
                a.join(" ").into(),
                b.join(" ").into(),
                None,
                (k, phase::STREAM, usize::MAX),
            );
        }
    }
    (any_observed, complete)
}

fn screen(f: &mut Findings, k: usize, a: Option<&RenderedFrame>, b: Option<&RenderedFrame>) {
    let path = format!("terminal.screens[{k}]");
    let (Some(a), Some(b)) = (a, b) else { return };
    let order = (k, phase::SCREEN, 0);
    f.field(&format!("{path}.size"), &(a.columns, a.rows), &(b.columns, b.rows), order);
    f.field(&format!("{path}.active_buffer"), &a.active_buffer, &b.active_buffer, order);
    let rows = a.lines.len().max(b.lines.len());
    if let Some(row) = (0..rows).find(|&i| a.lines.get(i) != b.lines.get(i)) {
        let (la, lb) = (a.lines.get(row).unwrap_or_default(), b.lines.get(row).unwrap_or_default());
        let column = text_difference(la, lb).map_or(1, |(_, _, c, ..)| c);
        f.push(
            format!("{path}.lines[{row}]"),
            Value::from(la),
            Value::from(lb),
            Some(Location::Screen { segment: k, row: row + 1, column }),
            (k, phase::SCREEN, row + 1),
        );
    }
    f.field(
        &format!("{path}.cursor"),
        &(a.cursor_x, a.cursor_y),
        &(b.cursor_x, b.cursor_y),
        (k, phase::SCREEN, rows + 1),
    );
}
