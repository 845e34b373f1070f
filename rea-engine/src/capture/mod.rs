//! The capture lifecycle: prepare, run, settle, snapshot, clean up, record.
//!
//! [`capture`] takes a resolved scenario and a [`Host`] and returns sealed
//! capture Evidence. Observed trouble (deadlines, truncation, unverifiable
//! processes) is evidence inside the record; an `Err` means no Evidence could
//! be produced (the command could not start, the run was cancelled, or owned
//! processes could not be cleaned up).

mod assemble;
mod deadline;
pub mod fit;
mod guard;
pub mod normalize;
mod owned;
pub mod progress;
pub mod redact;
mod redact_names;
pub mod redact_screen;
pub mod render;
mod run;
mod sampler;
pub mod terminal;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub use owned::{CleanupReport, Delivery, FinalCheck, KilledProcess, cleanup_orphaned_run};

use self::guard::{Ending, TreeGuard};
use self::normalize::{HostValues, Normalizer};
use self::owned::{GroupObservation, RunOwnership};
use self::progress::{Counts, Phase, ProgressReporter, ProgressSink};
use self::redact::RedactingDecoder;
use self::redact_names::{Checkpoint, redact_snapshot};
use self::run::Running;
use self::terminal::TerminalRecorder;
use crate::BuildInfo;
use crate::error::{Category, UserError};
use crate::evidence::{Evidence, SealedCapture, SettlementState};
use crate::fs::{Snapshot, SnapshotError};
use crate::host::{CaptureSupport, Host, HostError, Interrupts, RunToken, SpawnSpec, TermSize};
use crate::scenario::{RUN_TOKEN_VARIABLE, ResolveError, ResolvedScenario, Resolver, Scenario};

/// Interval between settlement observations.
const SETTLE_INTERVAL: Duration = Duration::from_millis(50);

/// What a capture needs besides the host.
#[derive(Debug, Clone)]
pub struct CaptureRequest {
    /// The resolved scenario.
    pub resolved: ResolvedScenario,
    /// The environment `rea` inherited (the child's base environment).
    pub host_environment: Vec<(OsString, OsString)>,
    /// The `rea` build, for the manifest.
    pub build: BuildInfo,
}

/// Why no capture Evidence was produced.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// This host cannot capture.
    #[error("process capture is unavailable on this host: {reason}")]
    Unsupported {
        /// Why.
        reason: &'static str,
    },
    /// The scenario cannot run on this host (working directory, executable).
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// The command could not be started.
    #[error("{0}")]
    Spawn(HostError),
    /// A host operation needed to run the capture failed.
    #[error("{0}")]
    Host(HostError),
    /// The private temporary root could not be created.
    #[error("the private temporary directory could not be created: {0}")]
    TemporaryRoot(std::io::Error),
    /// An interrupt cancelled the run.
    #[error("process capture was cancelled by {signal}; the launched command was killed and cleanup {}", if .cleanup.verified { "verified that no owned process remains" } else { "could not verify every owned process" })]
    Cancelled {
        /// The interrupting signal.
        signal: &'static str,
        /// What cleanup did.
        cleanup: Box<CleanupReport>,
        /// Entries examined by an interrupted snapshot, if one was running.
        partial_observation: Option<Value>,
    },
    /// Owned processes could not all be verified gone.
    #[error("owned-process cleanup is incomplete: {}", describe_unresolved(.report))]
    CleanupIncomplete {
        /// What the capture's own cleanup did.
        report: Box<CleanupReport>,
        /// What is needed to retry the cleanup.
        pending: Box<PendingCleanup>,
        /// The outcome of the latest retry, if one ran.
        retried: Option<Box<CleanupReport>>,
    },
    /// A filesystem snapshot failed without an OS error code.
    #[error("{0}")]
    Snapshot(SnapshotError),
}

/// The resources of a cleanup that could not be verified, kept so the owner
/// can retry it (the CLI retries once before printing its error).
#[derive(Debug, Clone)]
pub struct PendingCleanup {
    run: RunOwnership,
    groups: BTreeSet<u32>,
}

