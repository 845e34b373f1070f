//! Assembling the capture record and its Evidence from the observations.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use serde_json::json;

use super::conclude::Concluded;
use super::exact::ProcessMode;
use super::normalize::{Normalizer, replace_numbers};
use super::owned::CleanupReport;
use super::parts::{Collection, Context, Observation};
use super::render::{EMULATOR, RendererState};
use super::run::RunOutcome;
use super::sampler::{MAX_SAMPLED_COMMAND_BYTES, RawSample, SamplerResult};
use super::terminal::{TerminalOutput, TerminalRecorder};
use crate::evidence::{
    CAPTURE_SCHEMA_VERSION, CaptureRecord, Cleanup, CleanupOutcome, Exit, ExitReason, Finalization, InteractionEvent,
    InteractionKind, InteractionOutcome, JournalCollection, JournalEntry, Manifest, PROVIDER_VERSION, ProcessExit,
    ProcessSample, ProcessTruncation, RenderedTerminalTruncation, ResidualUnknown, SealedCapture, Settlement,
    SettlementState, TruncationDetails, UnverifiedProcess, architecture_name, digest, now_iso8601, seal_capture_typed,
};
use crate::evidence::{OwnedGroupOutcome, ProcessCoverage, RendererOutcome, ResidualScope, TemporaryRootOutcome};
use crate::host::ExitStatus;
use crate::scenario::{comparison_contract, normalization_projection, scenario_commitment};
use crate::secrets::Redactor;

/// Always-present limitation: sampling misses short-lived processes.
pub(super) const LIMIT_SAMPLED: &str = "Process trees are sampled and may omit short-lived descendants.";
/// Limitation of exact observation: what ptrace changes for the program.
pub(super) const LIMIT_EXACT: &str = "Process trees are observed exactly (ptrace event stops); a set-user-ID or set-group-ID program runs without its privileges while traced.";
/// Limitation when the exact journal reached its limit.
pub(super) const LIMIT_JOURNAL_FULL: &str =
    "The process journal reached limits.processes; later processes are not listed.";
/// Limitation when sampling was partial.
pub(super) const LIMIT_SAMPLING_PARTIAL: &str = "Process-tree sampling ended with an incomplete observation.";
/// Always-present limitation: snapshots are not traces.
pub(super) const LIMIT_SNAPSHOTS: &str = "Filesystem observations are before/after snapshots, not syscall traces.";
/// Always-present limitation: no network isolation.
pub(super) const LIMIT_NETWORK: &str = "The harness does not enforce external network isolation.";
/// Always-present limitation: the inherited environment is not recorded.
pub(super) const LIMIT_ENVIRONMENT: &str = "The command inherited the host environment; inherited values are not recorded, so their influence may remain unknown.";
/// Limitation when queries went unanswered after the reply cap.
pub(super) fn replies_capped_limitation() -> String {
    format!(
        "rea answered the first {} terminal queries; later queries were not answered, as on a terminal that does not reply.",
        super::render::MAX_TERMINAL_REPLIES
    )
}
/// Limitation when the renderer failed.
pub(super) const LIMIT_RENDERER_FAILED: &str =
    "The terminal renderer failed during the capture; rendered_frames is empty and comparisons rely on raw frames.";

/// What the record is made of: the session's context and observation, the
/// run's outcome and what concluding it found.
pub(super) struct Assembly<'a> {
    pub(super) context: &'a Context<'a>,
    pub(super) root_pid: u32,
    pub(super) observed: Observation,
    pub(super) outcome: RunOutcome,
    pub(super) concluded: Concluded,
}

/// The terminal's part of the record.
struct TerminalPart {
    frames: Vec<crate::evidence::Frame>,
    rendered_frames: Vec<(Instant, crate::evidence::RenderedFrame)>,
    interaction_events: Vec<crate::evidence::InteractionEvent>,
    raw: crate::evidence::RawTerminalTruncation,
    normalized: crate::evidence::NormalizedTerminalTruncation,
    rendered: RenderedTerminalTruncation,
    renderer_state: RendererState,
    replies_capped: bool,
}

