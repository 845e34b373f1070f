//! The suite file, typed once it is valid, and the options of a run.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::partition::Partition;
use crate::compare::TerminalLens;

/// Maximum number of entries of `cases` (and of cases after expansion).
pub const MAX_CASES: usize = 10_000;
/// Maximum `--jobs`.
pub const MAX_JOBS: usize = 256;
/// Maximum length of a case name, in bytes.
pub(crate) const MAX_CASE_NAME_BYTES: usize = 128;
/// Maximum length of the suite's `name`, in characters.
pub(crate) const MAX_SUITE_NAME_CHARS: usize = 200;
/// The placeholder that stands for a side's command.
pub const SIDE_PLACEHOLDER: &str = "{side}";

/// One side of the suite: the command a case's `{side}` becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideCommand {
    /// The executable: a bare name (looked up on the child's `PATH`) or,
    /// when it holds a `/`, an absolute path (made absolute against the
    /// suite file's directory when written relative).
    pub executable: String,
    /// Its leading arguments.
    pub arguments: Vec<String>,
}

impl SideCommand {
    /// The side's words: the executable, then its arguments.
    pub fn words(&self) -> Vec<String> {
        std::iter::once(self.executable.clone()).chain(self.arguments.iter().cloned()).collect()
    }
}

/// The two sides (`sides`); the authority may be left out only when
/// goldens stand in for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sides {
    /// `sides.authority`.
    pub authority: Option<SideCommand>,
    /// `sides.reconstruction`.
    pub reconstruction: SideCommand,
}

/// One entry of `cases`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CaseEntry {
    /// A glob of case files, relative to the suite file's directory.
    Glob(String),
    /// A case written in the suite file.
    Inline {
        /// Its name.
        name: String,
        /// The partial scenario.
        scenario: Map<String, Value>,
        /// Its fixture directory, relative to the suite file's directory.
        fixture: Option<String>,
    },
}

/// A valid suite file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SuiteFile {
    /// `name`, when given.
    pub name: Option<String>,
    /// `sides`.
    pub sides: Sides,
    /// `cases`, in order.
    pub cases: Vec<CaseEntry>,
    /// `defaults`: the fields a case leaves out (top-level keys).
    pub defaults: Map<String, Value>,
}

/// How goldens take part in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Goldens {
    /// `--goldens DIR`: `DIR/NAME.json` stands in for the authority.
    Check(PathBuf),
    /// `--record-goldens DIR`: only the authority runs, into `DIR/NAME.json`.
    Record(PathBuf),
}

impl Goldens {
    /// The directory.
    pub fn directory(&self) -> &std::path::Path {
        match self {
            Goldens::Check(d) | Goldens::Record(d) => d,
        }
    }
}

crate::evidence::vocabulary::vocabulary! {
    /// How goldens took part (`parameters.goldens.mode`).
    GoldenMode {
        /// Goldens stood in for the authority.
        Check = "check",
        /// The authority was recorded as goldens.
        Record = "record",
    }
}

/// `parameters.goldens` of the suite record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldensParameter {
    /// How.
    pub mode: GoldenMode,
    /// The directory, absolute.
    pub directory: String,
}

/// The options of one run, as the command line or the MCP tool gives them.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// `--out`: where the documents go (relative to the invocation directory).
    pub out: PathBuf,
    /// `--work-root`: where the cases run (`None`: the default).
    pub work_root: Option<PathBuf>,
    /// `--jobs`: cases at a time (`None`: the CPUs rea may use).
    pub jobs: Option<usize>,
    /// `--self-check`.
    pub self_check: bool,
    /// `--goldens` or `--record-goldens`.
    pub goldens: Option<Goldens>,
    /// `--partition K/N`.
    pub partition: Option<Partition>,
    /// `--case GLOB`, each matched against case names.
    pub case_globs: Vec<String>,
    /// `--terminal-lens`.
    pub terminal_lens: TerminalLens,
}

impl SuiteOptions {
    /// The options of a plain run into `out`.
    pub fn new(out: PathBuf) -> SuiteOptions {
        SuiteOptions {
            out,
            work_root: None,
            jobs: None,
            self_check: false,
            goldens: None,
            partition: None,
            case_globs: Vec::new(),
            terminal_lens: TerminalLens::Stream,
        }
    }

    /// Whether goldens stand in for the authority.
    pub fn checks_goldens(&self) -> bool {
        matches!(self.goldens, Some(Goldens::Check(_)))
    }

    /// Whether the run records goldens.
    pub fn records_goldens(&self) -> bool {
        matches!(self.goldens, Some(Goldens::Record(_)))
    }
}

/// The default `--out`, relative to the invocation directory.
pub const DEFAULT_OUT_DIR: &str = "rea-suite-out";

/// The default `--jobs`: the CPUs this process may use.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get).min(MAX_JOBS)
}