impl CaptureError {
    /// Retries a pending cleanup once; the error keeps the facts of the
    /// original attempt and records the retry. Returns whether owned
    /// processes are now verified gone (true when nothing was pending).
    pub fn retry_cleanup(&mut self, host: &Host) -> bool {
        match self {
            CaptureError::CleanupIncomplete { pending, retried, .. } => {
                let report = owned::cleanup(host, &pending.run, &pending.groups);
                let verified = report.verified;
                *retried = Some(Box::new(report));
                verified
            }
            _ => true,
        }
    }
}

fn describe_unresolved(report: &CleanupReport) -> String {
    let list = &report.unresolved;
    if let Some(failure) = &report.failure {
        return failure.clone();
    }
    if list.is_empty() {
        return "owned processes were still alive after every cleanup round".into();
    }
    list.iter().map(|(pid, r)| format!("PID {pid}: {r}")).collect::<Vec<_>>().join("; ")
}

impl UserError for CaptureError {
    fn category(&self) -> Category {
        match self {
            CaptureError::Unsupported { .. } => Category::UnsupportedProvider,
            CaptureError::Resolve(e) => e.category(),
            CaptureError::Spawn(e) => e.category(),
            CaptureError::Host(_) | CaptureError::TemporaryRoot(_) | CaptureError::Snapshot(_) => {
                Category::ExecutionFailure
            }
            CaptureError::Cancelled { .. } => Category::Cancelled,
            CaptureError::CleanupIncomplete { .. } => Category::ExecutionFailure,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            CaptureError::Unsupported { .. } => "capture_unsupported",
            CaptureError::Resolve(e) => e.code(),
            CaptureError::Spawn(_) => "spawn_failed",
            CaptureError::Host(_) | CaptureError::TemporaryRoot(_) | CaptureError::Snapshot(_) => {
                "process_capture_failed"
            }
            CaptureError::Cancelled { .. } => "cancelled",
            CaptureError::CleanupIncomplete { .. } => "cleanup_incomplete",
        }
    }
    fn remediation(&self) -> String {
        match self {
            CaptureError::Unsupported { .. } => "Capture on Linux or macOS; comparing existing captures works here.".into(),
            CaptureError::Resolve(e) => e.remediation(),
            CaptureError::Spawn(e) => e.remediation(),
            CaptureError::Cancelled { .. } => "Start the capture again when ready.".into(),
            CaptureError::CleanupIncomplete { .. } => "Inspect the listed processes (they were left untouched because their ownership could not be proven), stop them if they are yours, then run `rea doctor` and capture again.".into(),
            _ => "Run `rea doctor`, then try again.".into(),
        }
    }
    fn retryable(&self) -> bool {
        matches!(self, CaptureError::Cancelled { .. })
    }
    fn details(&self) -> Option<Value> {
        match self {
            CaptureError::Resolve(e) => e.details(),
            CaptureError::Cancelled { signal, cleanup, partial_observation } => Some(json!({
                "operation": "process_capture",
                "signal": signal,
                "cleanup": if cleanup.verified { "complete" } else { "incomplete" },
                "cleanup_report": cleanup,
                "partial_observation": partial_observation,
            })),
            CaptureError::CleanupIncomplete { report, retried, .. } => Some(json!({
                "operation": "process_capture",
                "cleanup": if retried.as_ref().is_some_and(|r| r.verified) { "complete" } else { "incomplete" },
                "cleanup_report": report,
                "cleanup_retry": retried,
            })),
            CaptureError::Spawn(HostError::Spawn { program, .. }) => Some(json!({
                "operation": "process_capture",
                "executable": program.display().to_string(),
            })),
            CaptureError::Snapshot(e) => Some(json!({
                "operation": "process_capture",
                "partial_observation": snapshot_json(e.partial()),
            })),
            _ => Some(json!({ "operation": "process_capture" })),
        }
    }
}

fn snapshot_json(s: &Snapshot) -> Value {
    json!({ "files": s.files, "truncation": s.truncation })
}

