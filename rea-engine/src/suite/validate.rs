//! Strict validation of a suite document: every broken rule, with its JSON
//! path, in document order; unknown keys are errors. `defaults` is checked
//! as the partial scenario it is (through the scenario validator).

use serde_json::{Map, Value};

use super::model::*;
use crate::path::{Issue, join_index, join_key};
use crate::scenario::{MAX_ARGUMENTS, parse_scenario, type_name};

const SUITE_KEYS: &[&str] = &["name", "sides", "cases", "defaults"];
const SIDES_KEYS: &[&str] = &["authority", "reconstruction"];
const SIDE_KEYS: &[&str] = &["executable", "arguments"];
const INLINE_KEYS: &[&str] = &["name", "scenario", "fixture"];

/// What the run asks of the suite.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Needs {
    /// Whether `sides.authority` is required (it is, unless goldens stand in).
    pub(crate) authority: bool,
}

/// Validates `value` as a suite file: the typed file when its shape allows
/// reading the cases on (so their issues are reported too), and every issue.
pub(crate) fn validate(value: &Value, needs: Needs) -> (Option<SuiteFile>, Vec<Issue>) {
    let mut v = Validator::default();
    let parsed = v.suite(value, needs);
    (parsed, v.issues)
}

/// Whether `name` may name a case: it becomes a file and directory name.
pub(crate) fn case_name_rule(name: &str) -> Option<String> {
    let valid_first = name.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
    let valid_rest = name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if name.is_empty() || name.len() > MAX_CASE_NAME_BYTES || !valid_first || !valid_rest {
        return Some(format!(
            "`{name}` is not a case name: use 1 to {MAX_CASE_NAME_BYTES} ASCII letters, digits, `_`, `-` or `.`, starting with a letter, a digit or `_` (the name becomes a file name)"
        ));
    }
    None
}

#[derive(Default)]
struct Validator {
    issues: Vec<Issue>,
}

impl Validator {
    fn issue(&mut self, path: &str, rule: impl Into<String>) {
        self.issues.push(Issue { path: path.to_owned(), rule: rule.into() });
    }

