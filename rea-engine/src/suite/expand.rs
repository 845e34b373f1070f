//! Case expansion: globs of case files (in byte order of their paths, each
//! named by its file's stem, its fixture the `STEM.in/` directory beside
//! it), inline cases, and each case's scenario for each side, validated by
//! the scenario validator; every issue with its file and JSON path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::case::PlannedCase;
use super::compose::{ReachesNoSide, compose};
use super::error::SuiteIssue;
use super::model::{CaseEntry, SideCommand, SuiteFile};
use super::validate::{case_name_rule, prefixed};
use super::workdir::check_fixture;
use crate::input::{OpenInput, read_json_file};
use crate::path::{Issue, join_index, join_key};
use crate::scenario::{Scenario, normalize_lexically, parse_scenario};

/// Where a case is written.
#[derive(Debug, Clone)]
enum Origin {
    /// A case file.
    File(PathBuf),
    /// `cases[i]` of the suite file.
    Inline(usize),
}

impl Origin {
    /// An issue at `path` of the case's scenario.
    fn issue(&self, path: &str, rule: impl Into<String>) -> SuiteIssue {
        match self {
            Origin::File(file) => SuiteIssue { file: Some(file.clone()), path: path.to_owned(), rule: rule.into() },
            Origin::Inline(i) => SuiteIssue {
                file: None,
                path: prefixed(&join_key(&join_index("cases", *i), "scenario"), path),
                rule: rule.into(),
            },
        }
    }

    fn describe(&self) -> String {
        match self {
            Origin::File(file) => format!("the case file {}", file.display()),
            Origin::Inline(i) => format!("cases[{i}]"),
        }
    }
}

/// A case as written, before its scenarios are composed.
struct Written {
    name: String,
    origin: Origin,
    scenario: Map<String, Value>,
    fixture: Option<PathBuf>,
}

/// The cases of a suite, and the case files read (for the commitment).
#[derive(Debug, Default)]
pub(crate) struct Expanded {
    pub(crate) cases: Vec<PlannedCase>,
    /// Each case file: its path relative to the suite's directory, `/`-separated, and its document.
    pub(crate) case_files: Vec<(String, Value)>,
}

/// Expands `file` (its sides already made absolute) from `base`, the suite
/// file's directory; issues go to `issues`.
pub(crate) fn expand(file: &SuiteFile, base: &Path, open: OpenInput, issues: &mut Vec<SuiteIssue>) -> Expanded {
    let mut expanded = Expanded::default();
    let mut written = Vec::new();
    for (i, entry) in file.cases.iter().enumerate() {
        let at = join_index("cases", i);
        match entry {
            CaseEntry::Glob(pattern) => match glob_files(base, pattern) {
                Ok(paths) => {
                    for path in paths {
                        let read = read_case_file(&path, open, issues);
                        if let Some((case, document)) = read {
                            expanded.case_files.push((relative(base, &path), document));
                            written.push(case);
                        }
                    }
                }
                Err(rule) => issues.push(SuiteIssue { file: None, path: at, rule }),
            },
            CaseEntry::Inline { name, scenario, fixture } => {
                let fixture = fixture.as_ref().and_then(|f| {
                    let dir = normalize_lexically(&base.join(f));
                    let problem = check_fixture(&dir);
                    let rule = problem.map(|why| format!("the fixture {} {why}", dir.display()));
                    rule.map(|rule| issues.push(SuiteIssue { file: None, path: join_key(&at, "fixture"), rule }))
                        .map_or(Some(dir), |()| None)
                });
                let origin = Origin::Inline(i);
                written.push(Written { name: name.clone(), origin, scenario: scenario.clone(), fixture });
            }
        }
    }
    unique_names(&written, issues);
    for case in written {
        if let Some(planned) = plan_case(case, file, issues) {
            expanded.cases.push(planned);
        }
    }
    expanded
}

/// The regular files `pattern` matches under `base`, in byte order of their
/// paths relative to `base`.
fn glob_files(base: &Path, pattern: &str) -> Result<Vec<PathBuf>, String> {
    if Path::new(pattern).is_absolute() {
        return Err(format!("the glob `{pattern}` must be relative to the suite file's directory"));
    }
    let base_text =
        base.to_str().ok_or_else(|| format!("the suite's directory {} is not valid UTF-8", base.display()))?;
    let full = format!("{}/{pattern}", glob::Pattern::escape(base_text));
    let options =
        glob::MatchOptions { case_sensitive: true, require_literal_separator: true, require_literal_leading_dot: true };
    let paths = glob::glob_with(&full, options).map_err(|e| format!("`{pattern}` is not a glob: {e}"))?;
    let mut files = Vec::new();
    for path in paths {
        let path = path.map_err(|e| format!("the glob `{pattern}` cannot be followed: {e}"))?;
        if path.is_file() {
            files.push(path);
        }
    }
    if files.is_empty() {
        return Err(format!("the glob `{pattern}` matches no case file under {}", base.display()));
    }
    files.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
    Ok(files)
}

