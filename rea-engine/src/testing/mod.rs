//! Builders of valid capture records and Evidence for tests, without running
//! anything.
//!
//! Compiled for the engine's own tests and, with the `testing` feature, for
//! other crates' tests (the CLI's integration tests write capture files with
//! it). The records are small but complete: commitments are computed from a
//! [`ResolvedScenario`] with the functions the capture uses, every collection
//! holds an entry where the scenario allows one, and the journal covers every
//! observation, so import accepts them and any change to them is noticed.

pub mod fakes;
mod rng;
mod std_fs;

pub use rng::Rng;
pub use std_fs::StdFs;

use std::ffi::OsString;
use std::path::Path;

use serde_json::{Value, json};

use crate::evidence::{
    ActiveBuffer, CAPTURE_SCHEMA_VERSION, CaptureRecord, Cleanup, CleanupOutcome, EffectStatus, Evidence, Exit,
    ExitReason, FileEffect, FileKind, FileState, FilesystemTruncation, Frame, InteractionEvent, InteractionKind,
    InteractionOutcome, JournalCollection, JournalEntry, Manifest, NormalizedTerminalTruncation, PROVIDER_VERSION,
    ProcessSample, ProcessTruncation, RawTerminalTruncation, RenderedFrame, RenderedTerminalTruncation,
    ResidualUnknown, RootCoverage, Settlement, SettlementState, TruncationDetails, architecture_name, capture_evidence,
    digest,
};
use crate::evidence::{OwnedGroupOutcome, ProcessCoverage, RendererOutcome, ResidualScope, TemporaryRootOutcome};
use crate::evidence::{WaitOutcome, WaitRecord};
use crate::scenario::{
    Event, ResolvedScenario, Resolver, comparison_contract, normalization_projection, parse_scenario, redacted_input,
    scenario_commitment,
};

/// The platform test records name, as the Linux host does.
pub const TEST_PLATFORM: &str = "linux";

/// The `PATH` the test resolver searches for bare executable names.
pub const TEST_PATH: &str = "/usr/bin:/bin";

/// Validates `scenario` (a JSON document) and resolves it with `dir` as the
/// directory `rea` was started in and [`TEST_PATH`] as the inherited `PATH`.
///
/// Panics when the scenario is invalid or cannot be resolved: a test that
/// builds Evidence from it has nothing to test otherwise.
pub fn resolve(dir: &Path, scenario: Value) -> ResolvedScenario {
    let scenario = parse_scenario(scenario).unwrap_or_else(|e| panic!("test scenario is invalid: {e}"));
    let host_environment = [(OsString::from("PATH"), OsString::from(TEST_PATH))];
    let is_executable = |p: &Path| p.is_file();
    let resolver = Resolver {
        invocation_dir: dir,
        host_environment: &host_environment,
        is_executable: &is_executable,
        fs: &StdFs,
        digests: &crate::scenario::HashEachTime,
    };
    resolver.resolve(scenario).unwrap_or_else(|e| panic!("test scenario does not resolve: {e}"))
}

fn interaction(sequence: usize, event: &Event) -> InteractionEvent {
    let (kind, data) = match event {
        Event::Input { data, sensitive: true, .. } => (InteractionKind::Input, redacted_input(data.len())),
        Event::Input { data, .. } => (InteractionKind::Input, data.clone()),
        Event::Resize { columns, rows, .. } => (InteractionKind::Resize, format!("{columns}x{rows}")),
        Event::Signal { signal, .. } => (InteractionKind::Signal, signal.as_str().to_owned()),
    };
    let at = event.at_ms().unwrap_or(0);
    let wait = event.wait_for().map(|w| WaitRecord::new(w, Some(at), WaitOutcome::Satisfied));
    InteractionEvent {
        sequence: sequence as u64,
        scheduled_at_ms: event.at_ms(),
        dispatched_at_ms: Some(at + 1),
        kind,
        data,
        query: None,
        outcome: InteractionOutcome::Dispatched,
        reason: None,
        screen_before: crate::evidence::ScreenBefore::NotRecorded,
        wait,
    }
}

fn directory(path: String) -> FileState {
    FileState { path, mode: 0o040_755, size: 4096, kind: FileKind::Directory, sha256: None, symlink_target: None }
}

