//! Rendered terminal states: an emulator (avt, chosen by measurement in
//! `docs/terminal-emulator.md`) parses every admitted chunk and every resize
//! on its own thread, and a state is produced after each one.
//!
//! The run loop only hands over what it already admitted, and never waits
//! for the emulator: the queue needs no cap of its own because everything
//! that can enter it is capped already. Admitted text is at most
//! `limits.output_bytes` (≤ 10 MB; 1 MB by default) for the whole capture,
//! and resizes and event marks are at most the scenario's events, so the
//! queue never grows with the program's output: a program printing 256 MiB
//! at the default limits renders about 1 MB. Neither coalescing (every
//! admitted chunk needs its own state) nor back-pressure (it would slow the
//! PTY drain to the emulator's pace) is needed.

mod cells;
mod retain;
mod screen;

#[cfg(test)]
mod capture_tests;
#[cfg(test)]
mod differential_tests;
#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod oracle;
#[cfg(test)]
mod tests;

use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::Instant;

pub use screen::{EMULATOR, EMULATOR_NAME, EMULATOR_VERSION};

use self::retain::RenderedLog;
use self::screen::Screen;
use super::normalize::Normalizer;
use crate::evidence::{RenderedFrame, RenderedTerminalTruncation};

/// What the emulator is given, in production order.
#[derive(Debug)]
enum Input {
    /// An admitted chunk's original text.
    Chunk { text: String, at: Instant, at_ms: u64 },
    /// A dispatched resize.
    Resize { columns: u16, rows: u16, at: Instant, at_ms: u64 },
    /// A scripted event was dispatched: the current screen is its boundary.
    Pin,
}

/// The size and limits a renderer starts with.
#[derive(Debug, Clone)]
pub struct RenderSettings {
    /// Initial width in cells.
    pub columns: u16,
    /// Initial height in cells.
    pub rows: u16,
    /// Scrollback lines.
    pub scrollback: u16,
    /// `limits.output_bytes`, the rendered budget.
    pub budget_bytes: u64,
    /// `limits.frames`, the rendered frame limit.
    pub frame_limit: u64,
}

/// How the renderer ended (the progress line's `terminal_renderer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RendererState {
    /// Its thread finished and was joined.
    Cleaned,
    /// Its thread panicked; its states are lost.
    Failed,
}

impl RendererState {
    /// The progress-line value.
    pub fn as_str(self) -> &'static str {
        match self {
            RendererState::Cleaned => "cleaned",
            RendererState::Failed => "failed",
        }
    }
}

/// The rendered states of a capture and their accounting.
#[derive(Debug)]
pub struct Rendered {
    /// Kept states with the instant each was recorded.
    pub frames: Vec<(Instant, RenderedFrame)>,
    /// `truncation_details.rendered_terminal`.
    pub account: RenderedTerminalTruncation,
    /// How the renderer ended.
    pub state: RendererState,
}

struct Worker {
    screen: Screen,
    log: RenderedLog,
}

impl Worker {
    fn new(settings: &RenderSettings, normalizer: Normalizer) -> Worker {
        let bound = settings.budget_bytes;
        Worker {
            screen: Screen::new(settings.columns, settings.rows, settings.scrollback, normalizer, bound),
            log: RenderedLog::new(settings.budget_bytes, settings.frame_limit),
        }
    }

    fn apply(&mut self, input: Input) {
        match input {
            Input::Chunk { text, at, at_ms } => {
                self.screen.feed(&text);
                self.log.offer(at, self.screen.snapshot(at_ms), false);
            }
            Input::Resize { columns, rows, at, at_ms } => {
                self.screen.resize(columns, rows);
                self.log.offer(at, self.screen.snapshot(at_ms), true);
            }
            Input::Pin => self.log.pin_latest(),
        }
    }

    fn run(mut self, inputs: Receiver<Input>) -> (Vec<(Instant, RenderedFrame)>, RenderedTerminalTruncation) {
        for input in inputs {
            self.apply(input);
        }
        self.log.finish()
    }
}

enum Mode {
    Thread {
        sender: Sender<Input>,
        handle: JoinHandle<(Vec<(Instant, RenderedFrame)>, RenderedTerminalTruncation)>,
    },
    /// Used when no thread could be started (and by tests): same work, in line.
    Inline(Box<Worker>),
}

/// The running renderer. Dropping it closes the queue and joins the thread.
pub struct Renderer {
    mode: Option<Mode>,
    settings: RenderSettings,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer").field("settings", &self.settings).finish_non_exhaustive()
    }
}

impl Renderer {
    /// Starts the emulator thread; if no thread can be started the same work
    /// runs in line on the caller's thread.
    pub fn start(settings: RenderSettings, normalizer: Normalizer) -> Renderer {
        let worker = Worker::new(&settings, normalizer.clone());
        let (sender, receiver) = channel();
        let mode = match std::thread::Builder::new().name("rea-renderer".into()).spawn(move || worker.run(receiver)) {
            Ok(handle) => Mode::Thread { sender, handle },
            Err(_) => Mode::Inline(Box::new(Worker::new(&settings, normalizer))),
        };
        Renderer { mode: Some(mode), settings }
    }

    /// A renderer doing its work on the caller's thread.
    #[cfg(test)]
    pub(crate) fn inline(settings: RenderSettings, normalizer: Normalizer) -> Renderer {
        let worker = Worker::new(&settings, normalizer);
        Renderer { mode: Some(Mode::Inline(Box::new(worker))), settings }
    }

    fn send(&mut self, input: Input) {
        match &mut self.mode {
            // A send fails only when the thread is gone (it panicked); the
            // join in `finish` reports that.
            Some(Mode::Thread { sender, .. }) => drop(sender.send(input)),
            Some(Mode::Inline(worker)) => worker.apply(input),
            None => {}
        }
    }

    /// An admitted chunk's original text, recorded at `at` (`at_ms` bucketed).
    pub fn chunk(&mut self, text: &str, at: Instant, at_ms: u64) {
        self.send(Input::Chunk { text: text.to_owned(), at, at_ms });
    }

    /// A dispatched resize.
    pub fn resize(&mut self, columns: u16, rows: u16, at: Instant, at_ms: u64) {
        self.send(Input::Resize { columns, rows, at, at_ms });
    }

    /// Marks the current screen as a scripted event's boundary.
    pub fn pin(&mut self) {
        self.send(Input::Pin);
    }

    /// Pins the final screen, stops the thread and returns the states.
    pub fn finish(mut self) -> Rendered {
        let (result, state) = match self.mode.take() {
            Some(Mode::Thread { sender, handle }) => {
                drop(sender);
                match handle.join() {
                    Ok(r) => (r, RendererState::Cleaned),
                    Err(_) => (self.failed(), RendererState::Failed),
                }
            }
            Some(Mode::Inline(worker)) => (worker.log.finish(), RendererState::Cleaned),
            None => (self.failed(), RendererState::Failed),
        };
        Rendered { frames: result.0, account: result.1, state }
    }

    fn failed(&self) -> (Vec<(Instant, RenderedFrame)>, RenderedTerminalTruncation) {
        let mut log = RenderedLog::new(self.settings.budget_bytes, self.settings.frame_limit).finish();
        log.1.truncated = true;
        log
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        if let Some(Mode::Thread { sender, handle }) = self.mode.take() {
            drop(sender);
            let _ = handle.join();
        }
    }
}
