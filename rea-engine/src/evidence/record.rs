//! The capture record (`normalized_result` of capture Evidence).
//!
//! The layout and key names follow the reference implementation's Process
//! Capture so tools built for REA's Evidence read ours with the least
//! surprise; this version adds `truncation_details`, `raw_data`,
//! `exit.finalization` and `cleanup.unverified_processes`. Every struct
//! rejects unknown keys, so an imported record means exactly what it says.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::lines::ScreenLines;
pub use super::vocabulary::*;
pub use super::wait::{MAX_WAIT_TEXT_BYTES, WaitCondition, WaitFor, WaitOutcome, WaitRecord};

/// The largest integer a JavaScript number represents exactly (2^53 - 1).
pub const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// `schema_version` of the capture record this build writes and reads.
pub const CAPTURE_SCHEMA_VERSION: u32 = 5;

/// A complete capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureRecord {
    /// Always [`CAPTURE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Who captured what, and the commitments.
    pub manifest: Manifest,
    /// The normalization projection (see `scenario::normalization_projection`).
    #[serde(deserialize_with = "crate::input::strict_value")]
    pub normalization: Value,
    /// Admitted PTY output chunks, in arrival order.
    #[serde(deserialize_with = "frames")]
    pub frames: Vec<Frame>,
    /// Rendered terminal states, in production order.
    #[serde(deserialize_with = "rendered_frames")]
    pub rendered_frames: Vec<RenderedFrame>,
    /// Scheduled interactions and their outcomes, in dispatch order.
    pub interaction_events: Vec<InteractionEvent>,
    /// How the launched process ended.
    pub exit: Exit,
    /// What the process group did after the exit.
    pub settlement: Settlement,
    /// Sampled process-tree rows.
    pub process_samples: Vec<ProcessSample>,
    /// Global order in which observations were recorded.
    pub event_journal: Vec<JournalEntry>,
    /// Snapshot before launch.
    pub files_before: Vec<FileState>,
    /// Snapshot after settlement.
    pub files_after: Vec<FileState>,
    /// Classification of observed paths between the two snapshots.
    pub filesystem_effects: Vec<FileEffect>,
    /// Whether any observation was cut short (see `truncation_details`).
    pub truncated: bool,
    /// Per-area accounting of what was retained.
    pub truncation_details: TruncationDetails,
    /// Plain statements of what the record cannot show.
    pub limitations: Vec<String>,
    /// Dimensions not fully observed, with reasons.
    pub residual_unknowns: Vec<ResidualUnknown>,
    /// Outcome of owned-resource cleanup.
    pub cleanup: Cleanup,
}

impl CaptureRecord {
    /// The record as a JSON value, equal to `serde_json::to_value(&record)`;
    /// the frames' text moves into the value instead of being copied.
    pub fn into_value(mut self) -> Result<Value, serde_json::Error> {
        let frames = std::mem::take(&mut self.frames);
        let rendered = std::mem::take(&mut self.rendered_frames);
        let mut value = serde_json::to_value(&self)?;
        if let Value::Object(map) = &mut value {
            map.insert("frames".into(), Value::Array(frames.into_iter().map(Frame::into_value).collect()));
            let rendered: Result<Vec<Value>, _> = rendered.into_iter().map(RenderedFrame::into_value).collect();
            map.insert("rendered_frames".into(), Value::Array(rendered?));
        }
        Ok(value)
    }
}

