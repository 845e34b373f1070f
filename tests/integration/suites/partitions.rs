//! `--partition K/N` and `rea merge-suite-results`: three partitions run
//! side by side here and merged equal the unpartitioned run; adding a case
//! moves no other; mixed, doubled and missing partitions are refused.

use std::path::Path;

use serde_json::{Value, json};

use super::{command, outcomes, rea, script, write};

fn suite(dir: &Path, file: &str, names: &[&str]) {
    let cases: Vec<Value> = names.iter().map(|n| json!({"name": n, "scenario": {"arguments": [n]}})).collect();
    write(
        dir,
        file,
        &json!({
            "sides": {"authority": {"executable": "tools/say"}, "reconstruction": {"executable": "tools/say-too"}},
            "cases": cases,
            "defaults": {"filesystem_observation_paths": ["."]}
        })
        .to_string(),
    );
}

/// Runs partitions 1..=3 of `file` at once, into `PREFIX-K`.
fn partitions(dir: &Path, file: &str, prefix: &str) -> Vec<Value> {
    let children: Vec<_> = (1..=3)
        .map(|k| {
            let (out, part) = (format!("{prefix}-{k}"), format!("{k}/3"));
            command(dir, &["run-suite", file, "--json", "--jobs", "2", "--out", &out, "--partition", &part])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().unwrap();
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(doc.get("normalized_result").is_some(), "{doc}\n{}", String::from_utf8_lossy(&out.stderr));
            doc["normalized_result"].clone()
        })
        .collect()
}

fn names(record: &Value) -> Vec<String> {
    record["cases"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn partitions_merge_into_the_unpartitioned_run_and_refuse_what_does_not_fit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    script(dir, "tools/say", "echo \"$1\"");
    script(dir, "tools/say-too", "case \"$1\" in delta) echo DELTA ;; *) echo \"$1\" ;; esac");
    let names_before = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
    suite(dir, "suite.json", &names_before);
    let whole = rea(dir, &["run-suite", "suite.json", "--json", "--jobs", "2", "--out", "whole"]);
    assert_eq!(whole.status, 3, "{}", whole.stderr);
    let whole = whole.record();
    let parts = partitions(dir, "suite.json", "part");
    let count: usize = parts.iter().map(|p| p["cases"].as_array().unwrap().len()).sum();
    assert_eq!(count, names_before.len(), "each case in exactly one partition");

    let merged = rea(dir, &["merge-suite-results", "part-1", "part-2", "part-3", "--out", "merged", "--json"]);
    assert_eq!(merged.status, 3, "{}", merged.stderr);
    let merged_record = merged.record();
    assert_eq!(outcomes(&merged_record), outcomes(&whole));
    assert_eq!(merged_record["suite"], whole["suite"]);
    assert_eq!(merged_record["totals"], whole["totals"]);
    assert_eq!(merged_record["parameters"]["partition"], Value::Null);
    assert_eq!(merged.document()["operation"], "merge_suite_results");
    for case in merged_record["cases"].as_array().unwrap() {
        for document in case["documents"].as_object().unwrap().values() {
            assert!(dir.join("merged").join(document["path"].as_str().unwrap()).is_file(), "{document}");
        }
    }
    let shown = rea(dir, &["show", "merged/suite.json"]);
    assert!(shown.stdout.contains("merged from partitions"), "{}", shown.stdout);

    // A case added to the suite moves no other case to another partition.
    let mut names_after = names_before.to_vec();
    names_after.insert(2, "added");
    suite(dir, "grown.json", &names_after);
    let grown = partitions(dir, "grown.json", "grown");
    for (before, after) in parts.iter().zip(&grown) {
        let kept: Vec<String> = names(after).into_iter().filter(|n| n != "added").collect();
        assert_eq!(kept, names(before));
    }

    let refused = |args: &[&str], needle: &str| {
        let mut all = vec!["merge-suite-results"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--out", "refused", "--json"]);
        let run = rea(dir, &all);
        assert_eq!(run.status, 1, "{args:?}: {}", run.stdout);
        let message = run.document()["message"].as_str().unwrap().to_owned();
        assert!(message.contains(needle), "{args:?}: {message}");
        assert!(!dir.join("refused").exists());
    };
    refused(&["part-1", "part-2"], "partition(s) 3/3 missing");
    copy_dir(&dir.join("part-1"), &dir.join("part-1-again"));
    refused(&["part-1", "part-1-again", "part-2", "part-3"], "partition 1/3 is given twice: part-1 and part-1-again");
    refused(&["part-1", "grown-2", "grown-3"], "part-1 and grown-2 are runs of different suites");
    let halves =
        rea(dir, &["run-suite", "suite.json", "--json", "--jobs", "2", "--out", "half-1", "--partition", "1/2"]);
    assert!(halves.status == 0 || halves.status == 3, "{}", halves.stderr);
    refused(&["part-2", "half-1"], "is a partition of 3");
    refused(&["whole", "part-1"], "whole is not a partition");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
