//! Suites: many cases, two sides, one verdict table (`rea run-suite`,
//! `rea merge-suite-results`, MCP `run_suite`).
//!
//! A suite is many captures, not a new kind of capture: each side of each
//! case is prepared and captured through the same engine calls as `rea
//! capture-process` and compared as `rea compare-process-captures`
//! compares, and the documents under `--out/cases/NAME/` are those the
//! single commands write. [`plan`] reads and validates everything first
//! (the suite, every case, every fixture, the directories) and writes
//! nothing; [`run`] runs the plan's cases in parallel and seals the suite
//! record.
//!
//! The modules, each importing only those above it in this list: `model`
//! (the suite file typed, the options) and `partition`; `validate` (the
//! suite file's rules) and `compose` (a case and a side become a
//! scenario); `expand` (globs, case files, fixtures); `workdir` and
//! `outdir` (the directories); `record` (the suite record, sealed) and
//! `load` (read back); `golden`, `stop`, `case` (one case) and `runner`
//! (the pool); `merge` and `junit`.

mod case;
mod compose;
mod error;
mod expand;
mod golden;
pub mod junit;
mod load;
mod merge;
mod model;
pub mod outdir;
mod partition;
mod record;
mod runner;
mod stop;
mod validate;
mod workdir;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

pub use error::{SuiteError, SuiteIssue};
pub use load::{SuiteDocument, SuiteLoadError, is_suite_value, load_suite, read_suite_document};
pub use merge::{MergeError, merge};
pub use model::{
    DEFAULT_OUT_DIR, GoldenMode, Goldens, GoldensParameter, MAX_CASES, MAX_JOBS, SIDE_PLACEHOLDER, SideCommand,
    SuiteOptions, default_jobs,
};
pub use partition::{MAX_PARTITIONS, Partition, PartitionError, partition_of};
pub use record::{
    CaseFailure, CaseResult, DimensionStatuses, DocumentRef, Documents, MERGE_OPERATION, SUITE_OPERATION,
    SUITE_PREDICATE, SUITE_SCHEMA_VERSION, SealedSuite, SuiteIdentity, SuiteOutcome, SuiteParameters, SuiteRecord,
    Totals, Verdict,
};
pub use runner::{Progress, Quiet, SuiteObserver};

use self::case::{Context, PlannedCase};
use self::model::SuiteFile;
use self::validate::Needs;
use crate::BuildInfo;
use crate::capture::Cancellation;
use crate::compare::TerminalLens;
use crate::evidence::digest;
use crate::host::{CaptureSupport, Host};
use crate::scenario::{DigestCache, normalize_lexically};

/// Where the suite comes from.
#[derive(Debug, Clone)]
pub enum SuiteSource {
    /// A suite file; globs and fixtures are relative to its directory.
    File(PathBuf),
    /// A suite document given inline (MCP `suite`); globs and fixtures are
    /// relative to `base`.
    Inline {
        /// The suite document.
        document: Value,
        /// The directory its relative paths start from.
        base: PathBuf,
    },
}

/// A validated suite, ready to run: nothing was launched or written to
/// make it.
#[derive(Debug)]
pub struct SuitePlan {
    name: String,
    commitment: String,
    case_names: Vec<String>,
    cases: Vec<PlannedCase>,
    out: PathBuf,
    work_root: PathBuf,
    jobs: usize,
    self_check: bool,
    goldens: Option<Goldens>,
    partition: Option<Partition>,
    case_globs: Vec<String>,
    terminal_lens: TerminalLens,
    environment: Vec<(OsString, OsString)>,
}

impl SuitePlan {
    /// The suite's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The cases this run holds, in suite order.
    pub fn case_names(&self) -> Vec<&str> {
        self.cases.iter().map(|c| c.name.as_str()).collect()
    }
    /// The out directory, absolute.
    pub fn out(&self) -> &Path {
        &self.out
    }
    /// The work root, absolute.
    pub fn work_root(&self) -> &Path {
        &self.work_root
    }
    /// Cases at a time.
    pub fn jobs(&self) -> usize {
        self.jobs
    }
}

