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
    assert_eq!(
        names,
        [
            "pty_probe",
            "procfs",
            "pidfd",
            "child_subreaper",
            "parent_death_signal",
            "ptrace_exact_processes",
            "exact_processes_cpu_kept_awake",
            "cgroup_v2_delegation",
            "sha_extensions",
            "terminal_emulator"
        ]
    );
    for check in doc["checks"].as_array().unwrap() {
        let status = check["classification"].as_str().unwrap();
        assert!(["healthy", "degraded", "informational"].contains(&status), "{check}");
        assert!(!check["detail"].as_str().unwrap().is_empty(), "{check}");
    }
    let informational =
        ["exact_processes_cpu_kept_awake", "cgroup_v2_delegation", "sha_extensions", "terminal_emulator"];
    for check in
        doc["checks"].as_array().unwrap().iter().filter(|c| informational.contains(&c["name"].as_str().unwrap()))
    {
        assert_eq!(check["classification"], "informational", "{check}");
    }
    let probe = doc["checks"].as_array().unwrap().iter().find(|c| c["name"] == "pty_probe").unwrap();
    assert_eq!(probe["classification"], "healthy");
    assert!(probe["detail"].as_str().unwrap().contains("exited 0"));
    let ptrace = doc["checks"].as_array().unwrap().iter().find(|c| c["name"] == "ptrace_exact_processes").unwrap();
    assert_eq!(ptrace["classification"], "healthy", "{ptrace}");
    assert!(ptrace["detail"].as_str().unwrap().contains("PTRACE_SEIZE of a child works"), "{ptrace}");
    let emulator = doc["checks"].as_array().unwrap().iter().find(|c| c["name"] == "terminal_emulator").unwrap();
    assert_eq!(emulator["detail"], "rendered frames come from avt 0.19.0+rea.1");
}
