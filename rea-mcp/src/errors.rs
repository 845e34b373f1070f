//! Errors only the MCP surface raises. Each projects to the same error
//! document the CLI prints (`rea_engine::ErrorDocument`).

use rea_engine::scenario::Issue;
use rea_engine::{Category, UserError};
use serde_json::{Value, json};

/// Tool arguments that break one or more rules (the scenario has its own
/// error, `invalid_scenario`, from the engine).
#[derive(Debug, thiserror::Error)]
#[error("{}", rea_engine::path::render_issues(&format!("{} arguments", .tool), None, .issues))]
pub(crate) struct ArgumentsError {
    /// The tool called.
    pub(crate) tool: &'static str,
    /// Every broken rule, with the argument's path.
    pub(crate) issues: Vec<Issue>,
}

impl UserError for ArgumentsError {
    fn category(&self) -> Category {
        Category::InvalidInput
    }
    fn code(&self) -> &'static str {
        "invalid_arguments"
    }
    fn remediation(&self) -> String {
        "Correct each listed argument as its rule says, then call the tool again. Nothing was run.".into()
    }
    fn details(&self) -> Option<Value> {
        Some(json!({ "tool": self.tool, "issues": self.issues }))
    }
}

/// Why an Evidence id cannot be used as a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReferenceProblem {
    /// No Evidence with that id was recorded in this session.
    Missing,
    /// The Evidence is not from `capture_process_scenario`.
    WrongOperation,
    /// The Evidence is not a current process capture.
    WrongPredicate,
}

impl ReferenceProblem {
    fn as_str(self) -> &'static str {
        match self {
            ReferenceProblem::Missing => "missing",
            ReferenceProblem::WrongOperation => "wrong_operation",
            ReferenceProblem::WrongPredicate => "wrong_predicate",
        }
    }
}

/// An Evidence id argument that does not name a usable session capture.
#[derive(Debug, thiserror::Error)]
#[error("{field} {id:?} {}", match .problem {
    ReferenceProblem::Missing => "names no Evidence recorded in this MCP session".to_owned(),
    ReferenceProblem::WrongOperation => format!("names Evidence of operation {:?}, not a capture_process_scenario capture", .found),
    ReferenceProblem::WrongPredicate => format!("names Evidence with predicate {:?}, not {}", .found, rea_engine::evidence::CAPTURE_PREDICATE),
})]
pub(crate) struct EvidenceReferenceError {
    /// The argument, e.g. `left_evidence_id`.
    pub(crate) field: &'static str,
    /// The id given.
    pub(crate) id: String,
    /// What is wrong.
    pub(crate) problem: ReferenceProblem,
    /// The operation or predicate found (empty when missing).
    pub(crate) found: String,
}

impl UserError for EvidenceReferenceError {
    fn category(&self) -> Category {
        Category::InvalidInput
    }
    fn code(&self) -> &'static str {
        "evidence_reference"
    }
    fn remediation(&self) -> String {
        match self.problem {
            ReferenceProblem::Missing => "Pass an evidence_id returned by capture_process_scenario in this session (resources/list shows them), or compare capture files with left_capture_path/right_capture_path.".into(),
            ReferenceProblem::WrongOperation | ReferenceProblem::WrongPredicate => "Pass the evidence_id of a capture (not of a comparison) made by this version of rea.".into(),
        }
    }
    fn details(&self) -> Option<Value> {
        Some(json!({ "field": self.field, "evidence_id": self.id, "reason": self.problem.as_str() }))
    }
}

/// A capture refused because an earlier cleanup in this session is still
/// pending after its retry.
#[derive(Debug, thiserror::Error)]
#[error(
    "capture refused: the owned-process cleanup of {} earlier capture(s) in this MCP session is still incomplete after a retry, so nothing new was launched",
    .pending.len()
)]
pub(crate) struct CleanupPendingError {
    /// Details (cleanup report and latest retry) of each pending cleanup.
    pub(crate) pending: Vec<Value>,
}

impl UserError for CleanupPendingError {
    fn category(&self) -> Category {
        Category::ExecutionFailure
    }
    fn code(&self) -> &'static str {
        "cleanup_incomplete"
    }
    fn remediation(&self) -> String {
        "Inspect the processes listed in details.pending (they were left untouched because their ownership could not be proven), stop them if they are yours, then call the tool again; every call retries the pending cleanup first.".into()
    }
    fn details(&self) -> Option<Value> {
        Some(json!({ "operation": "process_capture", "pending": self.pending }))
    }
}

/// A `session_id` that names no running live session of this server.
#[derive(Debug, thiserror::Error)]
#[error("{tool}: session_id {id:?} names no running session of this MCP server{}", if .running.is_empty() { " (none is running)".to_owned() } else { format!(" (running: {})", .running.join(", ")) })]
pub(crate) struct UnknownSessionError {
    /// The tool called.
    pub(crate) tool: &'static str,
    /// The id given.
    pub(crate) id: String,
    /// The ids of the sessions running now.
    pub(crate) running: Vec<String>,
}

impl UserError for UnknownSessionError {
    fn category(&self) -> Category {
        Category::InvalidInput
    }
    fn code(&self) -> &'static str {
        "unknown_session"
    }
    fn remediation(&self) -> String {
        "Pass the session_id start_session returned; a session is gone once stop_session returned for it or the server restarted. Start a new one with start_session.".into()
    }
    fn details(&self) -> Option<Value> {
        Some(json!({ "tool": self.tool, "session_id": self.id, "running": self.running }))
    }
}

/// A `start_session` refused because the server runs its most sessions.
#[derive(Debug, thiserror::Error)]
#[error(
    "start_session refused: this MCP server already runs {max} live sessions, its most at once, so nothing was launched"
)]
pub(crate) struct SessionLimitError {
    /// The bound.
    pub(crate) max: usize,
    /// The ids of the sessions running now.
    pub(crate) running: Vec<String>,
}

impl UserError for SessionLimitError {
    fn category(&self) -> Category {
        Category::Truncated
    }
    fn code(&self) -> &'static str {
        "session_limit"
    }
    fn remediation(&self) -> String {
        "Stop a session you no longer need with stop_session (details.running lists them), then call start_session again.".into()
    }
    fn details(&self) -> Option<Value> {
        Some(json!({ "max_sessions": self.max, "running": self.running }))
    }
}

/// A call on a session while another call on it is still running.
#[derive(Debug, thiserror::Error)]
#[error(
    "{tool}: session {id:?} is busy with another call (a wait_for or stop_session still running), so this call did nothing"
)]
pub(crate) struct SessionBusyError {
    /// The tool called.
    pub(crate) tool: &'static str,
    /// The session.
    pub(crate) id: String,
}

impl UserError for SessionBusyError {
    fn category(&self) -> Category {
        Category::InvalidInput
    }
    fn code(&self) -> &'static str {
        "session_busy"
    }
    fn remediation(&self) -> String {
        "A session takes one call at a time: wait for the reply of the running call, then call again.".into()
    }
    fn details(&self) -> Option<Value> {
        Some(json!({ "tool": self.tool, "session_id": self.id }))
    }
}
