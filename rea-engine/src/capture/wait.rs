//! Waiting on output (`wait_for`): the wait of the next scripted event and
//! the matchers that decide it.
//!
//! A wait starts when the previous event was dispatched (at launch for the
//! first). Its condition is decided where the text is: output conditions
//! on the decoded text of each read, as it is read (a lazy DFA or a
//! substring search over the read and a short tail, so each byte is looked
//! at once); screen conditions by the renderer's thread after it parsed
//! each read (`render::ScreenWatch`), off the read path; quiet by the
//! timer. The run loop dispatches the event on the first turn after the
//! condition held, the program's output burst ended ([`BURST_SETTLE`]) and
//! `at_ms` (then "not before") has passed.
//!
//! A condition can hold in the middle of one write burst: gdb writes
//! `(gdb) ` one byte per `write`, and the screen (which trims trailing
//! blanks) shows `(gdb)` before the space comes. So a satisfied output or
//! screen wait is held until no output came for [`BURST_SETTLE`] (restarted
//! by every read), and at most [`BURST_SETTLE_MAX`] after the condition
//! held (a program that never pauses). `quiet_ms` needs no settle.

use std::time::{Duration, Instant};

use regex_automata::hybrid::LazyStateID;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::util::start;

use crate::evidence::{WaitCondition, WaitFor};

/// How long the output must pause after an output or screen condition held
/// before the event is dispatched; every read restarts it. Above the gaps
/// measured inside a burst written one byte per `write` with 2 ms pauses on
/// a loaded two-core machine (p99 8-12 ms, max 16 ms at load 17; see
/// docs/decisions.md, "Terminal replies and waits are the terminal's (issue 32)").
pub(super) const BURST_SETTLE: Duration = Duration::from_millis(30);

/// The longest a satisfied wait is held for the output to pause.
pub(super) const BURST_SETTLE_MAX: Duration = Duration::from_millis(500);
use crate::scenario::output_dfa;

/// Matches the output since a wait started, read by read.
pub(super) enum OutputMatcher {
    /// `output_contains`: the text, and the end of the output read so far
    /// that could start it.
    Contains { needle: String, tail: String },
    /// `output_matches`: the expression's lazy DFA and where it stands.
    Matches { dfa: Box<DFA>, cache: Box<Cache>, state: LazyStateID },
}

impl OutputMatcher {
    /// The matcher of an output condition; `None` for any other condition.
    pub(super) fn of(condition: &WaitCondition) -> Option<Result<OutputMatcher, String>> {
        match condition {
            WaitCondition::OutputContains(needle) => {
                Some(Ok(OutputMatcher::Contains { needle: needle.clone(), tail: String::new() }))
            }
            WaitCondition::OutputMatches(pattern) => Some(OutputMatcher::compiled(pattern)),
            _ => None,
        }
    }

    fn compiled(pattern: &str) -> Result<OutputMatcher, String> {
        let dfa = output_dfa(pattern)?;
        let mut cache = dfa.create_cache();
        let config = start::Config::new().anchored(regex_automata::Anchored::No);
        let state = dfa.start_state(&mut cache, &config).map_err(|e| e.to_string())?;
        Ok(OutputMatcher::Matches { dfa: Box::new(dfa), cache: Box::new(cache), state })
    }

    /// Reads the next text; says whether the output so far now holds a match.
    pub(super) fn feed(&mut self, text: &str) -> Result<bool, String> {
        match self {
            OutputMatcher::Contains { needle, tail } => {
                tail.push_str(text);
                if tail.contains(needle.as_str()) {
                    return Ok(true);
                }
                // Keep fewer bytes than the needle: any later match starts there or later.
                let mut keep = tail.len().saturating_sub(needle.len().saturating_sub(1));
                while !tail.is_char_boundary(keep) {
                    keep += 1;
                }
                tail.drain(..keep);
                Ok(false)
            }
            OutputMatcher::Matches { dfa, cache, state } => {
                for &byte in text.as_bytes() {
                    *state = dfa.next_state(cache, *state, byte).map_err(|e| e.to_string())?;
                    // A match state is entered one byte after the match ends.
                    if state.is_match() {
                        return Ok(true);
                    }
                }
                // Does a match end right here (the output so far, as a whole)?
                let end = dfa.next_eoi_state(cache, *state).map_err(|e| e.to_string())?;
                Ok(end.is_match())
            }
        }
    }
}