/// Maps every PID seen to a small ordinal (the launched process is 1).
fn ordinals(root: u32, samples: &SamplerResult) -> HashMap<u32, u64> {
    let mut map = HashMap::new();
    let mut add = |v: u32| {
        if v > 0 && !map.contains_key(&v) {
            let n = map.len() as u64 + 1;
            map.insert(v, n);
        }
    };
    add(root);
    for s in &samples.samples {
        add(s.pid);
        add(s.parent);
        add(s.group);
        add(s.session);
    }
    map
}

/// Most processes a record lists as left untouched because their status
/// could not be read (`cleanup.unverified_processes`, and one residual
/// unknown each); the rest are counted in a limitation. Their number is set
/// by the host (up to its PID limit), not by the scenario, so without this
/// bound a record's size would not be.
pub(crate) const MAX_LISTED_UNVERIFIED_PROCESSES: usize = 1000;

/// A sampled command as recorded: secrets redacted (a command the sampler
/// cut loses a tail that could begin a secret), normalized, each sampled PID
/// (longest first) replaced by `<pid>` where no digit is adjacent, and
/// bounded by [`MAX_SAMPLED_COMMAND_BYTES`].
fn sampled_command(
    sample: &RawSample,
    secrets: &mut Redactor,
    normalizer: &Normalizer,
    pids: &HashSet<String>,
) -> String {
    let cut = sample.command.len() < sample.command_bytes;
    let redacted = if cut { secrets.prefix(&sample.command) } else { secrets.whole(&sample.command) };
    let mut text = normalizer.normalize_unbounded(&redacted);
    if let Some(replaced) = replace_numbers(&text, pids, "<pid>") {
        text = replaced;
    }
    let text = text.trim();
    if !cut && text.len() <= MAX_SAMPLED_COMMAND_BYTES {
        return text.to_owned();
    }
    let kept = &text[..text.floor_char_boundary(MAX_SAMPLED_COMMAND_BYTES)];
    format!("{kept} <truncated-command:{}-bytes>", sample.command_bytes)
}

/// Rendered accounting when no renderer ran: nothing was observed.
fn empty_rendered(scenario: &crate::scenario::Scenario) -> RenderedTerminalTruncation {
    RenderedTerminalTruncation {
        truncated: true,
        budget_bytes: scenario.limits.output_bytes,
        frame_limit: scenario.limits.frames,
        observed_bytes: 0,
        retained_bytes: 0,
        observed_frames: 0,
        retained_frames: 0,
        unknown_size_frames: 0,
    }
}

