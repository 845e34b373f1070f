//! The scenario of a live session: one event per live event, each with the
//! wait it was typed after (see the module documentation of `crate::live`).

use unicode_width::UnicodeWidthChar;

use crate::capture::live::{Derived, LiveNote, NoteKind, Sensitivity};
use crate::evidence::{WaitCondition, WaitFor};
use crate::scenario::{Event, MIN_SENSITIVE_INPUT_BYTES, Scenario};

/// Most characters of the text before the cursor a derived wait looks for.
pub const MAX_NEEDLE_CHARS: usize = 64;
/// Longest derived `quiet_ms`.
pub const MAX_DERIVED_QUIET_MS: u64 = 1_000;
/// A derived wait's `timeout_ms`: at least this, ...
pub const MIN_WAIT_TIMEOUT_MS: u64 = 30_000;
/// ... or this many times what the wait took live.
pub const WAIT_TIMEOUT_FACTOR: u64 = 10;

/// How the derived scenario's deadlines and waits' timeouts are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DerivePolicy {
    /// The started scenario's deadlines; derived waits without a timeout
    /// (they wait up to the deadlines, as the live session did).
    AsStarted,
    /// Written generously for a session a person drove with long deadlines:
    /// `timeout_ms` at least these, and at least twice the session plus a
    /// minute; `idle_timeout_ms` at least these, and at least twice the
    /// longest live silence plus 30 s; each derived wait's `timeout_ms` the
    /// larger of [`MIN_WAIT_TIMEOUT_MS`] and [`WAIT_TIMEOUT_FACTOR`] times
    /// what it took live.
    Generous {
        /// The smallest `timeout_ms` written.
        timeout_ms: u64,
        /// The smallest `idle_timeout_ms` written.
        idle_timeout_ms: u64,
    },
}

/// Rounds up to a whole second.
fn whole_seconds(ms: u64) -> u64 {
    ms.div_ceil(1000).saturating_mul(1000)
}

/// The scenario of a session: `started` with one event per note, and when
/// each event's wait held live.
pub fn derive(started: &Scenario, notes: &[LiveNote], tail: &str, elapsed_ms: u64, policy: &DerivePolicy) -> Derived {
    let mut scenario = started.clone();
    let mut satisfied_ms = Vec::with_capacity(notes.len());
    let mut longest_silence = 0;
    for (i, note) in notes.iter().enumerate() {
        let (wait, held) = wait_of(note, policy);
        let quiet_from = note.last_output_ms.unwrap_or(0).max(note.since_ms);
        longest_silence = longest_silence.max(note.dispatched_ms.saturating_sub(quiet_from));
        satisfied_ms.push(Some(held));
        scenario.events.push(match &note.kind {
            NoteKind::Input { data, sensitivity, echo } => {
                let sensitive = match sensitivity {
                    Sensitivity::Plain => false,
                    Sensitivity::Sensitive => true,
                    Sensitivity::IfUnshown => *echo == Some(false) && unshown(data, &notes[i + 1..], tail),
                };
                Event::Input { at_ms: None, wait_for: Some(wait), data: data.clone(), sensitive }
            }
            NoteKind::Resize { columns, rows } => {
                Event::Resize { at_ms: None, wait_for: Some(wait), columns: *columns, rows: *rows }
            }
        });
    }
    if let DerivePolicy::Generous { timeout_ms, idle_timeout_ms } = *policy {
        let last = notes.last().map_or(0, |n| n.dispatched_ms);
        longest_silence = longest_silence.max(elapsed_ms.saturating_sub(last));
        scenario.timeout_ms = timeout_ms.max(whole_seconds(elapsed_ms.saturating_mul(2) + 60_000));
        scenario.idle_timeout_ms = idle_timeout_ms.max(whole_seconds(longest_silence.saturating_mul(2) + 30_000));
    }
    Derived { scenario, satisfied_ms }
}

/// Whether a secret typed with the echo off was never shown afterwards:
/// its text (without its line terminator) is long enough to be a secret
/// and is in no later output.
fn unshown(data: &str, later: &[LiveNote], tail: &str) -> bool {
    let secret = crate::secrets::secret_part(data);
    secret.len() >= MIN_SENSITIVE_INPUT_BYTES
        && !later.iter().any(|n| n.output_before.contains(secret))
        && !tail.contains(secret)
}

/// The wait of a note's event, and when it held live (ms after launch).
fn wait_of(note: &LiveNote, policy: &DerivePolicy) -> (WaitFor, u64) {
    let (condition, held) = match &note.wait_used {
        Some((wait_for, at)) => (wait_for.condition.clone(), *at),
        None => derived_condition(note),
    };
    let timeout_ms = match (policy, &note.wait_used) {
        (_, Some((wait_for, _))) => wait_for.timeout_ms,
        (DerivePolicy::AsStarted, None) => None,
        (DerivePolicy::Generous { .. }, None) => {
            let took = held.saturating_sub(note.since_ms);
            Some(MIN_WAIT_TIMEOUT_MS.max(whole_seconds(took.saturating_mul(WAIT_TIMEOUT_FACTOR))))
        }
    };
    (WaitFor { condition, timeout_ms }, held)
}

