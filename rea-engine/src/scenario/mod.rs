//! Scenarios: the strict input contract, its resolution against the host,
//! and the committed projections that enter Evidence.

mod commit;
mod digest;
mod model;
mod resolve;
mod validate;
mod wait;

#[cfg(test)]
mod commit_golden_tests;
#[cfg(test)]
mod commit_tests;
#[cfg(test)]
mod schema_tests;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A broken rule of the scenario (defined with the JSON paths it names).
pub use crate::path::Issue;
pub use commit::{
    ComparisonContract, NormalizationCommitment, PATTERN_NORMALIZATION_VERSION, PORT_NORMALIZATION_VERSION,
    RENDERED_LINE_FORMAT, ScenarioCommitment, TERMINAL_QUERY_REPLIES, comparison_contract, normalization_projection,
    redacted_input, scenario_commitment,
};
pub use digest::{DigestCache, ExecutableDigests, HashEachTime};
pub use model::*;
pub(crate) use resolve::normalize_lexically;
pub use resolve::{ResolveError, ResolvedScenario, Resolver};
pub(crate) use validate::type_name;
pub use wait::{output_dfa, screen_regex};

use crate::error::{Category, UserError};
use crate::input::{InputError, read_json_file};

/// A scenario that breaks one or more rules.
#[derive(Debug, thiserror::Error)]
#[error("{}", crate::path::render_issues("scenario", .file.as_deref(), .issues))]
pub struct ScenarioError {
    /// The scenario file, when it came from one.
    pub file: Option<PathBuf>,
    /// Every broken rule, in document order.
    pub issues: Vec<Issue>,
}

impl UserError for ScenarioError {
    fn category(&self) -> Category {
        Category::InvalidInput
    }
    fn code(&self) -> &'static str {
        "invalid_scenario"
    }
    fn remediation(&self) -> String {
        "Correct each listed path as its rule says, then run the capture again. Nothing was launched.".to_owned()
    }
    fn details(&self) -> Option<Value> {
        Some(crate::path::issues_details(self.file.as_deref(), &self.issues))
    }
}

/// Validates a parsed JSON document as a scenario.
pub fn parse_scenario(value: Value) -> Result<Scenario, ScenarioError> {
    validate::validate(value).map_err(|issues| ScenarioError { file: None, issues })
}

/// Either failure of [`load_scenario`].
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read as JSON.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The JSON is not a valid scenario.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
}

impl UserError for LoadError {
    fn category(&self) -> Category {
        match self {
            LoadError::Input(e) => e.category(),
            LoadError::Scenario(e) => e.category(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            LoadError::Input(e) => e.code(),
            LoadError::Scenario(e) => e.code(),
        }
    }
    fn remediation(&self) -> String {
        match self {
            LoadError::Input(e) => e.remediation(),
            LoadError::Scenario(e) => e.remediation(),
        }
    }
    fn details(&self) -> Option<Value> {
        match self {
            LoadError::Input(e) => e.details(),
            LoadError::Scenario(e) => e.details(),
        }
    }
}

/// Reads and validates the scenario file at `path`, opened with `open`
/// (the host's [`crate::Host::open_input`]).
pub fn load_scenario(path: &Path, open: crate::input::OpenInput) -> Result<Scenario, LoadError> {
    let value = read_json_file("scenario", path, open)?;
    parse_scenario(value).map_err(|mut e| {
        e.file = Some(path.to_owned());
        LoadError::Scenario(e)
    })
}

/// The scenario's JSON Schema (draft 2020-12), as published in `docs/`.
///
/// Object keys are sorted, so the printed schema is the same text whether or
/// not the build enables `serde_json`'s `preserve_order` feature (which other
/// crates in a workspace may switch on).
pub fn json_schema() -> Value {
    sort_keys(schemars::schema_for!(Scenario).to_value())
}

fn sort_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sort_keys(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sort_keys).collect()),
        other => other,
    }
}
