//! A fake [`Live`] for the table's and the tools' tests: it keeps what it
//! was sent, answers waits from a script, and stops with a capture of the
//! engine's fake world.

use std::sync::{Arc, Mutex};

use rea_engine::BuildInfo;
use rea_engine::UserError;
use rea_engine::capture::progress::NullProgress;
use rea_engine::capture::{Cancellation, CaptureRequest, capture};
use rea_engine::evidence::WaitFor;
use rea_engine::host::ExitStatus;
use rea_engine::scenario::{Event, Scenario};
use rea_engine::testing::fakes::FakeWorld;

use super::{Live, Screen, StopMode, Stopped, Waited};

pub(crate) const BUILD: BuildInfo = BuildInfo { version: "0.0.0-test", revision: None, target: "test" };

/// What the fake saw, shared with the test.
#[derive(Default)]
pub(crate) struct Log {
    pub(crate) calls: Vec<String>,
    pub(crate) stopped: Option<StopMode>,
}

pub(crate) struct FakeLive {
    pub(crate) scenario: Scenario,
    pub(crate) log: Arc<Mutex<Log>>,
    pub(crate) events: Vec<Event>,
    pub(crate) output: String,
}

fn screen(text: &str) -> Screen {
    Screen {
        columns: 80,
        rows: 2,
        lines: vec![text.to_owned(), String::new()],
        cursor_row: 0,
        cursor_column: text.len() as u16,
    }
}

impl Live for FakeLive {
    fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    fn send_input(&mut self, data: &str, sensitive: Option<bool>) -> Result<(), Box<dyn UserError + Send>> {
        self.log.lock().unwrap().calls.push(format!("input {} bytes", data.len()));
        let sensitive = sensitive == Some(true);
        self.output = if sensitive { rea_engine::secrets::redacted_input(data.len()) } else { data.to_owned() };
        self.events.push(Event::Input { at_ms: Some(0), wait_for: None, data: data.to_owned(), sensitive });
        Ok(())
    }
    fn resize(&mut self, columns: u16, rows: u16) -> Result<(), Box<dyn UserError + Send>> {
        self.log.lock().unwrap().calls.push(format!("resize {columns}x{rows}"));
        Ok(())
    }
    fn wait_for(&mut self, wait: &WaitFor) -> Result<Waited, Box<dyn UserError + Send>> {
        self.log.lock().unwrap().calls.push(format!("wait {}", wait.condition.key()));
        Ok(Waited { satisfied: true, screen: screen(&self.output), output: self.output.clone() })
    }
    fn read_screen(&mut self) -> Result<Screen, Box<dyn UserError + Send>> {
        Ok(screen(&self.output))
    }
    fn stop(self: Box<Self>, mode: StopMode) -> Result<Stopped, super::StopError> {
        self.log.lock().unwrap().stopped = Some(mode);
        let world = FakeWorld::new();
        world.exit(ExitStatus::Code(0));
        let dir = tempfile::tempdir().expect("a temporary directory");
        let resolved =
            rea_engine::testing::resolve(dir.path(), serde_json::json!({"executable": "sh", "settle_ms": 0}));
        let request = CaptureRequest::new(resolved, Vec::new(), BUILD);
        let evidence = capture(&world.host(), request, Cancellation::none(), Arc::new(NullProgress))
            .map_err(super::StopError::Capture)?;
        let mut scenario = self.scenario;
        scenario.events = self.events;
        Ok(Stopped { scenario, evidence })
    }
}

/// A fake live session of `scenario` logging to `log`.
pub(crate) fn live(scenario: Scenario, log: &Arc<Mutex<Log>>) -> Box<dyn Live> {
    Box::new(FakeLive { scenario, log: Arc::clone(log), events: Vec::new(), output: String::new() })
}

/// A starter of fake live sessions, all logging to `log`.
pub(crate) fn starter(log: Arc<Mutex<Log>>) -> Box<super::tools::Starter> {
    Box::new(move |_session, request: CaptureRequest, _cancel| {
        log.lock().unwrap().calls.push("start".into());
        let scenario = request.resolved.scenario.clone();
        Ok(live(scenario, &log))
    })
}
