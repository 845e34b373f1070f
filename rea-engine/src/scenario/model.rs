//! The scenario data model: every field, its default and its bound.
//!
//! These types are what a validated scenario becomes. They are built only by
//! [`super::parse_scenario`], which checks every rule first, so holding a
//! `Scenario` means holding a valid one. The same types generate the
//! published JSON Schema (`docs/scenario.schema.json`), so the bounds written
//! here in `schemars` attributes and the constants the validator checks are
//! one list.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::evidence::{MAX_SAFE_INTEGER, MAX_WAIT_TEXT_BYTES, WaitCondition, WaitFor};
/// Maximum number of `arguments`.
pub const MAX_ARGUMENTS: usize = 256;
/// Maximum number of `filesystem_observation_paths`.
pub const MAX_OBSERVATION_PATHS: usize = 16;
/// Maximum number of scheduled `events`.
pub const MAX_EVENTS: usize = 1000;
/// Maximum `terminal.columns` and `terminal.rows` (also for resizes).
pub const MAX_TERMINAL_DIMENSION: u64 = 1000;
/// Maximum `terminal.scrollback`.
pub const MAX_SCROLLBACK: u64 = 10_000;
/// Bound on the terminal working buffer, `columns × (rows + scrollback)`.
pub const MAX_TERMINAL_CELLS: u64 = 1_000_000;
/// Maximum number of `normalization.patterns`.
pub const MAX_PATTERNS: usize = 32;
/// Maximum length of a normalization pattern, in characters.
pub const MAX_PATTERN_CHARS: usize = 500;
/// Maximum length of a normalization replacement, in characters.
pub const MAX_REPLACEMENT_CHARS: usize = 100;
/// Maximum UTF-8 bytes of one input event's `data`.
pub const MAX_INPUT_DATA_BYTES: usize = 4096;
/// Maximum UTF-8 bytes of all input events' `data` together.
pub const MAX_TOTAL_INPUT_BYTES: usize = 262_144;
/// Shortest sensitive input, without its trailing line terminator, that can
/// be redacted from terminal text without hiding unrelated text (an input
/// that is only a line terminator has nothing to redact and is allowed).
pub const MIN_SENSITIVE_INPUT_BYTES: usize = 4;
/// Maximum size of the whole scenario document, as compact JSON.
pub const MAX_SCENARIO_BYTES: usize = 4 * 1024 * 1024;
/// The environment variable that carries the run token. Scenarios may not set it.
pub const RUN_TOKEN_VARIABLE: &str = "REA_PROCESS_RUN_ID";
/// Default `working_directory`: the directory `rea` was started in.
pub const DEFAULT_WORKING_DIRECTORY: &str = ".";
/// Default `timeout_ms`.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Default `idle_timeout_ms`.
pub const DEFAULT_IDLE_TIMEOUT_MS: u64 = 30_000;
/// Default `settle_ms`.
pub const DEFAULT_SETTLE_MS: u64 = 100;
/// Default `finalization_ms`: `SIGKILL` at once when a deadline fires.
pub const DEFAULT_FINALIZATION_MS: u64 = 0;
/// Default `terminal.columns`.
pub const DEFAULT_COLUMNS: u16 = 80;
/// Default `terminal.rows`.
pub const DEFAULT_ROWS: u16 = 24;
/// Default `terminal.scrollback`.
pub const DEFAULT_SCROLLBACK: u16 = 1000;
/// Default `terminal.answer_queries`.
pub const DEFAULT_ANSWER_QUERIES: bool = true;
/// Default `limits.output_bytes`.
pub const DEFAULT_OUTPUT_BYTES: u64 = 1_000_000;
/// Maximum `limits.output_bytes`.
pub const MAX_OUTPUT_BYTES: u64 = 10_000_000;
/// Default `limits.frames`.
pub const DEFAULT_FRAMES: u64 = 10_000;
/// Maximum `limits.frames`.
pub const MAX_FRAMES: u64 = 100_000;
/// Default `limits.files`.
pub const DEFAULT_FILES: u64 = 10_000;
/// Maximum `limits.files`.
pub const MAX_FILES: u64 = 100_000;
/// Default `limits.file_bytes`.
pub const DEFAULT_FILE_BYTES: u64 = 10_000_000;
/// Maximum `limits.file_bytes`.
pub const MAX_FILE_BYTES: u64 = MAX_SAFE_INTEGER;
/// Default `limits.processes`.
pub const DEFAULT_PROCESSES: u64 = 1000;
/// Maximum `limits.processes`.
pub const MAX_PROCESSES: u64 = 10_000;
/// Default `limits.filesystem_depth`.
pub const DEFAULT_FILESYSTEM_DEPTH: u64 = 16;
/// Maximum `limits.filesystem_depth`.
pub const MAX_FILESYSTEM_DEPTH: u64 = 64;
/// Default `normalization.time_bucket_ms`.
pub const DEFAULT_TIME_BUCKET_MS: u64 = 10;
/// Maximum `normalization.time_bucket_ms`.
pub const MAX_TIME_BUCKET_MS: u64 = 60_000;
/// Keys of an `input` event.
pub const INPUT_EVENT_KEYS: &[&str] = &["type", "at_ms", "wait_for", "data", "sensitive"];
/// Keys of a `resize` event.
pub const RESIZE_EVENT_KEYS: &[&str] = &["type", "at_ms", "wait_for", "columns", "rows"];
/// Keys of a `signal` event.
pub const SIGNAL_EVENT_KEYS: &[&str] = &["type", "at_ms", "wait_for", "signal"];
/// Schema pattern of strings handed to the operating system, which cannot
/// carry a NUL character.
const NO_NUL: &str = "^[^\\x00]*$";