fn filesystem_truncation(r: &ResolvedScenario, entries: usize, bytes_hashed: u64) -> FilesystemTruncation {
    let limits = &r.scenario.limits;
    FilesystemTruncation {
        truncated: false,
        entry_limit: limits.files,
        depth_limit: limits.filesystem_depth,
        entries: entries as u64,
        entry_limit_reached: false,
        depth_limit_reached: false,
        roots: (0..r.observation_paths.len())
            .map(|i| RootCoverage { root: format!("root_{i}"), complete: true })
            .collect(),
        enumeration_omissions: Vec::new(),
        file_bytes_budget: limits.file_bytes,
        bytes_hashed,
        hash_omissions: Vec::new(),
    }
}

/// A complete, valid capture record of a quiet, successful run of `r`.
///
/// The command printed `ready on port 8080` (normalized to `<port>`) and
/// `done`; each scripted event was dispatched 1 ms late; with observation
/// paths, the first root gained a `report.json`; without them, filesystem
/// effects are a residual unknown.
pub fn capture_record(r: &ResolvedScenario) -> CaptureRecord {
    let s = &r.scenario;
    let frames = vec![
        Frame {
            sequence: 0,
            at_ms: 10,
            data: "ready on port <port>\r\n".into(),
            raw_data: Some("ready on port 8080\r\n".into()),
            invalid_utf8: None,
        },
        Frame { sequence: 1, at_ms: 20, data: "done\r\n".into(), raw_data: None, invalid_utf8: None },
    ];
    let lines = vec!["ready on port <port>".to_owned(), "done".to_owned()];
    let serialized_state = "ready on port <port>\r\ndone\r\n".to_owned();
    let rendered_bytes = (serialized_state.len() + lines.iter().map(String::len).sum::<usize>()) as u64;
    let rendered_frames = vec![RenderedFrame {
        sequence: 0,
        at_ms: 20,
        columns: s.terminal.columns,
        rows: s.terminal.rows,
        cursor_x: 0,
        cursor_y: 2,
        active_buffer: ActiveBuffer::Normal,
        lines: lines.into(),
        serialized_state,
    }];
    let interaction_events: Vec<InteractionEvent> =
        s.events.iter().enumerate().map(|(i, e)| interaction(i, e)).collect();
    let process_samples = vec![ProcessSample {
        at_ms: 0,
        pid: 1,
        parent_pid: 0,
        command: Some(r.argv0.clone()),
        command_unread: None,
        process_group_id: Some(1),
        session_id: Some(1),
        exit: None,
    }];

    use JournalCollection as J;
    let mut journal: Vec<(J, usize)> = vec![(J::ProcessSamples, 0), (J::Frames, 0), (J::Frames, 1)];
    journal.push((J::RenderedFrames, 0));
    journal.extend((0..interaction_events.len()).map(|i| (J::InteractionEvents, i)));
    journal.extend([(J::Lifecycle, 0), (J::Lifecycle, 1)]);
    let event_journal = journal
        .into_iter()
        .enumerate()
        .map(|(i, (collection, index))| JournalEntry { capture_order: i as u64, collection, index: index as u64 })
        .collect();

    let roots: Vec<FileState> = (0..r.observation_paths.len()).map(|i| directory(format!("root_{i}:."))).collect();
    let (files_before, files_after, filesystem_effects, residual_unknowns, limitations) = if roots.is_empty() {
        let reason = "No filesystem observation paths were selected, so filesystem effects are unknown.";
        let unknown = ResidualUnknown { scope: ResidualScope::Filesystem, reason: reason.into() };
        (Vec::new(), Vec::new(), Vec::new(), vec![unknown], vec![reason.to_owned()])
    } else {
        let report = FileState {
            path: "root_0:report.json".into(),
            mode: 0o100_644,
            size: 17,
            kind: FileKind::File,
            sha256: Some(digest(&json!({"status": "complete"})).expect("digest")),
            symlink_target: None,
        };
        let mut after = roots.clone();
        after.insert(1, report.clone());
        let mut effects: Vec<FileEffect> = roots
            .iter()
            .map(|d| FileEffect {
                path: d.path.clone(),
                status: EffectStatus::Unchanged,
                before: Some(d.clone()),
                after: Some(d.clone()),
                reason: None,
            })
            .collect();
        effects.insert(
            1,
            FileEffect {
                path: report.path.clone(),
                status: EffectStatus::Created,
                before: None,
                after: Some(report),
                reason: None,
            },
        );
        (roots, after, effects, Vec::new(), Vec::new())
    };

    let raw_bytes: u64 = frames.iter().map(|f| f.raw_data.as_ref().unwrap_or(&f.data).len() as u64).sum();
    let normalized_bytes: u64 = frames.iter().map(|f| f.data.len() as u64).sum();
    let truncation_details = TruncationDetails {
        raw_terminal: RawTerminalTruncation {
            truncated: false,
            budget_bytes: s.limits.output_bytes,
            frame_limit: s.limits.frames,
            observed_bytes: raw_bytes,
            retained_bytes: raw_bytes,
            observed_chunks: 2,
            retained_chunks: 2,
            omitted_for_budget: 0,
            omitted_for_normalized_budget: 0,
            omitted_for_frame_limit: 0,
            invalid_utf8_bytes: 0,
        },
        normalized_terminal: Some(NormalizedTerminalTruncation {
            truncated: false,
            budget_bytes: s.limits.output_bytes,
            retained_bytes: normalized_bytes,
            omitted_frames: 0,
            unknown_size_frames: 0,
        }),
        rendered_terminal: RenderedTerminalTruncation {
            truncated: false,
            budget_bytes: s.limits.output_bytes,
            frame_limit: s.limits.frames,
            observed_bytes: rendered_bytes,
            retained_bytes: rendered_bytes,
            observed_frames: 1,
            retained_frames: 1,
            unknown_size_frames: 0,
        },
        filesystem_before: filesystem_truncation(r, files_before.len(), hashed(&files_before)),
        filesystem_after: filesystem_truncation(r, files_after.len(), hashed(&files_after)),
        process: ProcessTruncation {
            truncated: false,
            coverage: ProcessCoverage::Sampled,
            sample_limit: s.limits.processes,
            samples: 1,
            limit_reached: false,
            sampling_failures: 0,
            first_sampling_failure: None,
        },
        document: None,
    };

    let normalization = normalization_projection(&s.normalization).expect("the normalization serializes");
    let scenario = scenario_commitment(r).expect("the scenario commitment serializes");
    let contract = comparison_contract(r).expect("the comparison contract serializes");
    CaptureRecord {
        schema_version: CAPTURE_SCHEMA_VERSION,
        manifest: Manifest {
            rea_version: env!("CARGO_PKG_VERSION").into(),
            provider_version: PROVIDER_VERSION.into(),
            platform: TEST_PLATFORM.into(),
            architecture: architecture_name().into(),
            pty_backend: "test-fixture".into(),
            terminal_emulator: None,
            started_at: "2026-11-30T00:00:00.000Z".into(),
            completed_at: "2026-11-30T00:00:01.250Z".into(),
            full_scenario_sha256: digest(&scenario).expect("digest"),
            comparison_contract_sha256: digest(&contract).expect("digest"),
            executable_sha256: r.executable_sha256.clone(),
            normalization_sha256: digest(&normalization).expect("digest"),
            scenario,
            comparison_contract: contract,
        },
        normalization,
        frames,
        rendered_frames,
        interaction_events,
        exit: Exit { code: Some(0), signal: 0, reason: ExitReason::Exited, finalization: None },
        settlement: Settlement {
            state: SettlementState::Quiesced,
            elapsed_ms: s.settle_ms,
            cleanup_outcome: CleanupOutcome::NotRequired,
        },
        process_samples,
        event_journal,
        files_before,
        files_after,
        filesystem_effects,
        truncated: false,
        truncation_details,
        limitations,
        residual_unknowns,
        cleanup: Cleanup {
            owned_process_group: OwnedGroupOutcome::Verified,
            terminal_renderer: RendererOutcome::Disposed,
            temporary_root: TemporaryRootOutcome::Removed,
            signal_mechanism: crate::evidence::SignalMechanism::Pidfd,
            unverified_processes: Vec::new(),
        },
    }
}

/// Bytes of the files in `states` that carry a digest.
fn hashed(states: &[FileState]) -> u64 {
    states.iter().filter(|f| f.sha256.is_some()).map(|f| f.size).sum()
}

/// The `parameters` summary of capture Evidence for `r`.
pub fn capture_parameters(r: &ResolvedScenario) -> Value {
    let executable_name = r.executable_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    json!({
        "executable_name": executable_name,
        "argument_count": r.scenario.arguments.len(),
        "event_count": r.scenario.events.len(),
        "filesystem_observation_path_count": r.observation_paths.len(),
        "normalization": normalization_projection(&r.scenario.normalization).expect("the normalization serializes"),
    })
}

/// Sealed capture Evidence holding [`capture_record`] of `r`.
pub fn capture(r: &ResolvedScenario) -> Evidence {
    capture_evidence(&capture_record(r), capture_parameters(r)).expect("a capture record serializes")
}

/// [`resolve`] then [`capture`].
pub fn capture_of(dir: &Path, scenario: Value) -> Evidence {
    capture(&resolve(dir, scenario))
}
