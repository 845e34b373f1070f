//! Committed projections of a scenario: what enters `manifest.scenario`,
//! `manifest.comparison_contract` and the capture's `normalization`.
//!
//! Each projection is a borrowed view of the resolved scenario that derives
//! `Serialize`: its fields, in the order a capture writes them, are the
//! commitment. Two rules hold for every projection here:
//! - sensitive input text never appears; it becomes `<redacted-input:N-bytes>`
//!   with N its UTF-8 length, so equal-length secrets commit equally;
//! - an option at its default that older scenarios could not express
//!   (`finalization_ms: 0`, no custom `patterns`) is left out, so adding a
//!   feature never moves an existing identity.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::model::{Event, Limits, Normalization, Pattern, ProcessObservation, Scenario, SignalName, WaitFor};
use super::resolve::ResolvedScenario;
pub use crate::secrets::redacted_input;

/// Committed format of rendered frame `lines`.
pub const RENDERED_LINE_FORMAT: &str = "trim-trailing-spaces-v1";
/// Committed port-normalization semantics, present while `ports` is true.
pub const PORT_NORMALIZATION_VERSION: &str = "endpoint-ports-v1";
/// Committed pattern semantics, present only with custom patterns.
pub const PATTERN_NORMALIZATION_VERSION: &str = "literal-replacements-v1";
/// Committed terminal-reply profile, present while `terminal.answer_queries` is true.
pub const TERMINAL_QUERY_REPLIES: &str = "xterm-v1";

/// The normalization object as committed and recorded in a capture.
#[derive(Debug, Serialize)]
pub struct NormalizationCommitment<'a> {
    paths: bool,
    pids: bool,
    ports: bool,
    time_bucket_ms: u64,
    #[serde(skip_serializing_if = "<[Pattern]>::is_empty")]
    patterns: &'a [Pattern],
    #[serde(skip_serializing_if = "Option::is_none")]
    port_normalization_version: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern_normalization_version: Option<&'static str>,
}

impl<'a> NormalizationCommitment<'a> {
    /// The view of `n`.
    pub fn of(n: &'a Normalization) -> Self {
        let custom = !n.patterns.is_empty();
        NormalizationCommitment {
            paths: n.paths,
            pids: n.pids,
            ports: n.ports,
            time_bucket_ms: n.time_bucket_ms,
            patterns: &n.patterns,
            port_normalization_version: n.ports.then_some(PORT_NORMALIZATION_VERSION),
            pattern_normalization_version: custom.then_some(PATTERN_NORMALIZATION_VERSION),
        }
    }
}

/// When an event is due, as committed: `at_ms` (absent only beside a
/// `wait_for`), then the wait, which is left out when there is none so
/// scenarios without waits keep their identities.
#[derive(Debug, Serialize)]
struct Due<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    at_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wait_for: Option<&'a WaitFor>,
}

/// One scripted event as committed: a sensitive input's text replaced.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum EventCommitment<'a> {
    Input {
        #[serde(flatten)]
        due: Due<'a>,
        data: Cow<'a, str>,
        sensitive: bool,
    },
    Resize {
        #[serde(flatten)]
        due: Due<'a>,
        columns: u16,
        rows: u16,
    },
    Signal {
        #[serde(flatten)]
        due: Due<'a>,
        signal: SignalName,
    },
}

impl<'a> EventCommitment<'a> {
    fn of(event: &'a Event) -> Self {
        let due = Due { at_ms: event.at_ms(), wait_for: event.wait_for() };
        match event {
            Event::Input { data, sensitive, .. } => EventCommitment::Input {
                due,
                data: if *sensitive { Cow::Owned(redacted_input(data.len())) } else { Cow::Borrowed(data) },
                sensitive: *sensitive,
            },
            Event::Resize { columns, rows, .. } => EventCommitment::Resize { due, columns: *columns, rows: *rows },
            Event::Signal { signal, .. } => EventCommitment::Signal { due, signal: *signal },
        }
    }
}

/// The terminal as committed: `answer_queries` is committed as
/// `terminal_query_replies`, so the object keeps the shape older captures
/// committed.
#[derive(Debug, Serialize)]
struct TerminalCommitment {
    columns: u16,
    rows: u16,
    scrollback: u16,
}

