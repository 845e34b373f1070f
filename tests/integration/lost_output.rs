//! A lost document never exits 0: a reader that closes the pipe early
//! (broken pipe) and a stdout closed when rea starts (`>&-`) both exit 4 and
//! say so on stderr, for every command that writes to stdout.

#![cfg(not(feature = "force-stub"))]

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;

use crate::util::{capture_file_in, rea_bin};

/// A scenario whose capture is several hundred KiB of JSON, far more than a
/// pipe holds, so a reader that stops early always breaks the pipe.
fn big_scenario(dir: &Path) {
    let scenario = json!({
        "executable": "sh",
        "arguments": ["-c", "seq 1 40000"],
        "timeout_ms": 20000
    });
    std::fs::write(dir.join("scenario.json"), scenario.to_string()).unwrap();
}

/// Runs `rea args` in `dir` with stdout on a pipe whose reader takes `take`
/// bytes and closes it; returns the exit status and stderr. With `take` 0
/// the read end is closed before rea starts, so its first write breaks the
/// pipe whatever the scheduling (a small document would otherwise fit in
/// the pipe before the reader closed it).
fn run_with_reader_quitting(dir: &Path, args: &[&str], take: usize) -> (Option<i32>, String) {
    let mut command = Command::new(rea_bin());
    command.args(args).current_dir(dir).env("TMPDIR", dir.join("tmp")).stdin(Stdio::null()).stderr(Stdio::piped());
    if take == 0 {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = command.stdout(writer).output().unwrap();
        return (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
    let mut first = vec![0u8; take];
    child.stdout.take().unwrap().read_exact(&mut first).expect("rea began its output");
    // The read end is closed here: every later write breaks the pipe.
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Runs `rea args` in `dir` through `sh -c 'exec rea ... >&-'`.
fn run_with_stdout_closed(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" >&-")
        .arg(rea_bin())
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", dir.join("tmp"))
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_reader_that_closes_the_pipe_early_makes_every_command_exit_4() {
    let dir = tempfile::tempdir().unwrap();
    big_scenario(dir.path());
    let capture = capture_file_in(dir.path(), "scenario.json");
    assert_eq!(capture.status.code(), Some(0), "{}", String::from_utf8_lossy(&capture.stderr));
    assert!(capture.stdout.len() > 256 * 1024, "the capture is {} bytes", capture.stdout.len());
    std::fs::write(dir.path().join("capture.json"), &capture.stdout).unwrap();

    // The reader takes the first 10 bytes of a document larger than the
    // pipe holds, or (for the small ones) closes before the first write.
    for (args, take) in [
        (&["capture-process", "scenario.json", "--json"][..], 10),
        (&["capture-process", "scenario.json"][..], 10),
        (&["show", "capture.json"][..], 0),
        (&["export-asciicast", "capture.json"][..], 0),
        (&["compare-process-captures", "capture.json", "capture.json", "--json"][..], 0),
        (&["compare-process-captures", "capture.json", "capture.json"][..], 0),
        (&["doctor"][..], 0),
        (&["completions", "bash"][..], 0),
    ] {
        let (status, stderr) = run_with_reader_quitting(dir.path(), args, take);
        assert_eq!(status, Some(4), "rea {args:?}: {stderr}");
        assert!(stderr.contains("broken pipe") && stderr.contains("is lost"), "rea {args:?}: {stderr}");
    }
}

#[test]
fn a_stdout_closed_at_start_makes_every_command_exit_4_before_running_anything() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tmp")).unwrap();
    // The scenario would leave a file behind if it ran.
    let scenario = json!({"executable": "sh", "arguments": ["-c", "echo ran > ran.txt"], "timeout_ms": 5000});
    std::fs::write(dir.path().join("scenario.json"), scenario.to_string()).unwrap();
    let capture = capture_file_in(dir.path(), "scenario.json");
    assert_eq!(capture.status.code(), Some(0), "{}", String::from_utf8_lossy(&capture.stderr));
    std::fs::remove_file(dir.path().join("ran.txt")).expect("the scenario writes ran.txt");
    std::fs::write(dir.path().join("capture.json"), &capture.stdout).unwrap();

    for args in [
        &["capture-process", "scenario.json", "--json"][..],
        &["compare-process-captures", "capture.json", "capture.json"][..],
        &["show", "capture.json"][..],
        &["export-asciicast", "capture.json"][..],
        &["doctor", "--json"][..],
        &["completions", "bash"][..],
        &["mcp"][..],
    ] {
        let (status, stderr) = run_with_stdout_closed(dir.path(), args);
        assert_eq!(status, Some(4), "rea {args:?}: {stderr}");
        assert!(stderr.contains("stdout is closed") && stderr.contains("nothing was run"), "rea {args:?}: {stderr}");
    }
    assert!(!dir.path().join("ran.txt").exists(), "the capture ran with stdout closed");
    // A stdout redirected to /dev/null is open: that is the user's choice.
    let out = Command::new(rea_bin()).args(["doctor", "--json"]).stdout(Stdio::null()).status().unwrap();
    assert_ne!(out.code(), Some(4));
}
