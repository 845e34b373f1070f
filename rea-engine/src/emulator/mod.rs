//! The terminal emulator: avt (chosen by measurement in
//! `docs/terminal-emulator.md`) behind rea's zero-width wrapper
//! (`cells.rs`), with the common control sequences read without avt's
//! parser (`csi.rs`) and, when the scrollback is never shown, the redraws
//! a full clear hides skipped (`redraw.rs`).
//!
//! It imports nothing of the engine, so both the capture's renderer
//! (`capture::render`, which feeds it every byte read from the PTY) and the
//! comparison's screen lens (`compare::screen`, which replays a recorded
//! `serialized_state` into it to read every cell) use the same emulator.

pub(crate) mod cells;
pub(crate) mod csi;
pub(crate) mod redraw;
#[cfg(test)]
mod redraw_tests;

pub(crate) use cells::Emulator;
