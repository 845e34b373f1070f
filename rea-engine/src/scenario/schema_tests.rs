//! The published JSON Schema (`docs/scenario.schema.json`): that it is the
//! one the model generates, that it is strict and bounded, and that it agrees
//! with the validator on the repository's example and malformed scenarios.
//!
//! The validator is the authority. The schema cannot express the cross-field
//! rules (event order, `at_ms` within `timeout_ms`, the terminal cell budget,
//! the lifecycle sum); fixtures breaking only those are marked `schema:
//! accepts` in their `.expect` sidecar, and the test holds the schema to that
//! mark so it stays honest in both directions.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{json_schema, parse_scenario};

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the engine lies in the workspace").to_owned()
}

fn published_schema_path() -> PathBuf {
    repository_root().join("docs/scenario.schema.json")
}

/// The published text: the generated schema, pretty-printed, newline-terminated.
fn generated_text() -> String {
    let mut text = serde_json::to_string_pretty(&json_schema()).expect("a schema serializes");
    text.push('\n');
    text
}

#[test]
fn published_schema_is_current() {
    let path = published_schema_path();
    let generated = generated_text();
    if std::env::var("REA_UPDATE_SCHEMA").as_deref() == Ok("1") {
        std::fs::write(&path, &generated).expect("write docs/scenario.schema.json");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is not the schema rea-engine/src/scenario/model.rs generates. Regenerate it with \
         `REA_UPDATE_SCHEMA=1 cargo test -p rea-engine published_schema_is_current` \
         (or `ci/check-generated.sh --update`) and commit the result.",
        path.display()
    );
}

/// Calls `f` on every subschema, with its JSON pointer.
fn each_schema(pointer: &str, schema: &Value, f: &mut dyn FnMut(&str, &serde_json::Map<String, Value>)) {
    let Value::Object(map) = schema else { return };
    f(pointer, map);
    for (key, value) in map {
        let child = format!("{pointer}/{key}");
        match (key.as_str(), value) {
            ("$defs" | "properties", Value::Object(members)) => {
                for (name, sub) in members {
                    each_schema(&format!("{child}/{name}"), sub, f);
                }
            }
            ("oneOf" | "anyOf" | "allOf", Value::Array(items)) => {
                for (i, sub) in items.iter().enumerate() {
                    each_schema(&format!("{child}/{i}"), sub, f);
                }
            }
            ("items" | "additionalProperties" | "propertyNames" | "not", sub) => each_schema(&child, sub, f),
            _ => {}
        }
    }
}