    fn object<'v>(&mut self, path: &str, value: &'v Value) -> Option<&'v Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            other => {
                self.issue(path, format!("expected an object, got {}", type_name(other)));
                None
            }
        }
    }

    fn unknown_keys(&mut self, path: &str, map: &Map<String, Value>, allowed: &[&str]) {
        for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
            self.issue(&join_key(path, key), format!("unknown key; remove it or use one of: {}", allowed.join(", ")));
        }
    }

    /// A non-empty string without NUL.
    fn text(&mut self, path: &str, value: &Value) -> Option<String> {
        match value {
            Value::String(s) if s.is_empty() => self.issue(path, "must not be empty"),
            Value::String(s) if s.contains('\0') => self.issue(path, "must not contain a NUL character"),
            Value::String(s) => return Some(s.clone()),
            other => self.issue(path, format!("expected a string, got {}", type_name(other))),
        }
        None
    }

    fn suite(&mut self, value: &Value, needs: Needs) -> Option<SuiteFile> {
        let map = self.object("", value)?;
        self.unknown_keys("", map, SUITE_KEYS);
        let name = map.get("name").and_then(|n| self.suite_name(n));
        let sides = match map.get("sides") {
            Some(sides) => self.sides(sides, needs),
            None => {
                self.issue("sides", "missing: a suite names its sides, {\"authority\": ..., \"reconstruction\": ...}");
                None
            }
        };
        let cases = match map.get("cases") {
            Some(cases) => self.cases(cases),
            None => {
                self.issue("cases", "missing: list case-file globs or inline cases");
                None
            }
        };
        let defaults = match map.get("defaults") {
            Some(d) => self.defaults(d),
            None => Some(Map::new()),
        };
        Some(SuiteFile { name, sides: sides?, cases: cases?, defaults: defaults? })
    }

    fn suite_name(&mut self, value: &Value) -> Option<String> {
        let name = self.text("name", value)?;
        if name.chars().count() > MAX_SUITE_NAME_CHARS || name.chars().any(char::is_control) {
            self.issue("name", format!("at most {MAX_SUITE_NAME_CHARS} characters, none of them control characters"));
            return None;
        }
        Some(name)
    }

    fn sides(&mut self, value: &Value, needs: Needs) -> Option<Sides> {
        let map = self.object("sides", value)?;
        self.unknown_keys("sides", map, SIDES_KEYS);
        let authority = match map.get("authority") {
            Some(a) => self.side("sides.authority", a).map(Some),
            None if needs.authority => {
                self.issue("sides.authority", "missing: it is required unless goldens (--goldens) stand in for it");
                None
            }
            None => Some(None),
        };
        let reconstruction = match map.get("reconstruction") {
            Some(r) => self.side("sides.reconstruction", r),
            None => {
                self.issue("sides.reconstruction", "missing: the side checked against the authority");
                None
            }
        };
        Some(Sides { authority: authority?, reconstruction: reconstruction? })
    }

    fn side(&mut self, path: &str, value: &Value) -> Option<SideCommand> {
        let map = self.object(path, value)?;
        self.unknown_keys(path, map, SIDE_KEYS);
        let executable_path = join_key(path, "executable");
        let executable = match map.get("executable") {
            Some(e) => self.text(&executable_path, e),
            None => {
                self.issue(&executable_path, "missing: the program this side runs");
                None
            }
        };
        if executable.as_deref().is_some_and(|e| e.contains(SIDE_PLACEHOLDER)) {
            self.issue(&executable_path, format!("a side's own command cannot hold `{SIDE_PLACEHOLDER}`"));
        }
        let arguments = match map.get("arguments") {
            None => Some(Vec::new()),
            Some(a) => self.side_arguments(&join_key(path, "arguments"), a),
        };
        Some(SideCommand { executable: executable?, arguments: arguments? })
    }

    fn side_arguments(&mut self, path: &str, value: &Value) -> Option<Vec<String>> {
        let Value::Array(items) = value else {
            self.issue(path, format!("expected an array of strings, got {}", type_name(value)));
            return None;
        };
        if items.len() > MAX_ARGUMENTS {
            self.issue(path, format!("{} arguments; at most {MAX_ARGUMENTS} are allowed", items.len()));
        }
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let item_path = join_index(path, i);
            match item {
                Value::String(s) if s.contains('\0') => self.issue(&item_path, "must not contain a NUL character"),
                Value::String(s) if s.contains(SIDE_PLACEHOLDER) => {
                    self.issue(&item_path, format!("a side's own arguments cannot hold `{SIDE_PLACEHOLDER}`"));
                }
                Value::String(s) => out.push(s.clone()),
                other => self.issue(&item_path, format!("expected a string, got {}", type_name(other))),
            }
        }
        (out.len() == items.len()).then_some(out)
    }

    fn cases(&mut self, value: &Value) -> Option<Vec<CaseEntry>> {
        let Value::Array(items) = value else {
            self.issue("cases", format!("expected an array, got {}", type_name(value)));
            return None;
        };
        if items.is_empty() {
            self.issue("cases", "must list at least one case");
        }
        if items.len() > MAX_CASES {
            self.issue("cases", format!("{} entries; at most {MAX_CASES} are allowed", items.len()));
            return None;
        }
        let entries: Vec<Option<CaseEntry>> =
            items.iter().enumerate().map(|(i, item)| self.case(&join_index("cases", i), item)).collect();
        entries.into_iter().collect()
    }

    fn case(&mut self, path: &str, value: &Value) -> Option<CaseEntry> {
        if let Value::String(_) = value {
            return self.text(path, value).map(CaseEntry::Glob);
        }
        let Value::Object(map) = value else {
            self.issue(
                path,
                format!("expected a glob of case files or an inline case object, got {}", type_name(value)),
            );
            return None;
        };
        self.unknown_keys(path, map, INLINE_KEYS);
        let name_path = join_key(path, "name");
        let name = match map.get("name") {
            Some(n) => self.text(&name_path, n),
            None => {
                self.issue(&name_path, "missing: an inline case is named");
                None
            }
        };
        if let Some(rule) = name.as_deref().and_then(case_name_rule) {
            self.issue(&name_path, rule);
        }
        let scenario_path = join_key(path, "scenario");
        let scenario = match map.get("scenario") {
            Some(s) => self.object(&scenario_path, s).cloned(),
            None => {
                self.issue(&scenario_path, "missing: the case's scenario (without `executable`, or with `\"{side}\"`)");
                None
            }
        };
        let fixture = match map.get("fixture") {
            Some(f) => self.text(&join_key(path, "fixture"), f).map(Some),
            None => Some(None),
        };
        Some(CaseEntry::Inline { name: name?, scenario: scenario?, fixture: fixture? })
    }

    /// `defaults`, checked as a scenario with a stand-in executable: its
    /// issues are reported under `defaults`.
    fn defaults(&mut self, value: &Value) -> Option<Map<String, Value>> {
        let map = self.object("defaults", value)?;
        let mut trial = map.clone();
        trial.entry("executable").or_insert_with(|| Value::String("defaults".into()));
        if let Err(e) = parse_scenario(Value::Object(trial)) {
            for issue in e.issues {
                self.issue(&prefixed("defaults", &issue.path), issue.rule);
            }
            return None;
        }
        Some(map.clone())
    }
}

