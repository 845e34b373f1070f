//! JSON paths as they appear in error messages: `events[2].at_ms`,
//! `environment.APP_MODE`, `environment["odd key"]`.

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
