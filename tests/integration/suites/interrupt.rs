//! Ctrl-C during a run: no case starts after it, the running captures are
//! cancelled and cleaned up, the finished cases stay in the out directory,
//! no suite.json is written, and nothing the run started outlives it.

use std::time::Duration;

use serde_json::json;

use super::{command, script, write};
use crate::util::wait_for;

/// PIDs whose environment holds `REA_TEST_MARK=<mark>`.
fn marked(mark: &str) -> Vec<u32> {
    let needle = format!("REA_TEST_MARK={mark}");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        if environ.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

#[test]
fn an_interrupted_run_keeps_the_finished_cases_and_leaves_no_process() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mark = format!("suite-interrupt-{}", std::process::id());
    script(dir, "tools/run", "if [ \"$1\" = quick ]; then echo done; else sleep 30; fi");
    let cases: Vec<_> = ["quick", "slow-1", "slow-2", "slow-3"]
        .iter()
        .map(|n| json!({"name": n, "scenario": {"arguments": [n], "environment": {"REA_TEST_MARK": mark}}}))
        .collect();
    write(
        dir,
        "suite.json",
        &json!({
            "sides": {"authority": {"executable": "tools/run"}, "reconstruction": {"executable": "tools/run"}},
            "cases": cases
        })
        .to_string(),
    );
    let child = command(dir, &["run-suite", "suite.json", "--json", "--jobs", "2", "--out", "out"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started =
        wait_for(Duration::from_secs(30), || dir.join("out/cases/quick").is_dir() && !marked(&mark).is_empty());
    assert!(started, "the quick case finished and a slow one runs");
    let pid = interrupt(child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(pid, 0);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let document: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(document["code"], "cancelled", "{document}");
    assert_eq!(document["details"]["signal"], "SIGINT", "{document}");
    assert_eq!(document["details"]["finished"], json!(["quick"]), "{document}");
    assert!(!dir.join("out/suite.json").exists());
    let cases: Vec<String> = std::fs::read_dir(dir.join("out/cases"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(cases, ["quick"], "only the finished case, no partial one");
    assert!(wait_for(Duration::from_secs(5), || marked(&mark).is_empty()), "left running: {:?}", marked(&mark));
}

/// Sends SIGINT with the `kill` command (the tests use no libc).
fn interrupt(pid: u32) -> i32 {
    std::process::Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap().code().unwrap_or(-1)
}
