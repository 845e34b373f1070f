//! Trace specifications: the exact events and ordering constraints two
//! captures must satisfy, for scenarios whose event order may vary.
//!
//! [`parse_trace_spec`] checks a document strictly (every broken rule with
//! its JSON path), [`project`] turns a capture into observations,
//! [`evaluate_side`] checks one capture, and [`compare_traces`] gives the
//! verdict that [`crate::compare::compare_records`] folds into the
//! dimension statuses.

mod evaluate;
mod interplay;
mod model;
mod parse;
mod project;
mod validate;

#[cfg(test)]
pub(in crate::compare) mod testkit;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use serde_json::Value;

pub use evaluate::{
    Diagnostic, DiagnosticKind, MatchedEvent, SideResult, SideStatus, TraceComparison, Verdict, compare_traces,
    coverage_gaps, evaluate_side,
};
pub(in crate::compare) use interplay::apply;
pub use model::*;
pub use project::{Location, Observation, collection_source, project};

use crate::error::{Category, UserError};
use crate::scenario::Issue;

/// A trace specification that breaks one or more rules.
#[derive(Debug, thiserror::Error)]
#[error("{}", crate::path::render_issues("trace specification", .file.as_deref(), .issues))]
pub struct TraceSpecError {
    /// The specification file, when it came from one.
    pub file: Option<PathBuf>,
    /// Every broken rule.
    pub issues: Vec<Issue>,
}

impl UserError for TraceSpecError {
    fn category(&self) -> Category {
        Category::InvalidInput
    }
    fn code(&self) -> &'static str {
        "invalid_trace_specification"
    }
    fn remediation(&self) -> String {
        "Correct each listed path as its rule says, then compare again. Nothing was compared.".to_owned()
    }
    fn details(&self) -> Option<Value> {
        Some(crate::path::issues_details(self.file.as_deref(), &self.issues))
    }
}

/// Validates a parsed JSON document as a trace specification.
pub fn parse_trace_spec(value: Value) -> Result<TraceSpec, TraceSpecError> {
    let mut parser = parse::Parser::default();
    let parsed = parser.spec(&value);
    if let Some(parsed) = &parsed {
        parser.events_rules(&parsed.events);
        let events: Option<Vec<TraceEvent>> = parsed.events.iter().cloned().collect();
        if let (Some(events), Some(language)) = (events.filter(|e| !e.is_empty()), &parsed.language) {
            parser.language_rules(&events, language);
        }
    }
    match parsed {
        Some(parse::Parsed { events, language: Some(language) }) if parser.issues.is_empty() => {
            // No issue means every event parsed.
            Ok(TraceSpec { given: value, events: events.into_iter().flatten().collect(), language })
        }
        _ => {
            if parser.issues.is_empty() {
                parser.issue("language", "internal error: the specification parsed without a language");
            }
            Err(TraceSpecError { file: None, issues: parser.issues })
        }
    }
}
