//! The live-session tools' arguments: their schemas (derived from the
//! structs below), and their checks, which report every broken rule with its
//! argument path at once. An event's own rules (input bounds, sensitive
//! input, wait conditions, sizes) are the scenario validator's: the argument
//! is checked as the one event of a scenario with the session's timeout and
//! terminal, so a call that passes is an event the built scenario can hold.

use rea_engine::evidence::WaitFor;
use rea_engine::path::{Issue, join_key};
use rea_engine::scenario::{Event, Scenario, parse_scenario};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::StopMode;
use crate::errors::ArgumentsError;

/// `start_session` arguments.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "start_session arguments")]
#[allow(dead_code, reason = "states the schema and the argument names")]
pub(crate) struct StartArgs {
    /// The scenario to run, exactly as `rea capture-process` takes it, without events: the session's inputs and resizes are your calls. Its timeout_ms and idle_timeout_ms bound the whole session as they bound a capture, so set them to cover your exploration.
    #[schemars(with = "Scenario")]
    scenario: Value,
}

/// `send_input` arguments.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "send_input arguments")]
#[allow(dead_code, reason = "states the schema and the argument names")]
pub(crate) struct InputArgs {
    /// The session_id start_session returned.
    #[schemars(length(min = 1))]
    session_id: String,
    /// The text to type, as UTF-8 bytes (at most 4096; "\r" is Enter, "\u0003" is Ctrl-C).
    data: String,
    /// true for a secret (a password): recorded only as `<redacted-input:N-bytes>`, its echo replaced by that marker in every reply and record; at least 4 bytes besides a line terminator. Absent: secret if the terminal's echo was off when it was typed and the program never showed it; false: not secret.
    #[serde(default)]
    sensitive: Option<bool>,
}

/// `resize` arguments.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "resize arguments")]
#[allow(dead_code, reason = "states the schema and the argument names")]
pub(crate) struct ResizeArgs {
    /// The session_id start_session returned.
    #[schemars(length(min = 1))]
    session_id: String,
    /// New width in cells.
    #[schemars(range(min = 1, max = 1000))]
    columns: u16,
    /// New height in cells.
    #[schemars(range(min = 1, max = 1000))]
    rows: u16,
}

/// `wait_for` arguments.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "wait_for arguments")]
#[allow(dead_code, reason = "states the schema and the argument names")]
pub(crate) struct WaitArgs {
    /// The session_id start_session returned.
    #[schemars(length(min = 1))]
    session_id: String,
    /// A scenario's wait_for object: one condition (screen_contains, screen_matches, output_contains, output_matches on the output since your last input, or quiet_ms) and timeout_ms, the most milliseconds to wait. The wait you use before an input becomes that input's wait_for in the built scenario.
    wait_for: WaitFor,
}

/// `read_screen` arguments.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "read_screen arguments")]
#[allow(dead_code, reason = "states the schema and the argument names")]
pub(crate) struct ScreenArgs {
    /// The session_id start_session returned.
    #[schemars(length(min = 1))]
    session_id: String,
}

/// `stop_session` arguments.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "stop_session arguments")]
#[allow(dead_code, reason = "states the schema and the argument names")]
pub(crate) struct StopArgs {
    /// The session_id start_session returned.
    #[schemars(length(min = 1))]
    session_id: String,
    /// Wait for the program to exit by itself (after you typed its quit command), up to the scenario's timeout_ms and idle_timeout_ms; false (the default): end it now, as a deadline would.
    #[serde(default)]
    await_exit: bool,
}

/// A tool's input schema, from its arguments struct.
pub(crate) fn schema<T: schemars::JsonSchema>() -> Value {
    schemars::schema_for!(T).to_value()
}

fn issue(path: &str, rule: impl Into<String>) -> Issue {
    Issue { path: path.to_owned(), rule: rule.into() }
}

/// The arguments object, with an issue for each key `T` does not accept.
fn object<'de, T: Deserialize<'de>>(arguments: &Value, issues: &mut Vec<Issue>) -> Map<String, Value> {
    let Value::Object(map) = arguments else {
        issues.push(issue("", "must be an object"));
        return Map::new();
    };
    let allowed = rea_engine::keys::keys::<T>();
    for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
        issues.push(issue(&join_key("", key), format!("is not an argument; allowed: {}", allowed.join(", "))));
    }
    map.clone()
}

/// A required non-empty string.
fn text(map: &Map<String, Value>, key: &str, issues: &mut Vec<Issue>) -> Option<String> {
    match map.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        None => {
            issues.push(issue(key, "is required"));
            None
        }
        Some(_) => {
            issues.push(issue(key, "must be a non-empty string"));
            None
        }
    }
}

fn done<T>(tool: &'static str, issues: Vec<Issue>, value: Option<T>) -> Result<T, ArgumentsError> {
    match value {
        Some(v) if issues.is_empty() => Ok(v),
        _ => Err(ArgumentsError { tool, issues }),
    }
}

