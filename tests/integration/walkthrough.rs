//! README's "Find the difference" walkthrough, run as written: its shell
//! block with the built `rea` first on `PATH`, from the checkout, with the
//! temporary directory inside the test's own.
#![cfg(not(feature = "force-stub"))]

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::frames_text;

/// The shell block between the walkthrough markers of README.md.
fn walkthrough_block() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme.find("<!-- walkthrough:begin").expect("README has the walkthrough begin marker");
    let end = readme.find("<!-- walkthrough:end -->").expect("README has the walkthrough end marker");
    let section = &readme[start..end];
    let body = section.split_once("```sh\n").expect("a ```sh block").1;
    body.split_once("```").expect("the block is closed").0.to_owned()
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Whether two captures' records are equal once the timing fields that a
/// comparison without timing tolerance still compares are removed.
fn equal_but_for_timing(left: &Value, right: &Value, dimension: &str) -> bool {
    let strip = |record: &Value| -> Value {
        let mut r = record["normalized_result"].clone();
        for event in r["interaction_events"].as_array_mut().into_iter().flatten() {
            event["dispatched_at_ms"] = Value::Null;
        }
        r["settlement"]["elapsed_ms"] = Value::Null;
        r
    };
    let (l, r) = (strip(left), strip(right));
    match dimension {
        "interaction" => l["interaction_events"] == r["interaction_events"],
        "exit" => l["exit"] == r["exit"] && l["settlement"] == r["settlement"],
        _ => false,
    }
}

#[test]
fn the_readme_walkthrough_finds_exactly_the_planted_difference() {
    let block = walkthrough_block();
    assert!(block.contains("rea compare-process-captures"), "{block}");
    let tmp = tempfile::tempdir().unwrap();
    let bin_dir = crate::util::rea_bin().parent().unwrap().to_owned();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &block])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PATH", path)
        .env("TMPDIR", tmp.path())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "walkthrough failed: {}\n{shown}", String::from_utf8_lossy(&out.stderr));

    // `out=$(mktemp -d)` made the only directory in TMPDIR.
    let dirs: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let comparison = read(&dirs[0].join("comparison.json"));
    let (left, right) = (read(&dirs[0].join("authority.json")), read(&dirs[0].join("reconstruction.json")));
    let result = &comparison["normalized_result"];
    assert_eq!(result["status"], "changed");

    let mut changed = Vec::new();
    for d in result["dimensions"].as_array().unwrap() {
        let name = d["dimension"].as_str().unwrap();
        match (name, d["status"].as_str().unwrap()) {
            ("terminal", status) => assert_eq!(status, "changed"),
            // Sampled or unobserved: never claimed unchanged.
            ("filesystem" | "process", status) => assert_eq!(status, "unknown", "{name}"),
            (_, "unchanged") => {}
            // Until comparisons list differences (and tolerate jitter), a
            // change elsewhere must be scheduling jitter only.
            (_, "changed") if d.get("differences").is_none() => {
                assert!(equal_but_for_timing(&left, &right, name), "{name} changed beyond timing: {d}");
            }
            (_, status) => changed.push(format!("{name}: {status}")),
        }
        if let Some(differences) = d.get("differences").and_then(Value::as_array)
            && name == "terminal"
        {
            assert_eq!(differences.len(), 1, "{differences:?}");
            let (l, r) = (differences[0]["left"].to_string(), differences[0]["right"].to_string());
            assert!(l.contains("13.50") && !r.contains("13.50") && r.contains("13.5"), "{l} / {r}");
        }
    }
    assert!(changed.is_empty(), "unexpected dimension changes: {changed:?}");

    // The programs' text differs in the total only (however the PTY chunked it).
    let (left_text, right_text) = (frames_text(&left["normalized_result"]), frames_text(&right["normalized_result"]));
    assert!(left_text.contains("Total: 13.50 EUR\r\n"), "{left_text:?}");
    assert_eq!(left_text.replace("13.50", "13.5"), right_text);

    // The earliest difference is in the output, or the command line (which
    // differs by design and is in the process samples).
    let divergence = &result["first_divergence"];
    let earliest =
        if divergence.get("dimension").is_some() { divergence } else { &divergence["earliest_observed_difference"] };
    match earliest["dimension"].as_str() {
        Some("terminal") => assert_ne!(earliest["left"]["data"], earliest["right"]["data"], "{earliest}"),
        Some("process") => assert_ne!(earliest["left"]["command"], earliest["right"]["command"], "{earliest}"),
        other => panic!("first divergence in {other:?}: {divergence}"),
    }

    // `rea show` of the comparison says so.
    assert!(shown.contains("verdict    changed"), "{shown}");
    assert!(shown.lines().any(|l| l.trim_start().starts_with("terminal") && l.contains("changed")), "{shown}");
    assert!(shown.contains("identity   verified"), "{shown}");
}