/// A process scenario: one command, how to drive it, and what to observe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "rea process scenario",
    description = "One command to run under a pseudo-terminal, the interactions to script, and the bounds of what rea records. Unknown keys are rejected."
)]
pub struct Scenario {
    /// The program to run. A bare name is looked up on the child's `PATH`; a
    /// name containing `/` resolves against `working_directory`.
    #[schemars(length(min = 1), regex(pattern = NO_NUL))]
    pub executable: String,
    /// Arguments after the program name.
    #[serde(default)]
    #[schemars(length(max = MAX_ARGUMENTS), inner(regex(pattern = NO_NUL)))]
    pub arguments: Vec<String>,
    /// Working directory of the command. A relative path resolves against the
    /// directory `rea` was started in.
    #[serde(default = "default_working_directory")]
    #[schemars(length(min = 1), regex(pattern = NO_NUL))]
    pub working_directory: String,
    /// Environment overrides applied on top of the inherited environment.
    /// Names match `^[A-Za-z_][A-Za-z0-9_]*$`; `REA_PROCESS_RUN_ID` is reserved.
    #[serde(default)]
    #[schemars(extend(
        "propertyNames" = { "pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "not": { "const": RUN_TOKEN_VARIABLE } },
        "additionalProperties" = { "type": "string", "pattern": NO_NUL },
    ))]
    pub environment: BTreeMap<String, String>,
    /// Files and directories to snapshot before launch and after settlement.
    /// Relative paths resolve against the working directory.
    #[serde(default)]
    #[schemars(length(max = MAX_OBSERVATION_PATHS), inner(length(min = 1), regex(pattern = NO_NUL)))]
    pub filesystem_observation_paths: Vec<String>,
    /// Terminal size and scrollback.
    #[serde(default)]
    pub terminal: Terminal,
    /// Timed interactions, in non-decreasing `at_ms` order, each at or before
    /// `timeout_ms`.
    #[serde(default)]
    #[schemars(length(max = MAX_EVENTS))]
    pub events: Vec<Event>,
    /// Total run time before the deadline fires, in milliseconds.
    #[serde(default = "default_timeout_ms")]
    #[schemars(range(min = 1, max = MAX_SAFE_INTEGER))]
    pub timeout_ms: u64,
    /// Longest silence on the terminal before the idle deadline fires.
    #[serde(default = "default_idle_timeout_ms")]
    #[schemars(range(min = 1, max = MAX_SAFE_INTEGER))]
    pub idle_timeout_ms: u64,
    /// How long to watch the process group settle after the command exits.
    #[serde(default = "default_settle_ms")]
    #[schemars(range(max = MAX_SAFE_INTEGER))]
    pub settle_ms: u64,
    /// Time between `SIGTERM` and `SIGKILL` when a deadline fires; 0 sends
    /// `SIGKILL` at once. `timeout_ms + finalization_ms + settle_ms` must not
    /// exceed 9007199254740991.
    #[serde(default)]
    #[schemars(range(max = MAX_SAFE_INTEGER))]
    pub finalization_ms: u64,
    /// Bounds on what is retained.
    #[serde(default)]
    pub limits: Limits,
    /// How terminal text is normalized for comparison.
    #[serde(default)]
    pub normalization: Normalization,
    /// How the process tree is observed: `exact` (every fork, exec and exit,
    /// where the host allows it; the default) or `sampled` (periodic samples
    /// only, for debuggers and tracers run under rea).
    #[serde(default)]
    pub process_observation: ProcessObservation,
}

