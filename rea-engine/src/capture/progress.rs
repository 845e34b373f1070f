//! Live progress: `{"rea_progress": {...}}` lines, rate limited.
//!
//! `sequence` starts at 1 and counts emitted lines. An intermediate line is
//! emitted only when at least 100 ms have passed since the previous emitted
//! line; the terminal line is always emitted. `completed` (frames + samples +
//! interactions) never decreases. A slow receiver never stalls the capture:
//! the sink receives lines through a one-slot mailbox in which a newer
//! intermediate status replaces an unwritten older one.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::evidence::ExitReason;

crate::evidence::vocabulary! {
    /// Lifecycle stage reported in `phase`.
    Phase {
        /// Resolving, snapshotting, launching.
        Prepare = "prepare",
        /// The command runs.
        Running = "running",
        /// Watching the process group settle; the after snapshot.
        Settling = "settling",
        /// Releasing owned resources.
        Cleanup = "cleanup",
    }
}

/// One progress line's payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProgressLine {
    /// Lifecycle stage.
    pub phase: Phase,
    /// Frames + samples + interactions collected.
    pub completed: u64,
    /// Always null: rea does not invent a total.
    pub total: Option<u64>,
    /// `elapsed_ms=... frames=... samples=... interactions=...` (+ final states).
    pub message: String,
    /// True on the last line only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub terminal: bool,
    /// 1-based count of emitted lines.
    pub sequence: u64,
}

impl ProgressLine {
    /// The JSON text of the line (without newline), or why it could not be
    /// written.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        #[derive(Serialize)]
        struct Wrapper<'a> {
            rea_progress: &'a ProgressLine,
        }
        serde_json::to_string(&Wrapper { rea_progress: self })
    }
}

/// Where progress lines go (the CLI writes them to stderr).
pub trait ProgressSink: Send + Sync {
    /// Writes one line. May block; it is called from a dedicated thread.
    fn write(&self, line: &ProgressLine);
}

/// A sink that drops everything.
#[derive(Debug, Default)]
pub struct NullProgress;

impl ProgressSink for NullProgress {
    fn write(&self, _line: &ProgressLine) {}
}

crate::evidence::vocabulary! {
    /// How the capture ended, as the final progress line says.
    Disposition {
        /// The command exited on its own.
        Exited = "exited",
        /// `timeout_ms` passed.
        Timeout = "timeout",
        /// `idle_timeout_ms` passed without output.
        IdleTimeout = "idle_timeout",
        /// The capture was cancelled.
        Cancelled = "cancelled",
        /// No record could be produced.
        Failed = "failed",
    }
}

impl From<ExitReason> for Disposition {
    fn from(reason: ExitReason) -> Disposition {
        match reason {
            ExitReason::Exited => Disposition::Exited,
            ExitReason::Timeout => Disposition::Timeout,
            ExitReason::IdleTimeout => Disposition::IdleTimeout,
        }
    }
}

crate::evidence::vocabulary! {
    /// What became of a resource the run started (the owned process group,
    /// the terminal renderer), as the final progress line says.
    Released {
        /// Released: the group proven gone, the renderer's thread joined.
        Cleaned = "cleaned",
        /// Not released (cleanup unproven, renderer panicked).
        Failed = "failed",
        /// Never started.
        NotStarted = "not_started",
    }
}

crate::evidence::vocabulary! {
    /// What became of the private temporary root, as the final progress
    /// line says.
    RootState {
        /// Removed.
        Cleaned = "cleaned",
        /// Could not be created or removed.
        Failed = "failed",
        /// Not created yet.
        NotCreated = "not_created",
    }
}

impl RootState {
    /// The state after an attempt to remove the root.
    pub fn removed(removed: bool) -> RootState {
        if removed { RootState::Cleaned } else { RootState::Failed }
    }
}

/// Counts shown in progress messages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Frames retained.
    pub frames: u64,
    /// Process samples recorded.
    pub samples: u64,
    /// Interaction events recorded.
    pub interactions: u64,
}

#[derive(Default)]
struct Mailbox {
    intermediate: Option<ProgressLine>,
    terminal: Option<ProgressLine>,
    done: bool,
}

/// Rate-limited reporter feeding a sink on its own thread.
pub struct ProgressReporter {
    started: Instant,
    last_emit: Option<Instant>,
    completed: u64,
    shared: Arc<(Mutex<Mailbox>, Condvar)>,
    writer: Option<std::thread::JoinHandle<()>>,
}

/// Minimum interval between intermediate lines.
pub const MIN_INTERVAL: Duration = Duration::from_millis(100);