impl Assembly<'_> {
    /// The sealed capture: each part of the record built by its own step,
    /// then fitted into the document bound.
    pub(super) fn assemble(self) -> Result<SealedCapture, serde_json::Error> {
        let scenario = &self.context.request.resolved.scenario;
        let manifest = self.manifest()?;
        let process_samples = process_samples(&self);
        // Every writer has counted by now (the renderer has stopped).
        let redaction = self.observed.secrets.limitation();
        let selected = !self.context.request.resolved.observation_paths.is_empty();
        let Assembly { context, observed, outcome, concluded, .. } = self;
        let invalid_bytes = observed.decoder.invalid_bytes();
        let t = terminal_part(observed.recorder, observed.interactions, invalid_bytes, scenario);
        let Concluded { verdict, sampled, processes, temporary_root_removed, settled_at } = concluded;
        let (before, after) = (observed.before.snapshot, verdict.after.snapshot);
        let filesystem_effects = if selected { crate::fs::effects(&before, &after) } else { Vec::new() };
        let sampling_partial = sampled.limit_reached || sampled.failures > 0;
        let redaction_text = redaction.clone();
        let mut limitations = limitations(sampling_partial, &t, redaction, verdict.cleanup.unverified_processes.len());
        limitations.extend(script_limitation(&t.interaction_events));
        process_limitations(&mut limitations, &processes, sampling_partial);
        let truncation_details = TruncationDetails {
            raw_terminal: t.raw,
            normalized_terminal: Some(t.normalized),
            rendered_terminal: t.rendered,
            filesystem_before: before.truncation,
            filesystem_after: after.truncation,
            process: process_truncation(scenario, &sampled, sampling_partial, &process_samples, &processes),
            document: None,
        };
        let mechanism = context.host.verifier.mechanism();
        let mut record = CaptureRecord {
            schema_version: CAPTURE_SCHEMA_VERSION,
            manifest,
            normalization: normalization_projection(&scenario.normalization)?,
            frames: t.frames,
            event_journal: journal(&observed.journal, &t.rendered_frames, &sampled, settled_at),
            rendered_frames: t.rendered_frames.into_iter().map(|(_, f)| f).collect(),
            interaction_events: t.interaction_events,
            exit: exit(&outcome),
            settlement: settlement(verdict.settlement),
            process_samples,
            filesystem_effects,
            files_before: before.files,
            files_after: after.files,
            truncated: truncation_details.any_truncated(),
            truncation_details,
            limitations,
            residual_unknowns: residual_unknowns(selected, &outcome, &verdict.cleanup, &processes),
            cleanup: cleanup(t.renderer_state, temporary_root_removed, mechanism, &verdict.cleanup),
        };
        let unread = unread_unknowns(&record.process_samples);
        record.residual_unknowns.splice(0..0, unread);
        super::pieces::drop_rebuilt_pieces(
            &mut record,
            &observed.secrets,
            &scenario.terminal,
            redaction_text.as_deref(),
        );
        let parameters = parameters(scenario, &record.normalization);
        super::fit::fit_document(&mut record, &parameters, super::fit::DOCUMENT_BUDGET_BYTES)?;
        seal_capture_typed(record, parameters)
    }

    /// Provenance and the commitments.
    fn manifest(&self) -> Result<Manifest, serde_json::Error> {
        let resolved = &self.context.request.resolved;
        let normalization = normalization_projection(&resolved.scenario.normalization)?;
        let scenario_value = scenario_commitment(resolved)?;
        let contract = comparison_contract(resolved)?;
        Ok(Manifest {
            rea_version: self.context.request.build.version.to_owned(),
            provider_version: PROVIDER_VERSION.to_owned(),
            platform: self.context.host.platform.to_owned(),
            architecture: architecture_name().to_owned(),
            pty_backend: self.context.host.pty.name().to_owned(),
            started_at: self.context.clock.started_at.clone(),
            completed_at: now_iso8601(),
            full_scenario_sha256: digest(&scenario_value)?,
            comparison_contract_sha256: digest(&contract)?,
            executable_sha256: resolved.executable_sha256.clone(),
            normalization_sha256: digest(&normalization)?,
            terminal_emulator: Some(EMULATOR.to_owned()),
            scenario: scenario_value,
            comparison_contract: contract,
        })
    }
}

/// The terminal's part of the record: the recorder's frames and rendered
/// states, and the interaction events with the screen each saw.
fn terminal_part(
    recorder: TerminalRecorder,
    mut interaction_events: Vec<crate::evidence::InteractionEvent>,
    invalid_bytes: u64,
    scenario: &crate::scenario::Scenario,
) -> TerminalPart {
    let TerminalOutput { frames, raw, normalized, rendered, screens_before } = recorder.finish(invalid_bytes);
    let (rendered_frames, rendered, renderer_state, replies_capped) = match rendered {
        Some(r) => (r.frames, r.account, r.state, r.replies_capped),
        None => (Vec::new(), empty_rendered(scenario), RendererState::Failed, false),
    };
    for (event, screen) in interaction_events.iter_mut().zip(screens_before) {
        event.screen_before = screen;
    }
    TerminalPart {
        frames,
        rendered_frames,
        interaction_events,
        raw,
        normalized,
        rendered,
        renderer_state,
        replies_capped,
    }
}

