//! The recorded chunks that rebuild a sensitive input on screen from pieces
//! lose their text before the record is sealed (`secrets::pieces` finds
//! them by replaying the chunks and resizes in the journal's order).

use crate::evidence::{CaptureRecord, InteractionKind, InteractionOutcome, JournalCollection};
use crate::scenario::Terminal;
use crate::secrets::{ReplayStep, Secrets, pieces_limitation};

/// Replaces the text of the chunks that draw a secret on a replay of
/// `record`'s frames, and says so in a limitation placed after `after` (the
/// redaction limitation) when the record has it.
pub(super) fn drop_rebuilt_pieces(
    record: &mut CaptureRecord,
    secrets: &Secrets,
    terminal: &Terminal,
    after: Option<&str>,
) {
    if !secrets.is_active() {
        return;
    }
    let steps = replay_steps(record);
    let replay = crate::secrets::Replay { columns: terminal.columns, rows: terminal.rows, steps: &steps };
    let dropped = secrets.drop_rebuilt_pieces(&mut record.frames, replay);
    let Some(limitation) = pieces_limitation(&dropped) else { return };
    let at =
        after.and_then(|a| record.limitations.iter().position(|l| l == a)).map_or(record.limitations.len(), |i| i + 1);
    record.limitations.insert(at, limitation);
}

/// The chunks and the dispatched resizes in the journal's order (the order
/// a replay of the record, the asciicast export's included, uses).
fn replay_steps(record: &CaptureRecord) -> Vec<ReplayStep> {
    let step = |entry: &crate::evidence::JournalEntry| {
        let index = usize::try_from(entry.index).ok()?;
        match entry.collection {
            JournalCollection::Frames => Some(ReplayStep::Frame(index)),
            JournalCollection::InteractionEvents => {
                let event = record.interaction_events.get(index)?;
                let resized = event.kind == InteractionKind::Resize && event.outcome == InteractionOutcome::Dispatched;
                let (columns, rows) = event.data.split_once('x').filter(|_| resized)?;
                Some(ReplayStep::Resize { columns: columns.parse().ok()?, rows: rows.parse().ok()? })
            }
            _ => None,
        }
    };
    record.event_journal.iter().filter_map(step).collect()
}