/// Fields shared by the scenario commitment and the comparison contract.
#[derive(Debug, Serialize)]
struct Common<'a> {
    /// Paths serialize as text, or fail (never an empty string) when not UTF-8.
    working_directory: &'a Path,
    environment: &'a BTreeMap<String, String>,
    filesystem_observation_paths: &'a [PathBuf],
    terminal: TerminalCommitment,
    events: Vec<EventCommitment<'a>>,
    timeout_ms: u64,
    idle_timeout_ms: u64,
    settle_ms: u64,
    #[serde(skip_serializing_if = "is_zero")]
    finalization_ms: u64,
    limits: &'a Limits,
    normalization: NormalizationCommitment<'a>,
    /// Replies change what the program reads, so they are part of the
    /// scenario and the contract; without them both keep their older form.
    #[serde(skip_serializing_if = "Option::is_none")]
    terminal_query_replies: Option<&'static str>,
    /// `sampled` when the scenario opts out of exact observation; the
    /// default (`exact`) is left out, so older identities stay.
    #[serde(skip_serializing_if = "Option::is_none")]
    process_observation: Option<&'static str>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl<'a> Common<'a> {
    fn of(r: &'a ResolvedScenario) -> Self {
        let s: &Scenario = &r.scenario;
        let t = &s.terminal;
        Common {
            working_directory: &r.working_directory,
            environment: &s.environment,
            filesystem_observation_paths: &r.observation_paths,
            terminal: TerminalCommitment { columns: t.columns, rows: t.rows, scrollback: t.scrollback },
            events: s.events.iter().map(EventCommitment::of).collect(),
            timeout_ms: s.timeout_ms,
            idle_timeout_ms: s.idle_timeout_ms,
            settle_ms: s.settle_ms,
            finalization_ms: s.finalization_ms,
            limits: &s.limits,
            normalization: NormalizationCommitment::of(&s.normalization),
            terminal_query_replies: t.answer_queries.then_some(TERMINAL_QUERY_REPLIES),
            process_observation: (s.process_observation == ProcessObservation::Sampled)
                .then_some(ProcessObservation::Sampled.as_str()),
        }
    }
}

/// `manifest.scenario`: the resolved scenario with defaults applied, secrets
/// redacted, and the executable's path and digest.
#[derive(Debug, Serialize)]
pub struct ScenarioCommitment<'a> {
    executable: &'a Path,
    arguments: &'a [String],
    #[serde(flatten)]
    common: Common<'a>,
    executable_sha256: &'a str,
}

impl<'a> ScenarioCommitment<'a> {
    /// The view of `r`.
    pub fn of(r: &'a ResolvedScenario) -> Self {
        ScenarioCommitment {
            executable: &r.executable_path,
            arguments: &r.scenario.arguments,
            common: Common::of(r),
            executable_sha256: &r.executable_sha256,
        }
    }
}

/// `manifest.comparison_contract`: what two captures must share to be
/// compared. The executable and its arguments may differ.
#[derive(Debug, Serialize)]
pub struct ComparisonContract<'a> {
    #[serde(flatten)]
    common: Common<'a>,
    rendered_line_format: &'static str,
}

impl<'a> ComparisonContract<'a> {
    /// The view of `r`.
    pub fn of(r: &'a ResolvedScenario) -> Self {
        ComparisonContract { common: Common::of(r), rendered_line_format: RENDERED_LINE_FORMAT }
    }
}

/// [`NormalizationCommitment`] as the JSON value a capture records.
pub fn normalization_projection(n: &Normalization) -> Result<Value, serde_json::Error> {
    serde_json::to_value(NormalizationCommitment::of(n))
}

/// [`ScenarioCommitment`] as the JSON value a capture records.
pub fn scenario_commitment(r: &ResolvedScenario) -> Result<Value, serde_json::Error> {
    serde_json::to_value(ScenarioCommitment::of(r))
}

/// [`ComparisonContract`] as the JSON value a capture records.
pub fn comparison_contract(r: &ResolvedScenario) -> Result<Value, serde_json::Error> {
    serde_json::to_value(ComparisonContract::of(r))
}