/// Reads and validates the suite, every case, every fixture and the
/// directories of a run; nothing is launched or written. `environment` is
/// the environment captures inherit.
pub fn plan(
    host: &Host,
    source: SuiteSource,
    options: SuiteOptions,
    invocation_dir: &Path,
    environment: Vec<(OsString, OsString)>,
) -> Result<SuitePlan, SuiteError> {
    if let CaptureSupport::Unavailable { reason } = host.capture {
        return Err(SuiteError::Unsupported { reason });
    }
    let jobs = options.jobs.unwrap_or_else(default_jobs);
    check_options(&options, jobs)?;
    let (document, base, file) = match source {
        SuiteSource::File(path) => {
            let path = normalize_lexically(&invocation_dir.join(path));
            let document = crate::input::read_json_file("suite", &path, host.open_input)?;
            let base = path.parent().map_or_else(|| invocation_dir.to_owned(), Path::to_owned);
            (document, base, Some(path))
        }
        SuiteSource::Inline { document, base } => (document, normalize_lexically(&invocation_dir.join(base)), None),
    };
    let invalid = |issues| SuiteError::Invalid { file: file.clone(), issues };
    let (suite, found) = validate::validate(&document, Needs { authority: !options.checks_goldens() });
    let mut issues: Vec<SuiteIssue> =
        found.into_iter().map(|i| SuiteIssue { file: None, path: i.path, rule: i.rule }).collect();
    let Some(suite) = suite else { return Err(invalid(issues)) };
    let suite = sides_in_place(host, suite, &base, &environment, &mut issues);
    let expanded = expand::expand(&suite, &base, host.open_input, &mut issues);
    if !issues.is_empty() {
        return Err(invalid(issues));
    }
    let case_files: Vec<Value> = expanded.case_files.iter().map(|(p, d)| json!({"path": p, "scenario": d})).collect();
    let commitment = digest(&json!({ "suite": document, "case_files": case_files }))?;
    let selected = select(expanded.cases, &options.case_globs)?;
    let case_names = selected.iter().map(|c| c.name.clone()).collect();
    let cases = selected.into_iter().filter(|c| options.partition.is_none_or(|p| p.holds(&c.name))).collect();
    let name = suite.name.clone().unwrap_or_else(|| {
        file.as_deref()
            .and_then(Path::file_stem)
            .map_or_else(|| "suite".to_owned(), |s| s.to_string_lossy().into_owned())
    });
    let key = match &file {
        Some(path) => digest(&path.canonicalize().unwrap_or_else(|_| path.clone()).to_string_lossy())?,
        None => commitment.clone(),
    };
    let at = |p: &Path| normalize_lexically(&invocation_dir.join(p));
    let out = at(&options.out);
    if let Some(reason) = outdir::check_out(&out) {
        return Err(SuiteError::Directory { what: "--out", path: out, reason });
    }
    let work_root = options.work_root.as_deref().map_or_else(|| workdir::default_work_root(&key), at);
    check_directories(&out, &work_root, options.goldens.as_ref())?;
    Ok(SuitePlan {
        name,
        commitment,
        case_names,
        cases,
        out,
        work_root,
        jobs,
        self_check: options.self_check,
        goldens: options.goldens.map(|g| match g {
            Goldens::Check(d) => Goldens::Check(at(&d)),
            Goldens::Record(d) => Goldens::Record(at(&d)),
        }),
        partition: options.partition,
        case_globs: options.case_globs,
        terminal_lens: options.terminal_lens,
        environment,
    })
}