/// `path` relative to `base`, `/`-separated.
fn relative(base: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Reads one case file: its name, its partial scenario, its fixture.
fn read_case_file(path: &Path, open: OpenInput, issues: &mut Vec<SuiteIssue>) -> Option<(Written, Value)> {
    let issue = |rule: String| SuiteIssue { file: Some(path.to_owned()), path: String::new(), rule };
    let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
        issues.push(issue("the file's name is not valid UTF-8, so it cannot name a case".into()));
        return None;
    };
    if let Some(rule) = case_name_rule(stem) {
        issues.push(issue(format!("the file's stem names the case: {rule}; rename the file")));
        return None;
    }
    let document = match read_json_file("case file", path, open) {
        Ok(document) => document,
        Err(e) => {
            issues.push(issue(e.to_string()));
            return None;
        }
    };
    let Value::Object(scenario) = &document else {
        issues.push(issue(format!("expected a scenario object, got {}", crate::scenario::type_name(&document))));
        return None;
    };
    let fixture = path.with_file_name(format!("{stem}.in"));
    let fixture = fixture.is_dir().then_some(fixture).and_then(|dir| match check_fixture(&dir) {
        None => Some(dir),
        Some(why) => {
            issues.push(SuiteIssue {
                file: Some(dir.clone()),
                path: String::new(),
                rule: format!("the fixture {why}"),
            });
            None
        }
    });
    let case =
        Written { name: stem.to_owned(), origin: Origin::File(path.to_owned()), scenario: scenario.clone(), fixture };
    Some((case, document))
}

/// Every name given twice, at its second place.
fn unique_names(written: &[Written], issues: &mut Vec<SuiteIssue>) {
    let mut first: BTreeMap<&str, &Origin> = BTreeMap::new();
    for case in written {
        match first.get(case.name.as_str()) {
            Some(earlier) => issues.push(case.origin.issue(
                "",
                format!(
                    "the case name `{}` is already the name of {}; case names are unique",
                    case.name,
                    earlier.describe()
                ),
            )),
            None => {
                first.insert(&case.name, &case.origin);
            }
        }
    }
}

/// The case's scenario for each side, or its issues.
fn plan_case(case: Written, file: &SuiteFile, issues: &mut Vec<SuiteIssue>) -> Option<PlannedCase> {
    let mut found: Vec<Issue> = Vec::new();
    let mut scenario_for = |side: &SideCommand| -> Option<Scenario> {
        let composed = match compose(&case.scenario, &file.defaults, side) {
            Ok(composed) => composed,
            Err(ReachesNoSide) => {
                push_new(
                    &mut found,
                    Issue {
                        path: "executable".into(),
                        rule: format!(
                            "the case reaches no side: leave `executable` out (or set it to \"{0}\") or put \"{0}\" in its arguments, so each side runs its own command",
                            super::model::SIDE_PLACEHOLDER
                        ),
                    },
                );
                return None;
            }
        };
        match parse_scenario(Value::Object(composed)) {
            Ok(scenario) => {
                for issue in suite_rules(&scenario) {
                    push_new(&mut found, issue);
                }
                Some(scenario)
            }
            Err(e) => {
                for issue in e.issues {
                    push_new(&mut found, issue);
                }
                None
            }
        }
    };
    let authority = file.sides.authority.as_ref().map(&mut scenario_for);
    let reconstruction = scenario_for(&file.sides.reconstruction);
    for issue in found.iter() {
        let top = issue.path.split(['.', '[']).next().unwrap_or_default();
        let from_defaults = !case.scenario.contains_key(top) && file.defaults.contains_key(top);
        let note = if from_defaults { " (the value comes from the suite's defaults)" } else { "" };
        issues.push(case.origin.issue(&issue.path, format!("{}{note}", issue.rule)));
    }
    if !found.is_empty() {
        return None;
    }
    Some(PlannedCase {
        name: case.name,
        fixture: case.fixture,
        authority: match authority {
            Some(Some(s)) => Some(s),
            Some(None) => return None,
            None => None,
        },
        reconstruction: reconstruction?,
    })
}

fn push_new(found: &mut Vec<Issue>, issue: Issue) {
    if !found.contains(&issue) {
        found.push(issue);
    }
}

/// What a suite asks of a case beyond the scenario's rules: it runs in its
/// own work directory, so its `working_directory` stays inside it.
fn suite_rules(scenario: &Scenario) -> Vec<Issue> {
    let wd = Path::new(&scenario.working_directory);
    let escapes = wd.is_absolute() || normalize_lexically(wd).starts_with("..");
    if escapes {
        return vec![Issue {
            path: "working_directory".into(),
            rule: format!(
                "`{}` leaves the case's work directory; in a suite it is relative to the directory the case runs in (put what the case needs in its fixture)",
                scenario.working_directory
            ),
        }];
    }
    Vec::new()
}
