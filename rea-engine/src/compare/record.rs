//! The comparison record (the `normalized_result` of comparison Evidence),
//! typed: every closed vocabulary is an enum, the first divergence is one of
//! its three shapes, and the record is sealed and written without a JSON
//! value tree (as [`crate::evidence::SealedCapture`] is). It is read back
//! (for `rea show`) as strictly: unknown keys and values are refused.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::diff::{Difference, Interval, Location, TimingDelta};
use super::screen_view::ScreenPair;
use super::trace::TraceComparison;
use crate::evidence::vocabulary::vocabulary;
use crate::evidence::{CanonicalWrite, ResidualScope};

vocabulary! {
    /// A comparison dimension (`dimensions[].dimension`), in reporting order.
    Dimension {
        /// Terminal output, raw and rendered.
        Terminal = "terminal",
        /// Scheduled interactions.
        Interaction = "interaction",
        /// The exit and the settlement.
        Exit = "exit",
        /// Observed files.
        Filesystem = "filesystem",
        /// Sampled processes.
        Process = "process",
    }
}

impl Dimension {
    /// The residual-unknown scope that makes this dimension `unknown`.
    pub fn scope(self) -> ResidualScope {
        match self {
            Dimension::Terminal => ResidualScope::Terminal,
            Dimension::Interaction => ResidualScope::Interaction,
            Dimension::Exit => ResidualScope::Exit,
            Dimension::Filesystem => ResidualScope::Filesystem,
            Dimension::Process => ResidualScope::Process,
        }
    }

    /// Whether the dimension observes behaviour that can locate the first
    /// divergence (process sampling cannot).
    pub fn behavioural(self) -> bool {
        self != Dimension::Process
    }
}

vocabulary! {
    /// One dimension's classification (`dimensions[].status`, `exact_status`).
    DimensionStatus {
        /// Both sides observed the same.
        Unchanged = "unchanged",
        /// Only the right side observed anything.
        Added = "added",
        /// Only the left side observed anything.
        Removed = "removed",
        /// Both sides observed, differently.
        Changed = "changed",
        /// A side's observation was cut short; the difference may lie in what was left out.
        Truncated = "truncated",
        /// A side has residual unknowns, or the difference is not proof.
        Unknown = "unknown",
    }
}

impl DimensionStatus {
    /// Whether it reports a seen change.
    pub fn shows_change(self) -> bool {
        matches!(self, DimensionStatus::Changed | DimensionStatus::Added | DimensionStatus::Removed)
    }

    /// Whether the dimension was fully observed.
    pub fn complete(self) -> bool {
        !matches!(self, DimensionStatus::Unknown | DimensionStatus::Truncated)
    }
}

vocabulary! {
    /// The comparison's verdict (`status`).
    ComparisonStatus {
        /// No dimension differs and every one was fully observed.
        Unchanged = "unchanged",
        /// At least one dimension shows a change.
        Changed = "changed",
        /// No change shown, but a dimension is truncated.
        Truncated = "truncated",
        /// No change shown, but a dimension is unknown.
        Unknown = "unknown",
    }
}

vocabulary! {
    /// How the terminal dimension is decided (`parameters.terminal_lens`,
    /// written only when it is not the default `stream`).
    #[derive(Default)]
    TerminalLens {
        /// The normalized text of each segment and the screens' text, size,
        /// active buffer and cursor (the specification's comparison).
        #[default]
        Stream = "stream",
        /// The screens at each segment boundary and at the end, cell by cell
        /// (text, colours, attributes), with the cursor's position and
        /// visibility and the active buffer; stream differences are listed
        /// but do not decide.
        Screen = "screen",
    }
}

vocabulary! {
    /// Whether the first divergence was located (`first_divergence.status`).
    DivergenceStatus {
        /// Located: the earliest difference of a behavioural dimension.
        Found = "found",
        /// The captures do not diverge.
        None = "none",
        /// It cannot be located; `reason` says why.
        Unknown = "unknown",
    }
}