/// Prepares a capture: refuses at once on a host that cannot capture, then
/// resolves the scenario (working directory, executable on the child's
/// `PATH`, its digest) against `invocation_dir` and the inherited
/// environment. Nothing is launched or written.
pub fn prepare(
    host: &Host,
    scenario: Scenario,
    invocation_dir: &std::path::Path,
    host_environment: Vec<(OsString, OsString)>,
    build: BuildInfo,
) -> Result<CaptureRequest, CaptureError> {
    if let CaptureSupport::Unavailable { reason } = host.capture {
        return Err(CaptureError::Unsupported { reason });
    }
    let is_executable = |p: &std::path::Path| host.pty.is_executable(p);
    let resolver =
        Resolver { invocation_dir, host_environment: &host_environment, is_executable: &is_executable, fs: &*host.fs };
    let resolved = resolver.resolve(scenario)?;
    Ok(CaptureRequest { resolved, host_environment, build })
}

/// Runs a capture to completion on the current thread.
pub fn capture(host: &Host, request: CaptureRequest, sink: Arc<dyn ProgressSink>) -> Result<Evidence, CaptureError> {
    async_io::block_on(capture_async(host, request, sink))
}

/// Cleanup retries after a capture's own cleanup could not be verified.
pub const CLEANUP_RETRIES: u32 = 1;

/// The cleanup-retry policy every front end applies before reporting an
/// error (CLI, MCP server): a `cleanup_incomplete` error retries its pending
/// cleanup [`CLEANUP_RETRIES`] time(s) (blocking, bounded); the error keeps
/// the original report and records the retry's. Other errors pass through.
pub fn retry_failed_cleanup(host: &Host, mut error: CaptureError) -> CaptureError {
    for _ in 0..CLEANUP_RETRIES {
        if error.retry_cleanup(host) {
            break;
        }
    }
    error
}

/// [`capture`], its record kept typed, followed by the cleanup-retry policy
/// on failure.
pub fn capture_with_cleanup_retry(
    host: &Host,
    request: CaptureRequest,
    sink: Arc<dyn ProgressSink>,
) -> Result<SealedCapture, CaptureError> {
    async_io::block_on(capture_sealed_async(host, request, sink)).map_err(|e| retry_failed_cleanup(host, e))
}

/// The error of a record that could not be serialized.
fn serialization_error(e: serde_json::Error) -> CaptureError {
    CaptureError::Host(HostError::Io { op: "serialize the capture", source: std::io::Error::other(e) })
}

/// Builds the child's environment: the host environment, the scenario's
/// overrides, `TERM=xterm-256color` unless the scenario sets `TERM`,
/// inherited `COLUMNS`/`LINES` removed (the PTY size is the truth), and the
/// run token last.
pub fn child_environment(
    host_environment: &[(OsString, OsString)],
    overrides: &std::collections::BTreeMap<String, String>,
    token: &RunToken,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = host_environment
        .iter()
        .filter(|(k, _)| {
            let k = k.to_string_lossy();
            !matches!(k.as_ref(), "COLUMNS" | "LINES" | RUN_TOKEN_VARIABLE) && !overrides.contains_key(k.as_ref())
        })
        .cloned()
        .collect();
    env.extend(overrides.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))));
    if !overrides.contains_key("TERM") {
        env.retain(|(k, _)| k != "TERM");
        env.push(("TERM".into(), "xterm-256color".into()));
    }
    env.push((RUN_TOKEN_VARIABLE.into(), token.as_str().into()));
    env
}

/// Final states for the terminal progress line.
struct FinalStates {
    disposition: &'static str,
    owned_process_group: &'static str,
    terminal_renderer: &'static str,
    temporary_root: &'static str,
}

impl FinalStates {
    /// States of a run that ended before anything was launched.
    fn before_launch(disposition: &'static str) -> FinalStates {
        FinalStates {
            disposition,
            owned_process_group: "not_started",
            terminal_renderer: "not_started",
            temporary_root: "not_created",
        }
    }

    fn text(&self) -> String {
        format!(
            "disposition={} owned_process_group={} terminal_renderer={} temporary_root={}",
            self.disposition, self.owned_process_group, self.terminal_renderer, self.temporary_root
        )
    }
}

