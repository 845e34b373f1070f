//! Capture records built directly for engine tests of comparison and traces.
//! They carry no valid commitments: only the fields comparison reads matter.

use serde_json::{Value, json};

use crate::evidence::*;

/// Builds a record observation by observation; the journal follows the
/// order of the calls.
pub(in crate::compare) struct RecordBuilder {
    record: CaptureRecord,
    journal: bool,
}

/// The accounting of a snapshot of nothing.
fn filesystem_account() -> Value {
    json!({
        "truncated": false, "entry_limit": 10_000, "depth_limit": 16, "entries": 0,
        "entry_limit_reached": false, "depth_limit_reached": false, "roots": [],
        "enumeration_omissions": [], "file_bytes_budget": 10_000_000, "bytes_hashed": 0, "hash_omissions": []
    })
}

/// A record of a capture that observed nothing, with complete coverage.
fn empty_record() -> CaptureRecord {
    let record = json!({
        "schema_version": CAPTURE_SCHEMA_VERSION,
        "manifest": {
            "rea_version": "0.0.0", "provider_version": PROVIDER_VERSION, "platform": "linux",
            "architecture": "x64", "pty_backend": "test",
            "started_at": "2026-01-01T00:00:00.000Z", "completed_at": "2026-01-01T00:00:01.000Z",
            "scenario": {}, "comparison_contract": {},
            "full_scenario_sha256": "", "comparison_contract_sha256": "", "executable_sha256": "",
            "normalization_sha256": ""
        },
        "normalization": {"paths": true, "pids": true, "ports": true, "time_bucket_ms": 10},
        "frames": [], "rendered_frames": [], "interaction_events": [],
        "exit": {"code": 0, "signal": 0, "reason": "exited"},
        "settlement": {"state": "quiesced", "elapsed_ms": 50, "cleanup_outcome": "not_required"},
        "process_samples": [], "event_journal": [],
        "files_before": [], "files_after": [], "filesystem_effects": [],
        "truncated": false,
        "truncation_details": {
            "raw_terminal": {
                "truncated": false, "budget_bytes": 1_000_000, "frame_limit": 10_000,
                "observed_bytes": 0, "retained_bytes": 0, "observed_chunks": 0, "retained_chunks": 0,
                "omitted_for_budget": 0, "omitted_for_normalized_budget": 0, "omitted_for_frame_limit": 0,
                "invalid_utf8_bytes": 0
            },
            "rendered_terminal": {
                "truncated": false, "budget_bytes": 1_000_000, "frame_limit": 10_000,
                "observed_bytes": 0, "retained_bytes": 0, "observed_frames": 0, "retained_frames": 0,
                "unknown_size_frames": 0
            },
            "filesystem_before": filesystem_account(),
            "filesystem_after": filesystem_account(),
            "process": {
                "truncated": false, "coverage": "sampled", "sample_limit": 1000, "samples": 0,
                "limit_reached": false, "sampling_failures": 0, "first_sampling_failure": null
            }
        },
        "limitations": [],
        "residual_unknowns": [
            {"scope": "network", "reason": "External network isolation is not enforced by this adapter."}
        ],
        "cleanup": {
            "owned_process_group": "verified", "terminal_renderer": "not_required", "temporary_root": "removed",
            "signal_mechanism": "pidfd", "unverified_processes": []
        }
    });
    serde_json::from_value(record).unwrap_or_else(|e| panic!("the empty test record does not deserialize: {e}"))
}

impl RecordBuilder {
    /// A record with nothing observed yet, exit code 0 and a quiesced settlement.
    pub(in crate::compare) fn new() -> RecordBuilder {
        RecordBuilder { record: empty_record(), journal: true }
    }

    fn journal(&mut self, collection: &str, index: usize) {
        let capture_order = self.record.event_journal.len() as u64;
        self.record.event_journal.push(JournalEntry {
            capture_order,
            collection: collection.parse().expect("a journaled collection"),
            index: index as u64,
        });
    }

