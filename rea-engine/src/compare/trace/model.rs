//! The parsed trace specification. Values of these types exist only after
//! every rule of [`super::parse_trace_spec`] held.

use serde::Serialize;
use serde_json::Value;

/// Largest number of declared events.
pub const MAX_EVENTS: usize = 256;
/// Largest number of `ignore_fields` per event.
pub const MAX_IGNORE_FIELDS: usize = 5;
/// Largest `count`, `min` or `max` of a cardinality.
pub const MAX_CARDINALITY: u64 = 10_000;
/// Largest number of `happens_before` edges, `not_before` constraints,
/// prefix or suffix ids, and tokens of one finite trace.
pub const MAX_CONSTRAINTS: usize = 4096;
/// Largest number of unordered groups, and of ids in one unordered group or token.
pub const MAX_GROUP: usize = 256;
/// Largest number of finite-trace variants.
pub const MAX_VARIANTS: usize = 64;
/// The top-level fields an event may ignore.
pub const IGNORABLE_FIELDS: [&str; 5] = ["sequence", "at_ms", "scheduled_at_ms", "dispatched_at_ms", "elapsed_ms"];

/// A family of observations a trace event is drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Admitted PTY output chunks (`frames`), normalized text only.
    TerminalRaw,
    /// Rendered terminal states (`rendered_frames`).
    TerminalRendered,
    /// Scripted interactions (`interaction_events`).
    Interaction,
    /// The exit and the settlement.
    Lifecycle,
    /// Sampled process rows (`process_samples`).
    Process,
    /// Filesystem effects (`filesystem_effects`).
    Filesystem,
}

impl Source {
    /// Every source, in declaration order.
    pub const ALL: [Source; 6] = [
        Source::TerminalRaw,
        Source::TerminalRendered,
        Source::Interaction,
        Source::Lifecycle,
        Source::Process,
        Source::Filesystem,
    ];

    /// The name used in specifications.
    pub fn name(self) -> &'static str {
        match self {
            Source::TerminalRaw => "terminal_raw",
            Source::TerminalRendered => "terminal_rendered",
            Source::Interaction => "interaction",
            Source::Lifecycle => "lifecycle",
            Source::Process => "process",
            Source::Filesystem => "filesystem",
        }
    }

    /// The source with this name.
    pub fn from_name(name: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The comparison dimension (and residual-unknown scope) it belongs to.
    pub fn dimension(self) -> crate::compare::Dimension {
        use crate::compare::Dimension;
        match self {
            Source::TerminalRaw | Source::TerminalRendered => Dimension::Terminal,
            Source::Interaction => Dimension::Interaction,
            Source::Lifecycle => Dimension::Exit,
            Source::Process => Dimension::Process,
            Source::Filesystem => Dimension::Filesystem,
        }
    }
}

/// How many times an event must be observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cardinality {
    /// Exactly once (the default).
    Required,
    /// At most once.
    Optional,
    /// Exactly `n` times.
    Exact(u64),
    /// From `min` to `max` times.
    Range {
        /// Fewest observations.
        min: u64,
        /// Most observations.
        max: u64,
    },
}

impl Cardinality {
    /// The inclusive bounds `(min, max)`.
    pub fn bounds(self) -> (u64, u64) {
        match self {
            Cardinality::Required => (1, 1),
            Cardinality::Optional => (0, 1),
            Cardinality::Exact(n) => (n, n),
            Cardinality::Range { min, max } => (min, max),
        }
    }
}

/// One declared event: an exact predicate over one source's observations.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceEvent {
    /// Its id.
    pub id: String,
    /// Where its observations come from.
    pub source: Source,
    /// The payload an observation must equal, after `ignore_fields` are removed.
    pub exact: Value,
    /// Top-level payload fields removed before matching.
    pub ignore_fields: Vec<String>,
    /// How often it must be observed.
    pub cardinality: Cardinality,
}

/// `before` must happen before `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The earlier event.
    pub before: String,
    /// The later event.
    pub after: String,
}

/// `event` must not occur before `anchor` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotBefore {
    /// The constrained event.
    pub event: String,
    /// The event it waits for.
    pub anchor: String,
}

/// A partial order over the declared events.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PartialOrder {
    /// Ordering edges.
    pub happens_before: Vec<Edge>,
    /// "Not before" constraints.
    pub not_before: Vec<NotBefore>,
    /// Groups whose members are declared mutually unordered.
    pub unordered_groups: Vec<Vec<String>>,
    /// Ids the matched trace must start with.
    pub prefix: Vec<String>,
    /// Ids the matched trace must end with.
    pub suffix: Vec<String>,
}

/// One token of a finite trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// The next matched event is this one.
    Event(String),
    /// The next matched events are these, in any order.
    Unordered(Vec<String>),
}

/// One accepted finite trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Its id.
    pub id: String,
    /// Its tokens.
    pub trace: Vec<Token>,
}

/// The language of accepted traces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Language {
    /// Constraints over a partial order.
    PartialOrder(PartialOrder),
    /// An explicit list of accepted traces.
    FiniteTraces(Vec<Variant>),
}

/// A valid trace specification.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSpec {
    /// The document exactly as given (recorded in comparison parameters).
    pub given: Value,
    /// Declared events, in declaration order.
    pub events: Vec<TraceEvent>,
    /// The accepted traces.
    pub language: Language,
}

impl TraceSpec {
    /// The declared event with this id.
    pub fn event(&self, id: &str) -> Option<&TraceEvent> {
        self.events.iter().find(|e| e.id == id)
    }

    /// The sources the events select, in [`Source::ALL`] order.
    pub fn sources(&self) -> Vec<Source> {
        Source::ALL.into_iter().filter(|s| self.events.iter().any(|e| e.source == *s)).collect()
    }

    /// The fields ignored for a source's observations (the same for every
    /// event of that source).
    pub fn ignored_fields(&self, source: Source) -> &[String] {
        self.events.iter().find(|e| e.source == source).map_or(&[], |e| e.ignore_fields.as_slice())
    }
}