/// The output side of a wait: fed every read, it keeps when the output
/// condition first held and when output last came.
#[derive(Default)]
pub(super) struct OutputWatch {
    matcher: Option<OutputMatcher>,
    hit: Option<Instant>,
    failure: Option<String>,
    last_output: Option<Instant>,
}

impl OutputWatch {
    /// Starts watching the output from now on with `matcher` (none: stop).
    pub(super) fn arm(&mut self, matcher: Option<OutputMatcher>) {
        self.matcher = matcher;
        self.hit = None;
        self.failure = None;
    }

    /// Text decoded from a read at `at`.
    pub(super) fn text(&mut self, text: &str, at: Instant) {
        if text.is_empty() {
            return;
        }
        self.last_output = Some(at);
        let Some(matcher) = self.matcher.as_mut() else { return };
        match matcher.feed(text) {
            Ok(false) => {}
            Ok(true) => {
                self.hit = Some(at);
                self.matcher = None;
            }
            Err(e) => {
                self.failure = Some(format!("the output condition could not be evaluated: {e}"));
                self.matcher = None;
            }
        }
    }

    /// When the armed condition held, if it did.
    pub(super) fn hit(&self) -> Option<Instant> {
        self.hit
    }

    /// Why the armed condition can no longer be decided, if it cannot.
    pub(super) fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// When output last came, if any came.
    pub(super) fn last_output(&self) -> Option<Instant> {
        self.last_output
    }
}

/// Where a condition is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decider {
    /// The renderer's thread (screen conditions), under this watch number.
    Screen(u64),
    /// The output watch (output conditions).
    Output,
    /// The run loop's clock: no output for this long.
    Quiet(Duration),
}

/// The wait of the next scripted event.
#[derive(Debug)]
pub(super) struct Waiting {
    /// What the event waits for.
    pub(super) wait_for: WaitFor,
    /// Where it is decided.
    pub(super) decider: Decider,
    /// When the wait started.
    pub(super) started: Instant,
    /// When its own timeout passes (none: it waits up to the deadline).
    pub(super) timeout_at: Option<Instant>,
    /// When the condition was seen to hold.
    pub(super) satisfied: Option<Instant>,
    /// Why the condition cannot be decided, when it cannot (the wait then
    /// ends as timed out, with this reason).
    pub(super) failure: Option<String>,
}

impl Waiting {
    /// When the event may be dispatched, once its condition held, given when
    /// output last came: after [`BURST_SETTLE`] without output, at most
    /// [`BURST_SETTLE_MAX`] after the condition held; at once for `quiet_ms`.
    pub(super) fn settled_at(&self, last_output: Option<Instant>) -> Option<Instant> {
        let held = self.satisfied?;
        if let Decider::Quiet(_) = self.decider {
            return Some(held);
        }
        let last = last_output.map_or(held, |o| o.max(held));
        Some((last + BURST_SETTLE).min(held + BURST_SETTLE_MAX))
    }