    /// A raw chunk of normalized text `data` at `at_ms`.
    pub(in crate::compare) fn frame(mut self, at_ms: u64, data: &str) -> Self {
        let sequence = self.record.frames.len();
        self.record.frames.push(Frame {
            sequence: sequence as u64,
            at_ms,
            data: data.into(),
            raw_data: None,
            invalid_utf8: None,
        });
        let raw = &mut self.record.truncation_details.raw_terminal;
        raw.observed_chunks += 1;
        raw.retained_chunks += 1;
        self.journal("frames", sequence);
        self
    }

    /// A raw chunk whose original text `raw` normalized to `data`.
    pub(in crate::compare) fn normalized_frame(mut self, at_ms: u64, data: &str, raw: &str) -> Self {
        self = self.frame(at_ms, data);
        if let Some(f) = self.record.frames.last_mut() {
            f.raw_data = Some(raw.into());
        }
        self
    }

    /// A rendered state showing `lines`.
    pub(in crate::compare) fn rendered(mut self, at_ms: u64, lines: &[&str]) -> Self {
        let sequence = self.record.rendered_frames.len();
        self.record.rendered_frames.push(RenderedFrame {
            sequence: sequence as u64,
            at_ms,
            columns: 80,
            rows: 24,
            cursor_x: 0,
            cursor_y: 0,
            active_buffer: ActiveBuffer::Normal,
            lines: lines.iter().map(|l| (*l).to_owned()).collect(),
            serialized_state: lines.join("\r\n"),
        });
        let r = &mut self.record.truncation_details.rendered_terminal;
        r.observed_frames += 1;
        r.retained_frames += 1;
        self.journal("rendered_frames", sequence);
        self
    }

    /// A reply to a terminal query, sent at `dispatched`.
    pub(in crate::compare) fn reply(
        mut self,
        dispatched: u64,
        query: crate::evidence::TerminalQuery,
        data: &str,
    ) -> Self {
        let sequence = self.record.interaction_events.len();
        self.record.interaction_events.push(InteractionEvent {
            sequence: sequence as u64,
            scheduled_at_ms: None,
            dispatched_at_ms: Some(dispatched),
            kind: InteractionKind::TerminalReply,
            data: data.into(),
            query: Some(query),
            outcome: InteractionOutcome::Dispatched,
            reason: None,
            screen_before: crate::evidence::ScreenBefore::NotRecorded,
            wait: None,
        });
        self.journal("interaction_events", sequence);
        self
    }

    /// A rendered state produced but dropped for its size.
    pub(in crate::compare) fn dropped_rendered(mut self) -> Self {
        let r = &mut self.record.truncation_details.rendered_terminal;
        r.observed_frames += 1;
        r.truncated = true;
        self.record.truncated = true;
        self
    }

    /// A raw chunk dropped for the output budget.
    pub(in crate::compare) fn dropped_frame(mut self) -> Self {
        let r = &mut self.record.truncation_details.raw_terminal;
        r.observed_chunks += 1;
        r.omitted_for_budget += 1;
        r.truncated = true;
        self.record.truncated = true;
        self
    }

    /// A dispatched input of `data`, scheduled at `scheduled` and dispatched at `dispatched`.
    pub(in crate::compare) fn input(mut self, scheduled: u64, dispatched: u64, data: &str) -> Self {
        let sequence = self.record.interaction_events.len();
        self.record.interaction_events.push(InteractionEvent {
            sequence: sequence as u64,
            scheduled_at_ms: Some(scheduled),
            dispatched_at_ms: Some(dispatched),
            kind: InteractionKind::Input,
            data: data.into(),
            query: None,
            outcome: InteractionOutcome::Dispatched,
            reason: None,
            screen_before: crate::evidence::ScreenBefore::NotRecorded,
            wait: None,
        });
        self.journal("interaction_events", sequence);
        self
    }

