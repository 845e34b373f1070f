//! The engine's live session ([`rea_engine::live::LiveSession`]) behind
//! [`super::Live`].
//!
//! Besides translating, it keeps the texts of the inputs declared
//! sensitive, in memory only: replies are redacted of them once more (the
//! engine fixes a capture's secrets when it starts, so a program that shows
//! a secret typed later would show it), and a capture whose record holds
//! one is refused rather than kept or returned.

use rea_engine::capture::{Cancellation, CaptureRequest};
use rea_engine::evidence::WaitFor;
use rea_engine::live::{LiveError, LiveOptions, LiveSession, ScreenView, Sensitivity};
use rea_engine::scenario::Scenario;
use rea_engine::secrets::{Secrets, secret_part};
use rea_engine::{Category, UserError};
use serde_json::{Value, json};

use super::{Failure, Live, Screen, StopError, StopMode, Stopped, Waited};
use crate::capture::Internal;
use crate::session::Session;

/// Starts a live session of `request`.
pub(crate) fn start(
    session: &Session,
    request: CaptureRequest,
    cancellation: Cancellation,
) -> Result<Box<dyn Live>, StopError> {
    let scenario = request.resolved.scenario.clone();
    let options = LiveOptions { cancellation, ..LiveOptions::default() };
    let live = LiveSession::start(&session.host, request, options).map_err(stop_error)?;
    Ok(Box::new(EngineLive { live: Some(live), scenario, secrets: Vec::new() }))
}

/// One engine session and the secrets typed into it.
struct EngineLive {
    live: Option<LiveSession>,
    scenario: Scenario,
    /// Whole texts of the inputs declared sensitive.
    secrets: Vec<String>,
}

impl EngineLive {
    fn live(&self) -> Result<&LiveSession, Failure> {
        self.live.as_ref().ok_or_else(|| Box::new(Internal("the live session was already stopped".into())) as Failure)
    }

    fn redact(&self, text: &str) -> String {
        if self.secrets.is_empty() {
            return text.to_owned();
        }
        Secrets::of_inputs(self.secrets.iter().map(String::as_str)).redactor().whole(text)
    }

    fn screen(&self, view: ScreenView) -> Screen {
        Screen {
            columns: view.columns,
            rows: view.rows,
            lines: view.lines.iter().map(|l| self.redact(l)).collect(),
            cursor_row: view.cursor_row,
            cursor_column: view.cursor_column,
        }
    }

    /// Whether the text holds a declared secret.
    fn holds_secret(&self, text: &str) -> bool {
        self.secrets.iter().map(|s| secret_part(s)).any(|s| !s.is_empty() && text.contains(s))
    }
}

impl Live for EngineLive {
    fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    fn send_input(&mut self, data: &str, sensitive: Option<bool>) -> Result<(), Failure> {
        let sensitivity = match sensitive {
            Some(true) => Sensitivity::Sensitive,
            Some(false) => Sensitivity::Plain,
            None => Sensitivity::IfUnshown,
        };
        if sensitivity == Sensitivity::Sensitive {
            self.secrets.push(data.to_owned());
        }
        self.live()?.send_input(data, sensitivity).map_err(failure)
    }

    fn resize(&mut self, columns: u16, rows: u16) -> Result<(), Failure> {
        self.live()?.resize(columns, rows).map_err(failure)
    }

    fn wait_for(&mut self, wait: &WaitFor) -> Result<Waited, Failure> {
        let result = self.live()?.wait_for(wait.clone()).map_err(failure)?;
        Ok(Waited {
            satisfied: result.satisfied,
            screen: self.screen(result.screen),
            output: self.redact(&result.output),
        })
    }

    fn read_screen(&mut self) -> Result<Screen, Failure> {
        let view = self.live()?.screen().map_err(failure)?;
        Ok(self.screen(view))
    }

    fn stop(mut self: Box<Self>, mode: StopMode) -> Result<Stopped, StopError> {
        let Some(live) = self.live.take() else {
            return Err(StopError::Other(Box::new(Internal("the live session was already stopped".into()))));
        };
        let mode = match mode {
            StopMode::End => rea_engine::live::StopMode::End,
            StopMode::AwaitExit => rea_engine::live::StopMode::AwaitExit,
        };
        let end = live.stop(mode).map_err(stop_error)?;
        let evidence = end.capture.into_evidence().map_err(|e| {
            StopError::Other(Box::new(Internal(format!("the session's capture could not be serialized: {e}"))))
        })?;
        // Every byte rea writes is free of secrets: a record that holds one
        // (the program showed it) is dropped, not kept.
        let text = serde_json::to_string(&evidence).unwrap_or_default();
        if self.holds_secret(&text) {
            return Err(StopError::Other(Box::new(SecretShown)));
        }
        Ok(Stopped { scenario: end.scenario, evidence })
    }
}

fn failure(e: LiveError) -> Failure {
    match e {
        LiveError::Capture(e) => Box::new(*e),
        other => Box::new(LiveCallError(other)),
    }
}

fn stop_error(e: LiveError) -> StopError {
    match e {
        LiveError::Capture(e) => StopError::Capture(*e),
        other => StopError::Other(Box::new(LiveCallError(other))),
    }
}

/// A call the engine's session refused.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct LiveCallError(LiveError);

impl UserError for LiveCallError {
    fn category(&self) -> Category {
        match self.0 {
            LiveError::Ended => Category::ExecutionFailure,
            _ => Category::InvalidInput,
        }
    }
    fn code(&self) -> &'static str {
        match self.0 {
            LiveError::Ended => "session_ended",
            _ => "invalid_arguments",
        }
    }
    fn remediation(&self) -> String {
        match self.0 {
            LiveError::Ended => "The program has exited or a deadline of the scenario ended it: call stop_session to get the session's scenario and capture.".into(),
            _ => "Correct the argument as the message says, then call again; nothing was sent.".into(),
        }
    }
}

/// The session's capture holds a text typed as sensitive.
#[derive(Debug, thiserror::Error)]
#[error(
    "the session's program showed a sensitive input's text, so its capture would hold the secret; the capture was discarded and nothing was recorded"
)]
struct SecretShown;

impl UserError for SecretShown {
    fn category(&self) -> Category {
        Category::ExecutionFailure
    }
    fn code(&self) -> &'static str {
        "secret_in_record"
    }
    fn remediation(&self) -> String {
        "Type as sensitive only what the program does not show (a password at a prompt with the echo off); for text the program echoes, write a scenario whose input is sensitive and use capture_process_scenario, which redacts the echo.".into()
    }
    fn details(&self) -> Option<Value> {
        Some(json!({ "operation": "stop_session" }))
    }
}