vocabulary! {
    /// Why the first divergence cannot be located (`first_divergence.reason`).
    DivergenceGap {
        /// A trace difference that no single observation locates.
        TraceOnly = "The trace comparison found a difference that no single observation locates; see trace.diagnostic.",
        /// Only process samples differ.
        SamplingOnly = "Only process samples differ; periodic sampling does not locate a behavioural divergence.",
        /// A dimension is truncated or unknown.
        Incomplete = "At least one dimension is truncated or has residual unknowns, so the first divergence across all dimensions cannot be located.",
    }
}

/// One dimension's classification.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DimensionResult {
    /// The dimension.
    pub dimension: Dimension,
    /// Its status.
    pub status: DimensionStatus,
    /// The dimension's own status, present only when a trace verdict replaced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_status: Option<DimensionStatus>,
    /// Why it is `truncated` or `unknown`, or which trace difference made it `changed`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// The first [`super::MAX_DIFFERENCES`] differences, earliest first.
    pub differences: Vec<Difference>,
    /// How many further differences were found.
    pub differences_omitted: usize,
    /// Every timing value compared, within the tolerance or not.
    pub timing_deltas: Vec<TimingDelta>,
}

/// A located difference: the earliest one of a behavioural dimension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Divergence {
    /// Its dimension.
    pub dimension: Dimension,
    /// The segment it lies in.
    pub segment: usize,
    /// Field path or stream location.
    pub path: String,
    /// The left value, or an excerpt of left text.
    pub left: Value,
    /// The right value, or an excerpt of right text.
    pub right: Value,
    /// Where it lies, when a finer position than the path exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// Under the screen lens, the two screens it lies in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screens: Option<ScreenPair>,
    /// When `left` and `right` are intervals, what they were measured from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
}

impl Divergence {
    /// The divergence `difference` of `dimension` stands for.
    pub(super) fn of(dimension: Dimension, difference: &Difference) -> Divergence {
        Divergence {
            dimension,
            segment: difference.order.0,
            path: difference.path.clone(),
            left: difference.left.clone(),
            right: difference.right.clone(),
            location: difference.location.clone(),
            screens: difference.screens.as_deref().cloned(),
            interval: difference.interval.clone(),
        }
    }
}

/// Where the two captures first diverge (`first_divergence`).
#[derive(Debug, Clone, PartialEq)]
pub enum FirstDivergence {
    /// Located.
    Found(Divergence),
    /// The captures do not diverge.
    None,
    /// It cannot be located.
    Unknown {
        /// Why not.
        reason: DivergenceGap,
        /// The earliest difference seen anyway, when the record is incomplete.
        earliest_observed_difference: Option<Divergence>,
    },
}

impl FirstDivergence {
    /// Its status.
    pub fn status(&self) -> DivergenceStatus {
        match self {
            FirstDivergence::Found(_) => DivergenceStatus::Found,
            FirstDivergence::None => DivergenceStatus::None,
            FirstDivergence::Unknown { .. } => DivergenceStatus::Unknown,
        }
    }
}

/// `first_divergence` as the format writes it: a found divergence's fields
/// then `status`; otherwise `status` first.
#[derive(Serialize)]
#[serde(untagged)]
enum WireDivergence<'a> {
    Found {
        #[serde(flatten)]
        divergence: &'a Divergence,
        status: DivergenceStatus,
    },
    None {
        status: DivergenceStatus,
    },
    Unknown {
        status: DivergenceStatus,
        reason: &'a DivergenceGap,
        earliest_observed_difference: &'a Option<Divergence>,
    },
}

impl Serialize for FirstDivergence {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let status = self.status();
        match self {
            FirstDivergence::Found(divergence) => WireDivergence::Found { divergence, status },
            FirstDivergence::None => WireDivergence::None { status },
            FirstDivergence::Unknown { reason, earliest_observed_difference } => {
                WireDivergence::Unknown { status, reason, earliest_observed_difference }
            }
        }
        .serialize(s)
    }
}

/// Read as the format writes it: `status` says which shape the rest has.
impl<'de> Deserialize<'de> for FirstDivergence {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FirstDivergence, D::Error> {
        use serde::de::Error;
        let mut map = Map::<String, Value>::deserialize(d)?;
        let status = map.remove("status").ok_or_else(|| D::Error::missing_field("status"))?;
        let status = DivergenceStatus::deserialize(status).map_err(D::Error::custom)?;
        match status {
            DivergenceStatus::Found => Divergence::deserialize(Value::Object(map)).map(FirstDivergence::Found),
            DivergenceStatus::None => match map.keys().next() {
                None => Ok(FirstDivergence::None),
                Some(key) => Err(serde_json::Error::unknown_field(key, &["status"])),
            },
            DivergenceStatus::Unknown => {
                UnknownDivergence::deserialize(Value::Object(map)).map(|u| FirstDivergence::Unknown {
                    reason: u.reason,
                    earliest_observed_difference: u.earliest_observed_difference,
                })
            }
        }
        .map_err(D::Error::custom)
    }
}

