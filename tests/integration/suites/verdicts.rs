//! Verdicts, exit statuses, the documents of each case, parallel runs and
//! the isolation of cases.

use std::path::Path;

use serde_json::{Value, json};

use super::{case, outcomes, rea, run_suite, script, verdicts, write};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The shipped example: the planted difference is found where it is, the
/// equal cases are `unchanged`, every document is what the single commands
/// write and `rea show` reads each one.
#[test]
fn the_example_suite_finds_the_planted_difference_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let suite = repo().join("examples/suite/suite.json");
    let run = run_suite(tmp.path(), suite.to_str().unwrap(), &["--out", out.to_str().unwrap()]);
    assert_eq!(run.status, 3, "a case changed: {}\n{}", run.stderr, run.stdout);
    let record = run.record();
    let expected = [
        ("count-words", "unchanged"),
        ("missing-file", "unchanged"),
        ("one-line", "changed"),
        ("interactive", "unchanged"),
    ];
    let expected: Vec<(String, String)> = expected.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect();
    assert_eq!(verdicts(&record), expected, "{record}");
    let changed = case(&record, "one-line");
    assert_eq!(
        changed["dimensions"],
        json!({"terminal": "changed", "interaction": "unchanged", "exit": "unchanged", "filesystem": "unchanged", "process": "unchanged"})
    );
    let divergence = &changed["first_divergence"];
    assert_eq!(divergence["status"], "found", "{divergence}");
    assert_eq!(divergence["path"], "terminal.segments[0]");
    assert_eq!(divergence["location"], json!({"segment": 0, "byte_offset": 6, "line": 1, "column": 7}));
    assert_eq!(
        (&divergence["left"], &divergence["right"]),
        (&json!("1 lines, 4 words\r\n"), &json!("1 line, 4 words\r\n"))
    );
    assert_eq!(
        record["totals"],
        json!({"unchanged": 3, "changed": 1, "unknown": 0, "unstable": 0, "error": 0, "recorded": 0, "cases": 4})
    );
    // One line per finished case on stderr (not a terminal).
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 4, "{}", run.stderr);
    assert!(lines.iter().any(|l| l.contains("one-line changed (") && l.ends_with(" ms)")), "{}", run.stderr);

    // The suite.json on disk is the record printed; rea reads it back.
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(out.join("suite.json")).unwrap()).unwrap();
    assert_eq!(on_disk, run.document());
    let shown = rea(tmp.path(), &["show", out.join("suite.json").to_str().unwrap()]);
    assert_eq!(shown.status, 0, "{}", shown.stderr);
    assert!(shown.stdout.contains("identity   verified"), "{}", shown.stdout);
    assert!(shown.stdout.contains("one-line     changed   changed"), "{}", shown.stdout);
    assert!(shown.stdout.contains("+ right: \"1 line, 4 words\\r\\n\""), "{}", shown.stdout);
    same_documents_as_the_single_commands(tmp.path(), &out, &record);
}

/// Each case's comparison is byte for byte what `rea compare-process-captures`
/// writes for its two captures, and `rea show` reads every document.
fn same_documents_as_the_single_commands(dir: &Path, out: &Path, record: &Value) {
    for case in record["cases"].as_array().unwrap() {
        let documents = &case["documents"];
        let path = |key: &str| out.join(documents[key]["path"].as_str().unwrap());
        let compared = rea(
            dir,
            &[
                "compare-process-captures",
                path("authority").to_str().unwrap(),
                path("reconstruction").to_str().unwrap(),
                "--json",
            ],
        );
        assert_eq!(compared.status, 0, "{}", compared.stderr);
        assert_eq!(compared.stdout, std::fs::read_to_string(path("comparison")).unwrap(), "{}", case["name"]);
        for key in ["authority", "reconstruction", "comparison"] {
            let written: Value = serde_json::from_str(&std::fs::read_to_string(path(key)).unwrap()).unwrap();
            assert_eq!(written["evidence_id"], documents[key]["evidence_id"], "{key} of {}", case["name"]);
            let shown = rea(dir, &["show", path(key).to_str().unwrap()]);
            assert_eq!(shown.status, 0, "{key}: {}", shown.stderr);
            assert!(shown.stdout.contains("identity   verified"), "{}", shown.stdout);
        }
    }
}

