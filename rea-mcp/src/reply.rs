//! Tool results: the compact success form and the error form.

use rea_engine::{ErrorDocument, UserError};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

/// URI scheme prefix of session-recorded Evidence.
pub(crate) const EVIDENCE_URI_PREFIX: &str = "rea://evidence/";

/// The resource URI of an Evidence id.
pub(crate) fn evidence_uri(id: &str) -> String {
    format!("{EVIDENCE_URI_PREFIX}{id}")
}

/// The hint that accompanies every compact result.
pub(crate) const READ_HINT: &str = "Full detail is available through MCP resources/read. Copy the opaque URI exactly. In Codex, call read_mcp_resource.";

/// Description of an Evidence resource (link and listing).
pub(crate) const RESOURCE_DESCRIPTION: &str = "Session-owned Evidence v2 record";

fn from_json(value: Value) -> CallToolResult {
    // The shape below is the MCP CallToolResult; the SDK type is
    // non-exhaustive, so it is built from its wire form.
    serde_json::from_value(value).unwrap_or_else(|e| text_error(format!("rea mcp could not build its reply: {e}")))
}

/// An error result that is only a sentence, for when the structured one
/// cannot be built.
fn text_error(message: String) -> CallToolResult {
    CallToolResult::error(vec![rmcp::model::ContentBlock::text(message)])
}

/// `structuredContent = {result, evidence_id, evidence_uri}`, the same as
/// JSON text, the read hint, and a resource link to the full record.
/// The fields of `extra` (an object, or null) are added to the compact form.
pub(crate) fn evidence(id: &str, normalized_result: &Value, extra: Value) -> CallToolResult {
    let uri = evidence_uri(id);
    let mut compact = json!({ "result": normalized_result, "evidence_id": id, "evidence_uri": uri });
    if let (Value::Object(compact), Value::Object(extra)) = (&mut compact, extra) {
        compact.extend(extra);
    }
    from_json(json!({
        "content": [
            { "type": "text", "text": compact.to_string() },
            { "type": "text", "text": READ_HINT },
            {
                "type": "resource_link",
                "uri": uri,
                "name": id,
                "description": RESOURCE_DESCRIPTION,
                "mimeType": "application/json",
            },
        ],
        "structuredContent": compact,
        "isError": false,
    }))
}

/// `structuredContent = {asciicast, evidence_id}` (the recording of the
/// capture `id`), the same as JSON text, then the recording as plain text.
pub(crate) fn recording(id: &str, cast: String) -> CallToolResult {
    let compact = json!({ "asciicast": cast, "evidence_id": id });
    from_json(json!({
        "content": [
            { "type": "text", "text": compact.to_string() },
            { "type": "text", "text": compact["asciicast"] },
        ],
        "structuredContent": compact,
        "isError": false,
    }))
}

/// `structuredContent = value`, the same as JSON text.
pub(crate) fn structured(value: Value) -> CallToolResult {
    from_json(json!({
        "content": [{ "type": "text", "text": value.to_string() }],
        "structuredContent": value,
        "isError": false,
    }))
}

/// `isError: true` with the CLI's error document as structured content and
/// as JSON text.
pub(crate) fn error(err: &dyn UserError) -> CallToolResult {
    error_document(&ErrorDocument::from_error(err))
}

/// The error form of an already projected document.
pub(crate) fn error_document(doc: &ErrorDocument) -> CallToolResult {
    let doc = match serde_json::to_value(doc) {
        Ok(doc) => doc,
        Err(e) => return text_error(format!("rea mcp could not serialize its `{}` error document: {e}", doc.code)),
    };
    from_json(json!({
        "content": [{ "type": "text", "text": doc.to_string() }],
        "structuredContent": doc,
        "isError": true,
    }))
}