fn check_options(options: &SuiteOptions, jobs: usize) -> Result<(), SuiteError> {
    if jobs == 0 || jobs > MAX_JOBS {
        return Err(SuiteError::Option { option: "--jobs", message: format!("{jobs} is not from 1 to {MAX_JOBS}") });
    }
    if options.self_check && options.checks_goldens() {
        return Err(SuiteError::Option {
            option: "--self-check",
            message: "with --goldens the authority does not run, so there is nothing to check it against; record the goldens with --self-check instead".into(),
        });
    }
    for glob in &options.case_globs {
        check_case_glob(glob).map_err(|message| SuiteError::Option { option: "--case", message })?;
    }
    Ok(())
}

/// Why `glob` cannot select cases by name, or `Ok`.
pub fn check_case_glob(glob: &str) -> Result<(), String> {
    glob::Pattern::new(glob).map(|_| ()).map_err(|e| format!("`{glob}` is not a glob: {e}"))
}

/// The directories must be distinct: cases run outside the documents.
fn check_directories(out: &Path, work_root: &Path, goldens: Option<&Goldens>) -> Result<(), SuiteError> {
    if work_root.starts_with(out) || out.starts_with(work_root) {
        return Err(SuiteError::Directory {
            what: "--work-root",
            path: work_root.to_owned(),
            reason: format!("it must lie outside --out {} (and --out outside it)", out.display()),
        });
    }
    if std::fs::symlink_metadata(work_root).is_ok_and(|m| !m.is_dir()) {
        return Err(SuiteError::Directory {
            what: "--work-root",
            path: work_root.to_owned(),
            reason: "it exists and is not a directory".into(),
        });
    }
    if let Some(Goldens::Record(dir)) = goldens
        && std::fs::symlink_metadata(dir).is_ok_and(|m| !m.is_dir())
    {
        return Err(SuiteError::Directory {
            what: "--record-goldens",
            path: dir.clone(),
            reason: "it exists and is not a directory".into(),
        });
    }
    Ok(())
}

/// The sides' executables as every case runs them: a path (with a `/`)
/// made absolute against the suite's directory and checked; a bare name
/// looked up on the inherited `PATH`.
fn sides_in_place(
    host: &Host,
    mut suite: SuiteFile,
    base: &Path,
    environment: &[(OsString, OsString)],
    issues: &mut Vec<SuiteIssue>,
) -> SuiteFile {
    let search = environment.iter().find(|(k, _)| k == OsStr::new("PATH")).map(|(_, v)| v.clone()).unwrap_or_default();
    let mut check = |side: &mut SideCommand, path: &str| {
        let issue = |rule: String| SuiteIssue { file: None, path: path.to_owned(), rule };
        if side.executable.contains('/') {
            let absolute = normalize_lexically(&base.join(&side.executable));
            if !host.pty.is_executable(&absolute) {
                issues.push(issue(format!(
                    "{} (relative to the suite file's directory) is not an executable regular file",
                    absolute.display()
                )));
            }
            side.executable = absolute.to_string_lossy().into_owned();
        } else {
            let found = std::env::split_paths(&search).any(|dir| host.pty.is_executable(&dir.join(&side.executable)));
            if !found {
                issues.push(issue(format!(
                    "`{}` was not found as an executable file in any PATH directory ({})",
                    side.executable,
                    search.to_string_lossy()
                )));
            }
        }
    };
    if let Some(side) = suite.sides.authority.as_mut() {
        check(side, "sides.authority.executable");
    }
    check(&mut suite.sides.reconstruction, "sides.reconstruction.executable");
    suite
}

/// The cases `globs` match (all of them without globs); a glob that matches
/// no case is an error.
fn select(cases: Vec<PlannedCase>, globs: &[String]) -> Result<Vec<PlannedCase>, SuiteError> {
    if globs.is_empty() {
        return Ok(cases);
    }
    let patterns: Vec<glob::Pattern> = globs.iter().filter_map(|g| glob::Pattern::new(g).ok()).collect();
    for (glob, pattern) in globs.iter().zip(&patterns) {
        if !cases.iter().any(|c| pattern.matches(&c.name)) {
            return Err(SuiteError::Option {
                option: "--case",
                message: format!("`{glob}` matches no case of the suite"),
            });
        }
    }
    Ok(cases.into_iter().filter(|c| patterns.iter().any(|p| p.matches(&c.name))).collect())
}