/// The process dimension's accounting.
fn process_truncation(
    scenario: &crate::scenario::Scenario,
    sampled: &SamplerResult,
    sampling_partial: bool,
    samples: &[ProcessSample],
    processes: &ProcessMode,
) -> ProcessTruncation {
    let coverage = match processes.is_exact() {
        false => ProcessCoverage::Sampled,
        true if samples.iter().any(|s| s.command.is_none()) => ProcessCoverage::ExactIncomplete,
        true => ProcessCoverage::Exact,
    };
    ProcessTruncation {
        truncated: sampling_partial,
        coverage,
        sample_limit: scenario.limits.processes,
        samples: samples.len() as u64,
        limit_reached: sampled.limit_reached,
        sampling_failures: sampled.failures,
        first_sampling_failure: sampled.first_failure.clone(),
    }
}

/// Sampled rows, identifiers normalized to ordinals and commands as recorded.
fn process_samples(a: &Assembly<'_>) -> Vec<ProcessSample> {
    let bucket = a.context.request.resolved.scenario.normalization.time_bucket_ms.max(1);
    let sampled = &a.concluded.sampled;
    let map = ordinals(a.root_pid, sampled);
    let mut secrets = a.observed.secrets.redactor();
    let pid_texts: HashSet<String> = map.keys().map(u32::to_string).collect();
    let ordinal = |v: u32, unmapped: u64| if v == 0 { 0 } else { map.get(&v).copied().unwrap_or(unmapped) };
    let exact = a.concluded.processes.is_exact();
    sampled
        .samples
        .iter()
        .map(|s| ProcessSample {
            at_ms: s.at_ms / bucket * bucket,
            pid: ordinal(s.pid, 1),
            parent_pid: ordinal(s.parent, 0),
            command: match s.unread {
                None => Some(sampled_command(s, &mut secrets, &a.observed.normalizer, &pid_texts)),
                Some(_) => None,
            },
            command_unread: s
                .unread
                .as_deref()
                .map(|why| a.observed.normalizer.normalize_unbounded(&secrets.whole(why))),
            // The tracer does not read groups and sessions.
            process_group_id: (!exact).then(|| ordinal(s.group, 0)),
            session_id: (!exact).then(|| ordinal(s.session, 0)),
            exit: s.exit.map(process_exit),
        })
        .collect()
}

/// One process residual unknown for each journal row whose command could
/// not be read (exact journals only).
fn unread_unknowns(samples: &[ProcessSample]) -> Vec<ResidualUnknown> {
    let unread = samples.iter().enumerate().filter(|(_, s)| s.command.is_none());
    unread
        .map(|(i, s)| ResidualUnknown {
            scope: ResidualScope::Process,
            reason: format!(
                "process_samples[{i}] (pid {}): what this process exec'd is unknown: {}.",
                s.pid,
                s.command_unread.as_deref().unwrap_or("its command could not be read")
            ),
        })
        .collect()
}

/// A journaled image's end, as recorded.
fn process_exit(status: ExitStatus) -> ProcessExit {
    match status {
        ExitStatus::Code(c) => ProcessExit { code: Some(i64::from(c)), signal: 0 },
        ExitStatus::Signal(s) => ProcessExit { code: None, signal: i64::from(s) },
    }
}

/// The process dimension's limitations: sampling's (first in the list), or
/// what exact observation cannot show.
fn process_limitations(limitations: &mut Vec<String>, processes: &ProcessMode, partial: bool) {
    match processes {
        ProcessMode::Sampled => {}
        ProcessMode::Fallback { reason } => {
            limitations
                .insert(1, format!("Exact process observation was not available ({reason}); the tree was sampled."));
        }
        ProcessMode::Exact => {
            limitations.retain(|l| l != LIMIT_SAMPLED && l != LIMIT_SAMPLING_PARTIAL);
            limitations.insert(0, LIMIT_EXACT.to_owned());
            if partial {
                limitations.insert(1, LIMIT_JOURNAL_FULL.to_owned());
            }
        }
    }
}

