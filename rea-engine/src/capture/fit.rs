//! The document bound: the `--json` document of every capture fits the
//! 64 MiB that `rea` reads back.
//!
//! Each area keeps its own budget (`limits.*`, counted in UTF-8 bytes and
//! items as the specification says), but those budgets do not count JSON
//! encoding: a control character is six bytes in JSON, every empty rendered
//! line costs its indentation, and the filesystem snapshots appear again in
//! the effects. So after assembly the whole document is measured as it would
//! be written, and when it exceeds [`DOCUMENT_BUDGET_BYTES`] the tails of the
//! areas are left out in a fixed order until it fits:
//!
//! 1. intermediate rendered states (they can be rebuilt from the chunks),
//!    the latest first;
//! 2. process samples, the latest first;
//! 3. filesystem paths, the last in path order first, from both snapshots
//!    together (their roots become incomplete, so no absence is claimed);
//! 4. terminal chunks, the latest first;
//! 5. the final rendered screen.
//!
//! Each affected area is marked truncated with its retained counts lowered,
//! and `truncation_details.document` says what was left out. What remains
//! (the manifest with the scenario, the interactions, exit, settlement and
//! accounting) is bounded by the scenario bounds; `fixed_part_tests` builds
//! its largest case.

use serde_json::Value;

use crate::evidence::{
    CaptureRecord, DocumentTruncation, FileState, FilesystemTruncation, JournalCollection, capture_document_bytes,
    pretty_bytes,
};
use crate::fs::{Snapshot, effects, utf16_cmp};

/// The largest capture document `rea` writes: 60 MiB of pretty JSON, under
/// the 64 MiB input limit with room for a reader's own line endings.
pub const DOCUMENT_BUDGET_BYTES: u64 = 60 * 1024 * 1024;

/// Limitation when the document bound left observations out.
pub fn document_limitation(d: &DocumentTruncation) -> String {
    format!(
        "The capture's JSON document would have been {} bytes, above the {}-byte document bound, so it leaves out \
         {} rendered states, {} process samples, {} filesystem paths and {} terminal chunks (the latest of each; see \
         truncation_details.document).",
        d.observed_bytes,
        d.budget_bytes,
        d.omitted_rendered_frames,
        d.omitted_process_samples,
        d.omitted_paths,
        d.omitted_frames
    )
}

/// Fits `record`, sealed with `parameters`, into `budget` bytes of `--json`
/// output (see the module documentation). A record that already fits is
/// left as it is.
pub fn fit_document(record: &mut CaptureRecord, parameters: &Value, budget: u64) -> Result<(), serde_json::Error> {
    let observed = capture_document_bytes(record, parameters)?;
    if observed <= budget {
        return Ok(());
    }
    let mut fit = Fit::new(record, budget, observed);
    let mut size = observed;
    loop {
        // Costs are estimated per item; the reserve covers the accounting and
        // the limitation this adds, and the brackets of arrays left empty.
        let shed = fit.shed(record, size - budget + RESERVE_BYTES)?;
        fit.publish(record);
        size = capture_document_bytes(record, parameters)?;
        if size <= budget {
            return Ok(());
        }
        if !shed {
            return Err(serde::ser::Error::custom(format!(
                "the capture document is {size} bytes with every sheddable observation left out, above the \
                 {budget}-byte document bound; the scenario's bounds should have prevented this"
            )));
        }
    }
}

/// Bytes set aside for what fitting adds: `truncation_details.document` and
/// the limitation (twice: in the record and the envelope).
const RESERVE_BYTES: u64 = 2048;

/// Bytes an array element adds: a newline, its indentation, the element and
/// a separating comma.
fn element_cost<T: serde::Serialize>(item: &T, depth: u64) -> Result<u64, serde_json::Error> {
    Ok(pretty_bytes(item, depth)? + 2 * depth + 2)
}

/// Depth of the elements of the record's arrays in the envelope.
const ELEMENT_DEPTH: u64 = 3;

/// The shedding in progress: what was left out so far.
struct Fit {
    account: DocumentTruncation,
    /// The final screen's index in the journal as last published.
    final_index: u64,
    /// Rendered states kept from the front (the final screen is counted apart).
    rendered_prefix: usize,
    final_screen_kept: bool,
    /// Filesystem paths at or after this one (UTF-16 order) are left out.
    cut: Option<String>,
}

