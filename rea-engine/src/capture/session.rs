//! The capture lifecycle as one session value.
//!
//! A [`Session`] is made at launch and lives until the record is assembled.
//! Its parts (see [`super::parts`]) group what the run owns (the guarded
//! tree, the terminal's streams, the sampler, the temporary root), what it
//! observes (secrets, normalizers, decoder, recorder, interactions, journal,
//! the checkpoint before launch) and its context (host, request,
//! cancellation, clock, progress). The phases are methods: [`Session::launch`],
//! [`Session::run`] (the event loop, [`super::run`]) and
//! [`Session::conclude`] (settle, snapshot, clean up, assemble); each borrows
//! the parts it needs.

use std::sync::Arc;
use std::time::Instant;

use super::cancel::Cancel;
use super::checkpoint;
use super::clock::Clock;
use super::conclude::{Concluded, Ended};
use super::decoder::RedactingDecoder;
use super::error::{CaptureError, serialization_error};
use super::guard::TreeGuard;
use super::normalize::{HostValues, Normalizer};
use super::owned::RunOwnership;
use super::parts::{Context, Ending, Observation, Owned, Terminal};
use super::progress::{Disposition, Released, RootState};
use super::progress::{Phase, ProgressReporter};
use super::redact_names::Checkpoint;
use super::render;
use super::request::{CaptureRequest, child_environment};
use super::run::{RunOutcome, Running};
use super::sampler::Sampler;
use super::terminal::TerminalRecorder;
use super::wait::OutputWatch;
use crate::evidence::SealedCapture;
use crate::host::{HostError, PtyProcess, RunToken, SpawnSpec, TermSize};

/// A launched capture: its context, what it owns, what it observes.
pub(super) struct Session<'a> {
    pub(super) context: Context<'a>,
    pub(super) owned: Owned,
    pub(super) observed: Observation,
}

/// A spawned command, before its observation starts.
struct Spawned {
    guard: TreeGuard,
    temp: tempfile::TempDir,
    clock: Clock,
}

