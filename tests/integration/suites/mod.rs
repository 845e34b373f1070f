//! `rea run-suite` and `rea merge-suite-results` on real programs: the
//! shipped example suite, GNU coreutils against BusyBox and uutils, scripts
//! written here. Suites run with `--jobs 2` and small cases.
#![cfg(not(feature = "force-stub"))]

mod goldens;
mod interrupt;
mod invalid;
mod junit;
mod mcp;
mod partitions;
mod readme;
mod verdicts;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::util::rea_bin;

/// One `rea` run.
pub(crate) struct Run {
    pub(crate) status: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    /// stdout as JSON.
    pub(crate) fn document(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}\n{}", self.stdout, self.stderr))
    }

    /// The suite record (`normalized_result`).
    pub(crate) fn record(&self) -> Value {
        self.document()["normalized_result"].clone()
    }
}

fn finish(out: Output) -> Run {
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// `rea ARGS` in `dir`, with `dir/tmp` as its temporary directory (where the
/// default work root lies).
pub(crate) fn command(dir: &Path, args: &[&str]) -> Command {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut command = Command::new(rea_bin());
    command.args(args).current_dir(dir).env("TMPDIR", &tmp).env("NO_COLOR", "1").stdin(Stdio::null());
    command
}

/// Runs `rea ARGS` in `dir` to its end.
pub(crate) fn rea(dir: &Path, args: &[&str]) -> Run {
    finish(command(dir, args).output().unwrap())
}

/// `rea run-suite SUITE --json --jobs 2 ARGS` in `dir`.
pub(crate) fn run_suite(dir: &Path, suite: &str, args: &[&str]) -> Run {
    let mut all = vec!["run-suite", suite, "--json", "--jobs", "2"];
    all.extend_from_slice(args);
    rea(dir, &all)
}

/// Writes `text` at `dir/rel`, its directories created.
pub(crate) fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// Writes an executable `sh` script at `dir/rel`.
pub(crate) fn script(dir: &Path, rel: &str, body: &str) -> PathBuf {
    let path = write(dir, rel, &format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The result of case `name` in a suite record.
pub(crate) fn case<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}: {record}"))
}

/// `(name, verdict)` of every case, in record order.
pub(crate) fn verdicts(record: &Value) -> Vec<(String, String)> {
    record["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap().to_owned(), c["verdict"].as_str().unwrap().to_owned()))
        .collect()
}

/// What two runs must agree on: each case's verdict, dimensions and first
/// divergence (times and identities aside).
pub(crate) fn outcomes(record: &Value) -> Vec<Value> {
    record["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| serde_json::json!([c["name"], c["verdict"], c["dimensions"], c["first_divergence"], c["error"]]))
        .collect()
}
