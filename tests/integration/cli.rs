//! Command-line conventions: help, usage errors, completions, the TOON
//! capture refusal; snapshots of help texts and of `rea show`.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::util::rea_bin;

/// Runs `rea` with a fixed help width, no terminal, no colour.
fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(rea_bin())
        .args(args)
        .current_dir(dir)
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run rea")
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

const COMMANDS: [&str; 10] = [
    "capture-process",
    "compare-process-captures",
    "run-suite",
    "record-scenario",
    "merge-suite-results",
    "doctor",
    "show",
    "export-asciicast",
    "completions",
    "mcp",
];

#[test]
fn help_of_every_command_matches_its_snapshot_and_rea_help_command_is_the_same() {
    let top = run(repo(), &["--help"]);
    assert_eq!(top.status.code(), Some(0));
    insta::assert_snapshot!("help", text(&top.stdout));
    for command in COMMANDS {
        let help = run(repo(), &[command, "--help"]);
        assert_eq!(help.status.code(), Some(0), "{command}");
        assert_eq!(text(&help.stderr), "", "{command}");
        let via_help = run(repo(), &["help", command]);
        assert_eq!(via_help.status.code(), Some(0), "rea help {command}");
        assert_eq!(via_help.stdout, help.stdout, "rea help {command}");
        // Every example line keeps its indentation.
        let help = text(&help.stdout);
        for line in help.lines().filter(|l| l.trim_start().starts_with("rea ")) {
            assert!(line.starts_with("  rea "), "{command}: example loses its indent: {line:?}");
        }
        insta::assert_snapshot!(format!("help-{command}"), help);
    }
}

