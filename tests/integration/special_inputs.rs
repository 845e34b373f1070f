//! Inputs that are not regular files (a FIFO, a character device, a file
//! the kernel generates such as `/proc/self/status`) are refused at once,
//! naming the path, by every command that reads a scenario or a capture: no
//! hang, nothing launched.
//!
//! Linux backend only: the stub build's portable opener (the Windows
//! stub's) refuses a FIFO only as "a special file" and cannot tell kernel
//! filesystems apart, so these exact messages are not its contract.
#![cfg(not(feature = "force-stub"))]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::util::{rea_bin, wait_for};

/// Makes a FIFO named `name` in `dir` (no writer ever opens it).
pub(crate) fn make_fifo(dir: &Path, name: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    let status = Command::new("mkfifo").arg(&path).status().expect("run mkfifo");
    assert!(status.success(), "mkfifo failed");
    path
}

/// Runs `rea args` in `dir` and returns its status and stdout+stderr, or
/// fails the test if it has not exited within 20 s (it is killed then).
fn run_with_deadline(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(rea_bin())
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if !wait_for(Duration::from_secs(20), || child.try_wait().unwrap().is_some()) {
        let _ = child.kill();
        let _ = child.wait();
        panic!("rea {args:?} was still running after 20 s: it blocked on its input");
    }
    let out = child.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code(), text)
}

/// Every command that reads an input file refuses `input` (as the scenario,
/// or as the first capture) naming it and its type.
fn assert_refused_everywhere(dir: &Path, input: &str, kind: &str) {
    for args in [
        &["compare-process-captures", input, input, "--json"][..],
        &["show", input][..],
        &["export-asciicast", input][..],
        &["capture-process", input, "--json"][..],
    ] {
        let (status, text) = run_with_deadline(dir, args);
        assert_eq!(status, Some(1), "rea {args:?}: {text}");
        assert!(text.contains("input_not_regular_file"), "rea {args:?}: {text}");
        assert!(text.contains(&format!("{input} is not a regular file: it is {kind}")), "rea {args:?}: {text}");
    }
}

#[test]
fn a_fifo_given_as_any_input_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    make_fifo(dir.path(), "capture.json");
    assert_refused_everywhere(dir.path(), "capture.json", "a FIFO or pipe");
}

#[cfg(target_os = "linux")]
#[test]
fn a_proc_file_and_a_device_given_as_inputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert_refused_everywhere(dir.path(), "/proc/self/status", "a file the kernel generates as it is read");
    assert_refused_everywhere(dir.path(), "/dev/null", "a character device");
}
