//! Differential tests: the streamed TOON is byte-identical to what the
//! reference encoder (`toon_format::encode_default`) makes of the JSON value.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{EncodeError, to_toon_string};
use crate::testing::Rng;

/// The reference text for `value`.
fn reference<T: Serialize + ?Sized>(value: &T) -> String {
    toon_format::encode_default(&serde_json::to_value(value).unwrap()).unwrap()
}

#[track_caller]
fn same<T: Serialize + ?Sized>(value: &T) {
    let streamed = to_toon_string(value).unwrap();
    let expected = reference(value);
    if streamed != expected {
        panic!(
            "streamed TOON differs\n--- value\n{}\n--- reference\n{expected}\n--- streamed\n{streamed}",
            serde_json::to_string(value).unwrap()
        );
    }
}

#[test]
fn forms_match_the_reference() {
    let cases = [
        json!({}),
        json!([]),
        json!(null),
        json!("hello"),
        json!("\u{feff}bom"),
        json!({"a": "\u{feff}bom"}),
        json!(["\u{feff}"]),
        json!(-0.0),
        json!({"name": "Alice", "age": 30, "tags": ["a", "b"], "empty": [], "obj": {}}),
        json!({"users": [{"id": 1, "name": "Alice"}, {"name": "Bob", "id": 2}]}),
        json!({"orders": [{"id": 1, "c": {"n": "Ada", "k": "DK"}}, {"id": 2, "c": {"k": "UK", "n": "Bob"}}]}),
        json!({"servers": {"alpha": {"host": "a", "port": 1}, "beta": {"port": 2, "host": "b"}}}),
        json!({"alice": {"age": 30}, "bob": {"age": 25}}),
        json!({"one": {"age": 30}}),
        json!({"items": [1, [2, 3], {"a": 1}, [], {}, [[1]], [{"x": 1}]]}),
        json!({"m": [[1, 2], [], ["a", "b,c"]]}),
        json!([[1, 2], [3]]),
        json!([{"a": 1}, {"a": 2}]),
        json!([{"a": 1}, {"b": 2}]),
        json!({"l": [{"t": [{"a": 1}, {"a": 2}], "z": 1}, {"k": {"p": {"x": 1}, "q": {"x": 2}}, "z": [1]}]}),
        json!({"l": [{"t": [], "z": 1}, {"t": [1, 2]}, {"t": [[1], {"a": 1}]}, {"t": {}}, {"t": {"a": {}}}]}),
        json!({"l": [{"t": [{"a": 1}, {"b": 1}]}, {"t": "x"}, {"t": {"a": 1}, "u": {"b": {"c": 1}, "d": {"c": 2}}}]}),
        json!({"rows": [{"a": {"b": {}}}, {"a": {"b": {}}}]}),
        json!({"rows": [{"a": [1]}, {"a": [1]}]}),
        json!({"rows": [{"a": 1}, {"a": {"b": 1}}]}),
        json!({"n": [1.5, 2.0, -0.0, 1e20, 1e-7, 9223372036854775808.0, -9.3e18, 18446744073709551615u64, i64::MIN]}),
        json!({"s": ["", " a", "a ", "true", "null", "1", "-1", "+1", "05", "1e5", "a:b", "[x]", "{", "#", "-", "a,b", "a|b", "\t", "é", "\"", "\\", "\u{1}", "\u{7f}"]}),
        json!({"": 1, "1a": 2, "a-b": 3, "a.b": 4, "_x": 5, "é": 6, "a b": 7, "a\"b": 8}),
        json!({"deep": {"a": {"b": {"c": [{"d": [{"e": 1}]}]}}}}),
    ];
    for case in &cases {
        same(case);
    }
}

#[test]
fn typed_values_match_their_json_values() {
    #[derive(Serialize)]
    enum Kind {
        Unit,
        New(u8),
        Tuple(u8, String),
        Struct { a: Option<u8> },
    }
    #[derive(Serialize)]
    struct Row {
        kind: Kind,
        f: f32,
        c: char,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe: Option<i128>,
        bytes: serde_bytes_like::Bytes,
        unit: (),
        nan: f64,
        map: std::collections::BTreeMap<u32, bool>,
    }
    mod serde_bytes_like {
        pub(super) struct Bytes(pub(super) &'static [u8]);
        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(self.0)
            }
        }
    }
    let rows: Vec<Row> = [Kind::Unit, Kind::New(1), Kind::Tuple(2, "x".into()), Kind::Struct { a: None }]
        .into_iter()
        .enumerate()
        .map(|(i, kind)| Row {
            kind,
            f: 0.1,
            c: 'é',
            maybe: (i % 2 == 0).then_some(-5),
            bytes: serde_bytes_like::Bytes(b"ab"),
            unit: (),
            nan: f64::NAN,
            map: [(1, true), (i as u32 + 2, false)].into_iter().collect(),
        })
        .collect();
    same(&rows);
    same(&json!({"rows": serde_json::to_value(&rows).unwrap()}));
    same(&[Kind::Unit, Kind::Unit]);
}

#[test]
fn failures_are_errors() {
    let mut deep = json!(1);
    for _ in 0..300 {
        deep = json!({"a": deep});
    }
    assert!(matches!(to_toon_string(&deep), Err(EncodeError::TooDeep)));
    assert!(toon_format::encode_default(&deep).is_err(), "the reference refuses it too");
    let big = u128::MAX;
    assert!(matches!(to_toon_string(&[big]), Err(EncodeError::Serialize(_))));
    let keys: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into_iter().collect();
    assert!(matches!(to_toon_string(&keys), Err(EncodeError::Serialize(_))));
}