impl super::CanonicalWrite for CaptureRecord {
    /// The record's RFC 8785 form, its arrays one item at a time (tested
    /// equal to the digest of [`CaptureRecord::into_value`]).
    fn write_canonical(&self, w: &mut dyn std::io::Write) -> Result<(), serde_json::Error> {
        use super::canonical::{MemberWriter, write_sorted_object, write_typed, write_typed_items};
        let r = self;
        // Keys in RFC 8785 order (checked in debug builds).
        let members: [(&str, MemberWriter<'_>); 18] = [
            ("cleanup", &|w| write_typed(&r.cleanup, w)),
            ("event_journal", &|w| write_typed_items(&r.event_journal, w)),
            ("exit", &|w| write_typed(&r.exit, w)),
            ("files_after", &|w| write_typed_items(&r.files_after, w)),
            ("files_before", &|w| write_typed_items(&r.files_before, w)),
            ("filesystem_effects", &|w| write_typed_items(&r.filesystem_effects, w)),
            ("frames", &|w| write_typed_items(&r.frames, w)),
            ("interaction_events", &|w| write_typed_items(&r.interaction_events, w)),
            ("limitations", &|w| write_typed(&r.limitations, w)),
            ("manifest", &|w| write_typed(&r.manifest, w)),
            ("normalization", &|w| write_typed(&r.normalization, w)),
            ("process_samples", &|w| write_typed_items(&r.process_samples, w)),
            ("rendered_frames", &|w| write_typed_items(&r.rendered_frames, w)),
            ("residual_unknowns", &|w| write_typed(&r.residual_unknowns, w)),
            ("schema_version", &|w| write_typed(&r.schema_version, w)),
            ("settlement", &|w| write_typed(&r.settlement, w)),
            ("truncated", &|w| write_typed(&r.truncated, w)),
            ("truncation_details", &|w| write_typed(&r.truncation_details, w)),
        ];
        write_sorted_object(w, &members)
    }
}

impl Frame {
    /// The frame as a JSON value, moving its text.
    pub fn into_value(self) -> Value {
        let mut map = serde_json::Map::new();
        map.insert("sequence".into(), self.sequence.into());
        map.insert("at_ms".into(), self.at_ms.into());
        map.insert("data".into(), Value::String(self.data));
        if let Some(raw) = self.raw_data {
            map.insert("raw_data".into(), Value::String(raw));
        }
        if let Some(invalid) = self.invalid_utf8 {
            map.insert("invalid_utf8".into(), Value::String(invalid));
        }
        Value::Object(map)
    }
}

impl RenderedFrame {
    /// The rendered frame as a JSON value, moving its text.
    pub fn into_value(mut self) -> Result<Value, serde_json::Error> {
        let lines = std::mem::take(&mut self.lines);
        let state = std::mem::take(&mut self.serialized_state);
        let mut value = serde_json::to_value(&self)?;
        if let Value::Object(map) = &mut value {
            map.insert("lines".into(), Value::Array(lines.iter().map(|l| Value::String(l.to_owned())).collect()));
            map.insert("serialized_state".into(), Value::String(state));
        }
        Ok(value)
    }
}

/// Provenance and commitments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Version of `rea` that captured.
    pub rea_version: String,
    /// Provider version (`"5"`).
    pub provider_version: String,
    /// `linux`, `darwin` or `win32`.
    pub platform: String,
    /// `x64` or `arm64` (other Rust names are kept as they are).
    pub architecture: String,
    /// The PTY mechanism used.
    pub pty_backend: String,
    /// The terminal emulator that produced `rendered_frames`, as
    /// `"<crate> <version>"` (absent in captures from builds without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_emulator: Option<String>,
    /// ISO-8601 UTC with milliseconds, just before launch.
    pub started_at: String,
    /// ISO-8601 UTC with milliseconds, when the record was assembled.
    pub completed_at: String,
    /// The committed scenario.
    #[serde(deserialize_with = "crate::input::strict_value")]
    pub scenario: Value,
    /// The committed comparison contract.
    #[serde(deserialize_with = "crate::input::strict_value")]
    pub comparison_contract: Value,
    /// Digest of `scenario`.
    pub full_scenario_sha256: String,
    /// Digest of `comparison_contract`.
    pub comparison_contract_sha256: String,
    /// SHA-256 of the executable's bytes.
    pub executable_sha256: String,
    /// Digest of the record's `normalization`.
    pub normalization_sha256: String,
}

/// `frames`, giving back the memory of a mapped file as they are read.
fn frames<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Frame>, D::Error> {
    super::behind::releasing(deserializer, "struct Frame")
}

/// `rendered_frames`, giving back the memory of a mapped file as they are read.
fn rendered_frames<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<RenderedFrame>, D::Error> {
    super::behind::releasing(deserializer, "struct RenderedFrame")
}

/// One admitted PTY output chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Frame {
    /// Position in `frames`, from 0.
    pub sequence: u64,
    /// Bucketed milliseconds after launch.
    pub at_ms: u64,
    /// Comparison text after normalization.
    pub data: String,
    /// The original text, present only when normalization changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_data: Option<String>,
    /// The bytes behind each U+FFFD that decoding put in this chunk, as
    /// lowercase hex, one space-separated group per invalid sequence in
    /// order; present only when the PTY sent invalid UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_utf8: Option<String>,
}

