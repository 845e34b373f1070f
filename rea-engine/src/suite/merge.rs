//! `rea merge-suite-results DIR... --out DIR`: the partitions of one suite
//! run, merged into one suite record (and the cases' documents copied), as
//! an unpartitioned run would have written it; mixed suites, mixed counts,
//! missing or doubled partitions are refused, naming them, before anything
//! is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::load::{SuiteLoadError, load_suite};
use super::outdir::{OutDir, SUITE_FILE, check_out};
use super::record::*;
use crate::error::{Category, UserError};
use crate::input::OpenInput;

/// Why partitions cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No input was given.
    #[error("no partition output was given")]
    Empty,
    /// A partition's suite record cannot be read.
    #[error("{}: {source}", .dir.display())]
    Load {
        /// The partition output.
        dir: PathBuf,
        /// Why.
        source: SuiteLoadError,
    },
    /// The inputs are not partitions of one run of one suite.
    #[error("{}", .message)]
    Refused {
        /// What is wrong, naming the directories and partitions.
        message: String,
    },
    /// The out directory cannot be used.
    #[error("--out {} cannot be used: {reason}", .path.display())]
    Out {
        /// The directory.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Writing the merged output failed.
    #[error("{} could not be written: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The merged record could not be serialized (a bug in rea).
    #[error("the merged suite record could not be serialized: {0}")]
    Serialize(#[from] serde_json::Error),
}

impl UserError for MergeError {
    fn category(&self) -> Category {
        match self {
            MergeError::Load { source, .. } => source.category(),
            MergeError::Write { .. } | MergeError::Serialize(_) => Category::ExecutionFailure,
            MergeError::Empty | MergeError::Refused { .. } | MergeError::Out { .. } => Category::InvalidInput,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            MergeError::Empty | MergeError::Refused { .. } => "merge_refused",
            MergeError::Load { source, .. } => source.code(),
            MergeError::Out { .. } => "directory_unusable",
            MergeError::Write { .. } => "write_failed",
            MergeError::Serialize(_) => "internal_error",
        }
    }
    fn remediation(&self) -> String {
        match self {
            MergeError::Load { source, .. } => source.remediation(),
            MergeError::Write { .. } => "Free space or fix the permissions of the out directory, then merge again.".into(),
            MergeError::Serialize(_) => "Report this as a bug in rea.".into(),
            _ => "Give the --out directories of every partition K/N of one run (`rea run-suite SUITE --partition K/N`), each once, and a new --out directory. Nothing was written.".into(),
        }
    }
    fn details(&self) -> Option<Value> {
        match self {
            MergeError::Load { dir, source } => {
                Some(serde_json::json!({ "directory": dir.display().to_string(), "cause": source.details() }))
            }
            MergeError::Out { path, .. } | MergeError::Write { path, .. } => {
                Some(serde_json::json!({ "path": path.display().to_string() }))
            }
            _ => None,
        }
    }
}

fn refused(message: String) -> MergeError {
    MergeError::Refused { message }
}

/// One partition output, read.
struct Input {
    dir: PathBuf,
    record: SuiteRecord,
}

/// Merges the partition outputs `dirs` into `out` and returns the sealed
/// merged record (also written to `out/suite.json`).
pub fn merge(dirs: &[PathBuf], out: &Path, open: OpenInput) -> Result<SealedSuite, MergeError> {
    if dirs.is_empty() {
        return Err(MergeError::Empty);
    }
    check_out_dir(dirs, out)?;
    let mut inputs = Vec::new();
    for dir in dirs {
        let (_, record) =
            load_suite(&dir.join(SUITE_FILE), open).map_err(|source| MergeError::Load { dir: dir.clone(), source })?;
        inputs.push(Input { dir: dir.clone(), record });
    }
    let count = same_run(&inputs)?;
    complete_set(&inputs, count)?;
    let cases = merged_cases(&inputs, count)?;
    for (input, case) in inputs.iter().flat_map(|i| i.record.cases.iter().map(move |c| (i, c))) {
        for document in case.documents.all() {
            if !input.dir.join(&document.path).is_file() {
                return Err(refused(format!(
                    "{}: the document {} of case {} is missing",
                    input.dir.display(),
                    document.path,
                    case.name
                )));
            }
        }
    }
    write_merged(&inputs, cases, out)
}

fn check_out_dir(dirs: &[PathBuf], out: &Path) -> Result<(), MergeError> {
    if let Some(reason) = check_out(out) {
        return Err(MergeError::Out { path: out.to_owned(), reason });
    }
    let out_canonical = out.canonicalize().ok();
    for dir in dirs {
        if out_canonical.is_some() && dir.canonicalize().ok() == out_canonical {
            return Err(MergeError::Out { path: out.to_owned(), reason: "it is one of the partitions merged".into() });
        }
    }
    Ok(())
}

/// The partition count every input shares, once each is shown a partition of
/// the same run of the same suite.
fn same_run(inputs: &[Input]) -> Result<u32, MergeError> {
    let first = &inputs[0];
    let mut count = None;
    for input in inputs {
        let r = &input.record;
        let Some(partition) = r.parameters.partition else {
            return Err(refused(format!("{} is not a partition: its run had no --partition", input.dir.display())));
        };
        let mixed = |what: &str| {
            refused(format!("{} and {} are runs of different {what}", first.dir.display(), input.dir.display()))
        };
        if r.suite != first.record.suite {
            return Err(mixed("suites (their suite name, commitment or selected cases differ)"));
        }
        let (mut a, mut b) = (r.parameters.clone(), first.record.parameters.clone());
        (a.jobs, a.partition, b.jobs, b.partition) = (0, None, 0, None);
        if a != b {
            return Err(mixed("parameters (--self-check, --goldens, --terminal-lens or --case differ)"));
        }
        match count {
            None => count = Some((partition.count, &input.dir)),
            Some((n, dir)) if n != partition.count => {
                return Err(refused(format!(
                    "mixed partition counts: {} is a partition of {n}, {} a partition of {}",
                    dir.display(),
                    input.dir.display(),
                    partition.count
                )));
            }
            Some(_) => {}
        }
    }
    Ok(count.map_or(1, |(n, _)| n))
}

/// Every partition 1..=count given exactly once.
fn complete_set(inputs: &[Input], count: u32) -> Result<(), MergeError> {
    let mut by_index: BTreeMap<u32, Vec<&Path>> = BTreeMap::new();
    for input in inputs {
        let index = input.record.parameters.partition.map_or(0, |p| p.index);
        by_index.entry(index).or_default().push(&input.dir);
    }
    for (index, dirs) in &by_index {
        if dirs.len() > 1 {
            let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            return Err(refused(format!("partition {index}/{count} is given twice: {}", names.join(" and "))));
        }
    }
    let missing: Vec<String> =
        (1..=count).filter(|k| !by_index.contains_key(k)).map(|k| format!("{k}/{count}")).collect();
    if !missing.is_empty() {
        return Err(refused(format!("partition(s) {} missing: give the output of each", missing.join(", "))));
    }
    Ok(())
}

/// The cases of all partitions, in suite order; each must belong to its
/// partition, and together they must be the cases the suite selected.
fn merged_cases(inputs: &[Input], count: u32) -> Result<Vec<CaseResult>, MergeError> {
    let order = &inputs[0].record.suite.case_names;
    let mut found: BTreeMap<&str, &CaseResult> = BTreeMap::new();
    for input in inputs {
        let partition = input.record.parameters.partition.expect("checked to be a partition");
        for case in &input.record.cases {
            if !partition.holds(&case.name) {
                return Err(refused(format!(
                    "{}: case {} does not belong to partition {partition} (it hashes to {}/{count})",
                    input.dir.display(),
                    case.name,
                    super::partition::partition_of(&case.name, count)
                )));
            }
            found.insert(&case.name, case);
        }
    }
    let expected: BTreeSet<&str> = order.iter().map(String::as_str).collect();
    let missing: Vec<&str> = expected.iter().filter(|n| !found.contains_key(*n)).copied().collect();
    if !missing.is_empty() {
        return Err(refused(format!("the partitions lack case(s) the suite selected: {}", missing.join(", "))));
    }
    Ok(order.iter().filter_map(|name| found.get(name.as_str()).map(|c| (*c).clone())).collect())
}

fn write_merged(inputs: &[Input], cases: Vec<CaseResult>, out: &Path) -> Result<SealedSuite, MergeError> {
    let first = &inputs[0].record;
    let jobs = inputs.iter().map(|i| i.record.parameters.jobs).max().unwrap_or(1);
    let parameters = SuiteParameters { jobs, partition: None, ..first.parameters.clone() };
    let totals = Totals::of(&cases);
    let record =
        SuiteRecord { schema_version: SUITE_SCHEMA_VERSION, suite: first.suite.clone(), parameters, cases, totals };
    let sealed = SealedSuite::seal(record, MERGE_OPERATION)?;
    let write = |path: PathBuf| move |source| MergeError::Write { path, source };
    let dir = OutDir::prepare(out.to_owned()).map_err(write(out.to_owned()))?;
    for input in inputs {
        for case in &input.record.cases {
            let case_dir = dir.path().join(super::outdir::CASES_DIR).join(&case.name);
            std::fs::create_dir_all(&case_dir).map_err(write(case_dir.clone()))?;
            for document in case.documents.all() {
                let target = dir.path().join(&document.path);
                std::fs::copy(input.dir.join(&document.path), &target).map_err(write(target.clone()))?;
            }
        }
    }
    let path = dir.path().join(SUITE_FILE);
    std::fs::File::create(&path).and_then(|f| sealed.write_json(f)).map_err(write(path.clone()))?;
    Ok(sealed)
}