#[test]
fn the_repositorys_documents_match_the_reference() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = 0;
    for dir in ["tests", "examples", "docs", "rea-engine/src", "rea-mcp"] {
        for path in files(&root.join(dir)) {
            let Ok(bytes) = std::fs::read(&path) else { continue };
            let value = match path.extension().and_then(|e| e.to_str()) {
                Some("json") => serde_json::from_slice::<Value>(&bytes).ok(),
                Some("toon") => std::str::from_utf8(&bytes).ok().and_then(|t| toon_format::decode_default(t).ok()),
                _ => None,
            };
            if let Some(value) = value {
                same(&value);
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "only {checked} documents found");
}

fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return found };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.push(path);
        }
    }
    found.sort();
    found
}

const STRINGS: &[&str] = &[
    "",
    "a",
    "hello world",
    " lead",
    "trail ",
    "\ttab",
    "true",
    "false",
    "null",
    "0",
    "-1",
    "1.5",
    "1e9",
    "+3",
    "007",
    "1.",
    ".5",
    "a:b",
    "a,b",
    "a|b",
    "a\tb",
    "\"q\"",
    "back\\slash",
    "[x]",
    "{y}",
    "#c",
    "-d",
    "x-y",
    "line\nbreak",
    "\r",
    "\u{0}",
    "\u{1b}[31m",
    "\u{7f}",
    "é",
    "名前",
    "🎉",
    "\u{feff}bom",
    "ok_1.2",
    "null ",
    "- ",
    "::",
];
const KEYS: &[&str] =
    &["a", "b", "c", "id", "name", "data", "at_ms", "x.y", "_k", "1st", "with space", "é", "", "k-v", "q\""];

fn primitive(rng: &mut Rng) -> Value {
    match rng.index(9) {
        0 => Value::Null,
        1 => Value::Bool(rng.index(2) == 0),
        2 => json!(rng.next_u64() as i64 >> rng.index(64)),
        3 => json!(rng.next_u64() >> rng.index(64)),
        4 => json!(*rng.pick(&[0.0, -0.0, 0.1, 1.5, -2.25, 1e20, 1e-7, 3.0, 1e300, 5e-324, 9007199254740993.0, 2e19])),
        5 => json!(f64::from_bits(rng.next_u64() >> 2) * if rng.index(2) == 0 { 1.0 } else { -1.0 }),
        _ => Value::String((*rng.pick(STRINGS)).to_owned()),
    }
}

/// An object with `keys` (in this order), its values drawn by `leaf`.
fn object_with(rng: &mut Rng, keys: &[&str], depth: usize) -> Value {
    let mut map = Map::new();
    for key in keys {
        let value = if rng.index(5) == 0 && depth > 0 { uniform_group(rng, depth - 1) } else { primitive(rng) };
        map.insert((*key).to_owned(), value);
    }
    Value::Object(map)
}

fn uniform_group(rng: &mut Rng, _depth: usize) -> Value {
    let keys = [*rng.pick(KEYS), "zz"];
    object_with(rng, &keys, 0)
}

/// Objects sharing keys (sometimes reordered, sometimes one deviating):
/// tables, keyed tables, and near misses.
fn uniform_objects(rng: &mut Rng, depth: usize) -> Vec<Value> {
    let mut keys: Vec<&str> = (0..1 + rng.index(4)).map(|_| *rng.pick(KEYS)).collect();
    keys.sort_unstable();
    keys.dedup();
    let count = 1 + rng.index(5);
    let nested = rng.index(3) == 0;
    (0..count)
        .map(|_| {
            let mut order = keys.clone();
            if rng.index(4) == 0 {
                order.reverse();
            }
            if rng.index(8) == 0 {
                order.pop();
            }
            let mut row = object_with(rng, &order, 0);
            if nested && let Value::Object(map) = &mut row {
                map.insert("g".into(), json!({"p": primitive(rng), "q": primitive(rng)}));
            }
            if rng.index(10) == 0 { value(rng, depth) } else { row }
        })
        .collect()
}

fn value(rng: &mut Rng, depth: usize) -> Value {
    if depth == 0 {
        return primitive(rng);
    }
    match rng.index(8) {
        0 | 1 => primitive(rng),
        2 => Value::Array((0..rng.index(5)).map(|_| primitive(rng)).collect()),
        3 => Value::Array(uniform_objects(rng, depth - 1)),
        4 => {
            let rows = uniform_objects(rng, depth - 1);
            Value::Object(rows.into_iter().map(|row| (rng.pick(KEYS).to_string(), row)).collect())
        }
        5 => Value::Array((0..rng.index(5)).map(|_| value(rng, depth - 1)).collect()),
        _ => Value::Object((0..rng.index(5)).map(|_| (rng.pick(KEYS).to_string(), value(rng, depth - 1))).collect()),
    }
}

#[test]
fn random_values_match_the_reference() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // How often each form was produced, so the generator is known to reach
    // them all: table, field group, keyed table, hyphen-line table, list.
    let mut seen = [0usize; 5];
    for _ in 0..20_000 {
        let depth = 1 + rng.index(5);
        let value = value(&mut rng, depth);
        same(&value);
        let text = reference(&value);
        let forms = [
            text.contains("]{"),
            text.contains("}}:"),
            text.contains(":]{"),
            text.lines().any(|l| l.trim_start().starts_with("- ") && l.contains("]{")),
            text.contains("\n  - ") || text.contains("\n- "),
        ];
        for (count, form) in seen.iter_mut().zip(forms) {
            *count += usize::from(form);
        }
    }
    assert!(seen.iter().all(|&n| n >= 20), "forms seen: {seen:?}");
}
