//! The six live-session tools: arguments checked, the session looked up in
//! the server's table, the engine called on a blocking thread, the reply
//! built. A sensitive input's text appears in no reply: `send_input` echoes
//! only its length, and the scenario `stop_session` returns carries the
//! redaction marker in its place.

use std::sync::Arc;

use rea_engine::capture::{CancelCause, Cancellation, CaptureError};
use rea_engine::scenario::{Event, Scenario, parse_scenario};
use rea_engine::{ErrorDocument, UserError};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::{Failure, Live, StopError, args};
use crate::capture::{Internal, admitted_request};
use crate::reply;
use crate::session::Session;

pub(crate) const START: &str = "start_session";
pub(crate) const INPUT: &str = "send_input";
pub(crate) const RESIZE: &str = "resize";
pub(crate) const WAIT: &str = "wait_for";
pub(crate) const SCREEN: &str = "read_screen";
pub(crate) const STOP: &str = "stop_session";

/// Every live-session tool's name, in listing order.
pub(crate) const TOOLS: [&str; 6] = [START, INPUT, RESIZE, WAIT, SCREEN, STOP];

/// Starts the engine's live session of a prepared request. The server's is
/// [`crate::live::engine`]; tests pass a fake.
pub(crate) type Starter = dyn Fn(&Session, rea_engine::capture::CaptureRequest, Cancellation) -> Result<Box<dyn Live>, StopError>
    + Send
    + Sync;

/// Runs one of [`TOOLS`] on a blocking thread.
pub(crate) async fn run(session: Arc<Session>, tool: &'static str, arguments: Value) -> CallToolResult {
    let task = tokio::task::spawn_blocking(move || call(&session, tool, &arguments));
    match task.await {
        Ok(result) => result,
        Err(e) => reply::error(&Internal(format!("the {tool} thread ended abnormally: {e}"))),
    }
}

/// One call, blocking.
pub(crate) fn call(session: &Session, tool: &'static str, arguments: &Value) -> CallToolResult {
    if tool == START {
        return start(session, arguments);
    }
    let id = match args::session_id(tool, arguments) {
        Ok(id) => id,
        Err(e) => return reply::error(&e),
    };
    if tool == STOP {
        return stop(session, &id, arguments);
    }
    let on_live = |live: &mut dyn Live| -> CallToolResult {
        let scenario = live.scenario().clone();
        let answer = match tool {
            INPUT => args::input(tool, &scenario, arguments).map_err(boxed).and_then(|(data, sensitive)| {
                live.send_input(&data, sensitive).map(|()| json!({"session_id": id, "bytes": data.len()}))
            }),
            RESIZE => args::resize(tool, &scenario, arguments).map_err(boxed).and_then(|(columns, rows)| {
                live.resize(columns, rows).map(|()| json!({"session_id": id, "columns": columns, "rows": rows}))
            }),
            WAIT => args::wait(tool, &scenario, arguments)
                .map_err(boxed)
                .and_then(|wait| live.wait_for(&wait))
                .and_then(|waited| serde_json::to_value(waited).map_err(|e| boxed(internal(e)))),
            _ => args::screen(tool, arguments)
                .map_err(boxed)
                .and_then(|()| live.read_screen())
                .map(|screen| json!({"screen": screen})),
        };
        match answer {
            Ok(value) => reply::structured(value),
            Err(e) => reply::error(e.as_ref()),
        }
    };
    match session.live.with(tool, &id, on_live) {
        Ok(result) => result,
        Err(refused) => reply::error(refused.error()),
    }
}

fn boxed(e: impl UserError + Send + 'static) -> Failure {
    Box::new(e)
}

fn internal(e: impl std::fmt::Display) -> Internal {
    Internal(format!("a live-session reply could not be serialized: {e}"))
}