/// 0 when nothing changed or failed, 3 when a case changed, 1 when a case
/// failed, 2 for a malformed partition.
#[test]
fn exit_statuses_follow_the_verdicts() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = repo().join("examples/suite/suite.json");
    let suite = suite.to_str().unwrap();
    let passed = run_suite(tmp.path(), suite, &["--out", "passed", "--case", "count-*"]);
    assert_eq!(passed.status, 0, "{}", passed.stderr);
    assert_eq!(verdicts(&passed.record()), [("count-words".to_owned(), "unchanged".to_owned())]);
    for bad in ["0/3", "4/3", "two"] {
        let run = run_suite(tmp.path(), suite, &["--out", "never", "--partition", bad]);
        assert_eq!(run.status, 2, "{bad}: {}", run.stderr);
        assert!(run.stderr.contains(&format!("`{bad}` is not a partition")), "{}", run.stderr);
    }
    assert!(!tmp.path().join("never").exists());
    // A case whose side cannot be found on its own PATH fails; the other still runs.
    write(
        tmp.path(),
        "failing.json",
        &json!({
            "sides": {"authority": {"executable": "echo"}, "reconstruction": {"executable": "echo"}},
            "cases": [{"name": "lost", "scenario": {"environment": {"PATH": "/nonexistent"}}},
                      {"name": "fine", "scenario": {"arguments": ["hi"], "filesystem_observation_paths": ["."]}}]
        })
        .to_string(),
    );
    let failed = run_suite(tmp.path(), "failing.json", &["--out", "failed"]);
    assert_eq!(failed.status, 1, "{}", failed.stderr);
    let record = failed.record();
    assert_eq!(case(&record, "lost")["error"]["code"], "executable_not_found", "{record}");
    assert_eq!(case(&record, "fine")["verdict"], "unchanged", "{record}");
}

/// GNU coreutils against BusyBox: a run four cases at a time equals a run
/// one case at a time, verdict for verdict, dimension for dimension.
#[test]
fn parallel_runs_equal_serial_runs() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "fx/lines.txt", "pear\napple\nfig\n");
    let invocations: [&[&str]; 6] = [
        &["echo", "hello", "world"],
        &["seq", "1", "5"],
        &["printf", "%s-%d\\n", "x", "42"],
        &["cat", "-n", "lines.txt"],
        &["sort", "lines.txt"],
        &["ls", "nonexistent"],
    ];
    let cases: Vec<Value> = invocations
        .iter()
        .map(|args| json!({"name": args.join("-").replace(['%', '\\'], "").replace(' ', "_"), "scenario": {"arguments": args}, "fixture": "fx"}))
        .collect();
    write(tmp.path(), "coreutils.json", &json!({
        "sides": {"authority": {"executable": "/usr/bin/env"}, "reconstruction": {"executable": "/usr/bin/busybox"}},
        "cases": cases,
        "defaults": {"filesystem_observation_paths": ["."], "timeout_ms": 10000}
    }).to_string());
    let serial = rea(tmp.path(), &["run-suite", "coreutils.json", "--json", "--out", "serial", "--jobs", "1"]);
    let parallel = rea(tmp.path(), &["run-suite", "coreutils.json", "--json", "--out", "parallel", "--jobs", "4"]);
    assert!([0, 3].contains(&serial.status), "{}", serial.stderr);
    assert_eq!(serial.status, parallel.status);
    let (serial, parallel) = (serial.record(), parallel.record());
    assert_eq!(outcomes(&serial), outcomes(&parallel));
    assert_eq!(case(&serial, "echo-hello-world")["verdict"], "unchanged", "{serial}");
    assert_eq!(case(&serial, "ls-nonexistent")["verdict"], "changed", "BusyBox words its error differently: {serial}");
    assert_eq!((&serial["parameters"]["jobs"], &parallel["parameters"]["jobs"]), (&json!(1), &json!(4)));
}

