//! `rea doctor` on Linux: real checks, capture available.
#![cfg(not(feature = "force-stub"))]

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::rea_bin;

#[test]
fn doctor_runs_the_linux_checks_and_reports_capture_available() {
    let out = Command::new(rea_bin()).args(["doctor", "--json"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["healthy"], true);
    assert_eq!(doc["platform"], "linux");
    assert_eq!(doc["capabilities"]["capture_process"]["available"], true);
    let names: Vec<&str> = doc["checks"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["procfs", "pidfd", "pty_probe"]);
    let probe = doc["checks"].as_array().unwrap().iter().find(|c| c["name"] == "pty_probe").unwrap();
    assert_eq!(probe["classification"], "healthy");
    assert!(probe["detail"].as_str().unwrap().contains("exited 0"));
}