/// What the program showed before the note's event, as a condition that
/// holds once on the output since the previous event; quiet when nothing
/// it showed can be found there.
fn derived_condition(note: &LiveNote) -> (WaitCondition, u64) {
    let before = note.screen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    let text = before.map(|s| text_before_cursor(&s)).unwrap_or_default();
    let output = &note.output_before;
    let last_output = note.last_output_ms.unwrap_or(note.since_ms).max(note.since_ms);
    if let Some(needle) = longest_shown_end(&text, output) {
        let times = output.matches(needle).count();
        // It held when the read holding the end of its last time came.
        let end = output.rfind(needle).map_or(output.len(), |at| at + needle.len());
        let read = note.output_times.iter().find(|(e, _)| *e >= end).map(|(_, ms)| *ms);
        let condition = if times <= 1 || note.output_truncated {
            WaitCondition::OutputContains(needle.to_owned())
        } else {
            WaitCondition::OutputMatches(format!("(?s)(?:.*?{}){{{times}}}", regex::escape(needle)))
        };
        return (condition, read.unwrap_or(last_output).max(note.since_ms));
    }
    let quiet_from = if output.is_empty() { note.since_ms } else { last_output };
    let quiet = note.dispatched_ms.saturating_sub(quiet_from).clamp(1, MAX_DERIVED_QUIET_MS);
    (WaitCondition::QuietMs(quiet), quiet_from + quiet)
}

/// The longest end of `text` (at most [`MAX_NEEDLE_CHARS`], not blank)
/// that `output` contains.
fn longest_shown_end<'t>(text: &'t str, output: &str) -> Option<&'t str> {
    let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let first = starts.len().saturating_sub(MAX_NEEDLE_CHARS);
    starts[first..]
        .iter()
        .map(|&i| &text[i..])
        .take_while(|end| !end.trim().is_empty())
        .find(|end| output.contains(end))
}

/// The text before the cursor on its row, blanks up to the cursor included.
fn text_before_cursor(screen: &crate::capture::render::ScreenView) -> String {
    let row = screen.lines.get(usize::from(screen.cursor_row)).map_or("", String::as_str);
    let mut text = String::new();
    let mut width = 0;
    for c in row.chars() {
        let w = c.width().unwrap_or(0);
        if width + w > usize::from(screen.cursor_column) {
            break;
        }
        width += w;
        text.push(c);
    }
    text.extend(std::iter::repeat_n(' ', usize::from(screen.cursor_column).saturating_sub(width)));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::render::ScreenView;
    use std::sync::{Arc, Mutex};

    fn note(line: &str, cursor: u16, output: &str) -> LiveNote {
        let view = ScreenView {
            columns: 80,
            rows: 2,
            lines: vec![line.into(), String::new()],
            cursor_row: 0,
            cursor_column: cursor,
        };
        LiveNote {
            kind: NoteKind::Input { data: "x".into(), sensitivity: Sensitivity::Plain, echo: Some(true) },
            output_before: output.into(),
            output_truncated: false,
            output_times: vec![(output.len(), 400)],
            dispatched_ms: 900,
            last_output_ms: Some(400),
            since_ms: 100,
            wait_used: None,
            screen: Arc::new(Mutex::new(Some(view))),
            record: None,
        }
    }

    #[test]
    fn the_prompt_before_the_cursor_is_waited_for_on_the_output_since_the_previous_event() {
        let (c, at) = derived_condition(&note("user$", 6, "\u{1b}[?2004huser$ "));
        assert_eq!((c, at), (WaitCondition::OutputContains("user$ ".into()), 400));
        // Only what came since the previous event counts: the echo, not the old prompt.
        let (c, _) = derived_condition(&note("$ ls", 4, "ls"));
        assert_eq!(c, WaitCondition::OutputContains("ls".into()));
    }

    #[test]
    fn a_prompt_shown_several_times_is_waited_for_its_last_time() {
        let (c, _) = derived_condition(&note(">>>", 4, ">>> \r\n>>> \r\n>>> "));
        let WaitCondition::OutputMatches(p) = c else { panic!("{c:?}") };
        let re = crate::scenario::screen_regex(&p).expect("compiles");
        assert!(!re.is_match(">>> \r\n>>> ") && re.is_match(">>> \r\n>>> \r\n>>> "), "{p}");
    }

    #[test]
    fn nothing_shown_since_the_previous_event_is_a_quiet_wait() {
        assert_eq!(derived_condition(&note("", 0, "")), (WaitCondition::QuietMs(800), 900));
        assert_eq!(derived_condition(&note("$", 2, "\u{1b}[K")), (WaitCondition::QuietMs(500), 900));
        let mut long = note("", 0, "abc");
        long.dispatched_ms = 5_000;
        assert_eq!(derived_condition(&long).0, WaitCondition::QuietMs(MAX_DERIVED_QUIET_MS));
    }

    #[test]
    fn an_echo_off_input_is_secret_only_when_never_shown_and_long_enough() {
        let later = [note("", 0, "\r\nthanks\r\n")];
        assert!(unshown("hunter22\r", &later, "$ "));
        assert!(!unshown("hunter22\r", &later, "you typed hunter22"));
        assert!(!unshown("abc\r", &later, ""));
        assert!(!unshown("\r", &later, ""));
    }

    #[test]
    fn the_text_before_the_cursor_counts_cells_and_keeps_blanks() {
        let view = |line: &str, col| ScreenView {
            columns: 9,
            rows: 1,
            lines: vec![line.into()],
            cursor_row: 0,
            cursor_column: col,
        };
        assert_eq!(text_before_cursor(&view("a界b", 3)), "a界");
        assert_eq!(text_before_cursor(&view(">", 2)), "> ");
    }
}