/// A rendered terminal state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderedFrame {
    /// Position in `rendered_frames`, from 0.
    pub sequence: u64,
    /// Bucketed milliseconds after launch.
    pub at_ms: u64,
    /// Width in cells.
    pub columns: u16,
    /// Height in cells.
    pub rows: u16,
    /// Cursor column.
    pub cursor_x: u16,
    /// Cursor row.
    pub cursor_y: u16,
    /// `normal` or `alternate`.
    pub active_buffer: ActiveBuffer,
    /// Visible rows after normalization, trailing U+0020 removed.
    pub lines: ScreenLines,
    /// The emulator's state dump after normalization.
    pub serialized_state: String,
}

/// A scheduled interaction's outcome, or a reply rea sent to a terminal query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InteractionEvent {
    /// Dispatch order, from 0.
    pub sequence: u64,
    /// The scenario's `at_ms`; null for a `terminal_reply`, which no scenario schedules.
    pub scheduled_at_ms: Option<u64>,
    /// Raw milliseconds after launch when it was dispatched (a write or a
    /// delivery started); null for an event that was never dispatched
    /// (`not_dispatched`, `wait_timed_out`, a `target_exited` event or
    /// reply that was never started). Captures made before issue 32 carry
    /// the end of the run there; readers ignore it on such events.
    pub dispatched_at_ms: Option<u64>,
    /// `input`, `resize`, `signal` or `terminal_reply`.
    #[serde(rename = "type")]
    pub kind: InteractionKind,
    /// Input text (or its redaction), `<cols>x<rows>`, the signal name, or the reply sent.
    pub data: String,
    /// The query a `terminal_reply` answers; absent on every other type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<TerminalQuery>,
    /// `dispatched`, `target_exited` or `failed`.
    pub outcome: InteractionOutcome,
    /// Why a `failed` dispatch failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The rendered frame the event saw (see [`ScreenBefore`]).
    #[serde(default, skip_serializing_if = "ScreenBefore::is_not_recorded")]
    pub screen_before: ScreenBefore,
    /// The condition the event waited for and what became of the wait;
    /// absent on events without `wait_for` and on replies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<WaitRecord>,
}

impl InteractionEvent {
    /// When it was dispatched, if it ever was: `dispatched_at_ms`, except on
    /// a `not_dispatched` or `wait_timed_out` event of an older capture,
    /// which carries the end of the run there.
    pub fn sent_at_ms(&self) -> Option<u64> {
        let never = matches!(self.outcome, InteractionOutcome::NotDispatched | InteractionOutcome::WaitTimedOut);
        self.dispatched_at_ms.filter(|_| !never)
    }
}

/// `interaction_events[].screen_before`: the screen an event saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScreenBefore {
    /// Absent: a capture made before the field existed, one without a
    /// renderer, or a screen that did not fit the rendered budget.
    #[default]
    NotRecorded,
    /// `null`: nothing had been drawn, so the screen was blank.
    Blank,
    /// The `sequence` of the rendered frame that was on screen.
    Frame(u64),
}

impl ScreenBefore {
    /// Whether the field is absent from the record.
    pub fn is_not_recorded(&self) -> bool {
        *self == ScreenBefore::NotRecorded
    }

    /// The frame's sequence, when one is named.
    pub fn frame(self) -> Option<u64> {
        match self {
            ScreenBefore::Frame(n) => Some(n),
            ScreenBefore::NotRecorded | ScreenBefore::Blank => None,
        }
    }
}

impl Serialize for ScreenBefore {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ScreenBefore::Frame(n) => s.serialize_u64(*n),
            // `NotRecorded` is skipped by the field; written alone it is null too.
            ScreenBefore::Blank | ScreenBefore::NotRecorded => s.serialize_none(),
        }
    }
}

impl<'de> Deserialize<'de> for ScreenBefore {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ScreenBefore, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map_or(ScreenBefore::Blank, ScreenBefore::Frame))
    }
}