/// `start_session`: the scenario checked, a table slot reserved, then the
/// launch; nothing is launched when either fails.
fn start(session: &Session, arguments: &Value) -> CallToolResult {
    let scenario = match args::start(START, arguments).map(parse_scenario) {
        Ok(Ok(scenario)) => scenario,
        Ok(Err(e)) => return reply::error(&e),
        Err(e) => return reply::error(&e),
    };
    let reservation = match session.live.reserve() {
        Ok(r) => r,
        Err(e) => return reply::error(&e),
    };
    let request = match admitted_request(session, scenario) {
        Ok(r) => r,
        Err(refused) => return *refused,
    };
    let ended = session.ended().clone();
    let cancellation =
        Cancellation::on_host_signals().or_when(CancelCause::SessionEnd, async move { ended.cancelled().await });
    let mut live = match (session.starter)(session, request, cancellation) {
        Ok(live) => live,
        Err(e) => return capture_failure(session, e),
    };
    let screen = live.read_screen();
    let id = reservation.fill(live);
    match screen {
        Ok(screen) => reply::structured(json!({"session_id": id, "screen": screen})),
        Err(e) => reply::error(e.as_ref()),
    }
}

/// A start or stop failure as the reply; a failed cleanup stays with the
/// server.
fn capture_failure(session: &Session, e: StopError) -> CallToolResult {
    let e = match e {
        StopError::Other(e) => return reply::error(e.as_ref()),
        StopError::Capture(e) => e,
    };
    if let CaptureError::CleanupIncomplete { .. } = e {
        let doc = ErrorDocument::from_error(&e);
        session.keep_pending(e);
        return reply::error_document(&doc);
    }
    reply::error(&e)
}

/// `stop_session`: the session leaves the table, is ended as asked, and its
/// capture is recorded; the reply adds the built scenario (secrets
/// redacted) to the compact capture result.
fn stop(session: &Session, id: &str, arguments: &Value) -> CallToolResult {
    let mode = match args::stop(STOP, arguments) {
        Ok(mode) => mode,
        Err(e) => return reply::error(&e),
    };
    let live = match session.live.take(STOP, id) {
        Ok(live) => live,
        Err(refused) => return reply::error(refused.error()),
    };
    let stopped = match live.stop(mode) {
        Ok(stopped) => stopped,
        Err(StopError::Capture(e)) => {
            let e = rea_engine::capture::retry_failed_cleanup(&session.host, e);
            return capture_failure(session, StopError::Capture(e));
        }
        Err(e) => return capture_failure(session, e),
    };
    let (scenario, redacted) = redacted(stopped.scenario);
    let scenario = match serde_json::to_value(&scenario) {
        Ok(v) => v,
        Err(e) => return reply::error(&internal(e)),
    };
    let extra = json!({"session_id": id, "scenario": scenario, "redacted_inputs": redacted});
    crate::capture::record_with(session, stopped.evidence, extra)
}

/// The scenario with each sensitive input's text replaced by its marker,
/// and the paths of the replaced texts (the caller puts them back before a
/// replay: the text never leaves the server).
pub(crate) fn redacted(mut scenario: Scenario) -> (Scenario, Vec<String>) {
    let mut paths = Vec::new();
    for (i, event) in scenario.events.iter_mut().enumerate() {
        if let Event::Input { data, sensitive: true, .. } = event {
            *data = rea_engine::secrets::redacted_input(data.len());
            paths.push(format!("events[{i}].data"));
        }
    }
    (scenario, paths)
}

/// How server end stops a session.
pub(crate) const END_ALL_STOP: super::StopMode = super::StopMode::End;

/// Ends every session still running (server end): nothing they started
/// outlives the server; their captures are not recorded.
pub(crate) fn end_all(session: &Session) {
    for (id, live) in session.live.take_all() {
        match live.stop(END_ALL_STOP) {
            Ok(_) => {}
            Err(StopError::Capture(e)) => {
                let e = rea_engine::capture::retry_failed_cleanup(&session.host, e);
                eprintln!("rea mcp: live session {id} ended with an error at server end: {e}");
                if let CaptureError::CleanupIncomplete { .. } = e {
                    session.keep_pending(e);
                }
            }
            Err(StopError::Other(e)) => eprintln!("rea mcp: live session {id} ended with an error at server end: {e}"),
        }
    }
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