impl<'a> Session<'a> {
    /// Launches the command in its private temporary root and starts
    /// observing it. From here on the tree is owned by a kill-on-drop guard:
    /// until cleanup proves it gone, a failure says the owned group failed.
    pub(super) fn launch(
        host: &'a crate::host::Host,
        request: &'a CaptureRequest,
        cancel: Cancel,
        progress: &'a mut ProgressReporter,
        ending: &'a mut Ending,
        before: Checkpoint,
        live: Option<super::live::LiveSetup>,
    ) -> Result<Session<'a>, CaptureError> {
        let spawned = spawn(host, request, ending)?;
        ending.states.owned_process_group = Released::Failed;
        let Spawned { mut guard, temp, clock } = spawned;
        let limits = request.resolved.scenario.limits;
        let sampler = Sampler::start(Arc::clone(&host.inspector), guard.run.root, clock.launch, limits.processes);
        let mut observed = observe(request, &guard.run, &temp, before);
        observed.live = live.map(|l| Box::new(super::live::LiveObserved::new(l.inbox, l.output)));
        // The guard kills and reaps the tree if the streams are missing.
        let terminal = terminal(&mut guard.process)?;
        let observed = observed.with_renderer(request);
        let context = Context { host, request, cancel, clock, progress, ending };
        Ok(Session { context, owned: Owned { guard, terminal, sampler, temp }, observed })
    }

    /// Runs the command until it ends, a deadline gives up on it, or the
    /// capture is cancelled; the renderer is stopped afterwards.
    pub(super) async fn run(&mut self) -> RunOutcome {
        let outcome = Running::new(&mut self.context, &mut self.owned, &mut self.observed).run().await;
        let renderer = self.observed.recorder.stop_renderer();
        self.context.ending.states.terminal_renderer = renderer.map_or(Released::NotStarted, Released::from);
        outcome
    }

    /// Settles, snapshots, cleans up and assembles the record.
    pub(super) async fn conclude(mut self, outcome: RunOutcome) -> Result<SealedCapture, CaptureError> {
        let counts = self.observed.counts(self.owned.sampler.count());
        self.context.ending.counts = counts;
        self.context.ending.states.disposition = outcome.reason.into();
        let settled = match outcome.cancelled {
            Some(cause) => Err(cause),
            None => self.settle().await,
        };
        let settled_at = Instant::now();
        let sampled = self.owned.sampler.stop();
        self.owned.guard.groups.clone_from(&sampled.groups);
        let ended = Ended::observe(&mut self.context, &self.observed.secrets, settled).await;
        self.context.progress.update(Phase::Cleanup, counts);
        let report = self.owned.guard.cleanup().await;
        let journal = match self.context.request.resolved.scenario.process_observation {
            crate::scenario::ProcessObservation::Sampled => None,
            crate::scenario::ProcessObservation::Exact => Some(self.owned.guard.process.process_journal()),
        };
        let temporary_root_removed = self.owned.temp.close().is_ok();
        let renderer = self.context.ending.states.terminal_renderer;
        self.context.ending.states = ended.final_states(&report, &outcome, renderer, temporary_root_removed);
        let verdict = ended.verdict(report, self.owned.guard.run.clone(), &sampled.groups)?;
        let mut sampled = sampled;
        let processes = super::exact::apply(journal, &mut sampled, self.context.clock.launch);
        let concluded = Concluded { verdict, sampled, processes, temporary_root_removed, settled_at };
        let root_pid = self.owned.guard.run.root.pid.0;
        super::assemble::Assembly { context: &self.context, root_pid, observed: self.observed, outcome, concluded }
            .assemble()
            .map_err(serialization_error)
    }

    /// Observes the process group until it settles (see [`super::settle`]).
    async fn settle(&mut self) -> Result<(crate::evidence::SettlementState, u64), super::cancel::CancelCause> {
        let context = &mut self.context;
        context.progress.update(Phase::Settling, context.ending.counts);
        let guard = &mut self.owned.guard;
        guard.groups = self.owned.sampler.groups();
        let settle_ms = context.request.resolved.scenario.settle_ms;
        super::settle::settle(context.host, &guard.run, &guard.groups, settle_ms, &mut context.cancel).await
    }
}

/// The checkpoint before launch, unless the capture is cancelled first.
pub(super) async fn before_launch(
    host: &crate::host::Host,
    request: &CaptureRequest,
    cancel: &mut Cancel,
    ending: &mut Ending,
) -> Result<Checkpoint, CaptureError> {
    let taken = checkpoint::take(host, cancel, &request.resolved, &request.secrets).await;
    if let Some(cause) = taken.cancelled {
        ending.states.disposition = Disposition::Cancelled;
        return Err(CaptureError::Cancelled {
            cause,
            cleanup: Box::new(super::owned::CleanupReport { verified: true, ..Default::default() }),
            partial_observation: taken.result.as_ref().err().map(|e| super::error::snapshot_json(e.partial())),
        });
    }
    taken.result.map_err(CaptureError::Snapshot)
}