/// Runs a blocking snapshot while watching for interrupts; the snapshot,
/// or what a stopped one had seen, has the sensitive inputs among `events`
/// replaced in its names.
async fn snapshot_or_interrupt(
    host: &Host,
    interrupts: &mut Interrupts,
    roots: Vec<std::path::PathBuf>,
    limits: crate::scenario::Limits,
    events: &[crate::scenario::Event],
) -> (Result<Checkpoint, SnapshotError>, Option<&'static str>) {
    enum First {
        Done(Result<Snapshot, SnapshotError>),
        Interrupted(&'static str),
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let (probe, flag) = (Arc::clone(&host.fs), Arc::clone(&cancel));
    let mut task =
        blocking::unblock(move || crate::fs::snapshot(&*probe, &roots, &limits, &move || flag.load(Ordering::Relaxed)));
    let first = futures_lite::future::or(async { First::Done((&mut task).await) }, async {
        match interrupts.next().await {
            Some(signal) => First::Interrupted(signal),
            None => futures_lite::future::pending().await,
        }
    })
    .await;
    let (result, interrupted) = match first {
        First::Done(result) => (result, None),
        First::Interrupted(signal) => {
            cancel.store(true, Ordering::Relaxed);
            (task.await, Some(signal))
        }
    };
    let redacted = match result {
        Ok(snapshot) => Ok(Checkpoint::redacted(snapshot, events)),
        Err(mut stopped) => {
            redact_snapshot(stopped.partial_mut(), &mut redact::Redactor::for_events(events));
            Err(stopped)
        }
    };
    (redacted, interrupted)
}

/// Settles: `quiesced` at once when the host proves exactly that no
/// descendant is alive; otherwise observes the run's processes until two
/// consecutive observations find none, or `settle_ms` has passed (at least
/// two observations are always taken, so a group that is already quiet is
/// reported `quiesced`).
async fn settle(
    host: &Host,
    run: &RunOwnership,
    groups: &BTreeSet<u32>,
    settle_ms: u64,
    interrupts: &mut Interrupts,
) -> Result<(SettlementState, u64), &'static str> {
    let start = Instant::now();
    let mut empty_streak = 0;
    let mut observations = 0u32;
    loop {
        let (h, r, g) = (host.clone(), run.clone(), groups.clone());
        let observation = blocking::unblock(move || owned::observe(&h, &r, &g)).await;
        observations += 1;
        match observation {
            // Exact: no descendant is alive, no need to watch any longer.
            GroupObservation::Proven => return Ok((SettlementState::Quiesced, elapsed_ms(start))),
            GroupObservation::Unverifiable(_) => return Ok((SettlementState::Unverifiable, elapsed_ms(start))),
            GroupObservation::Empty => empty_streak += 1,
            GroupObservation::Alive(_) => empty_streak = 0,
        }
        if empty_streak >= 2 {
            return Ok((SettlementState::Quiesced, elapsed_ms(start)));
        }
        let deadline_passed = elapsed_ms(start) >= settle_ms;
        if deadline_passed && observations >= 2 {
            return Ok((SettlementState::AliveAtDeadline, elapsed_ms(start)));
        }
        let wait = if deadline_passed {
            Duration::ZERO
        } else {
            SETTLE_INTERVAL.min(Duration::from_millis(settle_ms - elapsed_ms(start)))
        };
        let interrupted = futures_lite::future::or(
            async {
                async_io::Timer::after(wait).await;
                None
            },
            async { interrupts.next().await.or(futures_lite::future::pending().await) },
        )
        .await;
        if let Some(signal) = interrupted {
            return Err(signal);
        }
    }
}

fn elapsed_ms(since: Instant) -> u64 {
    since.elapsed().as_millis() as u64
}

/// The capture lifecycle. Whatever path the run takes, one place emits the
/// final progress line, and the launched tree is owned by a kill-on-drop
/// guard from spawn on.
pub async fn capture_async(
    host: &Host,
    request: CaptureRequest,
    sink: Arc<dyn ProgressSink>,
) -> Result<Evidence, CaptureError> {
    capture_sealed_async(host, request, sink).await?.into_evidence().map_err(serialization_error)
}

/// [`capture_async`] with the record kept typed (see [`SealedCapture`]):
/// what a front end that writes the document itself uses.
pub async fn capture_sealed_async(
    host: &Host,
    request: CaptureRequest,
    sink: Arc<dyn ProgressSink>,
) -> Result<SealedCapture, CaptureError> {
    let mut progress = ProgressReporter::new(sink, Instant::now());
    progress.update(Phase::Prepare, Counts::default());
    let mut ending = Ending::new();
    let result = lifecycle(host, &request, &mut progress, &mut ending).await;
    progress.finish(ending.counts, &ending.states.text());
    result
}

/// Refuses, snapshots and launches; the launched run continues in
/// [`after_launch`].
async fn lifecycle(
    host: &Host,
    request: &CaptureRequest,
    progress: &mut ProgressReporter,
    ending: &mut Ending,
) -> Result<SealedCapture, CaptureError> {
    if let CaptureSupport::Unavailable { reason } = host.capture {
        return Err(CaptureError::Unsupported { reason });
    }
    let mut interrupts = (host.interrupts)().map_err(CaptureError::Host)?;
    let resolved = &request.resolved;
    let scenario = &resolved.scenario;
    let (before, interrupted) = snapshot_or_interrupt(
        host,
        &mut interrupts,
        resolved.observation_paths.clone(),
        scenario.limits,
        &scenario.events,
    )
    .await;
    if let Some(signal) = interrupted {
        ending.states.disposition = "cancelled";
        return Err(CaptureError::Cancelled {
            signal,
            cleanup: Box::new(CleanupReport { verified: true, ..CleanupReport::default() }),
            partial_observation: before.as_ref().err().map(|e| snapshot_json(e.partial())),
        });
    }
    let before = before.map_err(CaptureError::Snapshot)?;

    let token = RunToken::generate().map_err(CaptureError::Host)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix("rea-process-");
    if let Some(permissions) = host.pty.private_dir_permissions() {
        builder.permissions(permissions);
    }
    let temp = builder.tempdir().map_err(|e| {
        ending.states.temporary_root = "failed";
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
    };
    let started_at = crate::evidence::now_iso8601();
    let launch = Instant::now();
    let process = match host.pty.spawn(&spec) {
        Ok(p) => p,
        Err(e) => {
            ending.states.temporary_root = if temp.close().is_ok() { "cleaned" } else { "failed" };
            return Err(CaptureError::Spawn(e));
        }
    };
    let root = process.identity();
    let guard = TreeGuard::new(host, RunOwnership { token, root, session: root.pid }, process);
    // From here on the tree is owned by the guard: until cleanup proves it
    // gone, a failure says the owned group failed.
    ending.states.owned_process_group = "failed";
    let launched = Launched { host, request, guard, temp, interrupts, before, started_at, launch };
    launched.run(progress, ending).await
}

/// A launched run: everything the guard, the terminal and the records need.
struct Launched<'a> {
    host: &'a Host,
    request: &'a CaptureRequest,
    guard: TreeGuard,
    temp: tempfile::TempDir,
    interrupts: Interrupts,
    before: Checkpoint,
    started_at: String,
    launch: Instant,
}

impl Launched<'_> {
    /// Runs the command, then concludes the capture ([`Ran::conclude`]).
    async fn run(self, progress: &mut ProgressReporter, ending: &mut Ending) -> Result<SealedCapture, CaptureError> {
        let Launched { host, request, mut guard, temp, mut interrupts, before, started_at, launch } = self;
        let resolved = &request.resolved;
        let scenario = &resolved.scenario;
        let limits = scenario.limits;
        let root = guard.run.root;
        let run = guard.run.clone();
        let sampler = sampler::Sampler::start(Arc::clone(&host.inspector), root, launch, limits.processes);
        let temp_path = temp.path().to_str().map(str::to_owned);
        let host_values = HostValues {
            temporary_root: temp_path.clone(),
            working_directory: Some(resolved.working_directory_str().to_owned()),
            executable: Some(resolved.executable_str().to_owned()),
            roots: resolved.observation_path_strs().into_iter().map(str::to_owned).collect(),
            pid: Some(root.pid.0),
        };
        let normalizer = Normalizer::new(&scenario.normalization, &host_values);
        let input_normalizer = Normalizer::new(
            &scenario.normalization,
            &HostValues { temporary_root: None, pid: None, ..host_values.clone() },
        );
        let reader = guard.process.take_output();
        let writer = guard.process.take_input();
        let (Some(reader), Some(writer)) = (reader, writer) else {
            // The guard kills and reaps the tree on the way out.
            return Err(CaptureError::Host(HostError::Io {
                op: "open the terminal streams",
                source: std::io::Error::other("the backend handed out no terminal stream"),
            }));
        };
        let exit_future = guard.process.wait();
        let sample_count = || sampler.count();
        let decoder = RedactingDecoder::for_events(&scenario.events);
        let recorder = TerminalRecorder::new(
            normalizer.clone(),
            limits.output_bytes,
            limits.frames,
            scenario.normalization.time_bucket_ms,
        )
        .with_renderer(render::Renderer::start(
            render::RenderSettings {
                columns: scenario.terminal.columns,
                rows: scenario.terminal.rows,
                scrollback: scenario.terminal.scrollback,
                budget_bytes: limits.output_bytes,
                frame_limit: limits.frames,
                secrets: decoder.screen_secrets().clone(),
                answer_queries: scenario.terminal.answer_queries,
            },
            normalizer.clone(),
        ));
        let mut running = Running {
            host,
            scenario,
            run: &run,
            launch,
            process: &mut guard.process,
            reader,
            writer,
            exit_future,
            interrupts: &mut interrupts,
            decoder,
            recorder,
            input_normalizer,
            interactions: Vec::new(),
            journal: Vec::new(),
            progress,
            sample_count: &sample_count,
            output_open: true,
            interrupts_open: true,
        };
        let outcome = running.run().await;
        let Running { decoder, mut recorder, interactions, journal, .. } = running;
        ending.states.terminal_renderer = recorder.stop_renderer().map_or("not_started", render::RendererState::as_str);
        let ran = Ran {
            host,
            request,
            guard,
            temp,
            interrupts,
            before,
            started_at,
            run,
            sampler,
            normalizer,
            decoder,
            recorder,
            interactions,
            journal,
            outcome,
        };
        ran.conclude(progress, ending).await
    }
}

