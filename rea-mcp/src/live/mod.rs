//! Live sessions (`start_session`, `send_input`, `resize`, `wait_for`,
//! `read_screen`, `stop_session`): a capture driven by tool calls instead of
//! a timeline, which ends in the scenario built from it and its capture.
//!
//! The capture itself is the engine's (the same PTY, keeper, journal,
//! renderer, secrets, budgets and deadlines as `capture_process_scenario`);
//! this module holds only what MCP adds: the table of a server's sessions
//! ([`table`]), the tools' arguments and schemas ([`args`]) and the calls
//! ([`tools`]). [`Live`] is the seam to the engine's live session, so that
//! the table and the tools are tested without timing on a fake.

pub(crate) mod args;
pub(crate) mod engine;
#[cfg(test)]
pub(crate) mod fake;
pub(crate) mod table;
pub(crate) mod tools;

use rea_engine::evidence::WaitFor;
use rea_engine::scenario::Scenario;
use serde::Serialize;

/// The screen as a reply carries it (0-based cursor).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct Screen {
    /// Width in cells.
    pub(crate) columns: u16,
    /// Height in cells.
    pub(crate) rows: u16,
    /// The visible rows, top to bottom, trailing spaces removed.
    pub(crate) lines: Vec<String>,
    /// The cursor's row (0 is the top).
    pub(crate) cursor_row: u16,
    /// The cursor's column (0 is the left).
    pub(crate) cursor_column: u16,
}

/// What a `wait_for` ended with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Waited {
    /// The condition held before the timeout.
    pub(crate) satisfied: bool,
    /// The screen when the wait ended.
    pub(crate) screen: Screen,
    /// The terminal output since the last input (sensitive input redacted).
    pub(crate) output: String,
}

/// What stopping a session gives.
pub(crate) struct Stopped {
    /// The scenario built from the session.
    pub(crate) scenario: Scenario,
    /// The session's capture.
    pub(crate) evidence: rea_engine::evidence::Evidence,
}

/// How `stop_session` ends the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopMode {
    /// End it now, as a deadline would (with verified cleanup).
    End,
    /// Wait for it to exit by itself, up to the scenario's deadlines.
    AwaitExit,
}

/// Why a call on a session failed: a user error, as its document says.
pub(crate) type Failure = Box<dyn rea_engine::UserError + Send>;

/// Why a session could not start or stop: a capture error (a cleanup that
/// could not be verified stays with the server for retries), or another.
#[derive(Debug)]
pub(crate) enum StopError {
    Capture(rea_engine::capture::CaptureError),
    Other(Failure),
}

/// One live session of the engine, as the tools drive it. Every method
/// blocks (call it from a blocking thread); errors are the engine's user
/// errors, projected to error documents by the caller.
pub(crate) trait Live: Send {
    /// The scenario the session was started with.
    fn scenario(&self) -> &Scenario;
    /// Writes `data` to the terminal: redacted everywhere when `sensitive`
    /// is true; when it is absent, redacted if the terminal's echo was off
    /// and the program never showed it (a password prompt).
    fn send_input(&mut self, data: &str, sensitive: Option<bool>) -> Result<(), Failure>;
    /// Changes the terminal's size.
    fn resize(&mut self, columns: u16, rows: u16) -> Result<(), Failure>;
    /// Waits until `wait` holds or its timeout passes.
    fn wait_for(&mut self, wait: &WaitFor) -> Result<Waited, Failure>;
    /// The current screen, without waiting.
    fn read_screen(&mut self) -> Result<Screen, Failure>;
    /// Ends the session as `mode` says and seals its capture.
    fn stop(self: Box<Self>, mode: StopMode) -> Result<Stopped, StopError>;
}

/// One listing entry.
fn entry(name: &str, title: &str, description: &str, schema: serde_json::Value, read_only: bool) -> serde_json::Value {
    let effects: &[&str] = match (name, read_only) {
        (tools::START, _) => &["launches_process", "writes_filesystem", "accesses_network", "mutates_session"],
        (_, true) => &["reads_session"],
        (_, false) => &["mutates_session"],
    };
    serde_json::json!({
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": schema,
        "annotations": {
            "title": title,
            "readOnlyHint": read_only,
            "destructiveHint": name == tools::START || name == tools::STOP,
            "idempotentHint": read_only,
            "openWorldHint": name == tools::START
        },
        "_meta": { "rea/effects": effects }
    })
}

/// The live-session tools' listing entries, in [`tools::TOOLS`] order.
pub(crate) fn listing() -> Vec<serde_json::Value> {
    use args::{InputArgs, ResizeArgs, ScreenArgs, StartArgs, StopArgs, WaitArgs, schema};
    let max = table::MAX_LIVE_SESSIONS;
    vec![
        entry(
            tools::START,
            "Start a live session",
            &format!(
                "Start the scenario's command under a pseudo-terminal (with your permissions) as capture_process_scenario would, but driven by your calls instead of events, and return {{session_id, screen}}. Then: wait_for a prompt, send_input, read_screen, resize, and finally stop_session, which returns the scenario built from the session and its capture. At most {max} sessions run at once per server; all end with the server."
            ),
            schema::<StartArgs>(),
            false,
        ),
        entry(
            tools::INPUT,
            "Type into a live session",
            "Write text to the session's terminal as keystrokes, and return {session_id, bytes}. Call wait_for first for what the program shows before it reads (its prompt): that wait becomes the input's wait_for in the built scenario, so the replay types only once the prompt is there. Mark secrets sensitive: their text then appears in no reply or record.",
            schema::<InputArgs>(),
            false,
        ),
        entry(
            tools::RESIZE,
            "Resize a live session's terminal",
            "Change the session's terminal size (the program gets SIGWINCH), and return {session_id, columns, rows}; recorded as a resize event of the built scenario.",
            schema::<ResizeArgs>(),
            false,
        ),
        entry(
            tools::WAIT,
            "Wait for a condition in a live session",
            "Wait until a scenario wait_for condition holds or its timeout_ms passes, and return {satisfied, screen, output}: whether it held, the screen (lines, 0-based cursor_row and cursor_column, size) and the terminal output since your last input. output_contains and output_matches read that output; screen_contains and screen_matches the visible screen. The last wait before an input is recorded as that input's wait_for.",
            schema::<WaitArgs>(),
            true,
        ),
        entry(
            tools::SCREEN,
            "Read a live session's screen",
            "Return {screen}: the session's screen now (lines, 0-based cursor_row and cursor_column, columns, rows), without waiting. Use wait_for to wait for something to appear.",
            schema::<ScreenArgs>(),
            true,
        ),
        entry(
            tools::STOP,
            "Stop a live session and get its scenario",
            "End the session: with await_exit_ms, wait that long for the program to exit by itself (after you typed its quit command), else end it as a deadline would, verifying that nothing it started remains. Records the session's capture in this MCP session and returns {scenario, result, evidence_id, evidence_uri, session_id, redacted_inputs}: scenario is the scenario built from the session (each input with the wait you used before it), replayable with capture_process_scenario and comparable with the capture by compare_process_captures; redacted_inputs lists the paths of sensitive inputs whose text was replaced by its marker: put your text back there before replaying.",
            schema::<StopArgs>(),
            false,
        ),
    ]
}
