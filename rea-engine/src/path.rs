//! JSON paths as they appear in error messages: `events[2].at_ms`,
//! `environment.APP_MODE`, `environment["odd key"]`.

/// One broken rule of a document (a scenario, a trace specification, tool
/// arguments).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Issue {
    /// JSON path of the offending value, e.g. `events[2].at_ms`; empty for the root.
    pub path: String,
    /// The rule, in words a user can act on.
    pub rule: String,
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", display(&self.path), self.rule)
    }
}

/// Appends an object key to `parent`.
pub fn join_key(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        if parent.is_empty() { key.to_owned() } else { format!("{parent}.{key}") }
    } else {
        let quoted = serde_json::to_string(key).unwrap_or_else(|_| format!("{key:?}"));
        format!("{parent}[{quoted}]")
    }
}

/// Appends an array index to `parent`.
pub fn join_index(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

/// The message of a document that breaks rules: `<subject> <file> is
/// invalid: <path>: <rule>; ...`.
pub fn render_issues(subject: &str, file: Option<&std::path::Path>, issues: &[Issue]) -> String {
    let rules: Vec<String> = issues.iter().map(ToString::to_string).collect();
    match file {
        Some(f) => format!("{subject} {} is invalid: {}", f.display(), rules.join("; ")),
        None => format!("{subject} is invalid: {}", rules.join("; ")),
    }
}

/// The `details` of such an error: the file and every `{path, rule}`.
pub fn issues_details(file: Option<&std::path::Path>, issues: &[Issue]) -> serde_json::Value {
    serde_json::json!({ "file": file.map(|f| f.display().to_string()), "issues": issues })
}

/// The path as shown to a user; the document root is `(root)`.
pub fn display(path: &str) -> &str {
    if path.is_empty() { "(root)" } else { path }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_like_code() {
        let p = join_index(&join_key("", "events"), 2);
        assert_eq!(join_key(&p, "at_ms"), "events[2].at_ms");
        assert_eq!(join_key("environment", "A B"), "environment[\"A B\"]");
        assert_eq!(join_key("", "9x"), "[\"9x\"]");
        assert_eq!(display(""), "(root)");
    }
}
