//! `--junit FILE`, read by a real JUnit parser (junitparser, installed by
//! ci/setup-junit.sh; `$REA_JUNIT_PYTHON`, by default
//! target/junit-venv/bin/python). Missing means skipped locally, failed in CI.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::{run_suite, script, write};

fn python() -> Option<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = std::env::var_os("REA_JUNIT_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target/junit-venv/bin/python"));
    let usable =
        Command::new(&path).args(["-c", "import junitparser"]).stdin(Stdio::null()).status().is_ok_and(|s| s.success());
    if usable {
        return Some(path);
    }
    let why = format!("junitparser not installed at {} (run ci/setup-junit.sh)", path.display());
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("skipped: {why}");
    None
}

const READER: &str = r#"
import json, sys
from junitparser import JUnitXml, Failure, Error, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
out = {"suites": [], "cases": {}}
for suite in xml:
    out["suites"].append({"name": suite.name, "tests": suite.tests, "failures": suite.failures,
                          "errors": suite.errors, "skipped": suite.skipped})
    for case in suite:
        kinds = [type(r).__name__ + ":" + (r.message or "") for r in case.result]
        out["cases"][case.name] = kinds
print(json.dumps(out))
"#;

#[test]
fn junit_is_read_by_a_junit_parser() {
    let Some(python) = python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    script(dir, "tools/a", "echo \"$1\"");
    script(dir, "tools/b", "case \"$1\" in changed) echo other ;; *) echo \"$1\" ;; esac");
    write(dir, "suite.json", &json!({
        "name": "a <tricky> & \"quoted\" suite",
        "sides": {"authority": {"executable": "tools/a"}, "reconstruction": {"executable": "tools/b"}},
        "cases": [
            {"name": "same", "scenario": {"arguments": ["same"], "filesystem_observation_paths": ["."]}},
            {"name": "changed", "scenario": {"arguments": ["changed"], "filesystem_observation_paths": ["."]}},
            {"name": "unknown", "scenario": {"arguments": ["unknown"]}},
            {"name": "error", "scenario": {"executable": "sh", "arguments": ["-c", "{side} x"], "environment": {"PATH": "/nonexistent"}}}
        ]
    }).to_string());
    let run = run_suite(dir, "suite.json", &["--out", "out", "--junit", "junit.xml"]);
    assert_eq!(run.status, 1, "{}\n{}", run.stderr, run.stdout);
    let read = Command::new(python).args(["-c", READER]).arg(dir.join("junit.xml")).output().unwrap();
    assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
    let parsed: Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(
        parsed["suites"],
        json!([{"name": "a <tricky> & \"quoted\" suite", "tests": 4, "failures": 1, "errors": 1, "skipped": 1}])
    );
    let cases = &parsed["cases"];
    assert_eq!(cases["same"], json!([]));
    assert_eq!(cases["changed"], json!(["Failure:terminal differs at terminal.segments[0]"]));
    let error = cases["error"][0].as_str().unwrap();
    assert!(error.starts_with("Error:") && error.contains("was not found"), "{error}");
    let skipped = cases["unknown"][0].as_str().unwrap();
    assert!(skipped.starts_with("Skipped:unknown: "), "{skipped}");
}
