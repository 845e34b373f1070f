//! The committed projections of every scenario file in the repository
//! (`tests/fixtures/valid/`, `examples/`) and of a few written here, held
//! against goldens recorded before the projections became typed views: the
//! serialized text as a capture stores it, the canonical bytes and the
//! digests must never move, or every existing capture's identity would.
//!
//! Resolution is replaced by fixed host paths and a fixed executable digest,
//! so the goldens do not depend on the machine. To record them again after an
//! intended change: `REA_BLESS_COMMITMENTS=1 cargo test -p rea-engine
//! commit_golden`, then read the diff.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::resolve::normalize_lexically;
use super::{ResolvedScenario, comparison_contract, normalization_projection, parse_scenario, scenario_commitment};
use crate::evidence::{canonical_json, digest};

const GOLDEN: &str = "src/scenario/testdata/commitments.golden";

/// Scenario files of the repository, relative to the workspace root.
fn scenario_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["tests/fixtures/valid", "examples", "examples/compare"] {
        let entries = std::fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}"));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.extension().is_some_and(|e| e == "json") {
                files.push(path.strip_prefix(root).expect("below the root").to_owned());
            }
        }
    }
    files.sort();
    files
}

/// Scenarios that exercise what no file does.
fn written_here() -> Vec<(String, Value)> {
    vec![
        ("inline:no-replies".into(), json!({"executable": "sh", "terminal": {"answer_queries": false}})),
        (
            "inline:odd-environment-and-patterns".into(),
            json!({
                "executable": "./tool",
                "arguments": ["é", "\u{1f600}", ""],
                "environment": {"Z": "1", "A": "é", "_": ""},
                "filesystem_observation_paths": ["../up", "./a/../b", "/abs"],
                "normalization": {"ports": false, "patterns": [{"pattern": "é", "replacement": "e"}]},
                "events": [{"type": "input", "at_ms": 0, "data": "pass\u{e9}word\r\n", "sensitive": true}]
            }),
        ),
    ]
}

/// A resolution with fixed host paths: the working directory is
/// `/work/dir/<working_directory>` folded, the executable `/usr/bin/<name>`.
fn fixed_resolution(value: Value) -> ResolvedScenario {
    let scenario = parse_scenario(value).unwrap_or_else(|e| panic!("{e}"));
    let working_directory = normalize_lexically(&Path::new("/work/dir").join(&scenario.working_directory));
    let name = Path::new(&scenario.executable).file_name().expect("a file name").to_owned();
    ResolvedScenario {
        executable_path: Path::new("/usr/bin").join(name),
        argv0: scenario.executable.clone(),
        executable_sha256: "0123456789abcdef".repeat(4),
        observation_paths: scenario
            .filesystem_observation_paths
            .iter()
            .map(|p| normalize_lexically(&working_directory.join(p)))
            .collect(),
        working_directory,
        scenario,
    }
}

fn describe(out: &mut String, name: &str, r: &ResolvedScenario) {
    let parts = [
        ("scenario", scenario_commitment(r).expect("serialize")),
        ("comparison_contract", comparison_contract(r).expect("serialize")),
        ("normalization", normalization_projection(&r.scenario.normalization).expect("serialize")),
    ];
    for (part, value) in parts {
        let stored = serde_json::to_string(&value).expect("serialize");
        let canonical = String::from_utf8(canonical_json(&value).expect("canonical")).expect("UTF-8");
        let sha = digest(&value).expect("digest");
        let _ = writeln!(out, "== {name} {part}\nstored    {stored}\ncanonical {canonical}\nsha256    {sha}");
    }
}

fn current() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root");
    let mut out = String::new();
    for file in scenario_files(root) {
        let text = std::fs::read_to_string(root.join(&file)).expect("read");
        let value: Value = serde_json::from_str(&text).expect("JSON");
        describe(&mut out, &file.display().to_string(), &fixed_resolution(value));
    }
    for (name, value) in written_here() {
        describe(&mut out, &name, &fixed_resolution(value));
    }
    out
}

#[test]
fn commitments_of_every_scenario_file_match_their_goldens() {
    let golden_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    let now = current();
    if std::env::var_os("REA_BLESS_COMMITMENTS").is_some() {
        std::fs::write(&golden_path, &now).expect("write goldens");
    }
    let golden = std::fs::read_to_string(&golden_path).expect("goldens recorded");
    assert!(golden.matches("== ").count() >= 3 * 15, "too few scenarios in the goldens");
    for (line, (a, b)) in golden.lines().zip(now.lines()).enumerate() {
        assert_eq!(a, b, "{GOLDEN}:{}", line + 1);
    }
    assert_eq!(golden.lines().count(), now.lines().count(), "{GOLDEN}: number of lines");
}