/// The journal: every observation in the order it was recorded.
fn journal(
    recorded: &[(Instant, Collection, usize)],
    rendered_frames: &[(Instant, crate::evidence::RenderedFrame)],
    sampled: &SamplerResult,
    settled_at: Instant,
) -> Vec<JournalEntry> {
    let mut entries: Vec<(Instant, u8, JournalCollection, usize)> = recorded
        .iter()
        .map(|(at, c, i)| {
            let name = match c {
                Collection::Frames => JournalCollection::Frames,
                Collection::Interactions => JournalCollection::InteractionEvents,
                Collection::Lifecycle => JournalCollection::Lifecycle,
            };
            (*at, 0, name, *i)
        })
        .collect();
    entries
        .extend(rendered_frames.iter().enumerate().map(|(i, (at, _))| (*at, 0, JournalCollection::RenderedFrames, i)));
    entries
        .extend(sampled.samples.iter().enumerate().map(|(i, s)| (s.recorded, 1, JournalCollection::ProcessSamples, i)));
    entries.push((settled_at, 2, JournalCollection::Lifecycle, 1));
    entries.sort_by_key(|(at, order, _, _)| (*at, *order));
    entries
        .into_iter()
        .enumerate()
        .map(|(n, (_, _, collection, index))| JournalEntry { capture_order: n as u64, collection, index: index as u64 })
        .collect()
}

/// How the launched process ended.
fn exit(outcome: &RunOutcome) -> Exit {
    let (code, signal) = match outcome.exit {
        Some((ExitStatus::Code(c), _)) => (Some(i64::from(c)), 0),
        Some((ExitStatus::Signal(s), _)) => (None, i64::from(s)),
        None => (None, 0),
    };
    let finalization = outcome.finalization.as_ref().map(|f| Finalization {
        requested_ms: f.requested_ms,
        elapsed_ms: f.elapsed_ms,
        exit_code: match (f.elapsed_ms, outcome.exit) {
            (Some(_), Some((ExitStatus::Code(c), _))) => Some(i64::from(c)),
            _ => None,
        },
        signals: f.signals.clone(),
    });
    Exit {
        code: if outcome.reason == ExitReason::Exited { code } else { None },
        signal,
        reason: outcome.reason,
        finalization,
    }
}

/// What the process group did after the exit.
fn settlement((state, elapsed_ms): (SettlementState, u64)) -> Settlement {
    let cleanup_outcome = match state {
        SettlementState::Quiesced => CleanupOutcome::NotRequired,
        SettlementState::AliveAtDeadline | SettlementState::Unverifiable => CleanupOutcome::Cleaned,
    };
    Settlement { state, elapsed_ms, cleanup_outcome }
}

/// The record's limitations, in a fixed order.
fn limitations(sampling_partial: bool, t: &TerminalPart, redaction: Option<String>, unverified: usize) -> Vec<String> {
    let mut limitations = vec![LIMIT_SAMPLED.to_owned()];
    if sampling_partial {
        limitations.push(LIMIT_SAMPLING_PARTIAL.to_owned());
    }
    limitations.extend([LIMIT_SNAPSHOTS, LIMIT_NETWORK, LIMIT_ENVIRONMENT].map(str::to_owned));
    if t.renderer_state == RendererState::Failed {
        limitations.push(LIMIT_RENDERER_FAILED.to_owned());
    }
    limitations.extend(redaction);
    limitations.extend(t.replies_capped.then(replies_capped_limitation));
    limitations.extend(unlisted_limitation(unverified));
    limitations
}