impl Fit {
    fn new(record: &CaptureRecord, budget: u64, observed: u64) -> Fit {
        let rendered = record.rendered_frames.len();
        Fit {
            account: DocumentTruncation {
                truncated: true,
                budget_bytes: budget,
                observed_bytes: observed,
                omitted_rendered_frames: 0,
                omitted_process_samples: 0,
                omitted_paths: 0,
                omitted_frames: 0,
            },
            final_index: rendered.saturating_sub(1) as u64,
            rendered_prefix: rendered.saturating_sub(1),
            final_screen_kept: rendered > 0,
            cut: None,
        }
    }

    /// Leaves out at least `excess` bytes' worth of observations (by
    /// estimate), in the fixed order; false when nothing was left to shed.
    fn shed(&mut self, record: &mut CaptureRecord, mut excess: u64) -> Result<bool, serde_json::Error> {
        let before = self.omitted();
        excess = self.shed_intermediate_screens(record, excess)?;
        excess = self.shed_samples(record, excess)?;
        excess = self.shed_paths(record, excess)?;
        excess = self.shed_frames(record, excess)?;
        if excess > 0 && self.final_screen_kept {
            self.final_screen_kept = false;
            self.account.omitted_rendered_frames += 1;
        }
        Ok(self.omitted() > before)
    }

    fn omitted(&self) -> u64 {
        let a = &self.account;
        a.omitted_rendered_frames + a.omitted_process_samples + a.omitted_paths + a.omitted_frames
    }

    fn shed_intermediate_screens(&mut self, record: &CaptureRecord, mut excess: u64) -> Result<u64, serde_json::Error> {
        while excess > 0 && self.rendered_prefix > 0 {
            let frame = &record.rendered_frames[self.rendered_prefix - 1];
            excess = excess.saturating_sub(element_cost(frame, ELEMENT_DEPTH)? + JOURNAL_ENTRY_COST);
            self.rendered_prefix -= 1;
            self.account.omitted_rendered_frames += 1;
        }
        Ok(excess)
    }

    fn shed_samples(&mut self, record: &mut CaptureRecord, mut excess: u64) -> Result<u64, serde_json::Error> {
        while excess > 0
            && let Some(sample) = record.process_samples.pop()
        {
            excess = excess.saturating_sub(element_cost(&sample, ELEMENT_DEPTH)? + JOURNAL_ENTRY_COST);
            self.account.omitted_process_samples += 1;
        }
        Ok(excess)
    }

    fn shed_frames(&mut self, record: &mut CaptureRecord, mut excess: u64) -> Result<u64, serde_json::Error> {
        while excess > 0
            && let Some(frame) = record.frames.pop()
        {
            excess = excess.saturating_sub(element_cost(&frame, ELEMENT_DEPTH)? + JOURNAL_ENTRY_COST);
            let raw = &mut record.truncation_details.raw_terminal;
            raw.truncated = true;
            raw.retained_chunks = raw.retained_chunks.saturating_sub(1);
            let original = frame.raw_data.as_ref().unwrap_or(&frame.data).len() as u64;
            raw.retained_bytes = raw.retained_bytes.saturating_sub(original);
            if let Some(normalized) = &mut record.truncation_details.normalized_terminal {
                normalized.retained_bytes = normalized.retained_bytes.saturating_sub(frame.data.len() as u64);
            }
            self.account.omitted_frames += 1;
        }
        Ok(excess)
    }

    /// Moves the filesystem cut back over whole paths (as the effects list
    /// them) until `excess` is covered, then rebuilds both snapshots and the
    /// effects below the cut.
    fn shed_paths(&mut self, record: &mut CaptureRecord, mut excess: u64) -> Result<u64, serde_json::Error> {
        let mut moved = false;
        while excess > 0
            && let Some(effect) = record.filesystem_effects.pop()
        {
            let states = effect.before.iter().chain(effect.after.iter());
            let copies: u64 = states.map(|s| element_cost(s, ELEMENT_DEPTH)).sum::<Result<u64, _>>()?;
            excess = excess.saturating_sub(element_cost(&effect, ELEMENT_DEPTH)? + copies);
            self.cut = Some(effect.path);
            self.account.omitted_paths += 1;
            moved = true;
        }
        if moved && let Some(cut) = &self.cut {
            let below = |path: &str| utf16_cmp(path, cut).is_lt();
            let before =
                cut_snapshot(&mut record.files_before, &mut record.truncation_details.filesystem_before, below);
            let after = cut_snapshot(&mut record.files_after, &mut record.truncation_details.filesystem_after, below);
            record.filesystem_effects = effects(&before, &after);
            (record.files_before, record.truncation_details.filesystem_before) = (before.files, before.truncation);
            (record.files_after, record.truncation_details.filesystem_after) = (after.files, after.truncation);
        }
        Ok(excess)
    }

