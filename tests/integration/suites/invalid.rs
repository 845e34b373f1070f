//! An invalid suite is refused before anything runs, with the path of each
//! broken rule, and leaves nothing behind: no out directory, no work root,
//! no process.

use serde_json::{Value, json};

use super::{run_suite, script, write};

/// Runs the suite `suite` (written to `dir/suite.json`) whose authority would
/// leave a mark if it ran, and returns the error document.
fn refused(dir: &std::path::Path, suite: Value) -> Value {
    write(dir, "suite.json", &suite.to_string());
    let run = run_suite(dir, "suite.json", &["--out", "out", "--work-root", "work"]);
    assert_eq!(run.status, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(!dir.join("out").exists(), "no out directory");
    assert!(!dir.join("work").exists(), "no work root");
    assert!(!dir.join("ran").exists(), "nothing was launched");
    let document = run.document();
    assert_eq!(document["code"], "invalid_suite", "{document}");
    document
}

fn messages(document: &Value) -> String {
    document["message"].as_str().unwrap().to_owned()
}

fn sides() -> Value {
    json!({"authority": {"executable": "tools/mark"}, "reconstruction": {"executable": "tools/mark"}})
}

#[test]
fn every_broken_rule_is_named_with_its_file_and_path_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let ran = dir.join("ran");
    script(dir, "tools/mark", &format!("touch '{}'", ran.display()));
    write(dir, "cases/good.json", r#"{"arguments": ["x"]}"#);
    write(dir, "cases/bad-field.json", r#"{"timeout_ms": 0, "events": [{"type": "input", "at_ms": 10}]}"#);
    write(dir, "cases/broken.json", r#"{"arguments": ["#);
    write(dir, "cases/same.json", r#"{}"#);
    write(dir, "cases/own-program.json", r#"{"executable": "sh", "arguments": ["-c", "echo both"]}"#);
    std::fs::create_dir_all(dir.join("cases/good.in")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.join("cases/good.in/link")).unwrap();
    let document = refused(
        dir,
        json!({
            "sides": sides(),
            "cases": ["cases/*.json", {"name": "same", "scenario": {}}, "nothing/*.json", {"name": "odd one", "scenario": {}}],
            "colour": "blue"
        }),
    );
    let message = messages(&document);
    let cases = dir.join("cases");
    let expected = [
        "colour: unknown key; remove it or use one of: name, sides, cases, defaults".to_owned(),
        "cases[3].name: `odd one` is not a case name".to_owned(),
        format!("{}: (root): ", cases.join("broken.json").display()),
        format!("{}: timeout_ms: 0 is below the minimum 1", cases.join("bad-field.json").display()),
        format!("{}: events[0].data: ", cases.join("bad-field.json").display()),
        format!(
            "{}: (root): the fixture {} is neither a directory nor a regular file",
            cases.join("good.in").display(),
            cases.join("good.in/link").display()
        ),
        format!("{}: executable: the case reaches no side", cases.join("own-program.json").display()),
        "cases[2]: the glob `nothing/*.json` matches no case file".to_owned(),
        format!(
            "cases[1].scenario: the case name `same` is already the name of the case file {}",
            cases.join("same.json").display()
        ),
    ];
    for part in expected {
        assert!(message.contains(&part), "missing {part:?} in {message}");
    }
    let issues = document["details"]["issues"].as_array().unwrap();
    assert!(
        issues.iter().any(
            |i| i["file"] == json!(cases.join("bad-field.json").display().to_string()) && i["path"] == "timeout_ms"
        ),
        "{issues:?}"
    );
}

#[test]
fn a_suite_without_a_needed_side_or_with_a_missing_executable_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    script(dir, "tools/mark", "true");
    let document = refused(
        dir,
        json!({
            "sides": {"reconstruction": {"executable": "tools/absent"}},
            "cases": [{"name": "a", "scenario": {"working_directory": "/tmp"}}]
        }),
    );
    let message = messages(&document);
    assert!(
        message.contains("sides.authority: missing: it is required unless goldens (--goldens) stand in for it"),
        "{message}"
    );
    write(
        dir,
        "suite.json",
        &json!({
            "sides": {"authority": {"executable": "tools/mark"}, "reconstruction": {"executable": "tools/absent"}},
            "cases": [{"name": "a", "scenario": {"working_directory": "../elsewhere"}}]
        })
        .to_string(),
    );
    let run = run_suite(dir, "suite.json", &["--out", "out", "--work-root", "work"]);
    let message = messages(&run.document());
    assert!(message.contains(&format!("sides.reconstruction.executable: {} (relative to the suite file's directory) is not an executable regular file", dir.join("tools/absent").display())), "{message}");
    assert!(
        message.contains("cases[0].scenario.working_directory: `../elsewhere` leaves the case's work directory"),
        "{message}"
    );
    assert!(!dir.join("out").exists() && !dir.join("work").exists());
}