#[test]
fn schema_is_strict_bounded_and_documented() {
    let schema = json_schema();
    let mut problems = Vec::new();
    // `wait_for` is one condition beside an optional timeout: the object is
    // closed by `unevaluatedProperties: false`, its branches (one condition
    // each) by that. Its timeout has no default value (absent: up to the
    // scenario's deadline, as its description says).
    let wait_for = &schema["$defs"]["WaitFor"];
    assert_eq!(wait_for["unevaluatedProperties"], Value::Bool(false), "{wait_for}");
    let no_default = ["/$defs/WaitFor/properties/timeout_ms"];
    each_schema("", &schema, &mut |pointer, map| {
        let has_type = |t: &str| map.get("type").and_then(Value::as_str) == Some(t);
        let closed = map.get("additionalProperties") == Some(&Value::Bool(false))
            || map.get("unevaluatedProperties") == Some(&Value::Bool(false))
            || pointer.starts_with("/$defs/WaitFor/oneOf/");
        if map.contains_key("properties") && !closed {
            problems.push(format!("{pointer}: an object with properties must set additionalProperties: false"));
        }
        if has_type("integer") && !(map.contains_key("minimum") && map.contains_key("maximum")) {
            problems.push(format!("{pointer}: an integer needs a minimum and a maximum"));
        }
        if has_type("array") && !map.contains_key("maxItems") {
            problems.push(format!("{pointer}: an array needs maxItems"));
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            let listed = |m: &serde_json::Map<String, Value>| -> Vec<String> {
                let names = m.get("required").and_then(Value::as_array).into_iter().flatten();
                names.filter_map(Value::as_str).map(str::to_owned).collect()
            };
            let required = listed(map);
            // Required in one of the alternatives of an `anyOf` (`at_ms` or `wait_for`).
            let alternatives: Vec<String> = map
                .get("anyOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_object)
                .flat_map(listed)
                .collect();
            for (name, property) in properties {
                let is_tag = property.get("const").is_some();
                let conditional = alternatives.contains(name)
                    || no_default.contains(&format!("{pointer}/properties/{name}").as_str());
                if !required.contains(name) && property.get("default").is_none() && !is_tag && !conditional {
                    problems.push(format!("{pointer}/properties/{name}: an optional property needs a default"));
                }
                if property.get("description").is_none() && !is_tag {
                    problems.push(format!("{pointer}/properties/{name}: a property needs a description"));
                }
            }
        }
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let variants = schema["$defs"]["Event"]["oneOf"].as_array().expect("events are a oneOf");
    let tags: Vec<&str> = variants.iter().filter_map(|v| v["properties"]["type"]["const"].as_str()).collect();
    assert_eq!(tags, ["input", "resize", "signal"]);
    for variant in variants {
        let required = variant["required"].as_array().expect("each variant lists required keys");
        assert!(required.contains(&"type".into()), "{variant}");
        // `at_ms` is required unless the event waits.
        assert_eq!(variant["anyOf"], serde_json::json!([{"required": ["at_ms"]}, {"required": ["wait_for"]}]));
    }
    assert_eq!(schema["required"], serde_json::json!(["executable"]));
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&json_schema()).expect("the generated schema is a valid JSON Schema")
}

fn json_files(kind: &str, extension: &str) -> Vec<PathBuf> {
    let dir = repository_root().join("tests/fixtures").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("read a fixture entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .collect();
    files.sort();
    files
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn schema_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<(String, String)> {
    validator.iter_errors(instance).map(|e| (e.instance_path().as_str().to_owned(), e.to_string())).collect()
}

#[test]
fn valid_examples_pass_the_validator_and_the_schema() {
    let validator = validator();
    let examples = json_files("valid", "json");
    assert!(examples.len() >= 5, "too few valid examples: {examples:?}");
    for path in examples {
        let document = read_json(&path);
        let errors = schema_errors(&validator, &document);
        assert!(errors.is_empty(), "{}: the schema rejects a valid example: {errors:?}", path.display());
        let scenario = parse_scenario(document).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // The scenario with every default filled in is a valid document too.
        let full = serde_json::to_value(&scenario).expect("a scenario serializes");
        let errors = schema_errors(&validator, &full);
        assert!(errors.is_empty(), "{}: the schema rejects the defaulted scenario: {errors:?}", path.display());
        assert_eq!(parse_scenario(full).expect("the defaulted scenario is valid"), scenario);
    }
}

/// Converts an issue path (`events[2].at_ms`, `environment["A B"]`,
/// `(root)`) to a JSON pointer (`/events/2/at_ms`).
fn pointer(path: &str) -> String {
    fn push(out: &mut String, segment: &str) {
        out.push('/');
        out.push_str(&segment.replace('~', "~0").replace('/', "~1"));
    }
    let mut out = String::new();
    let mut rest = if path == "(root)" { "" } else { path };
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix("[\"") {
            let mut stream = serde_json::Deserializer::from_str(&rest[1..]).into_iter::<String>();
            let key = stream.next().expect("a quoted key").expect("a JSON string key");
            push(&mut out, &key);
            rest = inner.get(stream.byte_offset()..).expect("a closing bracket");
        } else if let Some(inner) = rest.strip_prefix('[') {
            let end = inner.find(']').expect("a closing bracket");
            push(&mut out, &inner[..end]);
            rest = &inner[end + 1..];
        } else {
            let inner = rest.strip_prefix('.').unwrap_or(rest);
            let end = inner.find(['.', '[']).unwrap_or(inner.len());
            push(&mut out, &inner[..end]);
            rest = &inner[end..];
        }
    }
    out
}

#[test]
fn issue_paths_convert_to_json_pointers() {
    assert_eq!(pointer("(root)"), "");
    assert_eq!(pointer("events[2].at_ms"), "/events/2/at_ms");
    assert_eq!(pointer("environment[\"A/B~\"]"), "/environment/A~1B~0");
    assert_eq!(pointer("environment[\"1ST\"].x"), "/environment/1ST/x");
    assert_eq!(pointer("normalization.patterns[0].pattern"), "/normalization/patterns/0/pattern");
}

/// Whether a schema error at `instance` lies on the way to `target`.
fn on_the_way(instance: &str, target: &str) -> bool {
    target == instance || target.starts_with(&format!("{instance}/"))
}

#[test]
fn malformed_fixtures_agree_with_the_schema() {
    let validator = validator();
    let mut failures = Vec::new();
    let mut counts = [0usize; 3];
    for sidecar in json_files("malformed", "expect") {
        let text = std::fs::read_to_string(&sidecar).expect("read a sidecar");
        let value_of = |key: &'static str| text.lines().filter_map(move |l| l.strip_prefix(key));
        let mark = value_of("schema: ").next().unwrap_or_default();
        let fixture = sidecar.with_extension("json");
        let name = fixture.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let bytes = std::fs::read(&fixture).expect("read a fixture");
        if mark == "n/a" {
            counts[2] += 1;
            // Not a document the schema could see: the strict reader refuses it.
            if crate::input::parse_json_bytes("scenario", &fixture, &bytes).is_ok() {
                failures.push(format!("{name}: marked n/a, but it reads as a JSON document"));
            }
            continue;
        }
        let document: Value = match serde_json::from_slice(&bytes) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{name}: marked {mark}, but it is not JSON ({e})"));
                continue;
            }
        };
        if parse_scenario(document.clone()).is_ok() {
            failures.push(format!("{name}: the validator accepts it"));
        }
        let errors = schema_errors(&validator, &document);
        match mark {
            "accepts" => {
                counts[1] += 1;
                if !errors.is_empty() {
                    failures.push(format!(
                        "{name}: marked accepts (a cross-field rule), but the schema rejects it: {errors:?}"
                    ));
                }
            }
            "rejects" => {
                counts[0] += 1;
                for path in value_of("issue: ").filter_map(|i| i.split_once(" | ").map(|(p, _)| p)) {
                    let target = pointer(path);
                    if !errors.iter().any(|(at, _)| on_the_way(at, &target)) {
                        failures.push(format!("{name}: the schema reports nothing on the way to {target}: {errors:?}"));
                    }
                }
            }
            other => failures.push(format!("{name}: unknown schema mark {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(counts[0] >= 100 && counts[1] >= 5 && counts[2] >= 10, "rejects/accepts/n-a: {counts:?}");
}