/// A run whose command has ended (or was cancelled): what it recorded and
/// what it still owns.
struct Ran<'a> {
    host: &'a Host,
    request: &'a CaptureRequest,
    guard: TreeGuard,
    temp: tempfile::TempDir,
    interrupts: Interrupts,
    before: Checkpoint,
    started_at: String,
    run: RunOwnership,
    sampler: sampler::Sampler,
    normalizer: Normalizer,
    decoder: RedactingDecoder,
    recorder: TerminalRecorder,
    interactions: Vec<crate::evidence::InteractionEvent>,
    journal: Vec<(Instant, run::Collection, usize)>,
    outcome: run::RunOutcome,
}

impl Ran<'_> {
    /// Settles, snapshots, cleans up and assembles the record.
    async fn conclude(
        self,
        progress: &mut ProgressReporter,
        ending: &mut Ending,
    ) -> Result<SealedCapture, CaptureError> {
        let Ran {
            host,
            request,
            mut guard,
            temp,
            mut interrupts,
            before,
            started_at,
            run,
            sampler,
            normalizer,
            decoder,
            recorder,
            interactions,
            journal,
            outcome,
        } = self;
        let resolved = &request.resolved;
        let root_pid = run.root.pid.0;
        ending.counts = Counts {
            frames: recorder.frame_count() as u64,
            samples: sampler.count(),
            interactions: interactions.len() as u64,
        };
        ending.states.disposition = outcome.reason.as_str();
        let settled = match outcome.cancelled {
            Some(signal) => Err(signal),
            None => {
                progress.update(Phase::Settling, ending.counts);
                guard.groups = sampler.groups();
                settle(host, &run, &guard.groups, resolved.scenario.settle_ms, &mut interrupts).await
            }
        };
        let settled_at = Instant::now();
        let sampled = sampler.stop();
        guard.groups.clone_from(&sampled.groups);
        let ended = Ended::observe(host, &mut interrupts, resolved, settled).await;
        progress.update(Phase::Cleanup, ending.counts);
        let report = guard.cleanup().await;
        let temporary_root_removed = temp.close().is_ok();
        ending.states = ended.final_states(&report, &outcome, ending.states.terminal_renderer, temporary_root_removed);
        let (settlement, after, cleanup) = ended.verdict(report, run, &sampled.groups)?;
        assemble::Assembly {
            request,
            build: request.build,
            platform: host.platform,
            pty_backend: host.pty.name(),
            signal_mechanism: host.verifier.mechanism(),
            started_at,
            root_pid,
            normalizer: &normalizer,
            decoder_invalid_bytes: decoder.invalid_bytes(),
            redactions: decoder.is_redacting().then(|| decoder.redactions()),
            screen_redactions: decoder.screen_secrets().redactions(),
            recorder,
            interactions,
            journal,
            outcome,
            settlement,
            sampled,
            before,
            after,
            cleanup,
            temporary_root_removed,
            settled_at,
        }
        .assemble()
        .map_err(serialization_error)
    }
}

