//! Rejected scenarios: every file in `tests/fixtures/malformed/` is run
//! through `rea capture-process FILE --json` and must be refused before
//! anything is launched or written.
//!
//! Each fixture `NAME.json` has a sidecar `NAME.expect` of `key: value` lines
//! (`#` starts a comment line):
//!
//! - `code:` and `category:` of the error document;
//! - `issue: PATH | FRAGMENT`, once or more: `details.issues` holds an issue at
//!   exactly PATH (`(root)` is the document) whose rule contains FRAGMENT, and
//!   the message says `PATH: ...FRAGMENT`; the set of reported paths must be
//!   exactly the set of expected ones;
//! - `message: FRAGMENT`, for documents that fail before they are a scenario
//!   (empty, not JSON, not UTF-8): the message contains FRAGMENT;
//! - `schema:` `rejects`, `accepts` (a cross-field rule JSON Schema cannot
//!   express) or `n/a` (not a JSON document the schema could see); the engine's
//!   schema cross-check reads it;
//! - `marker:` how a launch would become visible, when the fixture does not
//!   hold the `@MARKER@` placeholder itself: `helper` (the executable names
//!   the sandbox's `./mark`, which creates the marker) or `none: REASON`.
//!
//! The fixtures' commands create the marker file when launched, so a missing
//! marker proves that nothing ran; the positive control below proves the
//! mechanism would notice.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::Value;

use crate::sandbox::{Sandbox, error_document, tree_changes};

/// What a fixture's sidecar promises.
#[derive(Debug, Default)]
struct Expectation {
    code: String,
    category: String,
    issues: Vec<(String, String)>,
    messages: Vec<String>,
    schema: String,
    marker: Option<String>,
}

fn fixtures_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(kind)
}

fn parse_expectation(text: &str) -> Result<Expectation, String> {
    let mut e = Expectation::default();
    for line in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (key, value) = line.split_once(": ").ok_or_else(|| format!("line without `key: value`: {line}"))?;
        match key {
            "code" => e.code = value.to_owned(),
            "category" => e.category = value.to_owned(),
            "issue" => {
                let (path, fragment) =
                    value.split_once(" | ").ok_or_else(|| format!("issue without `PATH | FRAGMENT`: {line}"))?;
                e.issues.push((path.to_owned(), fragment.to_owned()));
            }
            "message" => e.messages.push(value.to_owned()),
            "schema" if ["rejects", "accepts", "n/a"].contains(&value) => e.schema = value.to_owned(),
            "marker" if value == "helper" || value.starts_with("none: ") => e.marker = Some(value.to_owned()),
            _ => return Err(format!("unknown or invalid line: {line}")),
        }
    }
    if e.code.is_empty() || e.category.is_empty() || e.schema.is_empty() {
        return Err("code, category and schema are required".to_owned());
    }
    if e.issues.is_empty() == e.messages.is_empty() {
        return Err("give either issue lines (a scenario error) or message lines (an input error)".to_owned());
    }
    Ok(e)
}

