//! `capture_process_scenario`: validate, admit, capture on a blocking thread,
//! record the Evidence in the session.

use std::sync::Arc;

use rea_engine::capture::progress::{ProgressLine, ProgressSink};
use rea_engine::capture::{CancelCause, Cancellation, CaptureError, capture, prepare};
use rea_engine::evidence::import_capture_record;
use rea_engine::scenario::parse_scenario;
use rea_engine::{ErrorDocument, UserError};
use rmcp::model::{CallToolResult, ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::errors::CleanupPendingError;
use crate::reply::{self, evidence_uri};
use crate::session::Session;

/// The tool's name.
pub(crate) const TOOL: &str = "capture_process_scenario";

/// Where progress goes when the client sent a progress token.
pub(crate) struct ProgressTarget {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) token: ProgressToken,
}

/// Sends each progress line as `notifications/progress`: `progress =
/// completed`, `message = "<phase>: <message>"`, no total (rea invents none).
/// Lines go through a channel to one forwarding task, in order; the engine's
/// progress thread never waits for the client.
struct McpProgress {
    token: ProgressToken,
    lines: tokio::sync::mpsc::UnboundedSender<ProgressNotificationParam>,
}

impl McpProgress {
    /// Starts the forwarding task on the current runtime.
    fn start(target: ProgressTarget) -> McpProgress {
        McpProgress { lines: forward(target.peer), token: target.token }
    }
}

