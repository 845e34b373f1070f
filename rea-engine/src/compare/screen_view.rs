//! The two screens of a screen-lens divergence, as the comparison record
//! holds them and `rea show` draws them: the screens, the differing cells,
//! and the attributes a cell's pen can differ in.

use serde::{Deserialize, Serialize};

use crate::evidence::vocabulary::vocabulary;

vocabulary! {
    /// An attribute of a screen cell's pen (`first_divergence` rows).
    CellAttribute {
        /// SGR 1.
        Bold = "bold",
        /// SGR 2.
        Faint = "faint",
        /// SGR 3.
        Italic = "italic",
        /// SGR 4.
        Underline = "underline",
        /// SGR 5.
        Blink = "blink",
        /// SGR 7.
        Inverse = "inverse",
        /// SGR 9.
        Strikethrough = "strikethrough",
    }
}

/// One screen as the screen lens read it: what `rea show` draws.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenView {
    /// Width in cells.
    pub columns: u16,
    /// Height in cells.
    pub rows: u16,
    /// Cursor column, from 0.
    pub cursor_x: u16,
    /// Cursor row, from 0.
    pub cursor_y: u16,
    /// Whether the cursor is shown.
    pub cursor_visible: bool,
    /// `normal` or `alternate`.
    pub active_buffer: crate::evidence::ActiveBuffer,
    /// Each row's text (a wide character once, a joined cell's whole text),
    /// trailing U+0020 removed.
    pub lines: Vec<String>,
    /// The frame's `serialized_state`, from which a view draws every cell
    /// with its colours and attributes; absent for a blank screen (and in
    /// comparisons made before it was written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serialized_state: Option<String>,
}

/// Differing cells of one row: columns `from..=to` (from 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellRun {
    /// Row, from 1.
    pub row: usize,
    /// First differing column, from 1.
    pub from: usize,
    /// Last differing column of the run, from 1.
    pub to: usize,
}

/// The two screens a screen-lens divergence lies in, and where they differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenPair {
    /// The left screen.
    pub left: ScreenView,
    /// The right screen.
    pub right: ScreenView,
    /// The differing cells, row by row, in runs.
    pub differing_cells: Vec<CellRun>,
}