/// How the launched process ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exit {
    /// Exit code; null when the process ended on a signal or a deadline fired.
    pub code: Option<i64>,
    /// Terminating signal number, 0 when none.
    pub signal: i64,
    /// `exited`, `timeout` or `idle_timeout`: what started the end.
    pub reason: ExitReason,
    /// Present only when a finalization interval was attempted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finalization: Option<Finalization>,
}

/// What happened during the finalization interval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finalization {
    /// The scenario's `finalization_ms`.
    pub requested_ms: u64,
    /// When the exit was observed, from the start of finalization; null if not.
    pub elapsed_ms: Option<u64>,
    /// Exit code observed during finalization without a signal; else null.
    pub exit_code: Option<i64>,
    /// Each signal attempt, in order.
    pub signals: Vec<SignalReceipt>,
}

/// One finalization signal attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignalReceipt {
    /// `SIGTERM` or `SIGKILL`.
    pub signal: FinalizationSignal,
    /// Monotonic milliseconds from the start of finalization.
    pub sent_at_ms: u64,
    /// `signaled`, `gone`, `identity-changed` or `unverified`.
    pub delivery: SignalDelivery,
    /// Why an attempt is `unverified`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Post-exit settlement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settlement {
    /// `quiesced`, `alive_at_deadline` or `unverifiable`.
    pub state: SettlementState,
    /// Raw milliseconds spent observing.
    pub elapsed_ms: u64,
    /// `not_required` (with `quiesced`), `cleaned` or `failed`.
    pub cleanup_outcome: CleanupOutcome,
}

/// One sampled process row (identifiers normalized to ordinals).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessSample {
    /// Bucketed milliseconds after launch.
    pub at_ms: u64,
    /// Process ordinal (the launched process is 1).
    pub pid: u64,
    /// Parent ordinal, 0 when unmapped.
    pub parent_pid: u64,
    /// Normalized command line; null when the command an exact journal's
    /// process exec'd could not be read (`command_unread` says why).
    pub command: Option<String>,
    /// Why `command` is null: the process died before what it exec'd could
    /// be read (exact journals only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_unread: Option<String>,
    /// Process-group ordinal.
    pub process_group_id: Option<u64>,
    /// Session ordinal.
    pub session_id: Option<u64>,
    /// How the process image ended: present in exact journals
    /// (`truncation_details.process.coverage: "exact"`) when its end was
    /// observed; sampled rows never have it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ProcessExit>,
}

/// How a journaled process image ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessExit {
    /// Exit code; null when a signal ended it.
    pub code: Option<i64>,
    /// Terminating signal number, 0 when none.
    pub signal: i64,
}

/// One entry of the cross-source journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalEntry {
    /// Position in the journal, from 0.
    pub capture_order: u64,
    /// `frames`, `rendered_frames`, `interaction_events`, `lifecycle` or `process_samples`.
    pub collection: JournalCollection,
    /// Index in that collection (`lifecycle`: 0 exit, 1 settlement).
    pub index: u64,
}

/// One observed filesystem entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileState {
    /// `root_<i>:<relative path>`; the root itself is `root_<i>:.`.
    pub path: String,
    /// Full `st_mode`, including the file-type bits.
    pub mode: u32,
    /// `st_size` (a symlink's target length).
    pub size: u64,
    /// `file`, `directory`, `symlink` or `other`.
    #[serde(rename = "type")]
    pub kind: FileKind,
    /// Whole-file SHA-256, or null when not hashed (see `truncation_details`).
    pub sha256: Option<String>,
    /// A symlink's target text; null otherwise.
    pub symlink_target: Option<String>,
}

/// The effect of the run on one path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEffect {
    /// Root-aliased path.
    pub path: String,
    /// `created`, `deleted`, `modified`, `unchanged` or `unknown`.
    pub status: EffectStatus,
    /// State before (null: absent, or unobserved for `unknown`).
    pub before: Option<FileState>,
    /// State after (null: absent, or unobserved for `unknown`).
    pub after: Option<FileState>,
    /// Why the effect is `unknown`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<EffectUnknownReason>,
}

/// A dimension not fully observed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResidualUnknown {
    /// `terminal`, `interaction`, `exit`, `process`, `filesystem`, `cleanup` or `network`.
    pub scope: ResidualScope,
    /// Why.
    pub reason: String,
}