/// How the command's end was observed, before cleanup.
enum Ended {
    /// Settled (or found unsettled) and snapshotted afterwards.
    Observed { settlement: (SettlementState, u64), after: Result<Checkpoint, SnapshotError> },
    /// An interrupt came first: its signal, and what the snapshot had seen.
    Cancelled { signal: &'static str, partial_observation: Option<Value> },
}

impl Ended {
    /// Takes the after-snapshot of a settled run, unless an interrupt came
    /// during settling (`settled` is its signal) or during the snapshot.
    async fn observe(
        host: &Host,
        interrupts: &mut Interrupts,
        resolved: &crate::scenario::ResolvedScenario,
        settled: Result<(SettlementState, u64), &'static str>,
    ) -> Ended {
        let settlement = match settled {
            Ok(settlement) => settlement,
            Err(signal) => return Ended::Cancelled { signal, partial_observation: None },
        };
        let roots = resolved.observation_paths.clone();
        match snapshot_or_interrupt(host, interrupts, roots, resolved.scenario.limits, &resolved.scenario.events).await
        {
            (after, None) => Ended::Observed { settlement, after },
            (after, Some(signal)) => {
                Ended::Cancelled { signal, partial_observation: after.err().map(|e| snapshot_json(e.partial())) }
            }
        }
    }