/// Creates the private temporary root and spawns the command in it.
fn spawn(host: &crate::host::Host, request: &CaptureRequest, ending: &mut Ending) -> Result<Spawned, CaptureError> {
    let resolved = &request.resolved;
    let scenario = &resolved.scenario;
    let token = RunToken::generate().map_err(CaptureError::Host)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix("rea-process-");
    if let Some(permissions) = host.pty.private_dir_permissions() {
        builder.permissions(permissions);
    }
    let temp = builder.tempdir().map_err(|e| {
        ending.states.temporary_root = RootState::Failed;
        CaptureError::TemporaryRoot(e)
    })?;
    let spec = SpawnSpec {
        program: resolved.executable_path.clone(),
        argv0: resolved.argv0.clone(),
        args: scenario.arguments.clone(),
        working_directory: resolved.working_directory.clone(),
        environment: child_environment(&request.host_environment, &scenario.environment, &token),
        size: TermSize { columns: scenario.terminal.columns, rows: scenario.terminal.rows },
        temporary_root: Some(temp.path().to_owned()),
        observation: match scenario.process_observation {
            crate::scenario::ProcessObservation::Sampled => crate::host::TreeObservation::Sampled,
            crate::scenario::ProcessObservation::Exact => {
                crate::host::TreeObservation::Exact { limit: scenario.limits.processes }
            }
        },
    };
    let started_at = crate::evidence::now_iso8601();
    let launch = Instant::now();
    let process = match host.pty.spawn(&spec) {
        Ok(p) => p,
        Err(e) => {
            ending.states.temporary_root = RootState::removed(temp.close().is_ok());
            return Err(CaptureError::Spawn(e));
        }
    };
    let root = process.identity();
    let guard = TreeGuard::new(host, RunOwnership { token, root, session: root.pid }, process);
    Ok(Spawned { guard, temp, clock: Clock { launch, started_at } })
}

/// What the run observes, before the renderer starts.
fn observe(request: &CaptureRequest, run: &RunOwnership, temp: &tempfile::TempDir, before: Checkpoint) -> Observation {
    let resolved = &request.resolved;
    let scenario = &resolved.scenario;
    let host_values = HostValues {
        temporary_root: temp.path().to_str().map(str::to_owned),
        working_directory: Some(resolved.working_directory_str().to_owned()),
        executable: Some(resolved.executable_str().to_owned()),
        roots: resolved.observation_path_strs().into_iter().map(str::to_owned).collect(),
        pid: Some(run.root.pid.0),
    };
    let normalizer = Normalizer::new(&scenario.normalization, &host_values);
    let input_normalizer =
        Normalizer::new(&scenario.normalization, &HostValues { temporary_root: None, pid: None, ..host_values });
    let limits = scenario.limits;
    let recorder = TerminalRecorder::new(
        normalizer.clone(),
        limits.output_bytes,
        limits.frames,
        scenario.normalization.time_bucket_ms,
    );
    Observation {
        secrets: request.secrets.clone(),
        normalizer,
        input_normalizer,
        decoder: RedactingDecoder::new(&request.secrets),
        recorder,
        interactions: Vec::new(),
        journal: Vec::new(),
        before,
        output_watch: OutputWatch::default(),
        live: None,
    }
}

impl Observation {
    /// Starts the renderer behind the recorder, with the capture's secrets.
    fn with_renderer(mut self, request: &CaptureRequest) -> Observation {
        let scenario = &request.resolved.scenario;
        let settings = render::RenderSettings {
            columns: scenario.terminal.columns,
            rows: scenario.terminal.rows,
            scrollback: scenario.terminal.scrollback,
            // A live session may resize at any time.
            scrollback_shown: self.live.is_some()
                || scenario.events.iter().any(|e| matches!(e, crate::scenario::Event::Resize { .. })),
            budget_bytes: scenario.limits.output_bytes,
            frame_limit: scenario.limits.frames,
            secrets: self.secrets.screens(),
            answer_queries: scenario.terminal.answer_queries,
        };
        let renderer = render::Renderer::start(settings, self.normalizer.clone());
        self.recorder = self.recorder.with_renderer(renderer);
        self
    }
}

/// The terminal's streams and the exit, taken from the launched process.
fn terminal(process: &mut Box<dyn PtyProcess>) -> Result<Terminal, CaptureError> {
    let (Some(reader), Some(writer)) = (process.take_output(), process.take_input()) else {
        return Err(CaptureError::Host(HostError::Io {
            op: "open the terminal streams",
            source: std::io::Error::other("the backend handed out no terminal stream"),
        }));
    };
    Ok(Terminal { reader, writer, exit: process.wait() })
}
