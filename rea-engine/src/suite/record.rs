//! The suite record (the `normalized_result` of suite Evidence), typed: one
//! result per case in suite order, with its verdict, the status of each
//! comparison dimension, the first divergence, its documents and the totals;
//! sealed and written like the capture and comparison records.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::model::GoldensParameter;
use super::partition::Partition;
use crate::compare::{ComparisonRecord, ComparisonStatus, Dimension, DimensionStatus, FirstDivergence, TerminalLens};
use crate::evidence::vocabulary::vocabulary;
use crate::evidence::{
    CanonicalWrite, EVIDENCE_SCHEMA_VERSION, Evidence, NO_SUBJECT_LIMITATION, Part, Provider, ToonEncodeError,
    evidence_id_with, write_inline, write_inline_toon,
};

/// Predicate of suite Evidence.
pub const SUITE_PREDICATE: &str = "rea.process-suite/v1";
/// Operation of a suite record written by a run.
pub const SUITE_OPERATION: &str = "run_suite";
/// Operation of a suite record merged from partitions.
pub const MERGE_OPERATION: &str = "merge_suite_results";
/// `schema_version` of the suite record.
pub const SUITE_SCHEMA_VERSION: u32 = 1;

vocabulary! {
    /// A case's verdict (`cases[].verdict`).
    Verdict {
        /// The comparison observed no difference and every dimension was observed.
        Unchanged = "unchanged",
        /// The comparison observed a difference.
        Changed = "changed",
        /// No difference observed, but a dimension is truncated or unknown.
        Unknown = "unknown",
        /// The authority disagreed with itself (`--self-check`).
        Unstable = "unstable",
        /// The case could not be captured or compared.
        Error = "error",
        /// `--record-goldens`: the authority was recorded as the golden.
        Recorded = "recorded",
    }
}

impl Verdict {
    /// The verdict a comparison gives.
    pub fn of(record: &ComparisonRecord) -> Verdict {
        match record.status {
            ComparisonStatus::Unchanged => Verdict::Unchanged,
            ComparisonStatus::Changed => Verdict::Changed,
            ComparisonStatus::Truncated | ComparisonStatus::Unknown => Verdict::Unknown,
        }
    }
}

/// `suite`: what was run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteIdentity {
    /// The suite's name (`name`, or the suite file's stem).
    pub name: String,
    /// Hex SHA-256 of the canonical JSON of the suite file and every case file.
    pub commitment: String,
    /// Every case the run selected (after `--case`, before `--partition`),
    /// in suite order: what a merge of all partitions holds.
    pub case_names: Vec<String>,
}

/// `parameters`: how it was run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteParameters {
    /// Cases at a time.
    pub jobs: u64,
    /// `--partition`, or null.
    pub partition: Option<Partition>,
    /// `--self-check`.
    pub self_check: bool,
    /// `--goldens` / `--record-goldens`, or null.
    pub goldens: Option<GoldensParameter>,
    /// `--terminal-lens`.
    pub terminal_lens: TerminalLens,
    /// `--case` globs (empty: every case).
    pub case_globs: Vec<String>,
}

/// The status of each comparison dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DimensionStatuses {
    /// `terminal`.
    pub terminal: DimensionStatus,
    /// `interaction`.
    pub interaction: DimensionStatus,
    /// `exit`.
    pub exit: DimensionStatus,
    /// `filesystem`.
    pub filesystem: DimensionStatus,
    /// `process`.
    pub process: DimensionStatus,
}

impl DimensionStatuses {
    /// The statuses of `record`'s dimensions (a missing one is `unknown`).
    pub fn of(record: &ComparisonRecord) -> DimensionStatuses {
        let status = |d| record.dimension(d).map_or(DimensionStatus::Unknown, |r| r.status);
        DimensionStatuses {
            terminal: status(Dimension::Terminal),
            interaction: status(Dimension::Interaction),
            exit: status(Dimension::Exit),
            filesystem: status(Dimension::Filesystem),
            process: status(Dimension::Process),
        }
    }

    /// Each dimension with its status, in reporting order.
    pub fn each(&self) -> [(Dimension, DimensionStatus); 5] {
        [
            (Dimension::Terminal, self.terminal),
            (Dimension::Interaction, self.interaction),
            (Dimension::Exit, self.exit),
            (Dimension::Filesystem, self.filesystem),
            (Dimension::Process, self.process),
        ]
    }
}

/// A document of a case, relative to the out directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocumentRef {
    /// `cases/NAME/FILE`.
    pub path: String,
    /// Its `evidence_id`.
    pub evidence_id: String,
}

/// A case's documents; those not written are absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Documents {
    /// `authority.json` (a golden's copy with `--goldens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority: Option<DocumentRef>,
    /// `authority-repeat.json` (`--self-check`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority_repeat: Option<DocumentRef>,
    /// `self-comparison.json` (`--self-check`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_comparison: Option<DocumentRef>,
    /// `reconstruction.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconstruction: Option<DocumentRef>,
    /// `comparison.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<DocumentRef>,
}

impl Documents {
    /// Every document, in the order above.
    pub fn all(&self) -> impl Iterator<Item = &DocumentRef> {
        [&self.authority, &self.authority_repeat, &self.self_comparison, &self.reconstruction, &self.comparison]
            .into_iter()
            .flatten()
    }
}

/// Why a case is `error`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFailure {
    /// A stable code (`stale_golden`, `missing_golden`, `executable_not_found`, ...).
    pub code: String,
    /// What went wrong and where.
    pub message: String,
}