/// `start_session`: the scenario value (validated by the engine as a
/// scenario, with its own error) .
pub(crate) fn start(tool: &'static str, arguments: &Value) -> Result<Value, ArgumentsError> {
    let mut issues = Vec::new();
    let map = object::<StartArgs>(arguments, &mut issues);
    let scenario = match map.get("scenario") {
        Some(v @ Value::Object(_)) => Some(v.clone()),
        None => {
            issues.push(issue("scenario", "is required: the scenario object, without events"));
            None
        }
        Some(_) => {
            issues.push(issue("scenario", "must be an object (a scenario, without events)"));
            None
        }
    };
    if let Some(Value::Object(s)) = &scenario
        && s.get("events").and_then(Value::as_array).is_some_and(|e| !e.is_empty())
    {
        issues.push(issue(
            "scenario.events",
            "must be empty or absent: a session's inputs and resizes are send_input and resize calls",
        ));
    }
    done(tool, issues, scenario)
}

/// The session id of any of the tools.
pub(crate) fn session_id(tool: &'static str, arguments: &Value) -> Result<String, ArgumentsError> {
    let mut issues = Vec::new();
    let map = match arguments {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    let id = text(&map, "session_id", &mut issues);
    done(tool, issues, id)
}

/// Checks `event` as the one event of a scenario with `session`'s timeout
/// and terminal; issues are reported at the argument paths (the event's
/// path prefix removed).
fn as_event(session: &Scenario, event: Value, issues: &mut Vec<Issue>) -> Option<Event> {
    let scenario = json!({
        "executable": "session",
        "timeout_ms": session.timeout_ms,
        "terminal": session.terminal,
        "events": [event],
    });
    match parse_scenario(scenario) {
        Ok(mut s) => s.events.pop(),
        Err(e) => {
            for mut found in e.issues {
                found.path = found.path.strip_prefix("events[0].").unwrap_or("").to_owned();
                issues.push(found);
            }
            None
        }
    }
}

/// `send_input`: the data and whether it is sensitive (absent: decided by
/// the echo, see [`super::Live::send_input`]).
pub(crate) fn input(
    tool: &'static str,
    session: &Scenario,
    arguments: &Value,
) -> Result<(String, Option<bool>), ArgumentsError> {
    let mut issues = Vec::new();
    let map = object::<InputArgs>(arguments, &mut issues);
    let mut event = json!({"type": "input", "at_ms": 0});
    for key in ["data", "sensitive"] {
        if let Some(v) = map.get(key) {
            event[key] = v.clone();
        }
    }
    let given = map.get("sensitive").and_then(Value::as_bool);
    let parsed = as_event(session, event, &mut issues).and_then(|e| match e {
        Event::Input { data, .. } => Some((data, given)),
        _ => None,
    });
    done(tool, issues, parsed)
}

/// `resize`: the new size.
pub(crate) fn resize(tool: &'static str, session: &Scenario, arguments: &Value) -> Result<(u16, u16), ArgumentsError> {
    let mut issues = Vec::new();
    let map = object::<ResizeArgs>(arguments, &mut issues);
    let mut event = json!({"type": "resize", "at_ms": 0});
    for key in ["columns", "rows"] {
        if let Some(v) = map.get(key) {
            event[key] = v.clone();
        }
    }
    let parsed = as_event(session, event, &mut issues).and_then(|e| match e {
        Event::Resize { columns, rows, .. } => Some((columns, rows)),
        _ => None,
    });
    done(tool, issues, parsed)
}

/// `wait_for`: the condition and its timeout.
pub(crate) fn wait(tool: &'static str, session: &Scenario, arguments: &Value) -> Result<WaitFor, ArgumentsError> {
    let mut issues = Vec::new();
    let map = object::<WaitArgs>(arguments, &mut issues);
    let parsed = match map.get("wait_for") {
        None => {
            issues.push(issue(
                "wait_for",
                "is required: a scenario's wait_for object, e.g. {\"screen_contains\": \">>> \", \"timeout_ms\": 5000}",
            ));
            None
        }
        Some(w) => {
            let event = json!({"type": "input", "wait_for": w, "data": ""});
            as_event(session, event, &mut issues).and_then(|e| e.wait_for().cloned())
        }
    };
    done(tool, issues, parsed)
}

/// `read_screen`: nothing but the session id.
pub(crate) fn screen(tool: &'static str, arguments: &Value) -> Result<(), ArgumentsError> {
    let mut issues = Vec::new();
    object::<ScreenArgs>(arguments, &mut issues);
    done(tool, issues, Some(()))
}

/// `stop_session`: how to end the program.
pub(crate) fn stop(tool: &'static str, arguments: &Value) -> Result<StopMode, ArgumentsError> {
    let mut issues = Vec::new();
    let map = object::<StopArgs>(arguments, &mut issues);
    let mode = match map.get("await_exit") {
        None | Some(Value::Bool(false)) => Some(StopMode::End),
        Some(Value::Bool(true)) => Some(StopMode::AwaitExit),
        Some(_) => {
            issues.push(issue("await_exit", "must be a boolean"));
            None
        }
    };
    done(tool, issues, mode)
}

#[cfg(test)]
#[path = "args_tests.rs"]
mod tests;