/// Dimensions not fully observed, with reasons.
fn residual_unknowns(
    selected: bool,
    outcome: &RunOutcome,
    cleanup: &CleanupReport,
    processes: &ProcessMode,
) -> Vec<ResidualUnknown> {
    let mut unknowns = Vec::new();
    if !processes.is_exact() {
        unknowns.push(ResidualUnknown { scope: ResidualScope::Process, reason: LIMIT_SAMPLED.into() });
    }
    unknowns.push(ResidualUnknown {
        scope: ResidualScope::Network,
        reason: "External network isolation is not enforced by this adapter.".into(),
    });
    if !selected {
        unknowns.push(ResidualUnknown {
            scope: ResidualScope::Filesystem,
            reason: "No filesystem observation paths were selected, so filesystem effects are unknown.".into(),
        });
    }
    if let Some(why) = &outcome.exit_unobserved {
        unknowns.push(ResidualUnknown {
            scope: ResidualScope::Exit,
            reason: format!("The launched process's exit was not observed: {why}."),
        });
    }
    let listed = cleanup.unverified_processes.iter().take(MAX_LISTED_UNVERIFIED_PROCESSES);
    unknowns.extend(listed.map(|(pid, reason)| ResidualUnknown {
        scope: ResidualScope::Process,
        reason: format!("Process {pid} was left untouched because its ownership could not be read: {reason}."),
    }));
    if let Some(unlisted) = cleanup.unverified_processes.len().checked_sub(MAX_LISTED_UNVERIFIED_PROCESSES)
        && unlisted > 0
    {
        unknowns.push(ResidualUnknown {
            scope: ResidualScope::Process,
            reason: format!(
                "{unlisted} further processes were left untouched because their ownership could not be read; \
                 they are not listed."
            ),
        });
    }
    unknowns
}

/// The limitation saying how many processes left untouched are not listed,
/// when there are more than a record lists.
fn unlisted_limitation(unverified: usize) -> Option<String> {
    (unverified > MAX_LISTED_UNVERIFIED_PROCESSES).then(|| {
        format!(
            "{unverified} processes whose status could not be read were left untouched; \
             cleanup.unverified_processes lists the first {MAX_LISTED_UNVERIFIED_PROCESSES} by PID."
        )
    })
}

/// The limitation saying the scenario's script did not complete, when a
/// wait timed out: which event, what it waited for, how many events after
/// it were not dispatched.
pub(super) fn script_limitation(events: &[InteractionEvent]) -> Option<String> {
    let scripted = || events.iter().filter(|e| e.kind != InteractionKind::TerminalReply);
    let (index, event) = scripted().enumerate().find(|(_, e)| e.outcome == InteractionOutcome::WaitTimedOut)?;
    let waited = event.wait.as_ref().map_or_else(String::new, |w| {
        let within = w.timeout_ms.map_or_else(|| "until the deadline".to_owned(), |ms| format!("for {ms} ms"));
        format!(" for {} {within}", w.condition.describe())
    });
    let skipped = scripted().filter(|e| e.outcome == InteractionOutcome::NotDispatched).count();
    Some(format!(
        "The scenario's script did not complete: events[{index}] waited{waited} and timed out; {skipped} later event(s) were not dispatched."
    ))
}

/// The cleanup outcome.
fn cleanup(
    renderer: RendererState,
    temporary_root_removed: bool,
    signal_mechanism: crate::evidence::SignalMechanism,
    report: &CleanupReport,
) -> Cleanup {
    Cleanup {
        owned_process_group: OwnedGroupOutcome::Verified,
        terminal_renderer: match renderer {
            RendererState::Cleaned => RendererOutcome::Disposed,
            RendererState::Failed => RendererOutcome::Failed,
        },
        temporary_root: if temporary_root_removed {
            TemporaryRootOutcome::Removed
        } else {
            TemporaryRootOutcome::RemoveFailed
        },
        signal_mechanism,
        unverified_processes: report
            .unverified_processes
            .iter()
            .take(MAX_LISTED_UNVERIFIED_PROCESSES)
            .map(|(pid, reason)| UnverifiedProcess { pid: u64::from(*pid), reason: reason.clone() })
            .collect(),
    }
}

/// The `parameters` summary of capture Evidence.
fn parameters(scenario: &crate::scenario::Scenario, normalization: &serde_json::Value) -> serde_json::Value {
    json!({
        "executable_name": std::path::Path::new(&scenario.executable)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| scenario.executable.clone()),
        "argument_count": scenario.arguments.len(),
        "event_count": scenario.events.len(),
        "filesystem_observation_path_count": scenario.filesystem_observation_paths.len(),
        "normalization": normalization,
    })
}

#[cfg(test)]
mod command_tests {
    use std::time::Instant;