    /// An input of `data` that waited for `screen_contains: "> "` (no
    /// `at_ms`): the condition held at `satisfied`, the input went out at
    /// `dispatched`.
    pub(in crate::compare) fn waited(mut self, satisfied: u64, dispatched: u64, data: &str) -> Self {
        self = self.input(0, dispatched, data);
        if let Some(e) = self.record.interaction_events.last_mut() {
            e.scheduled_at_ms = None;
            let wait_for = WaitFor { condition: WaitCondition::ScreenContains("> ".into()), timeout_ms: None };
            e.wait = Some(WaitRecord::new(&wait_for, Some(satisfied), WaitOutcome::Satisfied));
        }
        self
    }

    /// The exit with `code` (lifecycle 0).
    pub(in crate::compare) fn exit(mut self, code: i64) -> Self {
        self.record.exit = Exit { code: Some(code), signal: 0, reason: ExitReason::Exited, finalization: None };
        self.journal("lifecycle", 0);
        self
    }

    /// The settlement (lifecycle 1), observed for `elapsed_ms`.
    pub(in crate::compare) fn settle(mut self, elapsed_ms: u64) -> Self {
        self.record.settlement.elapsed_ms = elapsed_ms;
        self.journal("lifecycle", 1);
        self
    }

    /// A process sample of `command`.
    pub(in crate::compare) fn sample(mut self, at_ms: u64, command: &str) -> Self {
        let index = self.record.process_samples.len();
        self.record.process_samples.push(ProcessSample {
            at_ms,
            pid: 1,
            parent_pid: 0,
            command: Some(command.into()),
            command_unread: None,
            process_group_id: Some(1),
            session_id: Some(1),
            exit: None,
        });
        self.record.truncation_details.process.samples += 1;
        self.journal("process_samples", index);
        self
    }

    /// A created file at `path` (`root_0:<path>`) with digest `sha256`.
    pub(in crate::compare) fn created_file(mut self, path: &str, sha256: &str) -> Self {
        let state = FileState {
            path: format!("root_0:{path}"),
            mode: 0o100644,
            size: 1,
            kind: FileKind::File,
            sha256: Some(sha256.into()),
            symlink_target: None,
        };
        self.record.files_after.push(state.clone());
        self.record.filesystem_effects.push(FileEffect {
            path: state.path.clone(),
            status: EffectStatus::Created,
            before: None,
            after: Some(state),
            reason: None,
        });
        self
    }

    /// A residual unknown.
    pub(in crate::compare) fn residual(mut self, scope: &str, reason: &str) -> Self {
        self.record
            .residual_unknowns
            .push(ResidualUnknown { scope: scope.parse().expect("a residual scope"), reason: reason.into() });
        self
    }

    /// Builds the record without any journal (a legacy capture).
    pub(in crate::compare) fn without_journal(mut self) -> Self {
        self.journal = false;
        self
    }

    /// The record.
    pub(in crate::compare) fn build(mut self) -> CaptureRecord {
        if !self.journal {
            self.record.event_journal.clear();
        }
        self.record
    }
}

/// A trace specification document with `events` and a partial order.
pub(in crate::compare) fn partial_order(events: Value, order: Value) -> Value {
    let mut language = json!({"kind": "partial_order"});
    if let (Some(l), Value::Object(o)) = (language.as_object_mut(), order) {
        l.extend(o);
    }
    json!({"version": 1, "events": events, "language": language})
}

/// The comparison record of `a` and `b` as the format writes it.
pub(in crate::compare) fn compare_records(
    a: &CaptureRecord,
    b: &CaptureRecord,
    trace: Option<&super::TraceSpec>,
) -> Value {
    compare_records_with(a, b, trace, crate::compare::CompareOptions::default())
}

/// [`compare_records`] under `options`.
pub(in crate::compare) fn compare_records_with(
    a: &CaptureRecord,
    b: &CaptureRecord,
    trace: Option<&super::TraceSpec>,
    options: crate::compare::CompareOptions,
) -> Value {
    serde_json::to_value(crate::compare::compare_records_with(a, b, trace, options).unwrap()).unwrap()
}