/// Runs the plan: the cases in parallel (`jobs` at a time), each case's
/// documents written as it finishes, then the suite record, sealed and
/// written to `out/suite.json`. `cancellation` stops the run: no case starts
/// after it, running captures are cancelled and cleaned up, the finished
/// cases stay in the out directory and no suite record is written
/// ([`SuiteError::Interrupted`]).
pub fn run(
    host: &Host,
    plan: &SuitePlan,
    build: BuildInfo,
    cancellation: Cancellation,
    observer: &mut dyn SuiteObserver,
) -> Result<SealedSuite, SuiteError> {
    let stop = stop::Stop::default();
    let watch = stop.watch(host, cancellation).map_err(|e| SuiteError::Directory {
        what: "cancellation",
        path: PathBuf::new(),
        reason: e.to_string(),
    })?;
    let out = outdir::OutDir::prepare(plan.out.clone()).map_err(directory("--out", &plan.out))?;
    let work = workdir::WorkRoot::open(plan.work_root.clone()).map_err(directory("--work-root", &plan.work_root))?;
    if let Some(Goldens::Record(dir)) = &plan.goldens {
        std::fs::create_dir_all(dir).map_err(directory("--record-goldens", dir))?;
    }
    let digests = DigestCache::new();
    let ctx = Context {
        host,
        build,
        environment: &plan.environment,
        digests: &digests,
        out: &out,
        work: &work,
        stop: &stop,
        self_check: plan.self_check,
        goldens: plan.goldens.as_ref(),
        terminal_lens: plan.terminal_lens,
    };
    let results = runner::run_all(&ctx, &plan.cases, plan.jobs, observer);
    drop(watch);
    work.finish();
    if results.iter().any(Option::is_none) {
        let (finished, unfinished): (Vec<_>, Vec<_>) =
            plan.cases.iter().zip(&results).partition(|(_, result)| result.is_some());
        return Err(SuiteError::Interrupted {
            cause: stop.fired().unwrap_or(crate::capture::CancelCause::SessionEnd),
            finished: finished.into_iter().map(|(c, _)| c.name.clone()).collect(),
            unfinished: unfinished.into_iter().map(|(c, _)| c.name.clone()).collect(),
            out: plan.out.clone(),
        });
    }
    let cases: Vec<CaseResult> = results.into_iter().flatten().collect();
    let record = SuiteRecord {
        schema_version: SUITE_SCHEMA_VERSION,
        suite: SuiteIdentity {
            name: plan.name.clone(),
            commitment: plan.commitment.clone(),
            case_names: plan.case_names.clone(),
        },
        parameters: parameters(plan),
        totals: Totals::of(&cases),
        cases,
    };
    let sealed = SealedSuite::seal(record, SUITE_OPERATION)?;
    let path = out.path().join(outdir::SUITE_FILE);
    std::fs::File::create(&path)
        .and_then(|f| sealed.write_json(f))
        .map_err(|source| SuiteError::Write { path, source })?;
    Ok(sealed)
}

/// A directory the run could not create or use.
fn directory(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> SuiteError {
    let path = path.to_owned();
    move |e| SuiteError::Directory { what, path, reason: e.to_string() }
}

fn parameters(plan: &SuitePlan) -> SuiteParameters {
    SuiteParameters {
        jobs: plan.jobs as u64,
        partition: plan.partition,
        self_check: plan.self_check,
        goldens: plan.goldens.as_ref().map(|g| GoldensParameter {
            mode: match g {
                Goldens::Check(_) => GoldenMode::Check,
                Goldens::Record(_) => GoldenMode::Record,
            },
            directory: g.directory().to_string_lossy().into_owned(),
        }),
        terminal_lens: plan.terminal_lens,
        case_globs: plan.case_globs.clone(),
    }
}