    /// When a quiet wait would be satisfied, given when output last came.
    pub(super) fn quiet_at(&self, last_output: Option<Instant>) -> Option<Instant> {
        match self.decider {
            Decider::Quiet(quiet) => Some(last_output.map_or(self.started, |o| o.max(self.started)) + quiet),
            Decider::Screen(_) | Decider::Output => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(condition: WaitCondition) -> OutputMatcher {
        OutputMatcher::of(&condition).expect("an output condition").expect("compiles")
    }

    fn first_hit(mut m: OutputMatcher, chunks: &[&str]) -> Option<usize> {
        chunks.iter().position(|c| m.feed(c).expect("decidable"))
    }

    #[test]
    fn contains_finds_text_split_across_reads_and_only_once_complete() {
        let c = || matcher(WaitCondition::OutputContains("ready> ".into()));
        assert_eq!(first_hit(c(), &["loading\r\n", "rea", "dy", "> "]), Some(3));
        assert_eq!(first_hit(c(), &["ready", ">", "x "]), None);
        assert_eq!(first_hit(c(), &["ééé ready> "]), Some(0));
        let multi = || matcher(WaitCondition::OutputContains("é>".into()));
        assert_eq!(first_hit(multi(), &["aé", ">"]), Some(1));
    }

    #[test]
    fn matches_streams_and_answers_as_the_regex_crate_on_the_output_so_far() {
        let m = || matcher(WaitCondition::OutputMatches(r"(?m)^\d+ items$".into()));
        assert_eq!(first_hit(m(), &["count: 4", "2 items\r\n"]), None);
        assert_eq!(first_hit(m(), &["count:\r\n4", "2 items\r\n"]), Some(1));
        // `$` holds at the end of the output so far, as it would on that text.
        assert_eq!(first_hit(m(), &["x\r\n12 items"]), Some(0));
        let prompt = || matcher(WaitCondition::OutputMatches(r"[$#] $".into()));
        assert_eq!(first_hit(prompt(), &["user@host:~", "$ "]), Some(1));
        assert_eq!(first_hit(prompt(), &["$ x"]), None);
    }

    #[test]
    fn matches_agrees_with_the_regex_crate_on_generated_streams() {
        let patterns = [r"ab+c", r"^b$", r"a.c", r"(?:ab|ba){2}", r"c\r?\n"];
        let mut rng = crate::testing::Rng(7);
        for round in 0..400 {
            let text: String = (0..(rng.next_u64() % 24))
                .map(|_| ['a', 'b', 'c', '\r', '\n'][(rng.next_u64() % 5) as usize])
                .collect();
            let cut = (rng.next_u64() as usize) % (text.len() + 1);
            for p in patterns {
                let reference = crate::scenario::screen_regex(p).expect("compiles");
                // After each read, the answer on all the output so far.
                let expected =
                    if reference.is_match(&text[..cut]) { Some(0) } else { reference.is_match(&text).then_some(1) };
                let mut m = matcher(WaitCondition::OutputMatches(p.into()));
                let mut found = None;
                for (i, piece) in [&text[..cut], &text[cut..]].into_iter().enumerate() {
                    if found.is_none() && m.feed(piece).expect("decidable") {
                        found = Some(i);
                    }
                }
                assert_eq!(found, expected, "round {round}: {p:?} on {text:?} cut at {cut}");
            }
        }
    }

    #[test]
    fn a_satisfied_wait_settles_after_the_burst_and_within_its_bound() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let waiting = |decider, satisfied| Waiting {
            wait_for: WaitFor { condition: WaitCondition::OutputContains("(gdb)".into()), timeout_ms: None },
            decider,
            started: t0,
            timeout_at: None,
            satisfied,
            failure: None,
        };
        let held = waiting(Decider::Output, Some(ms(10)));
        assert_eq!(held.settled_at(None), Some(ms(10) + BURST_SETTLE));
        // Each later read restarts the settle; output before the hit does not.
        assert_eq!(held.settled_at(Some(ms(5))), Some(ms(10) + BURST_SETTLE));
        assert_eq!(held.settled_at(Some(ms(22))), Some(ms(22) + BURST_SETTLE));
        // A program that never pauses is answered at the bound.
        assert_eq!(held.settled_at(Some(ms(10_000))), Some(ms(10) + BURST_SETTLE_MAX));
        assert_eq!(waiting(Decider::Screen(1), None).settled_at(Some(ms(3))), None);
        assert_eq!(waiting(Decider::Quiet(Duration::from_millis(5)), Some(ms(9))).settled_at(Some(ms(4))), Some(ms(9)));
    }

    #[test]
    fn the_output_watch_keeps_the_first_hit_and_the_last_output() {
        let mut w = OutputWatch::default();
        let t0 = Instant::now();
        w.text("noise", t0);
        assert_eq!((w.hit(), w.last_output()), (None, Some(t0)));
        w.arm(Some(matcher(WaitCondition::OutputContains("go".into()))));
        let t1 = t0 + Duration::from_millis(5);
        w.text("g", t1);
        let t2 = t1 + Duration::from_millis(5);
        w.text("o!", t2);
        w.text("go", t2 + Duration::from_millis(5));
        assert_eq!(w.hit(), Some(t2));
        w.arm(None);
        assert_eq!(w.hit(), None);
    }
}
