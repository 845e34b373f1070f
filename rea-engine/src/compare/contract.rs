//! Naming the fields in which two comparison contracts differ.

use serde_json::Value;

use crate::evidence::same;
use crate::path::{join_index, join_key};

/// Paths of every differing leaf between two contracts (keys present on one
/// side only included), e.g. `terminal.columns`, `events[1].at_ms`,
/// `normalization.pattern_normalization_version`.
pub fn contract_differences(left: &Value, right: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk("", left, right, &mut out);
    out
}

fn walk(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if same(a, b) {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = join_key(path, k);
                match (x.get(k), y.get(k)) {
                    (Some(va), Some(vb)) => walk(&p, va, vb, out),
                    _ => out.push(p),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                walk(&join_index(path, i), va, vb, out);
            }
        }
        _ => out.push(if path.is_empty() { "(root)".to_owned() } else { path.to_owned() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_leaf_fields_and_one_sided_keys() {
        let a = json!({"terminal": {"columns": 80, "rows": 24}, "events": [{"at_ms": 1}], "normalization": {"ports": true}});
        let b = json!({"terminal": {"columns": 100, "rows": 24}, "events": [{"at_ms": 2}], "normalization": {"ports": true, "pattern_normalization_version": "literal-replacements-v1"}});
        assert_eq!(
            contract_differences(&a, &b),
            ["events[0].at_ms", "normalization.pattern_normalization_version", "terminal.columns"]
        );
        assert!(contract_differences(&a, &a).is_empty());
        assert_eq!(contract_differences(&json!({"events": [1]}), &json!({"events": [1, 2]})), ["events"]);
    }
}
