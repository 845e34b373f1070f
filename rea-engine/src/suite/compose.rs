//! A case and a side become one scenario: `defaults` fill the top-level
//! fields the case leaves out, and the side's command takes the place of
//! `{side}`: as the executable (the case leaves `executable` out or sets it
//! to `"{side}"`; the side's arguments come first), as separate arguments
//! (an argument that is exactly `"{side}"`), or as words quoted for a POSIX
//! shell inside a longer argument (`sh -c "{side} --version | head -1"`).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::model::{SIDE_PLACEHOLDER, SideCommand};

/// A case that names no place for the side's command: both sides would run
/// the same thing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReachesNoSide;

/// `word` quoted for a POSIX shell: as is when it holds only characters no
/// shell treats specially, else in single quotes (a `'` as `'\''`).
pub(crate) fn shell_quote(word: &str) -> Cow<'_, str> {
    let plain = !word.is_empty()
        && word.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(b, b'_' | b'@' | b'%' | b'+' | b'=' | b':' | b',' | b'.' | b'/' | b'-')
        });
    if plain { Cow::Borrowed(word) } else { Cow::Owned(format!("'{}'", word.replace('\'', "'\\''"))) }
}

/// The side's words, each quoted for a POSIX shell, joined by spaces.
pub(crate) fn shell_words(words: &[String]) -> String {
    words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
}

/// The case's arguments with `{side}` replaced; whether any held it.
fn substitute(arguments: &[Value], side: &SideCommand) -> (Vec<Value>, bool) {
    let words = side.words();
    let mut reached = false;
    let mut out = Vec::with_capacity(arguments.len());
    for argument in arguments {
        match argument {
            Value::String(s) if s == SIDE_PLACEHOLDER => {
                reached = true;
                out.extend(words.iter().cloned().map(Value::String));
            }
            Value::String(s) if s.contains(SIDE_PLACEHOLDER) => {
                reached = true;
                out.push(Value::String(s.replace(SIDE_PLACEHOLDER, &shell_words(&words))));
            }
            other => out.push(other.clone()),
        }
    }
    (out, reached)
}

/// The scenario document one side of a case runs (validated afterwards by
/// the scenario validator); `Err` when the case reaches no side.
pub(crate) fn compose(
    case: &Map<String, Value>,
    defaults: &Map<String, Value>,
    side: &SideCommand,
) -> Result<Map<String, Value>, ReachesNoSide> {
    let mut scenario = case.clone();
    for (key, value) in defaults {
        scenario.entry(key.clone()).or_insert_with(|| value.clone());
    }
    let given: Vec<Value> = match scenario.get("arguments") {
        Some(Value::Array(items)) => items.clone(),
        // Not an array: the validator names it; nothing to substitute.
        Some(_) => return check_direct(scenario, side),
        None => Vec::new(),
    };
    let (arguments, reached) = substitute(&given, side);
    let direct = match scenario.get("executable") {
        None => true,
        Some(Value::String(e)) => e == SIDE_PLACEHOLDER,
        Some(_) => false,
    };
    if direct {
        scenario.insert("executable".into(), Value::String(side.executable.clone()));
        let mut all: Vec<Value> = side.arguments.iter().cloned().map(Value::String).collect();
        all.extend(arguments);
        scenario.insert("arguments".into(), Value::Array(all));
    } else if reached {
        scenario.insert("arguments".into(), Value::Array(arguments));
    } else if matches!(scenario.get("executable"), Some(Value::String(_))) {
        return Err(ReachesNoSide);
    }
    Ok(scenario)
}

/// A case whose `arguments` is not an array: the side goes in as the
/// executable when the case leaves it to the side; the validator then
/// reports the arguments.
fn check_direct(mut scenario: Map<String, Value>, side: &SideCommand) -> Result<Map<String, Value>, ReachesNoSide> {
    match scenario.get("executable") {
        None => {
            scenario.insert("executable".into(), Value::String(side.executable.clone()));
            Ok(scenario)
        }
        Some(Value::String(e)) if e == SIDE_PLACEHOLDER => {
            scenario.insert("executable".into(), Value::String(side.executable.clone()));
            Ok(scenario)
        }
        Some(_) => Ok(scenario),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn side(executable: &str, arguments: &[&str]) -> SideCommand {
        SideCommand { executable: executable.into(), arguments: arguments.iter().map(|a| (*a).to_owned()).collect() }
    }

    fn map(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn quoting_is_posix() {
        assert_eq!(shell_quote("/usr/bin/busybox"), "/usr/bin/busybox");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("$HOME;rm"), "'$HOME;rm'");
        assert_eq!(shell_words(&["busybox".into(), "echo".into(), "two words".into()]), "busybox echo 'two words'");
        // What a shell reads back is the words as given.
        let words = vec!["x y".to_owned(), "it's".to_owned(), "$(no)".to_owned()];
        let out = std::process::Command::new("sh")
            .args(["-c", &format!("printf '%s\\n' {}", shell_words(&words))])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), "x y\nit's\n$(no)\n");
    }

    #[test]
    fn a_case_without_executable_runs_the_side_with_its_arguments_first() {
        let s = compose(&map(json!({"arguments": ["-n", "3"]})), &Map::new(), &side("busybox", &["head"])).unwrap();
        assert_eq!(Value::Object(s), json!({"executable": "busybox", "arguments": ["head", "-n", "3"]}));
        let s = compose(&map(json!({"executable": "{side}"})), &Map::new(), &side("/bin/true", &[])).unwrap();
        assert_eq!(Value::Object(s), json!({"executable": "/bin/true", "arguments": []}));
    }

    #[test]
    fn the_placeholder_splices_words_or_quotes_them_in_a_pipeline() {
        let case = map(json!({"executable": "sh", "arguments": ["-c", "{side} --version | head -1", "{side}"]}));
        let s = compose(&case, &Map::new(), &side("/opt/my tool", &["-q"])).unwrap();
        assert_eq!(s["arguments"], json!(["-c", "'/opt/my tool' -q --version | head -1", "/opt/my tool", "-q"]));
        assert_eq!(s["executable"], "sh");
    }

    #[test]
    fn defaults_fill_only_what_the_case_leaves_out() {
        let defaults = map(json!({"timeout_ms": 5000, "terminal": {"columns": 100}, "arguments": ["--help"]}));
        let s = compose(&map(json!({"terminal": {"rows": 10}})), &defaults, &side("x", &[])).unwrap();
        assert_eq!(s["timeout_ms"], 5000);
        assert_eq!(s["terminal"], json!({"rows": 10}), "a case's object is taken whole");
        assert_eq!(s["arguments"], json!(["--help"]));
    }

    #[test]
    fn a_case_that_names_its_own_program_without_the_placeholder_reaches_no_side() {
        let case = map(json!({"executable": "sh", "arguments": ["-c", "echo same"]}));
        assert_eq!(compose(&case, &Map::new(), &side("x", &[])), Err(ReachesNoSide));
        let no_arguments = map(json!({"executable": "sh"}));
        assert_eq!(compose(&no_arguments, &Map::new(), &side("x", &[])), Err(ReachesNoSide));
    }
}
