//! A private directory tree to run `rea` in, and checks that a run left it
//! untouched.
//!
//! Layout: `work/` is the current directory of `rea` and holds the inputs,
//! `home/` and `tmp/` are its `HOME` and `TMPDIR` (so a stray write to either
//! shows up in the snapshot), and `marker` is the file a launched scenario
//! command would create. `work/mark` is a helper program that creates the
//! marker, for fixtures whose breakage is in `executable` itself.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::SystemTime;

use serde_json::Value;

/// The placeholder fixtures use for the marker file's absolute path.
pub(crate) const MARKER_PLACEHOLDER: &[u8] = b"@MARKER@";

/// What a path looked like at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    dir: bool,
    len: u64,
    modified: Option<SystemTime>,
}

/// A temporary directory tree for one `rea` run.
pub(crate) struct Sandbox {
    root: tempfile::TempDir,
}

impl Sandbox {
    /// Creates the tree and the `work/mark` helper.
    pub(crate) fn new() -> Sandbox {
        let root = tempfile::Builder::new().prefix("rea-test-").tempdir().expect("create a temporary directory");
        let sandbox = Sandbox { root };
        for dir in ["work", "home", "tmp"] {
            fs::create_dir(sandbox.root().join(dir)).expect("create a sandbox directory");
        }
        let marker = sandbox.marker();
        let marker_text = marker.to_str().expect("temporary paths are UTF-8");
        assert!(
            marker_text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c)),
            "the marker path {marker_text} must need no quoting in JSON or sh"
        );
        let helper = sandbox.work().join("mark");
        fs::write(&helper, format!("#!/bin/sh\ntouch '{marker_text}'\n")).expect("write the marker helper");
        set_executable(&helper);
        sandbox
    }

    /// The sandbox root.
    pub(crate) fn root(&self) -> &Path {
        self.root.path()
    }

    /// The directory `rea` runs in.
    pub(crate) fn work(&self) -> PathBuf {
        self.root().join("work")
    }

    /// The file a launched scenario command would create.
    pub(crate) fn marker(&self) -> PathBuf {
        self.root().join("marker")
    }

    /// Writes `bytes` to `work/<name>`, with every marker placeholder replaced
    /// by the marker's absolute path, and returns the file's path.
    pub(crate) fn put(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.work().join(name);
        fs::write(&path, substitute_marker(bytes, self.marker().as_os_str())).expect("write a sandbox input");
        path
    }

    /// Runs `rea args...` in `work/` with a private `HOME` and `TMPDIR`.
    pub(crate) fn rea<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        self.command(args).stdout(Stdio::piped()).output().expect("run rea")
    }

    /// The command `rea args...` in `work/`, ready to be adjusted and run.
    pub(crate) fn command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        let mut command = Command::new(crate::util::rea_bin());
        command
            .args(args)
            .current_dir(self.work())
            .env("HOME", self.root().join("home"))
            .env("TMPDIR", self.root().join("tmp"))
            .stdin(Stdio::null())
            .stderr(Stdio::piped());
        command
    }

    /// Every path below the root with its kind, size and modification time.
    pub(crate) fn snapshot(&self) -> BTreeMap<PathBuf, Entry> {
        let mut out = BTreeMap::new();
        walk(self.root(), self.root(), &mut out);
        out
    }
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Entry>) {
    for entry in fs::read_dir(dir).expect("read a sandbox directory") {
        let entry = entry.expect("read a sandbox directory entry");
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).expect("stat a sandbox entry");
        let relative = path.strip_prefix(root).expect("entries lie below the root").to_owned();
        out.insert(relative, Entry { dir: meta.is_dir(), len: meta.len(), modified: meta.modified().ok() });
        if meta.is_dir() {
            walk(root, &path, out);
        }
    }
}

/// Describes how `after` differs from `before`, or `None` when it does not.
pub(crate) fn tree_changes(before: &BTreeMap<PathBuf, Entry>, after: &BTreeMap<PathBuf, Entry>) -> Option<String> {
    let mut changes = Vec::new();
    for (path, entry) in after {
        match before.get(path) {
            None => changes.push(format!("created {}", path.display())),
            // A directory's own time changes with its listing, which the
            // entries below it already report.
            Some(old) if old != entry && !entry.dir => changes.push(format!("modified {}", path.display())),
            Some(_) => {}
        }
    }
    changes.extend(before.keys().filter(|p| !after.contains_key(*p)).map(|p| format!("removed {}", p.display())));
    (!changes.is_empty()).then(|| changes.join(", "))
}

fn substitute_marker(bytes: &[u8], marker: &OsStr) -> Vec<u8> {
    let marker = marker.as_encoded_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = rest.windows(MARKER_PLACEHOLDER.len()).position(|w| w == MARKER_PLACEHOLDER) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(marker);
        rest = &rest[at + MARKER_PLACEHOLDER.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// Makes `path` executable by its owner.
pub(crate) fn set_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut permissions = fs::metadata(path).expect("stat a file").permissions();
    permissions.set_mode(0o755);
    fs::set_permissions(path, permissions).expect("make a file executable");
}

/// Checks that `output` is exactly one JSON error document on stdout with
/// exit status 1 and an empty stderr, and returns the document.
pub(crate) fn error_document(output: &Output) -> Result<Value, String> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() != Some(1) {
        return Err(format!("exit status {:?}, expected 1; stdout: {stdout}; stderr: {stderr}", output.status.code()));
    }
    if !stderr.is_empty() {
        return Err(format!("stderr is not empty: {stderr}"));
    }
    let document = parse_single_json(&stdout)?;
    match document.get("error") {
        Some(Value::String(s)) if s == "Process command failed" => Ok(document),
        _ => Err(format!("not an error document: {stdout}")),
    }
}

/// Parses `text` as exactly one JSON document followed by a newline.
pub(crate) fn parse_single_json(text: &str) -> Result<Value, String> {
    if !text.ends_with('\n') {
        return Err(format!("the document does not end in a newline: {text:?}"));
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let first = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => return Err(format!("stdout is not JSON ({e}): {text}")),
        None => return Err("stdout is empty".to_owned()),
    };
    if stream.next().is_some() {
        return Err(format!("stdout holds more than one JSON document: {text}"));
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitution_replaces_every_placeholder() {
        let out = substitute_marker(b"a@MARKER@b@MARKER@", OsStr::new("/m"));
        assert_eq!(out, b"a/mb/m");
        assert_eq!(substitute_marker(b"\xff@MARK", OsStr::new("/m")), b"\xff@MARK");
    }

    #[test]
    fn tree_changes_name_created_modified_and_removed_paths() {
        let sandbox = Sandbox::new();
        let before = sandbox.snapshot();
        assert_eq!(tree_changes(&before, &sandbox.snapshot()), None);
        sandbox.put("new.json", b"{}");
        fs::write(sandbox.work().join("mark"), b"changed, and longer than before").unwrap();
        fs::remove_dir(sandbox.root().join("home")).unwrap();
        let changes = tree_changes(&before, &sandbox.snapshot()).expect("changes are seen");
        assert!(changes.contains("created work/new.json"), "{changes}");
        assert!(changes.contains("modified work/mark"), "{changes}");
        assert!(changes.contains("removed home"), "{changes}");
    }
}
