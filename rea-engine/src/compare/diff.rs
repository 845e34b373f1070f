//! What a comparison reports: differences users can act on (a field path,
//! both values, a location) and every timing delta with its tolerance.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::screen_view::ScreenPair;

/// Differences listed per dimension; the rest are counted.
pub const MAX_DIFFERENCES: usize = 20;

/// Characters of text shown on each side of an excerpt.
pub(super) const EXCERPT_CHARS: usize = 40;

/// Where in a dimension's observations a difference lies. Lines, columns
/// and rows count from 1; `byte_offset` counts UTF-8 bytes from 0 within the
/// segment's normalized text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Location {
    /// A position in a terminal text segment.
    Stream {
        /// Segment index: 0 is before the first dispatched event.
        segment: usize,
        /// Byte offset in the segment.
        byte_offset: usize,
        /// Line in the segment (from 1).
        line: usize,
        /// Column in characters (from 1).
        column: usize,
    },
    /// A cell of a rendered screen.
    Screen {
        /// The segment the screen ends (the last one is the final screen).
        segment: usize,
        /// Row (from 1).
        row: usize,
        /// Column in characters (from 1).
        column: usize,
    },
    /// A position in an ordered list (events, signals, samples).
    Index {
        /// The segment in which the item happened.
        segment: usize,
        /// Position in its list.
        index: usize,
    },
}

/// One observed difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Difference {
    /// Field path or stream location, e.g. `exit.code`, `terminal.segments[1]`.
    pub path: String,
    /// The left value, or an excerpt of left text.
    pub left: Value,
    /// The right value, or an excerpt of right text.
    pub right: Value,
    /// Where it lies, when a finer position than the path exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// Whether the difference takes part in the dimension's status and the
    /// first divergence. Written only when false: under the screen lens the
    /// terminal's stream differences are listed but do not decide.
    #[serde(default = "deciding", skip_serializing_if = "is_deciding")]
    pub deciding: bool,
    /// Present when `left` and `right` are intervals rather than the
    /// field's own values: what they were measured from, and the field's
    /// absolute values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// Ordering key for the first divergence: (segment, phase, position).
    #[serde(skip)]
    pub(super) order: (usize, u8, usize),
    /// The two screens of a screen-lens difference (shared by the
    /// differences of one segment), carried to the first divergence.
    #[serde(skip)]
    pub(super) screens: Option<Arc<ScreenPair>>,
}

fn deciding() -> bool {
    true
}

fn is_deciding(deciding: &bool) -> bool {
    *deciding
}

/// Phases within a segment, in the order things happen.
pub(super) mod phase {
    /// Text printed during the segment.
    pub(in crate::compare) const STREAM: u8 = 0;
    /// The screen at the segment's end.
    pub(in crate::compare) const SCREEN: u8 = 1;
    /// The interaction event that ends the segment.
    pub(in crate::compare) const EVENT: u8 = 2;
    /// How the process ended (in the last segment).
    pub(in crate::compare) const EXIT: u8 = 3;
    /// Filesystem effects, observed after settlement.
    pub(in crate::compare) const FILESYSTEM: u8 = 4;
    /// Process samples.
    pub(in crate::compare) const PROCESS: u8 = 5;
}

/// A timing value on both sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingDelta {
    /// Field path, e.g. `settlement.elapsed_ms`.
    pub path: String,
    /// Left milliseconds (the interval, when `interval` is present).
    pub left_ms: u64,
    /// Right milliseconds (the interval, when `interval` is present).
    pub right_ms: u64,
    /// `right_ms - left_ms`.
    pub delta_ms: i64,
    /// Whether `|delta_ms|` is at most the tolerance.
    pub within_tolerance: bool,
    /// Present when the value compared is an interval: what it was
    /// measured from, and the field's absolute values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
}

/// A time compared as the program's interval: the field at the entry's
/// `path` (milliseconds after launch on each side) minus the time at
/// `since`. The entry's `left`/`right` (`left_ms`/`right_ms`) are then the
/// intervals. A satisfied wait is compared so: the gap between one event's
/// dispatch and the next event's condition is the program's, the gap
/// between a condition and its dispatch the driver's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interval {
    /// What both intervals are measured from: `launch`, or the previous
    /// scripted event's dispatch (`interaction_events[k].dispatched_at_ms`).
    pub since: String,
    /// The time at `since` on the left (milliseconds after launch).
    pub left_since_ms: u64,
    /// The time at `since` on the right.
    pub right_since_ms: u64,
    /// The field's own value on the left (milliseconds after launch).
    pub left_at_ms: u64,
    /// The field's own value on the right.
    pub right_at_ms: u64,
}

impl Interval {
    /// The two intervals, `at − since` on each side (never below 0).
    pub fn lengths(&self) -> (u64, u64) {
        (self.left_at_ms.saturating_sub(self.left_since_ms), self.right_at_ms.saturating_sub(self.right_since_ms))
    }
}

/// Collects one dimension's differences and timing deltas.
#[derive(Debug, Default)]
pub(super) struct Findings {
    /// Every difference, in discovery order (sorted and cut when reported).
    pub(super) differences: Vec<Difference>,
    /// Every timing delta.
    pub(super) timing_deltas: Vec<TimingDelta>,
    /// The first value that could not be serialized: the comparison fails
    /// with it instead of reporting a difference it cannot show.
    pub(super) failure: Option<serde_json::Error>,
}

impl Findings {
    /// Records a difference when `left != right`.
    pub(super) fn field<T: Serialize + PartialEq>(
        &mut self,
        path: &str,
        left: &T,
        right: &T,
        order: (usize, u8, usize),
    ) {
        if left != right {
            self.values(path.to_owned(), left, right, None, order);
        }
    }

