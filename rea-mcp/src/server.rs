//! The MCP handler: tool and resource listings, tool calls, resource reads.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::reply::{EVIDENCE_URI_PREFIX, evidence_uri};
use crate::session::Session;
use crate::transport::LineTransport;
use crate::{capture, compare, export, live, reply, suite};

/// Serves the session on stdin/stdout until the client ends it. The
/// transport answers malformed lines itself and ends the session (cancelling
/// running captures at once, not after the SDK's drain delay) at the end of
/// stdin.
pub(crate) async fn run(session: Arc<Session>) -> Result<(), String> {
    let (stdin, stdout) = rmcp::transport::stdio();
    let transport = LineTransport::new(stdin, stdout, session.ended().clone());
    let service =
        Handler { session }.serve(transport).await.map_err(|e| format!("the MCP session could not start: {e}"))?;
    service.waiting().await.map(|_| ()).map_err(|e| format!("the MCP session ended abnormally: {e}"))
}

/// The server handler.
struct Handler {
    session: Arc<Session>,
}

/// Builds an SDK type from its MCP wire form (the SDK's types are
/// non-exhaustive; the wire form is the stable contract).
fn wire<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|e| ErrorData::internal_error(format!("rea mcp built an invalid reply: {e}"), None))
}

const INSTRUCTIONS: &str = "rea runs one command under a pseudo-terminal exactly as a scenario says and records bounded Evidence of what happened; it compares two such captures. capture_process_scenario takes the scenario object (schema: docs/scenario.schema.json) and returns a compact result with an evidence_uri; read the full record with resources/read. compare_process_captures compares two captures by evidence_id (this session) or by capture file path; export_asciicast returns a capture's asciicast v2 recording; run_suite runs a whole suite of scenarios against two sides and returns its suite record. To explore a program before writing its scenario: start_session, then wait_for its prompt, send_input, read_screen, resize as needed, and stop_session, which returns the scenario built from the session (replayable with capture_process_scenario) and the session's capture.";

/// The tools, with their annotations. Capture launches a process with the
/// user's permissions and writes files; compare and export only read.
pub(crate) fn tools() -> Value {
    let mut tools = json!([
        {
            "name": capture::TOOL,
            "title": "Capture a process scenario",
            "description": "Run the scenario's command under a pseudo-terminal (with your permissions), record capture Evidence in this session, and return {result, evidence_id, evidence_uri}. The input is exactly the scenario object of `rea capture-process`. Progress notifications are sent when the request has a progress token; cancelling the request kills the command and verifies cleanup.",
            "inputSchema": rea_engine::scenario::json_schema(),
            "annotations": {
                "title": "Capture a process scenario",
                "readOnlyHint": false,
                "destructiveHint": true,
                "idempotentHint": false,
                "openWorldHint": true
            },
            "_meta": { "rea/effects": ["launches_process", "writes_filesystem", "accesses_network", "mutates_session"] }
        },
        {
            "name": compare::TOOL,
            "title": "Compare two process captures",
            "description": "Compare two captures, each named by an evidence_id recorded in this session or by a capture Evidence file path, optionally under a trace specification; record the comparison Evidence and return {result, evidence_id, evidence_uri}. Only reads.",
            "inputSchema": compare::input_schema(),
            "annotations": {
                "title": "Compare two process captures",
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false
            },
            "_meta": { "rea/effects": ["reads_filesystem", "mutates_session"] }
        },
        {
            "name": export::TOOL,
            "title": "Export a capture as an asciicast recording",
            "description": "Return the asciicast v2 recording of a capture (exactly what `rea export-asciicast` prints), named by an evidence_id recorded in this session or by a capture Evidence file path (JSON or TOON), as {asciicast, evidence_id}. Only reads; records nothing.",
            "inputSchema": export::input_schema(),
            "annotations": {
                "title": "Export a capture as an asciicast recording",
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false
            },
            "_meta": { "rea/effects": ["reads_filesystem"] }
        },
        {
            "name": suite::TOOL,
            "title": "Run a suite of scenarios against two sides",
            "description": "Run every case of a suite (the suite object, or suite_path) against its authority and its reconstruction, exactly as `rea run-suite` does: the cases' captures and comparisons are written under out/cases/NAME/ and the suite record to out/suite.json; the record is kept in this session and returned as {result, evidence_id, evidence_uri}. A progress notification per finished case when the request has a progress token; cancelling the request stops the run and cleans up its captures.",
            "inputSchema": suite::input_schema(),
            "annotations": {
                "title": "Run a suite of scenarios against two sides",
                "readOnlyHint": false,
                "destructiveHint": true,
                "idempotentHint": false,
                "openWorldHint": true
            },
            "_meta": { "rea/effects": ["launches_process", "writes_filesystem", "accesses_network", "mutates_session"] }
        }
    ]);
    if let Value::Array(list) = &mut tools {
        list.extend(crate::live::listing());
    }
    tools
}