/// How the process tree is observed (`process_observation`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProcessObservation {
    /// Every fork, exec and exit where the host allows it; sampling otherwise.
    #[default]
    Exact,
    /// Periodic samples only.
    Sampled,
}

impl ProcessObservation {
    /// The scenario's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ProcessObservation::Exact => "exact",
            ProcessObservation::Sampled => "sampled",
        }
    }
}

fn default_working_directory() -> String {
    DEFAULT_WORKING_DIRECTORY.to_owned()
}
fn default_timeout_ms() -> u64 {
    DEFAULT_TIMEOUT_MS
}
fn default_idle_timeout_ms() -> u64 {
    DEFAULT_IDLE_TIMEOUT_MS
}
fn default_settle_ms() -> u64 {
    DEFAULT_SETTLE_MS
}

/// Terminal geometry. `columns × (rows + scrollback)` must not exceed 1,000,000.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Terminal {
    /// Width in cells.
    #[serde(default = "default_columns")]
    #[schemars(range(min = 1, max = MAX_TERMINAL_DIMENSION))]
    pub columns: u16,
    /// Height in cells.
    #[serde(default = "default_rows")]
    #[schemars(range(min = 1, max = MAX_TERMINAL_DIMENSION))]
    pub rows: u16,
    /// Lines kept above the screen by the renderer.
    #[serde(default = "default_scrollback")]
    #[schemars(range(max = MAX_SCROLLBACK))]
    pub scrollback: u16,
    /// Reply to the program's terminal queries (cursor position, device
    /// attributes, colours, sizes) as xterm would; each reply is recorded as
    /// a `terminal_reply` interaction event.
    #[serde(default = "default_answer_queries")]
    pub answer_queries: bool,
}

fn default_columns() -> u16 {
    DEFAULT_COLUMNS
}
fn default_rows() -> u16 {
    DEFAULT_ROWS
}
fn default_scrollback() -> u16 {
    DEFAULT_SCROLLBACK
}
fn default_answer_queries() -> bool {
    DEFAULT_ANSWER_QUERIES
}

impl Default for Terminal {
    fn default() -> Self {
        Terminal {
            columns: default_columns(),
            rows: default_rows(),
            scrollback: default_scrollback(),
            answer_queries: default_answer_queries(),
        }
    }
}

/// A scripted interaction: due `at_ms` milliseconds after launch, or, with
/// `wait_for`, as soon as its condition holds (and not before `at_ms`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// Write text to the terminal as UTF-8 bytes.
    #[schemars(extend("anyOf" = [{"required": ["at_ms"]}, {"required": ["wait_for"]}]))]
    Input {
        /// Milliseconds after launch; with `wait_for`, optional and "not before".
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "u64", range(max = MAX_SAFE_INTEGER))]
        at_ms: Option<u64>,
        /// Dispatch only once this condition holds (see [`WaitFor`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "WaitFor")]
        wait_for: Option<WaitFor>,
        /// The text to write, at most 4096 UTF-8 bytes (262144 across all
        /// input events).
        #[schemars(length(max = MAX_INPUT_DATA_BYTES))]
        data: String,
        /// Record only `<redacted-input:N-bytes>` instead of the text, and
        /// replace its echo in terminal text by the same marker; at least 4
        /// bytes besides a trailing line terminator.
        #[serde(default)]
        sensitive: bool,
    },
    /// Change the terminal size; scrollback stays as configured.
    #[schemars(extend("anyOf" = [{"required": ["at_ms"]}, {"required": ["wait_for"]}]))]
    Resize {
        /// Milliseconds after launch; with `wait_for`, optional and "not before".
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "u64", range(max = MAX_SAFE_INTEGER))]
        at_ms: Option<u64>,
        /// Dispatch only once this condition holds (see [`WaitFor`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "WaitFor")]
        wait_for: Option<WaitFor>,
        /// New width in cells.
        #[schemars(range(min = 1, max = MAX_TERMINAL_DIMENSION))]
        columns: u16,
        /// New height in cells.
        #[schemars(range(min = 1, max = MAX_TERMINAL_DIMENSION))]
        rows: u16,
    },
    /// Send a signal to the launched process (not to its descendants).
    #[schemars(extend("anyOf" = [{"required": ["at_ms"]}, {"required": ["wait_for"]}]))]
    Signal {
        /// Milliseconds after launch; with `wait_for`, optional and "not before".
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "u64", range(max = MAX_SAFE_INTEGER))]
        at_ms: Option<u64>,
        /// Dispatch only once this condition holds (see [`WaitFor`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "WaitFor")]
        wait_for: Option<WaitFor>,
        /// The signal to send.
        signal: SignalName,
    },
}