    /// The states progress reports last, once cleanup has run.
    fn final_states(
        &self,
        report: &CleanupReport,
        outcome: &run::RunOutcome,
        terminal_renderer: &'static str,
        temporary_root_removed: bool,
    ) -> FinalStates {
        FinalStates {
            disposition: match self {
                Ended::Cancelled { .. } => "cancelled",
                Ended::Observed { .. } if report.verified => outcome.reason.as_str(),
                Ended::Observed { .. } => "failed",
            },
            owned_process_group: if report.verified { "cleaned" } else { "failed" },
            terminal_renderer,
            temporary_root: if temporary_root_removed { "cleaned" } else { "failed" },
        }
    }

    /// What a record may be made of: a run observed to its end whose
    /// cleanup was proven. Otherwise the error that says why not (a cleanup
    /// left unproven keeps what it needs to be retried).
    fn verdict(
        self,
        report: CleanupReport,
        run: RunOwnership,
        groups: &BTreeSet<u32>,
    ) -> Result<((SettlementState, u64), Checkpoint, CleanupReport), CaptureError> {
        match self {
            Ended::Cancelled { signal, partial_observation } => {
                Err(CaptureError::Cancelled { signal, cleanup: Box::new(report), partial_observation })
            }
            Ended::Observed { .. } if !report.verified => Err(CaptureError::CleanupIncomplete {
                report: Box::new(report),
                pending: Box::new(PendingCleanup { run, groups: groups.clone() }),
                retried: None,
            }),
            Ended::Observed { settlement, after } => Ok((settlement, after.map_err(CaptureError::Snapshot)?, report)),
        }
    }
}

#[cfg(test)]
mod fit_tests;
#[cfg(test)]
mod ownership_tests;
#[cfg(test)]
mod tests;