/// The members of a first divergence that cannot be located.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnknownDivergence {
    reason: DivergenceGap,
    earliest_observed_difference: Option<Divergence>,
}

/// The comparison record.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComparisonRecord {
    /// [`super::COMPARISON_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The verdict.
    pub status: ComparisonStatus,
    /// Each dimension, in [`Dimension::ALL`] order.
    pub dimensions: Vec<DimensionResult>,
    /// Where the captures first diverge.
    pub first_divergence: FirstDivergence,
    /// Both sides' limitations and residual unknowns, each once.
    pub limitations: Vec<String>,
    /// The trace verdict, when a trace specification was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceComparison>,
}

impl ComparisonRecord {
    /// Whether the comparison observed a difference (what `--exit-code` reports).
    pub fn observed_difference(&self) -> bool {
        self.status == ComparisonStatus::Changed
    }

    /// One dimension's result.
    pub fn dimension(&self, dimension: Dimension) -> Option<&DimensionResult> {
        self.dimensions.iter().find(|d| d.dimension == dimension)
    }
}

impl CanonicalWrite for ComparisonRecord {
    /// The record is small (differences are capped): the canonicalizer
    /// writes it whole.
    fn write_canonical(&self, w: &mut dyn std::io::Write) -> Result<(), serde_json::Error> {
        serde_json_canonicalizer::to_writer(self, &mut &mut *w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn vocabularies_are_written_as_the_format_spells_them() {
        let names: Vec<&str> = Dimension::ALL.iter().map(|d| d.as_str()).collect();
        assert_eq!(names, ["terminal", "interaction", "exit", "filesystem", "process"]);
        assert_eq!("unknwon".parse::<DimensionStatus>().unwrap_err().value, "unknwon");
        assert!(DimensionStatus::Added.shows_change() && !DimensionStatus::Truncated.shows_change());
        assert!(!DimensionStatus::Truncated.complete() && DimensionStatus::Removed.complete());
        assert_eq!(Dimension::Filesystem.scope(), ResidualScope::Filesystem);
    }

    #[test]
    fn first_divergence_keeps_the_member_order_of_the_format() {
        let d = Divergence {
            dimension: Dimension::Exit,
            segment: 1,
            path: "exit.code".into(),
            left: json!(0),
            right: json!(3),
            location: None,
            screens: None,
            interval: None,
        };
        let found = serde_json::to_string(&FirstDivergence::Found(d.clone())).unwrap();
        assert_eq!(found, r#"{"dimension":"exit","segment":1,"path":"exit.code","left":0,"right":3,"status":"found"}"#);
        assert_eq!(serde_json::to_string(&FirstDivergence::None).unwrap(), r#"{"status":"none"}"#);
        let unknown =
            FirstDivergence::Unknown { reason: DivergenceGap::Incomplete, earliest_observed_difference: None };
        let text = serde_json::to_string(&unknown).unwrap();
        assert!(text.starts_with(r#"{"status":"unknown","reason":"At least one dimension"#), "{text}");
        assert!(text.ends_with(r#""earliest_observed_difference":null}"#), "{text}");
        assert_eq!(unknown.status(), DivergenceStatus::Unknown);
        // Read back as written; members of another shape are refused.
        for shape in [FirstDivergence::Found(d), FirstDivergence::None, unknown] {
            let text = serde_json::to_string(&shape).unwrap();
            assert_eq!(serde_json::from_str::<FirstDivergence>(&text).unwrap(), shape, "{text}");
        }
        let err = serde_json::from_str::<FirstDivergence>(r#"{"status":"none","path":"x"}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `path`"), "{err}");
        assert!(serde_json::from_str::<FirstDivergence>(r#"{"status":"found"}"#).is_err());
    }
}