impl Event {
    /// Milliseconds after launch at which the event is due (with
    /// `wait_for`: not before which it is dispatched).
    pub fn at_ms(&self) -> Option<u64> {
        match self {
            Event::Input { at_ms, .. } | Event::Resize { at_ms, .. } | Event::Signal { at_ms, .. } => *at_ms,
        }
    }

    /// The condition the event waits for, if any.
    pub fn wait_for(&self) -> Option<&WaitFor> {
        match self {
            Event::Input { wait_for, .. } | Event::Resize { wait_for, .. } | Event::Signal { wait_for, .. } => {
                wait_for.as_ref()
            }
        }
    }

    /// The event's `type` tag.
    pub fn kind(&self) -> &'static str {
        self.interaction_kind().as_str()
    }

    /// The kind of interaction it records.
    pub fn interaction_kind(&self) -> crate::evidence::InteractionKind {
        use crate::evidence::InteractionKind;
        match self {
            Event::Input { .. } => InteractionKind::Input,
            Event::Resize { .. } => InteractionKind::Resize,
            Event::Signal { .. } => InteractionKind::Signal,
        }
    }
}

/// Signals a scenario may send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum SignalName {
    /// Interrupt (Ctrl-C).
    SIGINT,
    /// Polite termination request.
    SIGTERM,
    /// Forced termination.
    SIGKILL,
    /// Terminal hang-up.
    SIGHUP,
    /// Quit (Ctrl-\).
    SIGQUIT,
    /// User-defined signal 1.
    SIGUSR1,
    /// User-defined signal 2.
    SIGUSR2,
}

impl SignalName {
    /// Every accepted name, in documentation order.
    pub const ALL: [SignalName; 7] = [
        SignalName::SIGINT,
        SignalName::SIGTERM,
        SignalName::SIGKILL,
        SignalName::SIGHUP,
        SignalName::SIGQUIT,
        SignalName::SIGUSR1,
        SignalName::SIGUSR2,
    ];

    /// The conventional name, e.g. `"SIGINT"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SignalName::SIGINT => "SIGINT",
            SignalName::SIGTERM => "SIGTERM",
            SignalName::SIGKILL => "SIGKILL",
            SignalName::SIGHUP => "SIGHUP",
            SignalName::SIGQUIT => "SIGQUIT",
            SignalName::SIGUSR1 => "SIGUSR1",
            SignalName::SIGUSR2 => "SIGUSR2",
        }
    }

    /// Looks a name up.
    pub fn from_name(name: &str) -> Option<SignalName> {
        SignalName::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// Bounds on retained observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Budget for retained terminal text, in UTF-8 bytes; applied separately to
    /// the original chunks, the normalized text and the rendered states.
    #[serde(default = "default_output_bytes")]
    #[schemars(range(min = 1, max = MAX_OUTPUT_BYTES))]
    pub output_bytes: u64,
    /// Maximum number of raw frames, and separately of rendered frames.
    #[serde(default = "default_frames")]
    #[schemars(range(min = 1, max = MAX_FRAMES))]
    pub frames: u64,
    /// Maximum number of filesystem entries per snapshot, across all roots.
    #[serde(default = "default_files")]
    #[schemars(range(min = 1, max = MAX_FILES))]
    pub files: u64,
    /// Cumulative whole-file hashing budget per snapshot, across all roots.
    #[serde(default = "default_file_bytes")]
    #[schemars(range(min = 1, max = MAX_FILE_BYTES))]
    pub file_bytes: u64,
    /// Maximum number of recorded process samples.
    #[serde(default = "default_processes")]
    #[schemars(range(min = 1, max = MAX_PROCESSES))]
    pub processes: u64,
    /// Deepest directory level walked below an observation path (the path is 0).
    #[serde(default = "default_filesystem_depth")]
    #[schemars(range(min = 1, max = MAX_FILESYSTEM_DEPTH))]
    pub filesystem_depth: u64,
}