#[test]
fn a_usage_error_is_clap_s_message_and_hint_on_stderr_with_status_2() {
    let out = run(repo(), &["capture-proces", "s.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("tip:") && stderr.contains("'capture-process'"), "{stderr}");
    insta::assert_snapshot!("usage-error", stderr);

    let missing = run(repo(), &["compare-process-captures", "left.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("<RIGHT>"), "{}", text(&missing.stderr));
    assert!(text(&missing.stderr).contains("For more information, try '--help'."));
}

#[test]
fn with_json_a_usage_error_also_prints_the_error_document() {
    let out = run(repo(), &["capture-process", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("<SCENARIO>"));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("a JSON document on stdout");
    assert_eq!(doc["code"], "invalid_arguments");
    assert!(doc["message"].as_str().unwrap().contains("<SCENARIO>"), "{doc}");
}

#[test]
fn rea_alone_prints_help_on_stderr_with_status_2() {
    let out = run(repo(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    let top = run(repo(), &["--help"]);
    assert_eq!(text(&out.stderr), text(&top.stdout));
}

#[test]
fn completions_cover_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(repo(), &["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = text(&out.stdout);
        for command in COMMANDS {
            assert!(script.contains(command), "{shell} completion lacks {command}");
        }
    }
    let bad = run(repo(), &["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("possible values"), "{}", text(&bad.stderr));
}

/// The checked-in fixture captures, their comparison and a TOON copy, in a
/// temporary directory.
fn fixture_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for side in ["authority", "reconstruction"] {
        let from = repo().join("tests/fixtures/captures").join(format!("{side}.json"));
        std::fs::copy(from, dir.path().join(format!("{side}.json"))).unwrap();
    }
    let cmp = run(dir.path(), &["compare-process-captures", "authority.json", "reconstruction.json", "--json"]);
    assert_eq!(cmp.status.code(), Some(0), "{}", text(&cmp.stdout));
    std::fs::write(dir.path().join("comparison.json"), &cmp.stdout).unwrap();
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("authority.json")).unwrap()).unwrap();
    std::fs::write(dir.path().join("authority.toon"), toon_format::encode_default(&value).unwrap()).unwrap();
    dir
}

#[test]
fn show_of_a_capture_and_of_a_comparison_match_their_snapshots() {
    let dir = fixture_dir();
    let before = std::fs::read(dir.path().join("authority.json")).unwrap();
    let capture = run(dir.path(), &["show", "authority.json"]);
    assert_eq!(capture.status.code(), Some(0), "{}", text(&capture.stderr));
    assert_eq!(std::fs::read(dir.path().join("authority.json")).unwrap(), before, "show changed the file");
    let shown = text(&capture.stdout);
    assert!(!shown.contains('\u{1b}'), "colour without a terminal");
    insta::assert_snapshot!("show-capture", shown);

    let comparison = run(dir.path(), &["show", "comparison.json"]);
    assert_eq!(comparison.status.code(), Some(0), "{}", text(&comparison.stderr));
    insta::assert_snapshot!("show-comparison", text(&comparison.stdout));
}

#[test]
fn a_toon_capture_is_shown_and_compared_as_its_json_twin() {
    let dir = fixture_dir();
    let shown = run(dir.path(), &["show", "authority.toon"]);
    assert_eq!(shown.status.code(), Some(0), "{}", text(&shown.stderr));
    let shown = text(&shown.stdout);
    // The same view as of the JSON, read back with its identity intact.
    let json = text(&run(dir.path(), &["show", "authority.json"]).stdout);
    assert_eq!(shown.replace("read as    TOON", "read as    JSON"), json);
    insta::assert_snapshot!("show-toon-capture", shown);

    // The comparison reads the TOON capture into the same record as its JSON twin.
    for right in ["reconstruction.json", "authority.json"] {
        let of_json = run(dir.path(), &["compare-process-captures", "authority.json", right, "--json"]);
        let of_toon = run(dir.path(), &["compare-process-captures", "authority.toon", right, "--json"]);
        assert_eq!(of_toon.status.code(), Some(0), "{}", text(&of_toon.stderr));
        assert_eq!(text(&of_toon.stdout), text(&of_json.stdout), "authority.toon against {right}");
    }
    let same = run(dir.path(), &["compare-process-captures", "authority.toon", "authority.json", "--json"]);
    let doc: Value = serde_json::from_slice(&same.stdout).unwrap();
    let result = &doc["normalized_result"];
    // Nothing differs; the first divergence is not located only because two dimensions are unknown.
    assert_eq!(result["first_divergence"]["earliest_observed_difference"], Value::Null, "{result}");
    for dimension in result["dimensions"].as_array().unwrap() {
        assert!(["unchanged", "unknown"].contains(&dimension["status"].as_str().unwrap()), "{dimension}");
        assert_eq!(dimension["differences"].as_array().unwrap().len(), 0, "{dimension}");
    }
}

#[test]
fn show_and_export_refuse_what_they_cannot_read_on_stderr() {
    let dir = fixture_dir();
    std::fs::write(dir.path().join("scenario.json"), r#"{"executable": "sh"}"#).unwrap();
    for (args, code) in [
        (&["show", "scenario.json"][..], "code: not_viewable"),
        (&["show", "missing.json"][..], "code: input_unreadable"),
        (&["export-asciicast", "comparison.json"][..], "code: not_a_capture"),
    ] {
        let out = run(dir.path(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(text(&out.stdout), "", "{args:?}");
        assert!(text(&out.stderr).contains(code), "{args:?}: {}", text(&out.stderr));
    }
}

/// The documents printed from a value (doctor's report, error documents)
/// are, in TOON, exactly the reference encoding of what `--json` prints.
#[test]
fn toon_documents_are_the_reference_encoding_of_their_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("bad.json"), "{\"executable\": 1, \"limits\": {\"frames\": -1}}").expect("write");
    for args in [&["doctor"][..], &["capture-process", "missing.json"], &["capture-process", "bad.json"]] {
        let toon = run(dir.path(), args);
        let json = run(dir.path(), &[args, &["--json"]].concat());
        assert_eq!(toon.status.code(), json.status.code(), "{args:?}");
        let value: Value = serde_json::from_slice(&json.stdout).expect("--json prints JSON");
        assert_eq!(text(&toon.stdout), toon_format::encode_default(&value).expect("reference") + "\n", "{args:?}");
    }
}
