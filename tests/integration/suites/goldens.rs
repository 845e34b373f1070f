//! `--record-goldens`, `--goldens` and `--self-check`.

use serde_json::{Value, json};

use super::{case, run_suite, script, verdicts, write};

fn suite(authority: bool, a_timeout: u64) -> String {
    let mut sides = json!({"reconstruction": {"executable": "tools/rewrite"}});
    if authority {
        sides["authority"] = json!({"executable": "tools/original"});
    }
    json!({
        "sides": sides,
        "cases": [{"name": "a", "scenario": {"arguments": ["1"], "timeout_ms": a_timeout}},
                  {"name": "b", "scenario": {"arguments": ["2"]}}],
        "defaults": {"filesystem_observation_paths": ["."]}
    })
    .to_string()
}

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

/// Goldens stand in for the authority, which does not run (its suite does
/// not even name it, and its run counter does not move); a stale golden and
/// a missing one are refused per case and never compared.
#[test]
fn goldens_are_reused_without_the_authority_and_stale_or_missing_ones_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let counter = dir.join("authority-runs");
    script(dir, "tools/original", &format!("echo run >> '{}'; echo \"value $1\"", counter.display()));
    script(dir, "tools/rewrite", "if [ \"$1\" = 2 ]; then echo 'value two'; else echo \"value $1\"; fi");
    write(dir, "record.json", &suite(true, 5000));
    let recorded =
        run_suite(dir, "record.json", &["--out", "recorded", "--work-root", "work", "--record-goldens", "goldens"]);
    assert_eq!(recorded.status, 0, "{}\n{}", recorded.stderr, recorded.stdout);
    assert_eq!(verdicts(&recorded.record()), owned(&[("a", "recorded"), ("b", "recorded")]));
    let runs = || std::fs::read_to_string(&counter).unwrap().lines().count();
    assert_eq!(runs(), 2);
    for name in ["a", "b"] {
        let golden = std::fs::read(dir.join("goldens").join(format!("{name}.json"))).unwrap();
        assert_eq!(golden, std::fs::read(dir.join(format!("recorded/cases/{name}/authority.json"))).unwrap());
    }

    write(dir, "check.json", &suite(false, 5000));
    let checked = run_suite(dir, "check.json", &["--out", "checked", "--work-root", "work", "--goldens", "goldens"]);
    assert_eq!(checked.status, 3, "{}\n{}", checked.stderr, checked.stdout);
    assert_eq!(verdicts(&checked.record()), owned(&[("a", "unchanged"), ("b", "changed")]));
    assert_eq!(runs(), 2, "the authority did not run");
    let copied = std::fs::read(dir.join("checked/cases/a/authority.json")).unwrap();
    assert_eq!(
        copied,
        std::fs::read(dir.join("goldens/a.json")).unwrap(),
        "the golden is the case's authority document"
    );

    std::fs::remove_file(dir.join("goldens/b.json")).unwrap();
    write(dir, "stale.json", &suite(false, 6000));
    let refused = run_suite(dir, "stale.json", &["--out", "stale", "--work-root", "work", "--goldens", "goldens"]);
    assert_eq!(refused.status, 1, "{}", refused.stderr);
    let record = refused.record();
    let (a, b) = (case(&record, "a"), case(&record, "b"));
    assert_eq!((&a["verdict"], &a["error"]["code"]), (&json!("error"), &json!("stale_golden")), "{a}");
    assert!(a["error"]["message"].as_str().unwrap().contains("differing fields: timeout_ms"), "{a}");
    assert_eq!(b["error"]["code"], "missing_golden", "{b}");
    for c in [a, b] {
        assert_eq!(c["documents"].get("comparison"), None, "never compared: {c}");
        assert_eq!(c["dimensions"], Value::Null);
    }
    // Checked under another work root, the golden's working directory differs.
    let moved = run_suite(
        dir,
        "check.json",
        &["--out", "moved", "--work-root", "elsewhere", "--goldens", "goldens", "--case", "a"],
    );
    let a = case(&moved.record(), "a").clone();
    assert_eq!(a["error"]["code"], "stale_golden", "{a}");
    assert!(a["error"]["message"].as_str().unwrap().contains("working_directory"), "{a}");
    assert_eq!(runs(), 2);
}

/// `--self-check`: an authority that disagrees with itself is `unstable`
/// (with its self-comparison), never `changed`, and is not recorded.
#[test]
fn self_check_marks_a_nondeterministic_authority_unstable() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    script(dir, "tools/moody", "if [ \"$1\" = moody ]; then date +%N; else echo steady; fi");
    script(dir, "tools/steady", "if [ \"$1\" = moody ]; then echo 123; else echo steady; fi");
    write(
        dir,
        "suite.json",
        &json!({
            "sides": {"authority": {"executable": "tools/moody"}, "reconstruction": {"executable": "tools/steady"}},
            "cases": [{"name": "moody", "scenario": {"arguments": ["moody"]}}, {"name": "steady", "scenario": {}}],
            "defaults": {"filesystem_observation_paths": ["."]}
        })
        .to_string(),
    );
    let run = run_suite(dir, "suite.json", &["--out", "out", "--self-check"]);
    assert_eq!(run.status, 0, "unstable is not a failure of the rewrite: {}", run.stderr);
    let record = run.record();
    assert_eq!(verdicts(&record), owned(&[("moody", "unstable"), ("steady", "unchanged")]));
    let moody = case(&record, "moody");
    assert_eq!(moody["dimensions"]["terminal"], "changed", "{moody}");
    assert_eq!(moody["first_divergence"]["path"], "terminal.segments[0]", "{moody}");
    for key in ["authority", "authority_repeat", "self_comparison", "reconstruction", "comparison"] {
        assert!(moody["documents"][key]["path"].is_string(), "{key}: {moody}");
    }
    let recording = run_suite(dir, "suite.json", &["--out", "rec", "--self-check", "--record-goldens", "goldens"]);
    assert_eq!(recording.status, 1, "not every golden was recorded: {}", recording.stderr);
    assert_eq!(verdicts(&recording.record()), owned(&[("moody", "unstable"), ("steady", "recorded")]));
    assert!(!dir.join("goldens/moody.json").exists() && dir.join("goldens/steady.json").exists());
}