impl ProgressReporter {
    /// Starts the writer thread for `sink`.
    pub fn new(sink: Arc<dyn ProgressSink>, started: Instant) -> ProgressReporter {
        let shared: Arc<(Mutex<Mailbox>, Condvar)> = Arc::default();
        let thread_shared = Arc::clone(&shared);
        let writer = std::thread::Builder::new()
            .name("rea-progress".into())
            .spawn(move || {
                let (lock, cv) = &*thread_shared;
                let mut sequence = 0;
                loop {
                    let (line, last) = {
                        let mut mb = lock.lock().unwrap_or_else(|e| e.into_inner());
                        loop {
                            if let Some(t) = mb.terminal.take() {
                                // Stale live observations are discarded before the final status.
                                mb.intermediate = None;
                                break (Some(t), true);
                            }
                            if let Some(i) = mb.intermediate.take() {
                                break (Some(i), false);
                            }
                            if mb.done {
                                break (None, true);
                            }
                            mb = cv.wait(mb).unwrap_or_else(|e| e.into_inner());
                        }
                    };
                    if let Some(mut line) = line {
                        sequence += 1;
                        line.sequence = sequence;
                        sink.write(&line);
                    }
                    if last {
                        return;
                    }
                }
            })
            .ok();
        ProgressReporter { started, last_emit: None, completed: 0, shared, writer }
    }

    fn message(&self, counts: Counts) -> String {
        format!(
            "elapsed_ms={} frames={} samples={} interactions={}",
            self.started.elapsed().as_millis(),
            counts.frames,
            counts.samples,
            counts.interactions
        )
    }

    fn line(&mut self, phase: Phase, counts: Counts, suffix: &str, terminal: bool) -> ProgressLine {
        let total = counts.frames + counts.samples + counts.interactions;
        self.completed = self.completed.max(total);
        ProgressLine {
            phase,
            completed: self.completed,
            total: None,
            message: format!("{}{suffix}", self.message(counts)),
            terminal,
            // Assigned by the writer, so it counts lines actually emitted.
            sequence: 0,
        }
    }

    /// Reports an intermediate status, if the rate limit allows.
    pub fn update(&mut self, phase: Phase, counts: Counts) {
        let now = Instant::now();
        if self.last_emit.is_some_and(|t| now.duration_since(t) < MIN_INTERVAL) {
            return;
        }
        self.last_emit = Some(now);
        let line = self.line(phase, counts, "", false);
        let (lock, cv) = &*self.shared;
        lock.lock().unwrap_or_else(|e| e.into_inner()).intermediate = Some(line);
        cv.notify_one();
    }

    /// Emits the terminal line and waits until the sink wrote it.
    pub fn finish(mut self, counts: Counts, final_states: &str) {
        let line = self.line(Phase::Cleanup, counts, &format!(" {final_states}"), true);
        {
            let (lock, cv) = &*self.shared;
            let mut mb = lock.lock().unwrap_or_else(|e| e.into_inner());
            mb.terminal = Some(line);
            mb.done = true;
            cv.notify_one();
        }
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

impl Drop for ProgressReporter {
    fn drop(&mut self) {
        let (lock, cv) = &*self.shared;
        lock.lock().unwrap_or_else(|e| e.into_inner()).done = true;
        cv.notify_one();
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect(Mutex<Vec<ProgressLine>>);
    impl ProgressSink for Collect {
        fn write(&self, line: &ProgressLine) {
            self.0.lock().unwrap().push(line.clone());
        }
    }

    #[test]
    fn rate_limit_sequence_and_terminal_line() {
        let sink = Arc::new(Collect::default());
        let mut r = ProgressReporter::new(sink.clone(), Instant::now());
        r.update(Phase::Prepare, Counts::default());
        // Within 100 ms of the previous line: dropped.
        r.update(Phase::Running, Counts { frames: 1, ..Counts::default() });
        r.finish(Counts { frames: 2, samples: 1, interactions: 0 }, "disposition=exited");
        let lines = sink.0.lock().unwrap().clone();
        let last = lines.last().unwrap();
        assert!(last.terminal);
        assert_eq!(last.phase, Phase::Cleanup);
        assert_eq!(last.completed, 3);
        assert!(last.message.ends_with("frames=2 samples=1 interactions=0 disposition=exited"), "{}", last.message);
        // The first line may have been merged away by the terminal line;
        // sequences count emitted lines only.
        assert!(lines.iter().enumerate().all(|(i, l)| l.sequence == i as u64 + 1));
        assert!(lines.len() <= 2);
        let json = last.to_json().unwrap();
        assert!(
            json.starts_with(r#"{"rea_progress":{"phase":"cleanup","completed":3,"total":null,"message":"#),
            "{json}"
        );
        assert!(json.ends_with(&format!(r#""terminal":true,"sequence":{}}}}}"#, lines.len())), "{json}");
    }
}