/// Cleanup outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cleanup {
    /// `verified` when no owned process remained after cleanup.
    pub owned_process_group: OwnedGroupOutcome,
    /// `disposed` when the terminal renderer's thread was joined, `failed`
    /// when it panicked (`not_required` in records of builds without one).
    pub terminal_renderer: RendererOutcome,
    /// `removed` when the private temporary root was deleted, else `remove_failed`.
    pub temporary_root: TemporaryRootOutcome,
    /// How signals reached verified processes: `pidfd` or `checked-kill`.
    pub signal_mechanism: SignalMechanism,
    /// Unrelated processes whose ownership token the host withheld; untouched.
    pub unverified_processes: Vec<UnverifiedProcess>,
}

/// A process left untouched because its ownership could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnverifiedProcess {
    /// Native process ID.
    pub pid: u64,
    /// Why.
    pub reason: String,
}

/// Per-area accounting of retained observations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TruncationDetails {
    /// Original PTY chunks.
    pub raw_terminal: RawTerminalTruncation,
    /// Normalized comparison text (optional in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized_terminal: Option<NormalizedTerminalTruncation>,
    /// Rendered states.
    pub rendered_terminal: RenderedTerminalTruncation,
    /// Snapshot before launch.
    pub filesystem_before: FilesystemTruncation,
    /// Snapshot after settlement.
    pub filesystem_after: FilesystemTruncation,
    /// Process sampling.
    pub process: ProcessTruncation,
    /// Observations left out so that the whole document stays importable
    /// (present only when some were; see `docs/decisions.md`, "The document
    /// bound").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<DocumentTruncation>,
}

impl TruncationDetails {
    /// Whether any area was truncated (the record's `truncated` flag).
    pub fn any_truncated(&self) -> bool {
        self.raw_terminal.truncated
            || self.normalized_terminal.as_ref().is_some_and(|n| n.truncated)
            || self.rendered_terminal.truncated
            || self.filesystem_before.truncated
            || self.filesystem_after.truncated
            || self.process.truncated
            || self.document.as_ref().is_some_and(|d| d.truncated)
    }
}

/// Raw terminal accounting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTerminalTruncation {
    /// Whether any chunk was omitted.
    pub truncated: bool,
    /// `limits.output_bytes`.
    pub budget_bytes: u64,
    /// `limits.frames`.
    pub frame_limit: u64,
    /// UTF-8 bytes of every chunk read from the PTY.
    pub observed_bytes: u64,
    /// UTF-8 bytes of retained original text.
    pub retained_bytes: u64,
    /// Chunks read from the PTY.
    pub observed_chunks: u64,
    /// Chunks retained as frames.
    pub retained_chunks: u64,
    /// Chunks omitted because their original text did not fit.
    pub omitted_for_budget: u64,
    /// Chunks omitted because their normalized text did not fit.
    pub omitted_for_normalized_budget: u64,
    /// Chunks omitted because `limits.frames` was reached.
    pub omitted_for_frame_limit: u64,
    /// Bytes that were not valid UTF-8 and became U+FFFD.
    pub invalid_utf8_bytes: u64,
}

/// Normalized terminal accounting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NormalizedTerminalTruncation {
    /// Whether any chunk was omitted for its normalized size.
    pub truncated: bool,
    /// `limits.output_bytes`.
    pub budget_bytes: u64,
    /// UTF-8 bytes of retained normalized text.
    pub retained_bytes: u64,
    /// Chunks omitted for their normalized size.
    pub omitted_frames: u64,
    /// Of those, chunks dropped before their final size was known.
    pub unknown_size_frames: u64,
}

/// Rendered terminal accounting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderedTerminalTruncation {
    /// Whether any rendered state was omitted.
    pub truncated: bool,
    /// `limits.output_bytes`.
    pub budget_bytes: u64,
    /// `limits.frames`.
    pub frame_limit: u64,
    /// Exactly determined bytes (serialized state + lines) of produced states.
    pub observed_bytes: u64,
    /// Bytes of retained states.
    pub retained_bytes: u64,
    /// States produced.
    pub observed_frames: u64,
    /// States retained.
    pub retained_frames: u64,
    /// States dropped before their final size was known.
    pub unknown_size_frames: u64,
}