    use super::super::normalize::{HostValues, Normalizer};
    use super::super::sampler::MAX_SAMPLED_COMMAND_BYTES;
    use super::super::sampler::{KEPT_COMMAND_BYTES, RawSample};
    use super::sampled_command;
    use crate::scenario::Normalization;
    use crate::secrets::Secrets;

    fn sample(command: &str, read: usize) -> RawSample {
        let mut command = command.to_owned();
        command.truncate(command.floor_char_boundary(KEPT_COMMAND_BYTES));
        RawSample {
            at_ms: 0,
            pid: 7,
            parent: 1,
            command,
            command_bytes: read,
            unread: None,
            group: 7,
            session: 1,
            recorded: Instant::now(),
            exit: None,
        }
    }

    fn record(command: &str, secrets: &[&str]) -> String {
        let normalizer = Normalizer::new(&Normalization::default(), &HostValues::default());
        let mut redactor =
            Secrets::new(secrets.iter().map(|s| (*s, format!("<redacted-input:{}-bytes>", s.len())))).redactor();
        sampled_command(&sample(command, command.len()), &mut redactor, &normalizer, &Default::default())
    }

    #[test]
    fn a_short_command_is_kept_whole() {
        assert_eq!(record("sh -c true", &[]), "sh -c true");
    }

    #[test]
    fn a_long_command_keeps_its_first_bytes_and_says_how_long_it_was() {
        let text = format!("prog {}", "é".repeat(3000));
        let got = record(&text, &[]);
        let (kept, marker) = got.rsplit_once(' ').expect("marker");
        assert_eq!(marker, format!("<truncated-command:{}-bytes>", text.len()));
        assert!(kept.len() <= MAX_SAMPLED_COMMAND_BYTES && kept.len() > MAX_SAMPLED_COMMAND_BYTES - 2);
        assert!(text.starts_with(kept), "cut at a character boundary");
    }

    /// A secret that straddles the sampler's cut is not kept in part, even
    /// when earlier redactions shorten the text below the shown length.
    #[test]
    fn no_part_of_a_secret_cut_by_the_sampler_is_kept() {
        let secret = "HUNTER2-".repeat(512); // 4096 bytes, the longest input.
        for offset in [1, 7, 100, 4095] {
            let start = KEPT_COMMAND_BYTES - offset;
            let head = format!("{secret} {}", "x".repeat(start - secret.len() - 1));
            let text = format!("{head}{secret}{}", "y".repeat(100));
            let got = record(&text, &[&secret]);
            let kept = got.rsplit_once(' ').expect("marker").0;
            assert_eq!(kept.matches('H').count(), 0, "offset {offset}: {}", &kept[kept.len().saturating_sub(40)..]);
        }
    }
}

#[cfg(test)]
mod unread_tests {
    use super::unread_unknowns;
    use crate::evidence::{ProcessSample, ResidualScope};

    fn row(pid: u64, command: Option<&str>, unread: Option<&str>) -> ProcessSample {
        ProcessSample {
            at_ms: 0,
            pid,
            parent_pid: 1,
            command: command.map(str::to_owned),
            command_unread: unread.map(str::to_owned),
            process_group_id: None,
            session_id: None,
            exit: None,
        }
    }

    #[test]
    fn each_unread_row_is_named_by_a_process_residual_unknown() {
        let rows = [row(1, Some("sh"), None), row(2, None, Some("it was killed")), row(3, Some("date"), None)];
        let unknowns = unread_unknowns(&rows);
        assert_eq!(unknowns.len(), 1);
        assert_eq!(unknowns[0].scope, ResidualScope::Process);
        assert_eq!(
            unknowns[0].reason,
            "process_samples[1] (pid 2): what this process exec'd is unknown: it was killed."
        );
        assert!(unread_unknowns(&rows[..1]).is_empty());
        let json = serde_json::to_value(&rows[1]).unwrap();
        assert!(json["command"].is_null(), "an unread command is written as null: {json}");
        assert_eq!(json["command_unread"], "it was killed");
        assert!(serde_json::to_value(&rows[0]).unwrap().get("command_unread").is_none());
    }
}