/// Every fixture with its sidecar, sorted by name; a file without its partner
/// is an error.
fn load_fixtures() -> Vec<(String, Vec<u8>, Expectation)> {
    let dir = fixtures_dir("malformed");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .expect("read the malformed fixtures")
        .map(|e| e.expect("read a fixture entry").file_name().into_string().expect("fixture names are UTF-8"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in &names {
        if let Some(stem) = name.strip_suffix(".expect") {
            assert!(names.contains(&format!("{stem}.json")), "{name} has no fixture {stem}.json");
            continue;
        }
        let stem = name.strip_suffix(".json").unwrap_or_else(|| panic!("fixture {name} must end in .json"));
        let sidecar = dir.join(format!("{stem}.expect"));
        let text = fs::read_to_string(&sidecar).unwrap_or_else(|e| panic!("{}: {e}", sidecar.display()));
        let expectation = parse_expectation(&text).unwrap_or_else(|e| panic!("{}: {e}", sidecar.display()));
        let bytes = fs::read(dir.join(name)).expect("read a fixture");
        out.push((name.clone(), bytes, expectation));
    }
    out
}

fn as_issue_path(path: &str) -> &str {
    if path == "(root)" { "" } else { path }
}

/// Checks the error document against the expectation.
fn check_document(doc: &Value, file: &str, e: &Expectation) -> Result<(), String> {
    let field = |k: &str| doc.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let message = field("message");
    if field("code") != e.code || field("category") != e.category {
        return Err(format!(
            "code/category {}/{}, expected {}/{}: {message}",
            field("code"),
            field("category"),
            e.code,
            e.category
        ));
    }
    if doc["retryable"] != Value::Bool(false) {
        return Err("retryable is not false".to_owned());
    }
    if doc["remediation"]["action"].as_str().is_none_or(|a| a.len() < 20) {
        return Err("the remediation does not say what to do".to_owned());
    }
    for fragment in &e.messages {
        if !message.contains(fragment.as_str()) {
            return Err(format!("message lacks {fragment:?}: {message}"));
        }
    }
    if e.issues.is_empty() {
        return Ok(());
    }
    if doc["details"]["file"].as_str() != Some(file) {
        return Err(format!("details.file is {}, expected {file}", doc["details"]["file"]));
    }
    let issues = doc["details"]["issues"].as_array().cloned().unwrap_or_default();
    for (path, fragment) in &e.issues {
        let rule = issues.iter().find_map(|i| {
            let rule = i["rule"].as_str()?;
            (i["path"].as_str() == Some(as_issue_path(path)) && rule.contains(fragment.as_str())).then_some(rule)
        });
        let Some(rule) = rule else {
            return Err(format!("details.issues has no issue at {path} containing {fragment:?}: {issues:?}"));
        };
        if !message.contains(&format!("{path}: {rule}")) {
            return Err(format!("message does not say `{path}: {rule}`: {message}"));
        }
    }
    let mut reported: Vec<&str> = issues.iter().filter_map(|i| i["path"].as_str()).collect();
    let mut expected: Vec<&str> = e.issues.iter().map(|(p, _)| as_issue_path(p)).collect();
    reported.sort_unstable();
    reported.dedup();
    expected.sort_unstable();
    expected.dedup();
    if reported != expected {
        return Err(format!("reported issue paths {reported:?}, expected exactly {expected:?}"));
    }
    Ok(())
}

/// Runs `rea capture-process NAME --json` in a fresh sandbox after `prepare`
/// has written the input, and checks everything a rejection promises.
fn check_rejection(name: &str, prepare: impl FnOnce(&Sandbox), e: &Expectation) -> Result<(), String> {
    let sandbox = Sandbox::new();
    prepare(&sandbox);
    let before = sandbox.snapshot();
    let output = sandbox.rea(&["capture-process", name, "--json"]);
    let outcome = error_document(&output).and_then(|doc| check_document(&doc, name, e));
    if sandbox.marker().exists() {
        return Err("the marker exists: the scenario's command was launched".to_owned());
    }
    if let Some(changes) = tree_changes(&before, &sandbox.snapshot()) {
        return Err(format!("the run changed the sandbox: {changes}"));
    }
    outcome
}

#[test]
fn every_malformed_fixture_is_rejected_before_launch() {
    let fixtures = load_fixtures();
    assert!(fixtures.len() >= 60, "only {} malformed fixtures", fixtures.len());
    let mut failures = Vec::new();
    for (name, bytes, e) in &fixtures {
        let marker_reachable = match e.marker.as_deref() {
            None => bytes.windows(8).any(|w| w == b"@MARKER@"),
            Some("helper") => bytes.windows(6).any(|w| w == b"./mark"),
            Some(_) => true,
        };
        if !marker_reachable {
            failures.push(format!("{name}: the fixture has no way to create the marker"));
        }
        if let Err(why) = check_rejection(name, |sandbox| drop(sandbox.put(name, bytes)), e) {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} fixtures failed:\n{}", failures.len(), fixtures.len(), failures.join("\n"));
}

#[test]
fn expectation_sidecars_are_checked_strictly() {
    assert!(parse_expectation("code: x\ncategory: y\nschema: rejects\nissue: a | b\n").is_ok());
    assert!(parse_expectation("code: x\ncategory: y\nschema: maybe\nissue: a | b\n").is_err());
    assert!(parse_expectation("code: x\ncategory: y\nschema: n/a\n").is_err(), "no issue and no message");
    assert!(parse_expectation("code: x\ncategory: y\nschema: n/a\nissue: a\n").is_err(), "issue without a fragment");
    assert!(parse_expectation("code: x\ncategory: y\nschema: n/a\nmessage: m\nmarker: maybe\n").is_err());
}

/// Writes `document`, with the marker path filled in, to `work/NAME` padded
/// with trailing spaces to exactly `len` bytes.
fn put_padded(sandbox: &Sandbox, name: &str, document: &str, len: usize) {
    let path = sandbox.put(name, document.as_bytes());
    let mut bytes = fs::read(&path).unwrap();
    assert!(bytes.len() <= len);
    bytes.resize(len, b' ');
    fs::write(&path, bytes).unwrap();
}

const MAX_INPUT: usize = 64 * 1024 * 1024;

fn marker_scenario() -> String {
    fs::read_to_string(fixtures_dir("valid").join("marker.json")).expect("read the marker scenario")
}

fn expectation(code: &str, category: &str, messages: &[&str], issues: &[(&str, &str)]) -> Expectation {
    Expectation {
        code: code.to_owned(),
        category: category.to_owned(),
        issues: issues.iter().map(|(p, f)| ((*p).to_owned(), (*f).to_owned())).collect(),
        messages: messages.iter().map(|m| (*m).to_owned()).collect(),
        schema: "n/a".to_owned(),
        marker: None,
    }
}

#[test]
fn input_one_byte_above_64_mib_is_refused() {
    let e = expectation("input_too_large", "truncated", &["larger than 64 MiB"], &[]);
    check_rejection("huge.json", |s| put_padded(s, "huge.json", &marker_scenario(), MAX_INPUT + 1), &e).unwrap();
}

#[test]
fn input_of_exactly_64_mib_is_read_and_validated() {
    let scenario = marker_scenario().replacen('{', "{\n  \"approved\": true,", 1);
    let e =
        expectation("invalid_scenario", "invalid_input", &[], &[("approved", "earlier TypeScript scenario format")]);
    check_rejection("exact.json", |s| put_padded(s, "exact.json", &scenario, MAX_INPUT), &e).unwrap();
}

/// The marker scenario with `events` added (as JSON text).
fn marker_scenario_with_events(events: &str) -> String {
    marker_scenario().replacen("\"timeout_ms\"", &format!("\"events\": {events},\n  \"timeout_ms\""), 1)
}

#[test]
fn input_events_over_their_total_bound_are_refused_at_events() {
    // 65 inputs of 4096 bytes each: every one within its own bound, 266240 together.
    let data = "b".repeat(4096);
    let events: Vec<String> =
        (0..65).map(|i| format!("{{\"type\": \"input\", \"at_ms\": {i}, \"data\": \"{data}\"}}")).collect();
    let scenario = marker_scenario_with_events(&format!("[{}]", events.join(", ")));
    let rule = "input events hold 266240 bytes of data together; at most 262144 are allowed";
    let e = expectation("invalid_scenario", "invalid_input", &[], &[("events", rule)]);
    check_rejection("inputs.json", |s| drop(s.put("inputs.json", scenario.as_bytes())), &e).unwrap();
}

#[test]
fn a_scenario_over_the_document_bound_is_refused_at_its_root() {
    // One long argument: within every per-field rule, over 4 MiB as a whole.
    let scenario = marker_scenario().replacen("\"-c\",", &format!("\"-c\", \"{}\",", "x".repeat(4 << 20)), 1);
    let e = expectation("invalid_scenario", "invalid_input", &[], &[("(root)", "at most 4194304 are allowed")]);
    check_rejection("large.json", |s| drop(s.put("large.json", scenario.as_bytes())), &e).unwrap();
}

#[test]
fn a_directory_is_not_a_scenario_file() {
    let e = expectation(
        "input_not_regular_file",
        "invalid_input",
        &["scenario file scenario.json", "is not a regular file: it is a directory"],
        &[],
    );
    let make_directory = |s: &Sandbox| fs::create_dir(s.work().join("scenario.json")).unwrap();
    check_rejection("scenario.json", make_directory, &e).unwrap();
}

#[test]
fn a_missing_scenario_file_is_reported_with_its_path() {
    let e = expectation("input_unreadable", "invalid_input", &["scenario file absent.json", "No such file"], &[]);
    check_rejection("absent.json", |_| {}, &e).unwrap();
}

/// Positive control: the marker mechanism notices a launch, so the absent
/// marker in the rejection tests means something. (The stub build cannot
/// launch, so it has no control.)
#[test]
#[cfg(not(feature = "force-stub"))]
fn control_valid_scenario_creates_marker() {
    let sandbox = Sandbox::new();
    sandbox.put("scenario.json", marker_scenario().as_bytes());
    let output = sandbox.rea(&["capture-process", "scenario.json", "--json"]);
    assert!(
        sandbox.marker().exists(),
        "the valid marker scenario did not create {}; stdout: {}",
        sandbox.marker().display(),
        String::from_utf8_lossy(&output.stdout)
    );
    assert_eq!(output.status.code(), Some(0), "stdout: {}", String::from_utf8_lossy(&output.stdout));
}

#[test]
fn stdout_redirected_onto_the_scenario_is_refused() {
    let sandbox = Sandbox::new();
    let scenario = sandbox.put("s.json", marker_scenario().as_bytes());
    // As `rea capture-process s.json --json > s.json` would: the shell opens
    // the scenario for writing with truncation before rea starts.
    let stdout = fs::File::create(&scenario).unwrap();
    let output =
        sandbox.command(&["capture-process", "s.json", "--json"]).stdout(Stdio::from(stdout)).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    let text = fs::read_to_string(&scenario).unwrap();
    let doc = crate::sandbox::parse_single_json(&text).unwrap();
    let e =
        expectation("output_is_input", "invalid_input", &["stdout is the scenario file s.json itself", "emptied"], &[]);
    check_document(&doc, "s.json", &e).unwrap();
    assert!(doc["remediation"]["action"].as_str().unwrap().contains("different file"));
    assert!(!sandbox.marker().exists());
}

// Usage errors (clap conventions: stderr, exit status 2) are tested in cli.rs.

/// The default TOON document and the `--json` document are the same value.
#[test]
fn toon_and_json_carry_the_same_error() {
    let sandbox = Sandbox::new();
    let fixture = fs::read(fixtures_dir("malformed").join("events-after-timeout.json")).unwrap();
    sandbox.put("s.json", &fixture);
    for args in [&["capture-process", "s.json"][..], &["compare-process-captures", "missing.json", "s.json"][..]] {
        let toon = sandbox.rea(args);
        let mut json_args = args.to_vec();
        json_args.push("--json");
        let json = error_document(&sandbox.rea(&json_args)).unwrap();
        assert_eq!(toon.status.code(), Some(1));
        assert_eq!(String::from_utf8_lossy(&toon.stderr), "");
        let text = String::from_utf8(toon.stdout).unwrap();
        assert_eq!(text.lines().next(), Some("error: Process command failed"), "{text}");
        let decoded: Value = toon_format::decode_default(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(decoded, json, "TOON:\n{text}");
    }
    assert!(!sandbox.marker().exists());
}