/// Filesystem snapshot accounting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesystemTruncation {
    /// Whether any root is incomplete or any file lacks a digest.
    pub truncated: bool,
    /// `limits.files`.
    pub entry_limit: u64,
    /// `limits.filesystem_depth`.
    pub depth_limit: u64,
    /// Entries recorded.
    pub entries: u64,
    /// Whether an entry was left out because `entry_limit` was reached.
    pub entry_limit_reached: bool,
    /// Whether a directory's children were left out because of `depth_limit`.
    pub depth_limit_reached: bool,
    /// Per-root completeness of path enumeration.
    pub roots: Vec<RootCoverage>,
    /// Entries whose enumeration failed after they were seen.
    pub enumeration_omissions: Vec<EnumerationOmission>,
    /// `limits.file_bytes`.
    pub file_bytes_budget: u64,
    /// Bytes of files whose complete digest was recorded.
    pub bytes_hashed: u64,
    /// Regular files recorded without a digest.
    pub hash_omissions: Vec<HashOmission>,
}

/// Whether a root's path enumeration was exhausted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RootCoverage {
    /// `root_<i>`.
    pub root: String,
    /// True only when every path below the root was enumerated.
    pub complete: bool,
}

/// An entry whose enumeration failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnumerationOmission {
    /// Root-aliased path.
    pub path: String,
    /// `entry_unavailable` or `identity_changed`; also
    /// `unrepresentable_name` (at the directory holding a name that is not
    /// valid Unicode) and `unrepresentable_symlink_target` (at a symlink whose
    /// target is not valid Unicode), `redacted_name_collision` (at a path two
    /// entries share once secrets are redacted). See `docs/filesystem.md`.
    pub reason: EnumerationOmissionReason,
    /// The OS error code, or null.
    pub system_code: Option<i32>,
}

/// A regular file without a digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HashOmission {
    /// Root-aliased path.
    pub path: String,
    /// Its size.
    pub size: u64,
    /// Hash budget left when it was considered.
    pub remaining_budget: u64,
    /// `file_bytes_budget`, `file_changed_or_short_read` or `file_unavailable`;
    /// `interrupted` only in the partial observation of a stopped snapshot.
    pub reason: HashOmissionReason,
    /// The OS error code, or null.
    pub system_code: Option<i32>,
}

/// What the document bound left out: the tails of the areas below, in this
/// order, until the capture's `--json` document fit `budget_bytes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocumentTruncation {
    /// Always true when present.
    pub truncated: bool,
    /// The document bound: bytes of the capture as pretty JSON (`--json`).
    pub budget_bytes: u64,
    /// Bytes the document would have had with every retained observation.
    pub observed_bytes: u64,
    /// Rendered states left out (the latest intermediate ones first, the
    /// final screen last).
    pub omitted_rendered_frames: u64,
    /// Process samples left out (the latest first).
    pub omitted_process_samples: u64,
    /// Filesystem paths left out of both snapshots (the last in path order
    /// first); their roots are marked incomplete.
    pub omitted_paths: u64,
    /// Terminal chunks left out (the latest first).
    pub omitted_frames: u64,
}

/// Process sampling accounting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessTruncation {
    /// Whether sampling ended partially.
    pub truncated: bool,
    /// `sampled`, or `exact` when every fork, exec and exit was observed.
    pub coverage: ProcessCoverage,
    /// `limits.processes`.
    pub sample_limit: u64,
    /// Samples recorded.
    pub samples: u64,
    /// Whether observations were dropped at the limit.
    pub limit_reached: bool,
    /// Failed reads, plus at most one pass interrupted by shutdown.
    pub sampling_failures: u64,
    /// The first attributed failure.
    pub first_sampling_failure: Option<String>,
}

#[cfg(test)]
mod into_value_tests {
    use super::Frame;

    #[test]
    fn a_frame_moved_into_a_value_is_its_serde_serialization() {
        let full = Frame {
            sequence: 3,
            at_ms: 100,
            data: "a\u{FFFD}b <pid>".into(),
            raw_data: Some("a\u{FFFD}b 42".into()),
            invalid_utf8: Some("ff".into()),
        };
        let bare = Frame { raw_data: None, invalid_utf8: None, ..full.clone() };
        for frame in [full, bare] {
            assert_eq!(serde_json::to_value(&frame).unwrap(), frame.clone().into_value());
        }
    }
}
