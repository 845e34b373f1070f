//! Committed projections of a scenario: what enters `manifest.scenario`,
//! `manifest.comparison_contract` and the capture's `normalization`.
//!
//! Two rules hold for every projection here:
//! - sensitive input text never appears; it becomes `<redacted-input:N-bytes>`
//!   with N its UTF-8 length, so equal-length secrets commit equally;
//! - an option at its default that older scenarios could not express
//!   (`finalization_ms: 0`, no custom `patterns`) is left out, so adding a
//!   feature never moves an existing identity.

use serde_json::{Map, Value, json};

use super::model::{Event, Normalization, Scenario};
use super::resolve::ResolvedScenario;
pub use crate::secrets::redacted_input;

/// Committed format of rendered frame `lines`.
pub const RENDERED_LINE_FORMAT: &str = "trim-trailing-spaces-v1";
/// Committed port-normalization semantics, present while `ports` is true.
pub const PORT_NORMALIZATION_VERSION: &str = "endpoint-ports-v1";
/// Committed pattern semantics, present only with custom patterns.
pub const PATTERN_NORMALIZATION_VERSION: &str = "literal-replacements-v1";
/// Committed terminal-reply profile, present while `terminal.answer_queries` is true.
pub const TERMINAL_QUERY_REPLIES: &str = "xterm-v1";

/// The normalization object as committed and recorded in a capture.
pub fn normalization_projection(n: &Normalization) -> Value {
    let mut m = Map::new();
    m.insert("paths".into(), n.paths.into());
    m.insert("pids".into(), n.pids.into());
    m.insert("ports".into(), n.ports.into());
    m.insert("time_bucket_ms".into(), n.time_bucket_ms.into());
    if !n.patterns.is_empty() {
        m.insert("patterns".into(), serde_json::to_value(&n.patterns).unwrap_or(Value::Null));
    }
    if n.ports {
        m.insert("port_normalization_version".into(), PORT_NORMALIZATION_VERSION.into());
    }
    if !n.patterns.is_empty() {
        m.insert("pattern_normalization_version".into(), PATTERN_NORMALIZATION_VERSION.into());
    }
    Value::Object(m)
}

fn events_projection(events: &[Event]) -> Value {
    Value::Array(
        events
            .iter()
            .map(|e| match e {
                Event::Input { at_ms, data, sensitive } => json!({
                    "type": "input",
                    "at_ms": at_ms,
                    "data": if *sensitive { redacted_input(data.len()) } else { data.clone() },
                    "sensitive": sensitive,
                }),
                Event::Resize { at_ms, columns, rows } => json!({
                    "type": "resize", "at_ms": at_ms, "columns": columns, "rows": rows,
                }),
                Event::Signal { at_ms, signal } => json!({
                    "type": "signal", "at_ms": at_ms, "signal": signal.as_str(),
                }),
            })
            .collect(),
    )
}

/// Fields shared by the scenario commitment and the comparison contract.
fn common(r: &ResolvedScenario, m: &mut Map<String, Value>) {
    let s: &Scenario = &r.scenario;
    m.insert("working_directory".into(), r.working_directory_str().into());
    m.insert("environment".into(), serde_json::to_value(&s.environment).unwrap_or(Value::Null));
    m.insert("filesystem_observation_paths".into(), json!(r.observation_path_strs()));
    // `answer_queries` is committed as `terminal_query_replies` (below), so
    // the terminal object keeps the shape older captures committed.
    let t = &s.terminal;
    m.insert("terminal".into(), json!({"columns": t.columns, "rows": t.rows, "scrollback": t.scrollback}));
    m.insert("events".into(), events_projection(&s.events));
    m.insert("timeout_ms".into(), s.timeout_ms.into());
    m.insert("idle_timeout_ms".into(), s.idle_timeout_ms.into());
    m.insert("settle_ms".into(), s.settle_ms.into());
    if s.finalization_ms != 0 {
        m.insert("finalization_ms".into(), s.finalization_ms.into());
    }
    m.insert("limits".into(), serde_json::to_value(s.limits).unwrap_or(Value::Null));
    m.insert("normalization".into(), normalization_projection(&s.normalization));
    // Replies change what the program reads, so they are part of the
    // scenario and the contract; without them both keep their older form.
    if t.answer_queries {
        m.insert("terminal_query_replies".into(), TERMINAL_QUERY_REPLIES.into());
    }
}

/// `manifest.scenario`: the resolved scenario with defaults applied, secrets
/// redacted, and the executable's path and digest.
pub fn scenario_commitment(r: &ResolvedScenario) -> Value {
    let mut m = Map::new();
    m.insert("executable".into(), r.executable_str().into());
    m.insert("arguments".into(), json!(r.scenario.arguments));
    common(r, &mut m);
    m.insert("executable_sha256".into(), r.executable_sha256.clone().into());
    Value::Object(m)
}

/// `manifest.comparison_contract`: what two captures must share to be
/// compared. The executable and its arguments may differ.
pub fn comparison_contract(r: &ResolvedScenario) -> Value {
    let mut m = Map::new();
    common(r, &mut m);
    m.insert("rendered_line_format".into(), RENDERED_LINE_FORMAT.into());
    Value::Object(m)
}
