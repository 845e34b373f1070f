//! Error vocabulary shared by every surface (CLI, MCP).
//!
//! Library errors are `thiserror` enums. Each one that can reach a user
//! implements [`UserError`]: a stable `code`, a contract `category`, and a
//! remediation sentence saying what to do. [`ErrorDocument`] is the one
//! projection every surface prints.

use serde::Serialize;
use serde_json::Value;

/// The documented error categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// The input is wrong; fix it and retry.
    InvalidInput,
    /// The host refused a permission.
    PermissionRequired,
    /// The host cannot provide this capability.
    UnsupportedProvider,
    /// A record does not match its identity or commitments.
    IntegrityMismatch,
    /// An input or observation exceeded a bound.
    Truncated,
    /// The run was cancelled.
    Cancelled,
    /// A deadline expired.
    Timeout,
    /// A prerequisite is missing.
    Unavailable,
    /// Something failed while running.
    ExecutionFailure,
}

/// An error a user can act on.
pub trait UserError: std::error::Error {
    /// The contract category.
    fn category(&self) -> Category;
    /// A stable machine-readable code.
    fn code(&self) -> &'static str;
    /// What to do about it, as a sentence.
    fn remediation(&self) -> String;
    /// Whether retrying unchanged may succeed.
    fn retryable(&self) -> bool {
        false
    }
    /// Structured details (paths, PIDs, issues), if any.
    fn details(&self) -> Option<Value> {
        None
    }
}

/// What an error looks like on stdout or in an MCP tool result.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorDocument {
    /// Always `"Process command failed"`, so consumers can test for `error`.
    pub error: &'static str,
    /// Stable code.
    pub code: String,
    /// Contract category.
    pub category: Category,
    /// What is wrong and where.
    pub message: String,
    /// Whether retrying unchanged may succeed.
    pub retryable: bool,
    /// What to do.
    pub remediation: Remediation,
    /// Structured details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// The remediation block of an [`ErrorDocument`].
#[derive(Debug, Clone, Serialize)]
pub struct Remediation {
    /// The action to take.
    pub action: String,
}

impl ErrorDocument {
    /// Projects any user error.
    pub fn from_error(err: &dyn UserError) -> ErrorDocument {
        ErrorDocument {
            error: "Process command failed",
            code: err.code().to_owned(),
            category: err.category(),
            message: err.to_string(),
            retryable: err.retryable(),
            remediation: Remediation { action: err.remediation() },
            details: err.details(),
        }
    }
}

/// A record rea built could not be serialized: a bug in rea, never the
/// user's input. Reported instead of printing `null` or an empty document.
#[derive(Debug, thiserror::Error)]
#[error("rea could not serialize {what}: {source}")]
pub struct SerializeError {
    /// What was being serialized, e.g. "the doctor report".
    pub what: &'static str,
    /// The serializer's error.
    #[source]
    pub source: serde_json::Error,
}

impl SerializeError {
    /// Wraps `source`, met while serializing `what`.
    pub fn new(what: &'static str) -> impl FnOnce(serde_json::Error) -> SerializeError {
        move |source| SerializeError { what, source }
    }
}

impl UserError for SerializeError {
    fn category(&self) -> Category {
        Category::ExecutionFailure
    }
    fn code(&self) -> &'static str {
        "internal_error"
    }
    fn remediation(&self) -> String {
        format!("Report this as a bug in rea, with the command that failed while serializing {}.", self.what)
    }
}