    /// Writes the accounting, the limitation, the rendered states, the
    /// journal and the `truncated` flag for what has been left out so far.
    fn publish(&mut self, record: &mut CaptureRecord) {
        let td = &mut record.truncation_details;
        if self.account.omitted_rendered_frames > 0 {
            let rendered = &mut td.rendered_terminal;
            let keep_final = self.final_screen_kept && record.rendered_frames.len() > self.rendered_prefix;
            let last = if keep_final { record.rendered_frames.pop() } else { None };
            for gone in record.rendered_frames.drain(self.rendered_prefix..) {
                let bytes = gone.serialized_state.len() as u64 + gone.lines.text_bytes();
                rendered.retained_frames = rendered.retained_frames.saturating_sub(1);
                rendered.retained_bytes = rendered.retained_bytes.saturating_sub(bytes);
            }
            if let Some(mut last) = last {
                last.sequence = record.rendered_frames.len() as u64;
                record.rendered_frames.push(last);
            }
            rendered.truncated = true;
            renumber_screens(&mut record.interaction_events, self.rendered_prefix as u64, self.final_index, keep_final);
        }
        if self.account.omitted_process_samples > 0 {
            td.process.truncated = true;
            td.process.samples = record.process_samples.len() as u64;
        }
        td.document = Some(self.account.clone());
        self.rebuild_journal(record);
        let limitation = document_limitation(&self.account);
        match record.limitations.iter_mut().find(|l| l.starts_with(LIMITATION_START)) {
            Some(existing) => *existing = limitation,
            None => record.limitations.push(limitation),
        }
        record.truncated = record.truncation_details.any_truncated();
    }

    /// Keeps the journal entries of retained observations, in their order.
    fn rebuild_journal(&mut self, record: &mut CaptureRecord) {
        let frames = record.frames.len() as u64;
        let samples = record.process_samples.len() as u64;
        let prefix = self.rendered_prefix as u64;
        let final_index = self.final_index;
        record.event_journal.retain_mut(|e| match e.collection {
            JournalCollection::Frames => e.index < frames,
            JournalCollection::ProcessSamples => e.index < samples,
            JournalCollection::RenderedFrames if e.index < prefix => true,
            JournalCollection::RenderedFrames => {
                let kept = self.final_screen_kept && e.index == final_index;
                e.index = prefix;
                kept
            }
            JournalCollection::InteractionEvents | JournalCollection::Lifecycle => true,
        });
        for (i, e) in record.event_journal.iter_mut().enumerate() {
            e.capture_order = i as u64;
        }
        self.final_index = prefix;
    }
}

/// Events that saw a frame left out lose their `screen_before`; one that saw
/// the final screen (`final_index`, kept at `prefix`) follows it.
fn renumber_screens(events: &mut [crate::evidence::InteractionEvent], prefix: u64, final_index: u64, kept: bool) {
    use crate::evidence::ScreenBefore;
    for e in events {
        if let ScreenBefore::Frame(n) = e.screen_before
            && n >= prefix
        {
            e.screen_before =
                if kept && n == final_index { ScreenBefore::Frame(prefix) } else { ScreenBefore::NotRecorded };
        }
    }
}

/// The start of [`document_limitation`], to find it again.
const LIMITATION_START: &str = "The capture's JSON document would have been";

/// Bytes one journal entry adds, at most (its indexes have at most 20 digits each).
const JOURNAL_ENTRY_COST: u64 = 140;

/// Keeps the entries of one snapshot whose path is `below` the cut; a root
/// that lost an entry is no longer complete.
fn cut_snapshot(
    files: &mut Vec<FileState>,
    truncation: &mut FilesystemTruncation,
    below: impl Fn(&str) -> bool,
) -> Snapshot {
    let mut files = std::mem::take(files);
    let mut truncation = truncation.clone();
    let root_of = |path: &str| path.split_once(':').map_or(path, |(root, _)| root).to_owned();
    for lost in files.iter().filter(|f| !below(&f.path)) {
        let root = root_of(&lost.path);
        for coverage in truncation.roots.iter_mut().filter(|c| c.root == root) {
            coverage.complete = false;
        }
    }
    files.retain(|f| below(&f.path));
    truncation.hash_omissions.retain(|o| below(&o.path));
    truncation.enumeration_omissions.retain(|o| below(&o.path));
    truncation.entries = files.len() as u64;
    truncation.truncated = true;
    Snapshot { files, truncation }
}