/// One case's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// Its verdict.
    pub verdict: Verdict,
    /// The statuses of the comparison that decided the verdict (the
    /// self-comparison for `unstable`); null when nothing was compared.
    pub dimensions: Option<DimensionStatuses>,
    /// That comparison's first divergence; null when nothing was compared.
    pub first_divergence: Option<FirstDivergence>,
    /// The documents written.
    pub documents: Documents,
    /// Why the case is `error`; null otherwise.
    pub error: Option<CaseFailure>,
    /// Milliseconds the case took, its captures and comparisons together.
    pub elapsed_ms: u64,
}

/// `totals`: a count per verdict, and of cases.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    /// `unchanged` cases.
    pub unchanged: u64,
    /// `changed` cases.
    pub changed: u64,
    /// `unknown` cases.
    pub unknown: u64,
    /// `unstable` cases.
    pub unstable: u64,
    /// `error` cases.
    pub error: u64,
    /// `recorded` cases.
    pub recorded: u64,
    /// Every case.
    pub cases: u64,
}

impl Totals {
    /// The totals of `cases`.
    pub fn of(cases: &[CaseResult]) -> Totals {
        let mut t = Totals::default();
        for case in cases {
            *t.count_mut(case.verdict) += 1;
            t.cases += 1;
        }
        t
    }

    fn count_mut(&mut self, verdict: Verdict) -> &mut u64 {
        match verdict {
            Verdict::Unchanged => &mut self.unchanged,
            Verdict::Changed => &mut self.changed,
            Verdict::Unknown => &mut self.unknown,
            Verdict::Unstable => &mut self.unstable,
            Verdict::Error => &mut self.error,
            Verdict::Recorded => &mut self.recorded,
        }
    }

    /// The count of `verdict`.
    pub fn count(&self, verdict: Verdict) -> u64 {
        let mut copy = *self;
        *copy.count_mut(verdict)
    }
}

/// How a run ends, for its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteOutcome {
    /// No case is `changed` or `error` (exit 0); when recording goldens,
    /// every case was recorded.
    Passed,
    /// A case is `changed` and none is `error` (exit 3).
    Changed,
    /// A case is `error`, or a golden was not recorded (exit 1).
    Failed,
}

/// The suite record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteRecord {
    /// [`SUITE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// What was run.
    pub suite: SuiteIdentity,
    /// How.
    pub parameters: SuiteParameters,
    /// Each case run, in suite order.
    pub cases: Vec<CaseResult>,
    /// The counts.
    pub totals: Totals,
}

impl SuiteRecord {
    /// How the run ends (see [`SuiteOutcome`]).
    pub fn outcome(&self) -> SuiteOutcome {
        let t = &self.totals;
        let recording = self.parameters.goldens.as_ref().is_some_and(|g| g.mode == super::model::GoldenMode::Record);
        if t.error > 0 || (recording && t.recorded < t.cases) {
            SuiteOutcome::Failed
        } else if t.changed > 0 {
            SuiteOutcome::Changed
        } else {
            SuiteOutcome::Passed
        }
    }
}

impl CanonicalWrite for SuiteRecord {
    /// The record holds summaries only: the canonicalizer writes it whole.
    fn write_canonical(&self, w: &mut dyn std::io::Write) -> Result<(), serde_json::Error> {
        serde_json_canonicalizer::to_writer(self, &mut &mut *w)
    }
}

/// Sealed suite Evidence whose record stays typed.
#[derive(Debug, Clone)]
pub struct SealedSuite {
    envelope: Evidence,
    record: SuiteRecord,
}

impl SealedSuite {
    /// Seals `record` (`operation`: [`SUITE_OPERATION`] or [`MERGE_OPERATION`]).
    pub fn seal(record: SuiteRecord, operation: &str) -> Result<SealedSuite, serde_json::Error> {
        let links = record.cases.iter().flat_map(|c| c.documents.all().map(|d| d.evidence_id.clone())).collect();
        let mut envelope = Evidence {
            schema_version: EVIDENCE_SCHEMA_VERSION,
            evidence_id: String::new(),
            subject: Value::Null,
            provider: Provider::current(),
            analysis_profile: None,
            predicate_type: SUITE_PREDICATE.into(),
            operation: operation.into(),
            parameters: json!({ "suite_name": record.suite.name, "case_count": record.cases.len() }),
            raw_result: Value::Null,
            normalized_result: Value::Null,
            confidence: "derived".into(),
            authority: "analyst-inference".into(),
            environment: Value::Null,
            limitations: vec![NO_SUBJECT_LIMITATION.to_owned()],
            locations: Vec::new(),
            evidence_links: links,
        };
        envelope.evidence_id = evidence_id_with(&envelope, Part::Typed(&record))?;
        Ok(SealedSuite { envelope, record })
    }

    /// The sealed identity.
    pub fn evidence_id(&self) -> &str {
        &self.envelope.evidence_id
    }

    /// The record.
    pub fn record(&self) -> &SuiteRecord {
        &self.record
    }

    /// The envelope (its `normalized_result` null).
    pub fn envelope(&self) -> &Evidence {
        &self.envelope
    }

    /// The Evidence with its record as a JSON value.
    pub fn into_evidence(self) -> Result<Evidence, serde_json::Error> {
        Ok(Evidence { normalized_result: serde_json::to_value(&self.record)?, ..self.envelope })
    }

    /// Writes the Evidence as pretty JSON and a final newline.
    pub fn write_json(&self, out: impl std::io::Write) -> std::io::Result<()> {
        write_inline(&self.envelope, &self.record, out)
    }

    /// Writes the Evidence as TOON and a final newline.
    pub fn write_toon(&self, out: impl std::io::Write) -> Result<(), ToonEncodeError> {
        write_inline_toon(&self.envelope, &self.record, out)
    }
}