/// Where a call's progress goes, when it carries a progress token.
fn progress_target(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<capture::ProgressTarget> {
    let token =
        context.meta.get_progress_token().or_else(|| request.meta.as_ref().and_then(|m| m.get_progress_token()));
    token.map(|token| capture::ProgressTarget { peer: context.peer.clone(), token })
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build());
        info.server_info = Implementation::new("rea", self.session.build.version).with_title("rea process capture");
        info.instructions = Some(INSTRUCTIONS.to_owned());
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        wire(json!({ "tools": tools() }))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let progress = progress_target(&request, &context);
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let session = Arc::clone(&self.session);
        let result = match request.name.as_ref() {
            capture::TOOL => capture::run(session, arguments, progress, context.ct.clone()).await,
            suite::TOOL => suite::run(session, arguments, progress, context.ct.clone()).await,
            compare::TOOL => match tokio::task::spawn_blocking(move || compare::run(&session, arguments)).await {
                Ok(result) => result,
                Err(e) => reply::error(&capture::Internal(format!("the comparison thread ended abnormally: {e}"))),
            },
            export::TOOL => match tokio::task::spawn_blocking(move || export::run(&session, arguments)).await {
                Ok(result) => result,
                Err(e) => reply::error(&capture::Internal(format!("the export thread ended abnormally: {e}"))),
            },
            name => match live::tools::TOOLS.iter().find(|t| **t == name) {
                Some(tool) => live::tools::run(session, tool, arguments).await,
                None => {
                    let mut names = vec![capture::TOOL, compare::TOOL, export::TOOL, suite::TOOL];
                    names.extend(live::tools::TOOLS);
                    return Err(ErrorData::invalid_params(
                        format!("unknown tool {name:?}; this server has {}", names.join(", ")),
                        None,
                    ));
                }
            },
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources: Vec<Value> = self
            .session
            .list()
            .into_iter()
            .map(|(id, operation)| {
                json!({
                    "uri": evidence_uri(&id),
                    "name": id,
                    "title": format!("{operation} Evidence {id}"),
                    "description": reply::RESOURCE_DESCRIPTION,
                    "mimeType": "application/json",
                })
            })
            .collect();
        wire(json!({ "resources": resources }))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let stored = request.uri.strip_prefix(EVIDENCE_URI_PREFIX).and_then(|id| self.session.get(id));
        let Some(stored) = stored else {
            return Err(ErrorData::resource_not_found(
                format!(
                    "{} names no Evidence of this MCP session; copy an evidence_uri returned by a tool, or call resources/list",
                    request.uri
                ),
                Some(json!({ "uri": request.uri })),
            ));
        };
        let result: ReadResourceResult = wire(json!({
            "contents": [{ "uri": request.uri, "mimeType": "application/json", "text": &*stored.text }]
        }))?;
        Ok(result.into())
    }
}
