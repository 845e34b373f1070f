//! README's "Find the difference" walkthrough, run as written: its shell
//! block with the built `rea` first on `PATH`, from the checkout, with the
//! temporary directory inside the test's own.
#![cfg(not(feature = "force-stub"))]

use std::path::Path;

use serde_json::Value;

use crate::util::frames_text;

/// The shell block between the walkthrough markers of README.md.
fn walkthrough_block() -> String {
    crate::util::readme_block("walkthrough:begin", "walkthrough:end")
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_readme_walkthrough_finds_exactly_the_planted_difference() {
    let block = walkthrough_block();
    assert!(block.contains("rea compare-process-captures"), "{block}");
    let tmp = tempfile::tempdir().unwrap();
    let out = crate::util::run_readme_block(&block, tmp.path());
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "walkthrough failed: {}\n{shown}", String::from_utf8_lossy(&out.stderr));

    // `out=$(mktemp -d)` made the only directory in TMPDIR.
    let dirs: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let comparison = read(&dirs[0].join("comparison.json"));
    let (left, right) = (read(&dirs[0].join("authority.json")), read(&dirs[0].join("reconstruction.json")));
    let result = &comparison["normalized_result"];
    assert_eq!(result["status"], "changed");

    // The terminal changed, and so did the process tree (observed exactly:
    // the rewrite runs a different awk program); jitter within the timing
    // tolerance is not a difference, and unobserved dimensions are never
    // `unchanged`.
    let dimension = |name: &str| {
        result["dimensions"].as_array().unwrap().iter().find(|d| d["dimension"] == name).unwrap_or_else(|| {
            panic!("no {name} dimension: {result}");
        })
    };
    for (name, status) in [
        ("terminal", "changed"),
        ("interaction", "unchanged"),
        ("exit", "unchanged"),
        ("filesystem", "unknown"),
        ("process", "changed"),
    ] {
        assert_eq!(dimension(name)["status"], status, "{name}: {}", dimension(name));
    }
    let process = dimension("process")["differences"].to_string();
    assert!(process.contains("command=\\\"awk BEGIN { printf") && process.contains("{ print 3 * 4.5 }"), "{process}");

    // The terminal lists exactly the planted difference: `13.50` became `13.5`
    // on the Total line (line 3, after "Total: 13.5"), once in the text
    // stream and once on the final screen (row 3, the same column).
    let terminal = dimension("terminal");
    let differences = terminal["differences"].as_array().unwrap();
    assert_eq!(differences.len(), 2, "{differences:?}");
    let screen = &differences[1];
    assert_eq!(screen["path"], "terminal.screens[0].lines[2]", "{screen}");
    assert_eq!(screen["location"], serde_json::json!({"segment": 0, "row": 3, "column": 12}), "{screen}");
    assert_eq!((&screen["left"], &screen["right"]), (&"Total: 13.50 EUR".into(), &"Total: 13.5 EUR".into()));
    assert_eq!(terminal["differences_omitted"], 0, "{terminal}");
    let planted = &differences[0];
    assert_eq!(planted["path"], "terminal.segments[0]", "{planted}");
    let location = serde_json::json!({"segment": 0, "byte_offset": 45, "line": 3, "column": 12});
    assert_eq!(planted["location"], location, "{planted}");
    let (l, r) = (planted["left"].as_str().unwrap(), planted["right"].as_str().unwrap());
    assert!(l.ends_with("Total: 13.50 EUR\r\n"), "{l:?}");
    assert!(r.ends_with("Total: 13.5 EUR\r\n"), "{r:?}");

    // The programs' text differs in the total only (however the PTY chunked it).
    let (left_text, right_text) = (frames_text(&left["normalized_result"]), frames_text(&right["normalized_result"]));
    assert!(left_text.contains("Total: 13.50 EUR\r\n"), "{left_text:?}");
    assert_eq!(left_text.replace("13.50", "13.5"), right_text);

    // The first divergence is that difference: the Total line, not the
    // command lines in the process samples (which differ by design).
    let divergence = &result["first_divergence"];
    assert_eq!(divergence["status"], "found", "{divergence}");
    assert_eq!(divergence["dimension"], "terminal", "{divergence}");
    for key in ["path", "location", "left", "right"] {
        assert_eq!(divergence[key], planted[key], "{key}: {divergence}");
    }

    // `rea show` of the comparison says so.
    assert!(shown.contains("verdict    changed"), "{shown}");
    assert!(shown.lines().any(|l| l.trim_start().starts_with("terminal") && l.contains("changed")), "{shown}");
    assert!(shown.contains("identity   verified"), "{shown}");
    assert!(shown.contains("where    terminal.segments[0] (segment 0, byte offset 45, line 3, column 12)"), "{shown}");
    assert!(shown.contains("+ right: …\" x 4.50 EUR\\r\\nTotal: 13.5 EUR\\r\\n\""), "{shown}");
}