/// Starts, on the current runtime, the one task that sends what the
/// returned channel receives as `notifications/progress` to `peer`, in order.
pub(crate) fn forward(peer: Peer<RoleServer>) -> tokio::sync::mpsc::UnboundedSender<ProgressNotificationParam> {
    let (lines, mut rx) = tokio::sync::mpsc::unbounded_channel::<ProgressNotificationParam>();
    tokio::spawn(async move {
        while let Some(param) = rx.recv().await {
            // A client gone away is not the run's problem.
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    });
    lines
}

impl ProgressSink for McpProgress {
    fn write(&self, line: &ProgressLine) {
        let message = format!("{}: {}", line.phase, line.message);
        let param = ProgressNotificationParam::new(self.token.clone(), line.completed as f64).with_message(message);
        let _ = self.lines.send(param);
    }
}

/// Runs the tool. `cancel` is the request's cancellation token.
pub(crate) async fn run(
    session: Arc<Session>,
    arguments: Value,
    progress: Option<ProgressTarget>,
    cancel: CancellationToken,
) -> CallToolResult {
    // Nothing is launched for an invalid scenario.
    let scenario = match parse_scenario(arguments) {
        Ok(s) => s,
        Err(e) => return reply::error(&e),
    };
    let sink: Arc<dyn ProgressSink> = match progress {
        Some(target) => Arc::new(McpProgress::start(target)),
        None => Arc::new(rea_engine::capture::progress::NullProgress),
    };
    let task = tokio::task::spawn_blocking(move || {
        let cancellation = cancellation(&session, cancel);
        captured(&session, scenario, sink, cancellation)
    });
    match task.await {
        Ok(result) => result,
        Err(e) => reply::error(&Internal(format!("the capture thread ended abnormally: {e}"))),
    }
}

/// The capture request of `scenario`, prepared as `rea capture-process`
/// prepares it (the server's directory and environment), once the
/// session's earlier clean-ups are proven; the error reply otherwise.
pub(crate) fn admitted_request(
    session: &Session,
    scenario: rea_engine::scenario::Scenario,
) -> Result<rea_engine::capture::CaptureRequest, Box<CallToolResult>> {
    let refuse = |reply: CallToolResult| Box::new(reply);
    let invocation_dir = std::env::current_dir()
        .map_err(|e| refuse(reply::error(&Internal(format!("the server's current directory cannot be read: {e}")))))?;
    let request = prepare(&session.host, scenario, &invocation_dir, std::env::vars_os().collect(), session.build)
        .map_err(|e| refuse(reply::error(&e)))?;
    let pending = session.admit();
    if !pending.is_empty() {
        return Err(refuse(reply::error(&CleanupPendingError { pending })));
    }
    Ok(request)
}

/// The capture, on a blocking thread.
pub(crate) fn captured(
    session: &Session,
    scenario: rea_engine::scenario::Scenario,
    sink: Arc<dyn ProgressSink>,
    cancellation: Cancellation,
) -> CallToolResult {
    let request = match admitted_request(session, scenario) {
        Ok(r) => r,
        Err(refused) => return *refused,
    };
    let outcome = capture(&session.host, request, cancellation, sink);
    match outcome {
        Ok(evidence) => record(session, evidence),
        Err(e @ CaptureError::CleanupIncomplete { .. }) => {
            let doc = ErrorDocument::from_error(&e);
            session.keep_pending(e);
            reply::error_document(&doc)
        }
        Err(e) => reply::error(&e),
    }
}

/// Records a capture and answers with its compact form. The record is read
/// back through the importer first: every capture rea writes, rea reads.
fn record(session: &Session, evidence: rea_engine::evidence::Evidence) -> CallToolResult {
    record_with(session, evidence, Value::Null)
}

/// [`record`], with the fields of `extra` (an object) added to the compact
/// result.
pub(crate) fn record_with(session: &Session, evidence: rea_engine::evidence::Evidence, extra: Value) -> CallToolResult {
    let document = match serde_json::to_value(&evidence) {
        Ok(v) => v,
        Err(e) => return reply::error(&Internal(format!("the capture could not be serialized: {e}"))),
    };
    let imported = match import_capture_record(&evidence_uri(&evidence.evidence_id), document.clone()) {
        Ok(i) => i,
        Err(e) => return reply::error(&e),
    };
    session.record_and_reply(evidence, document, Some(Arc::new(imported)), extra)
}

/// What cancels an MCP capture: the host's signals (SIGINT, SIGTERM, SIGHUP,
/// as in the CLI), the client's cancellation of this request, and session
/// end, all through the engine's one cancellation and cleanup path.
fn cancellation(session: &Session, cancel: CancellationToken) -> Cancellation {
    let ended = session.ended().clone();
    Cancellation::on_host_signals()
        .or_when(CancelCause::Client, async move { cancel.cancelled().await })
        .or_when(CancelCause::SessionEnd, async move { ended.cancelled().await })
}

/// An unexpected failure inside the server.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Internal(pub(crate) String);

impl UserError for Internal {
    fn category(&self) -> rea_engine::Category {
        rea_engine::Category::ExecutionFailure
    }
    fn code(&self) -> &'static str {
        "internal_error"
    }
    fn remediation(&self) -> String {
        "Run `rea doctor`, then try again; report the message if it persists.".into()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rea_engine::BuildInfo;
    use rea_engine::capture::progress::NullProgress;
    use rea_engine::testing::fakes::FakeWorld;
    use serde_json::{Value, json};
    use tokio_util::sync::CancellationToken;

    use crate::session::Session;

    const BUILD: BuildInfo = BuildInfo { version: "0.0.0-test", revision: None, target: "test" };

    /// Runs a capture of a command that never exits, with `cancel` as the
    /// request's cancellation, and returns the error document it ends with.
    fn cancelled_capture(session: &Session, cancel: CancellationToken) -> Value {
        let scenario = rea_engine::scenario::parse_scenario(json!({"executable": "sh", "settle_ms": 0})).unwrap();
        let cancellation = super::cancellation(session, cancel);
        let reply = super::captured(session, scenario, Arc::new(NullProgress), cancellation);
        assert_eq!(reply.is_error, Some(true));
        reply.structured_content.expect("an error document")
    }

    #[test]
    fn a_client_cancellation_cancels_the_capture_and_says_the_client_did() {
        let world = FakeWorld::new();
        let session = Session::new(world.host(), BUILD);
        let cancel = CancellationToken::new();
        cancel.cancel();
        let doc = cancelled_capture(&session, cancel);
        assert_eq!(doc["code"], "cancelled", "{doc}");
        assert_eq!(doc["details"]["signal"], "the MCP client (notifications/cancelled)", "{doc}");
        let message = doc["message"].as_str().unwrap();
        assert!(message.starts_with("process capture was cancelled by the MCP client"), "{message}");
        assert_eq!(doc["details"]["cleanup"], "complete", "{doc}");
    }

    #[test]
    fn the_end_of_the_session_cancels_the_capture_and_says_so() {
        let world = FakeWorld::new();
        let session = Session::new(world.host(), BUILD);
        session.end();
        let doc = cancelled_capture(&session, CancellationToken::new());
        assert_eq!(doc["code"], "cancelled", "{doc}");
        assert_eq!(doc["details"]["signal"], "the end of the MCP session", "{doc}");
        assert_eq!(doc["details"]["cleanup"], "complete", "{doc}");
    }
}