/// `path` (a scenario's JSON path) under `prefix`.
pub(crate) fn prefixed(prefix: &str, path: &str) -> String {
    match path {
        "" => prefix.to_owned(),
        p if p.starts_with('[') => format!("{prefix}{p}"),
        p => format!("{prefix}.{p}"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn issues(value: Value) -> Vec<String> {
        validate(&value, Needs { authority: true }).1.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_valid_suite_is_typed() {
        let (file, issues) = validate(
            &json!({"name": "tools", "sides": {"authority": {"executable": "/bin/echo"},
                "reconstruction": {"executable": "busybox", "arguments": ["echo"]}},
                "cases": ["cases/*.json", {"name": "hi", "scenario": {"arguments": ["hi"]}, "fixture": "fx"}],
                "defaults": {"timeout_ms": 5000}}),
            Needs { authority: true },
        );
        assert_eq!(issues, []);
        let file = file.unwrap();
        assert_eq!(file.sides.reconstruction.words(), ["busybox", "echo"]);
        assert_eq!(file.cases[0], CaseEntry::Glob("cases/*.json".into()));
        assert!(
            matches!(&file.cases[1], CaseEntry::Inline { name, fixture: Some(f), .. } if name == "hi" && f == "fx")
        );
        assert_eq!(file.defaults["timeout_ms"], 5000);
    }

    #[test]
    fn every_broken_rule_is_named_by_its_path() {
        let found = issues(json!({
            "sides": {"authority": {"executable": ""}, "reconstruction": {"executable": "x", "arguments": [1, "{side}"]}, "third": {}},
            "cases": ["", 3, {"name": "a b", "scenario": []}, {"scenario": {}, "extra": 1}],
            "defaults": {"timeout_ms": 0},
            "matrix": true
        }));
        let expected = [
            "matrix: unknown key; remove it or use one of: name, sides, cases, defaults",
            "sides.third: unknown key; remove it or use one of: authority, reconstruction",
            "sides.authority.executable: must not be empty",
            "sides.reconstruction.arguments[0]: expected a string, got a number",
            "sides.reconstruction.arguments[1]: a side's own arguments cannot hold `{side}`",
            "cases[0]: must not be empty",
            "cases[1]: expected a glob of case files or an inline case object, got a number",
            "cases[2].scenario: expected an object, got an array",
            "cases[3].extra: unknown key; remove it or use one of: name, scenario, fixture",
            "cases[3].name: missing: an inline case is named",
            "defaults.timeout_ms: 0 is below the minimum 1",
        ];
        for rule in expected {
            assert!(found.iter().any(|f| f == rule), "missing {rule:?} in {found:#?}");
        }
        assert!(found.iter().any(|f| f.starts_with("cases[2].name: `a b` is not a case name")), "{found:#?}");
    }

    #[test]
    fn the_authority_may_be_left_out_only_for_goldens() {
        let suite = json!({"sides": {"reconstruction": {"executable": "x"}}, "cases": ["*.json"]});
        assert!(validate(&suite, Needs { authority: false }).1.is_empty());
        let found = issues(suite);
        assert_eq!(found, ["sides.authority: missing: it is required unless goldens (--goldens) stand in for it"]);
    }

    #[test]
    fn case_names_become_file_names() {
        assert!(case_name_rule("echo-args_2.v1").is_none());
        for bad in ["", ".hidden", "-x", "a/b", "a b", "é", &"x".repeat(129)] {
            assert!(case_name_rule(bad).is_some(), "{bad:?}");
        }
    }
}