/// Each capture starts from the fixture alone: what the authority wrote is
/// gone when the reconstruction starts, and no case sees another's files.
#[test]
fn cases_and_sides_are_isolated() {
    let tmp = tempfile::tempdir().unwrap();
    script(tmp.path(), "tools/writer", "ls -A; echo \"$1\" > \"made-by-$1.txt\"");
    write(tmp.path(), "cases/first.json", r#"{"arguments": ["first"]}"#);
    write(tmp.path(), "cases/first.in/given.txt", "given\n");
    write(tmp.path(), "cases/second.json", r#"{"arguments": ["second"]}"#);
    write(
        tmp.path(),
        "isolated.json",
        &json!({
            "sides": {"authority": {"executable": "tools/writer"}, "reconstruction": {"executable": "tools/writer"}},
            "cases": ["cases/*.json"],
            "defaults": {"filesystem_observation_paths": ["."]}
        })
        .to_string(),
    );
    let run = run_suite(tmp.path(), "isolated.json", &["--out", "out"]);
    assert_eq!(run.status, 0, "{}\n{}", run.stderr, run.stdout);
    let record = run.record();
    for (name, listing) in [("first", "given.txt\r\n"), ("second", "")] {
        for side in ["authority", "reconstruction"] {
            let path = tmp.path().join("out").join(case(&record, name)["documents"][side]["path"].as_str().unwrap());
            let capture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            let text = crate::util::frames_text(&capture["normalized_result"]);
            assert_eq!(text, listing, "{name} {side} saw only its fixture");
            let effects = &capture["normalized_result"]["filesystem_effects"];
            let created: Vec<&Value> =
                effects.as_array().unwrap().iter().filter(|e| e["status"] == "created").collect();
            assert_eq!(created.len(), 1, "{effects}");
            assert_eq!(created[0]["path"], format!("root_0:made-by-{name}.txt"), "{effects}");
        }
    }
    // The default work root is empty and gone after the run.
    let tmp_dir: Vec<_> = std::fs::read_dir(tmp.path().join("tmp")).unwrap().collect();
    assert!(tmp_dir.is_empty(), "{tmp_dir:?}");
}

/// `{side}` inside a pipeline: the side runs as a child of the shell, and
/// its command line (the one place the sides differ by design) is named
/// `<side>` in the process dimension, so equal tools compare `unchanged`
/// and a different child of the pipeline is still found; `rea
/// compare-process-captures` of the case's captures says the same.
#[test]
fn a_side_inside_a_pipeline_compares_its_processes_not_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    script(tmp.path(), "a/tool", "tr a-z A-Z");
    script(tmp.path(), "b/tool", "tr a-z A-Z");
    let pipeline = |name: &str, tail: &str| {
        json!({"name": name, "scenario": {"executable": "/bin/sh",
            "arguments": ["-c", format!("printf 'x y\\n' | {{side}} {tail}")]}})
    };
    write(
        tmp.path(),
        "pipes.json",
        &json!({
            "sides": {"authority": {"executable": "a/tool"}, "reconstruction": {"executable": "b/tool"}},
            "cases": [pipeline("upper", "| /bin/cat"), pipeline("tail", "| /usr/bin/tail -n 1")],
            "defaults": {"filesystem_observation_paths": ["."], "timeout_ms": 10000}
        })
        .to_string(),
    );
    let run = run_suite(tmp.path(), "pipes.json", &["--out", "out"]);
    assert_eq!(run.status, 0, "{}\n{}", run.stderr, run.stdout);
    let record = run.record();
    for name in ["upper", "tail"] {
        let dims = &case(&record, name)["dimensions"];
        assert_eq!(dims["process"], "unchanged", "{name}: {record}");
        assert_eq!(case(&record, name)["verdict"], "unchanged", "{name}: {record}");
    }
    let docs = &case(&record, "upper")["documents"];
    let file = |side: &str| tmp.path().join("out").join(docs[side]["path"].as_str().unwrap());
    let comparison: Value = serde_json::from_str(&std::fs::read_to_string(file("comparison")).unwrap()).unwrap();
    let named = &comparison["parameters"]["side_commands"];
    assert!(named["left"].as_str().unwrap().ends_with("/a/tool"), "{named}");
    assert!(named["right"].as_str().unwrap().ends_with("/b/tool"), "{named}");
    let (left, right) = (file("authority"), file("reconstruction"));
    let again =
        rea(tmp.path(), &["compare-process-captures", left.to_str().unwrap(), right.to_str().unwrap(), "--json"]);
    let again: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(again, comparison, "the single command compares the pipeline the same way");
    let shown = rea(tmp.path(), &["show", file("comparison").to_str().unwrap()]);
    assert!(shown.stdout.contains("as <side> in process command lines"), "{}", shown.stdout);

    // A different child in the reconstruction's pipeline is still a difference.
    script(tmp.path(), "b/tool", "/usr/bin/tr a-z A-Z | /bin/cat");
    let run = run_suite(tmp.path(), "pipes.json", &["--out", "out2", "--case", "upper"]);
    assert_eq!(run.status, 3, "{}\n{}", run.stderr, run.stdout);
    assert_eq!(case(&run.record(), "upper")["dimensions"]["process"], "changed", "{}", run.stdout);
}
