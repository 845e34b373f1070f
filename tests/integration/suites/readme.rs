//! README's "Check a whole rewrite" block, run as written: with the built
//! `rea` first on `PATH`, from the checkout, the temporary directory inside
//! the test's own.

use serde_json::Value;

fn block() -> String {
    crate::util::readme_block("suite:begin", "suite:end")
}

#[test]
fn the_readme_suite_block_runs_as_written() {
    let block = block();
    assert!(block.contains("rea run-suite examples/suite/suite.json"), "{block}");
    let tmp = tempfile::tempdir().unwrap();
    let out = crate::util::run_readme_block(&block, tmp.path());
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "the block failed: {}\n{shown}", String::from_utf8_lossy(&out.stderr));
    assert!(shown.contains("exit status 3 (3: a case changed)"), "{shown}");
    assert!(shown.contains("4 case(s): unchanged 3, changed 1"), "{shown}");
    assert!(shown.contains("where    terminal.segments[0] (segment 0, byte offset 6, line 1, column 7)"), "{shown}");
    // `out=$(mktemp -d)` made the only entry left in TMPDIR: the default work root is gone.
    let entries: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(entries[0].join("results/suite.json")).unwrap()).unwrap();
    assert_eq!(record["normalized_result"]["totals"]["changed"], 1);
}
