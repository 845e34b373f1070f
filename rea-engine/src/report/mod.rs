//! Reports over the typed records: what a person or a player reads from a
//! capture (the asciicast recording, the words and numbers the views share).
//! Every report reads a checked [`CaptureRecord`](crate::evidence::CaptureRecord),
//! never the JSON it was read from, so the CLI and the MCP server print the
//! same thing for the same record.

pub mod asciicast;
mod document;
pub mod grid;
pub mod text;

pub use asciicast::{ReportError, export};
pub use document::{Contents, Document, DocumentError, Identity, load_document};
pub use grid::{CellPen, Colour, Grid, GridCell};
pub use text::{
    CommittedScenario, ComparedCaptures, JournalOrder, SideCommandNames, command_line, escape_excerpt, exit_summary,
    iso8601_ms,
};
