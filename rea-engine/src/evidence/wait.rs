//! Waiting on output: the condition a scripted event waits for before it is
//! dispatched, stated once for the scenario (`events[].wait_for`) and the
//! record (`interaction_events[].wait`), and what became of the wait.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::record::MAX_SAFE_INTEGER;

/// Most UTF-8 bytes of a condition's text or regular expression.
pub const MAX_WAIT_TEXT_BYTES: usize = 1024;

/// What an event waits for: exactly one condition.
///
/// The screen is the visible rows joined with `\n`, trailing spaces
/// removed; the output is the terminal text received since the previous
/// event was dispatched (since launch for the first). Both are matched
/// before normalization, with sensitive inputs already replaced by their
/// marker. Regular expressions use the `regex` crate's syntax, with
/// multi-line and CRLF modes on (`^` and `$` match at line boundaries).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WaitCondition {
    /// The screen contains this text.
    ScreenContains(
        /// Text the visible rows (joined with `\n`, trailing spaces removed) must contain.
        #[schemars(length(min = 1, max = MAX_WAIT_TEXT_BYTES))]
        String,
    ),
    /// The screen matches this regular expression.
    ScreenMatches(
        /// A regular expression (`regex` crate syntax, multi-line) the visible rows must match.
        #[schemars(length(min = 1, max = MAX_WAIT_TEXT_BYTES))]
        String,
    ),
    /// The output since the previous event contains this text.
    OutputContains(
        /// Text the terminal output since the previous event must contain.
        #[schemars(length(min = 1, max = MAX_WAIT_TEXT_BYTES))]
        String,
    ),
    /// The output since the previous event matches this regular expression.
    OutputMatches(
        /// A regular expression (`regex` crate syntax, multi-line) the output since the previous event must match.
        #[schemars(length(min = 1, max = MAX_WAIT_TEXT_BYTES))]
        String,
    ),
    /// No output for this many milliseconds.
    QuietMs(
        /// Milliseconds without any output.
        #[schemars(range(min = 1, max = MAX_SAFE_INTEGER))]
        u64,
    ),
}

impl WaitCondition {
    /// Every condition's key, in documentation order.
    pub const KEYS: [&'static str; 5] =
        ["screen_contains", "screen_matches", "output_contains", "output_matches", "quiet_ms"];

    /// The condition's key.
    pub fn key(&self) -> &'static str {
        match self {
            WaitCondition::ScreenContains(_) => Self::KEYS[0],
            WaitCondition::ScreenMatches(_) => Self::KEYS[1],
            WaitCondition::OutputContains(_) => Self::KEYS[2],
            WaitCondition::OutputMatches(_) => Self::KEYS[3],
            WaitCondition::QuietMs(_) => Self::KEYS[4],
        }
    }

    /// The condition as a person reads it, e.g. `screen_contains "$ "`.
    pub fn describe(&self) -> String {
        match self {
            WaitCondition::ScreenContains(t)
            | WaitCondition::ScreenMatches(t)
            | WaitCondition::OutputContains(t)
            | WaitCondition::OutputMatches(t) => format!("{} {t:?}", self.key()),
            WaitCondition::QuietMs(ms) => format!("quiet_ms {ms}"),
        }
    }
}

/// `events[].wait_for`: a condition and how long to wait for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("unevaluatedProperties" = false))]
pub struct WaitFor {
    /// The condition (one key of [`WaitCondition::KEYS`]).
    #[serde(flatten)]
    pub condition: WaitCondition,
    /// Give up after this many milliseconds from the wait's start (the
    /// previous event's dispatch, or launch); absent: wait until the
    /// scenario's deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64", range(min = 1, max = MAX_SAFE_INTEGER))]
    pub timeout_ms: Option<u64>,
}

super::vocabulary::vocabulary! {
    /// What became of a wait (`interaction_events[].wait.outcome`).
    WaitOutcome {
        /// The condition held; the event was dispatched.
        Satisfied = "satisfied",
        /// The wait's timeout (or the scenario's deadline) passed first.
        TimedOut = "timed_out",
        /// The launched process ended while the event waited.
        TargetExited = "target_exited",
        /// The wait never started: an earlier event's wait timed out, or the
        /// run ended before the previous event was dispatched.
        NotStarted = "not_started",
    }
}

/// `interaction_events[].wait`: the condition an event waited for and what
/// became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitRecord {
    /// The condition, as the scenario states it.
    pub condition: WaitCondition,
    /// The wait's own timeout; absent when it waited up to the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Raw milliseconds after launch when the condition was seen to hold;
    /// null when it never was.
    pub satisfied_at_ms: Option<u64>,
    /// `satisfied`, `timed_out`, `target_exited` or `not_started`.
    pub outcome: WaitOutcome,
}

impl WaitRecord {
    /// The record of a wait on `wait_for` that ended with `outcome`.
    pub fn new(wait_for: &WaitFor, satisfied_at_ms: Option<u64>, outcome: WaitOutcome) -> WaitRecord {
        WaitRecord { condition: wait_for.condition.clone(), timeout_ms: wait_for.timeout_ms, satisfied_at_ms, outcome }
    }
}
