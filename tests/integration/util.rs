//! Helpers for running the built `rea` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Path of the `rea` binary under test.
pub(crate) fn rea_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea"))
}

/// Runs `rea` with `args` in `dir`, with no stdin.
pub(crate) fn rea(dir: &Path, args: &[&str]) -> Output {
    Command::new(rea_bin()).args(args).current_dir(dir).stdin(Stdio::null()).output().expect("run rea")
}
