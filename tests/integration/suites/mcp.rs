//! MCP `run_suite` through the official Python SDK (tests/mcp/suite_client.py):
//! the record it returns is the suite.json it writes, one progress
//! notification per finished case, invalid arguments and suites refused.

use std::process::{Command, Stdio};

use serde_json::Value;

use super::script;

#[test]
fn python_sdk_runs_a_suite_with_a_progress_notification_per_case() {
    let Some(python) = crate::mcp::python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    script(tmp.path(), "tools/say", "echo \"$1\"");
    script(tmp.path(), "tools/say-too", "case \"$1\" in beta) echo BETA ;; *) echo \"$1\" ;; esac");
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(python)
        .arg(repo.join("tests/mcp/suite_client.py"))
        .arg("--rea")
        .arg(crate::util::rea_bin())
        .arg("--workdir")
        .arg(tmp.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the MCP client failed:\n{}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    let summary: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();
    assert_eq!(summary["checks"].as_array().unwrap().len(), 6, "{summary}");
    assert_eq!(summary["progress"].as_array().unwrap().len(), 3, "{summary}");
}
