//! Helpers for running the built `rea` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

/// Path of the `rea` binary under test.
pub(crate) fn rea_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea"))
}

/// The result of one `rea capture-process --json` run.
pub(crate) struct Capture {
    /// The directory the scenario ran in (`scenario.json`, and `tmp/` as TMPDIR).
    pub(crate) dir: TempDir,
    /// Exit status.
    pub(crate) status: i32,
    /// Raw stdout.
    pub(crate) stdout: String,
    /// Raw stderr.
    pub(crate) stderr: String,
    /// The parsed stdout document.
    pub(crate) document: Value,
    /// The `rea_progress` objects from stderr, in order.
    pub(crate) progress: Vec<Value>,
}

/// Runs `rea capture-process FILE --json` in `dir`, with `dir/tmp` (created
/// here) as its temporary directory, and no standard input.
pub(crate) fn capture_file_in(dir: &Path, file: &str) -> Output {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).expect("create tmp");
    Command::new(rea_bin())
        .args(["capture-process", file, "--json"])
        .current_dir(dir)
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .output()
        .expect("run rea")
}

/// Captures `scenario` in a fresh directory.
pub(crate) fn capture(scenario: Value) -> Capture {
    capture_in(tempfile::tempdir().expect("temp dir"), scenario)
}

/// Captures `scenario` in `dir`, with `dir/tmp` as the temporary directory.
/// Every stderr line must be a progress line.
pub(crate) fn capture_in(dir: TempDir, scenario: Value) -> Capture {
    std::fs::write(dir.path().join("scenario.json"), scenario.to_string()).expect("write scenario");
    let out = capture_file_in(dir.path(), "scenario.json");
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8(out.stderr).expect("stderr is UTF-8");
    let document: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stdout}"));
    let progress = stderr
        .lines()
        .map(|line| {
            let v: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("stderr line is not JSON ({e}): {line}"));
            v.get("rea_progress").cloned().unwrap_or_else(|| panic!("stderr line is not progress: {line}"))
        })
        .collect();
    Capture { dir, status: out.status.code().unwrap_or(-1), stdout, stderr, document, progress }
}

/// The concatenated original text of a capture record's frames.
pub(crate) fn frames_text(record: &Value) -> String {
    record["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| f.get("raw_data").and_then(Value::as_str).or_else(|| f["data"].as_str()).unwrap_or_default())
        .collect()
}

/// Polls `condition` until it holds or `deadline` passes.
pub(crate) fn wait_for(deadline: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + deadline;
    loop {
        if condition() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `rea` with `args` in `dir`, with no stdin.
pub(crate) fn rea(dir: &Path, args: &[&str]) -> Output {
    Command::new(rea_bin()).args(args).current_dir(dir).stdin(Stdio::null()).output().expect("run rea")
}

/// Every file under `dir`, recursively, with its bytes.
pub(crate) fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push((path.display().to_string(), std::fs::read(&path).expect("read file")));
        }
    }
    out
}

/// The shell block between `<!-- BEGIN` and `<!-- END -->` in README.md.
pub(crate) fn readme_block(begin: &str, end: &str) -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme.find(&format!("<!-- {begin}")).unwrap_or_else(|| panic!("README has the {begin} marker"));
    let stop = readme.find(&format!("<!-- {end} -->")).unwrap_or_else(|| panic!("README has the {end} marker"));
    let body = readme[start..stop].split_once("```sh\n").expect("a ```sh block").1;
    body.split_once("```").expect("the block is closed").0.to_owned()
}

/// Runs a README shell block as a newcomer would: `bash -euo pipefail`,
/// from the checkout, the built `rea` first on `PATH`, `tmp` as TMPDIR.
pub(crate) fn run_readme_block(block: &str, tmp: &Path) -> Output {
    let bin_dir = rea_bin().parent().unwrap().to_owned();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    Command::new("bash")
        .args(["-euo", "pipefail", "-c", block])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PATH", path)
        .env("TMPDIR", tmp)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}