impl From<&Limits> for crate::fs::SnapshotLimits {
    fn from(l: &Limits) -> Self {
        crate::fs::SnapshotLimits { files: l.files, filesystem_depth: l.filesystem_depth, file_bytes: l.file_bytes }
    }
}

fn default_output_bytes() -> u64 {
    DEFAULT_OUTPUT_BYTES
}
fn default_frames() -> u64 {
    DEFAULT_FRAMES
}
fn default_files() -> u64 {
    DEFAULT_FILES
}
fn default_file_bytes() -> u64 {
    DEFAULT_FILE_BYTES
}
fn default_processes() -> u64 {
    DEFAULT_PROCESSES
}
fn default_filesystem_depth() -> u64 {
    DEFAULT_FILESYSTEM_DEPTH
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            output_bytes: default_output_bytes(),
            frames: default_frames(),
            files: default_files(),
            file_bytes: default_file_bytes(),
            processes: default_processes(),
            filesystem_depth: default_filesystem_depth(),
        }
    }
}

/// Normalization of terminal text before comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Normalization {
    /// Replace the working directory, temporary root, executable and
    /// observation paths with placeholders.
    #[serde(default = "default_true")]
    pub paths: bool,
    /// Replace the launched process's PID with `<pid>`.
    #[serde(default = "default_true")]
    pub pids: bool,
    /// Replace endpoint port numbers with `<port>`.
    #[serde(default = "default_true")]
    pub ports: bool,
    /// Bucket width for `at_ms` of frames and samples.
    #[serde(default = "default_time_bucket_ms")]
    #[schemars(range(min = 1, max = MAX_TIME_BUCKET_MS))]
    pub time_bucket_ms: u64,
    /// Literal replacements applied in order after the built-in rules.
    #[serde(default)]
    #[schemars(length(max = MAX_PATTERNS))]
    pub patterns: Vec<Pattern>,
}

fn default_true() -> bool {
    true
}
fn default_time_bucket_ms() -> u64 {
    DEFAULT_TIME_BUCKET_MS
}

impl Default for Normalization {
    fn default() -> Self {
        Normalization {
            paths: default_true(),
            pids: default_true(),
            ports: default_true(),
            time_bucket_ms: default_time_bucket_ms(),
            patterns: Vec::new(),
        }
    }
}

/// A literal replacement: every occurrence of `pattern` becomes `replacement`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    /// Literal text to find (at most 500 characters; may be empty).
    #[schemars(length(max = MAX_PATTERN_CHARS))]
    pub pattern: String,
    /// Literal replacement text (at most 100 characters).
    #[schemars(length(max = MAX_REPLACEMENT_CHARS))]
    pub replacement: String,
}

#[cfg(test)]
mod key_tests {
    use super::*;
    use crate::keys::keys;

    #[test]
    fn keys_are_read_from_the_structs_in_declaration_order() {
        assert_eq!(keys::<Terminal>(), ["columns", "rows", "scrollback", "answer_queries"]);
        assert_eq!(keys::<Pattern>(), ["pattern", "replacement"]);
        assert_eq!(keys::<Scenario>().len(), 14);
        assert_eq!(keys::<Scenario>()[0], "executable");
        assert_eq!(keys::<Limits>().last(), Some(&"filesystem_depth"));
        assert_eq!(keys::<Normalization>(), ["paths", "pids", "ports", "time_bucket_ms", "patterns"]);
    }
}