    /// Records a difference between two serializable values.
    pub(super) fn values<T: Serialize>(
        &mut self,
        path: String,
        left: &T,
        right: &T,
        location: Option<Location>,
        order: (usize, u8, usize),
    ) {
        match (serde_json::to_value(left), serde_json::to_value(right)) {
            (Ok(left), Ok(right)) => self.push(path, left, right, location, order),
            (Err(e), _) | (_, Err(e)) => {
                self.failure.get_or_insert(e);
            }
        }
    }

    /// Records a difference.
    pub(super) fn push(
        &mut self,
        path: String,
        left: Value,
        right: Value,
        location: Option<Location>,
        order: (usize, u8, usize),
    ) {
        self.differences.push(Difference {
            path,
            left,
            right,
            location,
            deciding: true,
            interval: None,
            order,
            screens: None,
        });
    }

    /// Records a timing delta; beyond `tolerance` it is also a difference.
    pub(super) fn timing(&mut self, path: &str, left: u64, right: u64, tolerance: u64, order: (usize, u8, usize)) {
        self.timed(path, (left, right), None, tolerance, order);
    }

    /// Records a timing delta of two intervals (`interval.lengths()`);
    /// beyond `tolerance` it is also a difference. Both carry `interval`.
    pub(super) fn timing_interval(
        &mut self,
        path: &str,
        interval: Interval,
        tolerance: u64,
        order: (usize, u8, usize),
    ) {
        self.timed(path, interval.lengths(), Some(interval), tolerance, order);
    }

    fn timed(
        &mut self,
        path: &str,
        (left, right): (u64, u64),
        interval: Option<Interval>,
        tolerance: u64,
        order: (usize, u8, usize),
    ) {
        let delta = i64::try_from(right).unwrap_or(i64::MAX).saturating_sub(i64::try_from(left).unwrap_or(i64::MAX));
        let within_tolerance = left.abs_diff(right) <= tolerance;
        self.timing_deltas.push(TimingDelta {
            path: path.to_owned(),
            left_ms: left,
            right_ms: right,
            delta_ms: delta,
            within_tolerance,
            interval: interval.clone(),
        });
        if !within_tolerance {
            self.push(path.to_owned(), left.into(), right.into(), None, order);
            if let Some(d) = self.differences.last_mut() {
                d.interval = interval;
            }
        }
    }

    /// Whether nothing that decides differs.
    pub(super) fn is_empty(&self) -> bool {
        !self.differences.iter().any(|d| d.deciding)
    }

    /// Marks the differences from `from` on as not deciding.
    pub(super) fn not_deciding_from(&mut self, from: usize) {
        self.differences[from..].iter_mut().for_each(|d| d.deciding = false);
    }
}

/// The first difference between two texts: byte offset (at a character
/// boundary), line and column (from 1), and an excerpt of each side.
pub(super) fn text_difference(left: &str, right: &str) -> Option<(usize, usize, usize, String, String)> {
    if left == right {
        return None;
    }
    let common = left.bytes().zip(right.bytes()).take_while(|(a, b)| a == b).count();
    let mut offset = common;
    while !left.is_char_boundary(offset) || !right.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &left[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    Some((offset, line, column, excerpt(left, offset), excerpt(right, offset)))
}

/// Up to [`EXCERPT_CHARS`] characters before and after `offset`, with `…`
/// where text was cut.
pub(super) fn excerpt(text: &str, offset: usize) -> String {
    let head = &text[..offset];
    let start = head.char_indices().rev().nth(EXCERPT_CHARS - 1).map_or(0, |(i, _)| i);
    let tail = &text[offset..];
    let end = tail.char_indices().nth(EXCERPT_CHARS).map_or(text.len(), |(i, _)| offset + i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&text[start..end]);
    if end < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_differences_name_the_line_and_column() {
        let (offset, line, column, l, r) = text_difference("a\r\nanswer 42\r\n", "a\r\nanswer 43\r\n").unwrap();
        assert_eq!((offset, line, column), (11, 2, 9));
        assert_eq!((l.as_str(), r.as_str()), ("a\r\nanswer 42\r\n", "a\r\nanswer 43\r\n"));
        // A shorter side differs where it ends; multi-byte characters keep boundaries.
        let (offset, ..) = text_difference("é1", "é").unwrap();
        assert_eq!(offset, 2);
        let (offset, _, column, ..) = text_difference("aé", "aè").unwrap();
        assert_eq!((offset, column), (1, 2));
        assert!(text_difference("same", "same").is_none());
    }

    #[test]
    fn excerpts_are_short_and_marked_where_cut() {
        let long = "x".repeat(100) + "Y" + &"z".repeat(100);
        let e = excerpt(&long, 100);
        assert_eq!(e, format!("…{}Y{}…", "x".repeat(40), "z".repeat(39)));
    }

    #[test]
    fn timings_beyond_the_tolerance_are_differences_and_all_are_listed() {
        let mut f = Findings::default();
        f.timing("settlement.elapsed_ms", 50, 120, 100, (0, phase::EXIT, 0));
        f.timing("exit.finalization.elapsed_ms", 300, 100, 100, (0, phase::EXIT, 1));
        assert_eq!(f.timing_deltas.len(), 2);
        assert!(f.timing_deltas[0].within_tolerance);
        assert_eq!(f.timing_deltas[1].delta_ms, -200);
        assert_eq!(f.differences.len(), 1);
        assert_eq!(f.differences[0].path, "exit.finalization.elapsed_ms");
    }
}
