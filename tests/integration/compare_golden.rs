//! Comparison output is byte-identical to what rea printed before the
//! comparison record was typed (issue 18): every case under
//! `tests/fixtures/comparisons/cases/` holds what `merge19` printed for its
//! captures (`generate.sh expected`), as JSON, as TOON, its exit status
//! under `--exit-code`, and `rea show` of the JSON.

use std::path::{Path, PathBuf};

use crate::util::rea;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/comparisons")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts that `actual` is `expected`, naming the case and the first
/// differing line.
fn same(case: &str, what: &str, actual: &[u8], expected: &str) {
    let actual = String::from_utf8_lossy(actual);
    if actual != expected {
        let line = actual.lines().zip(expected.lines()).position(|(a, b)| a != b);
        panic!(
            "{case}: {what} differs from the golden output (first differing line {line:?}; {} vs {} bytes)\n--- now\n{actual}\n--- golden\n{expected}",
            actual.len(),
            expected.len()
        );
    }
}

fn check(case: &Path) {
    let name = case.file_name().unwrap().to_string_lossy().into_owned();
    let captures = fixtures().join("captures");
    let given = read(&case.join("args.txt"));
    let args: Vec<&str> = given.split_whitespace().collect();
    let json = rea(&captures, &[&["compare-process-captures"], &args[..], &["--json", "--exit-code"]].concat());
    same(&name, "the JSON", &json.stdout, &read(&case.join("comparison.json")));
    let status = json.status.code().expect("exit status").to_string();
    assert_eq!(status, read(&case.join("status.txt")).trim(), "{name}: exit status under --exit-code");
    let toon = rea(&captures, &[&["compare-process-captures"], &args[..]].concat());
    same(&name, "the TOON", &toon.stdout, &read(&case.join("comparison.toon")));
    let show = rea(case, &["show", "comparison.json"]);
    same(&name, "`rea show`", &show.stdout, &read(&case.join("show.txt")));
}

#[test]
fn comparisons_print_the_same_bytes_as_before_the_typed_record() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures().join("cases"))
        .expect("golden cases")
        .map(|e| e.expect("directory entry").path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 14, "golden cases: {cases:?}");
    for case in &cases {
        check(case);
    }
}
