//! A repeated key anywhere in an imported document, in the free-form parts
//! of a capture (the committed scenario, the comparison contract, the
//! normalization, the parameters, the environment) as in its typed parts,
//! in JSON or TOON, in a comparison too, is refused naming it: a reader that
//! keeps the first copy would see another document than the identity covers.

use std::path::Path;

use crate::util::rea;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/captures").join(name);
    std::fs::read_to_string(path).expect("fixture")
}

/// `text` with the object opened by the line `opening` (found after each of
/// `parents` in turn) given its first key twice: first with another value,
/// then as it was (so a reader that keeps the last copy sees the original).
/// Returns the document and the repeated key.
fn with_first_key_repeated(text: &str, parents: &[&str], opening: &str) -> (String, String) {
    let lines: Vec<&str> = text.lines().collect();
    let mut at = 0;
    for wanted in parents.iter().chain([&opening]) {
        at += lines[at..].iter().position(|l| l == wanted).unwrap_or_else(|| panic!("no line {wanted:?}"));
    }
    let first = lines[at + 1].trim_start();
    let key = first[1..].split('"').next().unwrap().to_owned();
    let indent = &lines[at + 1][..lines[at + 1].len() - first.len()];
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    out.insert(at + 1, format!("{indent}\"{key}\": \"the first copy\","));
    (out.join("\n"), key)
}

fn assert_refused(dir: &Path, file: &str, named: &str) {
    for args in [&["show", file][..], &["compare-process-captures", file, "authority.json", "--json"][..]] {
        let out = rea(dir, args);
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(!out.status.success(), "rea {args:?} accepted it: {said}");
        assert!(said.contains(named), "rea {args:?} does not name {named}: {said}");
        assert!(!said.contains("identity verified"), "{said}");
    }
}

#[test]
fn a_capture_with_a_repeated_key_in_any_part_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let authority = fixture("authority.json");
    std::fs::write(dir.path().join("authority.json"), &authority).unwrap();
    let record = "  \"normalized_result\": {";
    let places: [(&[&str], &str, &str); 8] = [
        (&[record, "    \"manifest\": {"], "      \"scenario\": {", "normalized_result.manifest.scenario"),
        (&[record], "      \"comparison_contract\": {", "normalized_result.manifest.comparison_contract"),
        (&[record], "    \"normalization\": {", "normalized_result.normalization"),
        (&[], "  \"parameters\": {", "parameters"),
        (&["  \"parameters\": {"], "    \"normalization\": {", "parameters.normalization"),
        (&[], "  \"environment\": {", "environment"),
        (&[record], "    \"exit\": {", "normalized_result.exit"),
        (&[], "  \"provider\": {", "provider"),
    ];
    for (i, (parents, opening, path)) in places.iter().enumerate() {
        let (text, key) = with_first_key_repeated(&authority, parents, opening);
        let file = format!("repeated-{i}.json");
        std::fs::write(dir.path().join(&file), text).unwrap();
        assert_refused(dir.path(), &file, &format!("key {path}.{key} is repeated"));
    }
}

#[test]
#[cfg(not(feature = "force-stub"))]
fn a_toon_capture_with_a_repeated_key_is_refused_naming_it_and_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("authority.json"), fixture("authority.json")).unwrap();
    let scenario = r#"{"executable": "sh", "arguments": ["-c", "echo hi"], "timeout_ms": 10000}"#;
    std::fs::write(dir.path().join("scenario.json"), scenario).unwrap();
    let toon = rea(dir.path(), &["capture-process", "scenario.json"]);
    assert_eq!(toon.status.code(), Some(0), "{}", String::from_utf8_lossy(&toon.stderr));
    let text = String::from_utf8(toon.stdout).unwrap();
    std::fs::write(dir.path().join("capture.toon"), &text).unwrap();
    let show = rea(dir.path(), &["show", "capture.toon"]);
    assert_eq!(show.status.code(), Some(0), "the TOON as written is read: {}", String::from_utf8_lossy(&show.stderr));
    let mut lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| *l == "    scenario:").expect("the committed scenario") + 1;
    lines.insert(at, "      executable: /bin/the-first-copy");
    std::fs::write(dir.path().join("repeated.toon"), lines.join("\n")).unwrap();
    assert_refused(dir.path(), "repeated.toon", "Parse error at line ");
    assert_refused(dir.path(), "repeated.toon", "Duplicate sibling key");
    assert_refused(dir.path(), "repeated.toon", "executable");
}

#[test]
fn a_comparison_with_a_repeated_key_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("authority.json"), fixture("authority.json")).unwrap();
    std::fs::write(dir.path().join("reconstruction.json"), fixture("reconstruction.json")).unwrap();
    let out = rea(dir.path(), &["compare-process-captures", "authority.json", "reconstruction.json", "--json"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("rea.process-comparison/v5"), "{text}");
    let (repeated, key) = with_first_key_repeated(&text, &[], "  \"parameters\": {");
    std::fs::write(dir.path().join("comparison.json"), repeated).unwrap();
    let show = rea(dir.path(), &["show", "comparison.json"]);
    let said = String::from_utf8_lossy(&show.stderr).into_owned() + &String::from_utf8_lossy(&show.stdout);
    assert!(!show.status.success(), "{said}");
    assert!(said.contains(&format!("key parameters.{key} is repeated")), "{said}");
}
