//! External tools some tests need (installed by `ci/setup-*.sh`): found, or
//! skipped with a message locally, or a failure in CI (`CI=true`).
#![cfg(not(feature = "force-stub"))]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `name` from `ci/`'s tool directory under `target/`, else from `PATH`.
pub(crate) fn find(name: &str, venv: &str) -> Option<PathBuf> {
    let installed = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ci-tools").join(venv).join("bin").join(name);
    if installed.is_file() {
        return Some(installed);
    }
    let on_path = Command::new(name).arg("-V").stdout(Stdio::null()).stderr(Stdio::null()).status();
    on_path.is_ok().then(|| PathBuf::from(name))
}

/// The tool, or `None` after printing "skipped" (locally); panics in CI.
pub(crate) fn require(name: &str, venv: &str, setup: &str) -> Option<PathBuf> {
    let found = find(name, venv);
    if found.is_none() {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{name} is not installed; CI must run {setup} first");
        eprintln!("skipped: {name} not installed (run {setup})");
    }
    found
}
