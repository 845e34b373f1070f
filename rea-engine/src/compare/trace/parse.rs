//! Structural parsing of a trace specification: types, required keys,
//! unknown keys and bounds, each broken rule reported with its JSON path.
//! The cross-field rules of [`super::validate`] run on what parsed.

use serde_json::{Map, Value};

use super::model::*;
use crate::path::{join_index, join_key};
use crate::scenario::{Issue, type_name};

const TOP_KEYS: &[&str] = &["version", "events", "language"];
const EVENT_KEYS: &[&str] = &["id", "source", "exact", "ignore_fields", "cardinality"];
const PARTIAL_ORDER_KEYS: &[&str] = &["kind", "happens_before", "not_before", "unordered_groups", "prefix", "suffix"];
const FINITE_TRACES_KEYS: &[&str] = &["kind", "variants"];

/// Sources of the earlier TypeScript implementation that rea does not capture.
const REFERENCE_ONLY_SOURCES: &[&str] = &["http", "websocket", "shim", "replay_transition"];

/// What parsed: events that broke a rule are `None`, a broken language is `None`.
pub(super) struct Parsed {
    pub(super) events: Vec<Option<TraceEvent>>,
    pub(super) language: Option<Language>,
}

#[derive(Default)]
pub(super) struct Parser {
    pub(super) issues: Vec<Issue>,
}

/// Whether `id` matches `^[A-Za-z][A-Za-z0-9._-]{0,63}$`.
pub(super) fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && id.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

impl Parser {
    pub(super) fn issue(&mut self, path: &str, rule: impl Into<String>) {
        self.issues.push(Issue { path: path.to_owned(), rule: rule.into() });
    }

    /// An object with only `allowed` keys (unknown keys are reported, the object still parses).
    fn object<'v>(&mut self, path: &str, value: &'v Value, allowed: &[&str]) -> Option<&'v Map<String, Value>> {
        let Value::Object(map) = value else {
            self.issue(path, format!("expected an object, got {}", type_name(value)));
            return None;
        };
        for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
            self.issue(&join_key(path, key), format!("unknown key; remove it or use one of: {}", allowed.join(", ")));
        }
        Some(map)
    }

    fn required<'v>(&mut self, path: &str, map: &'v Map<String, Value>, key: &str, hint: &str) -> Option<&'v Value> {
        let value = map.get(key);
        if value.is_none() {
            self.issue(&join_key(path, key), format!("is required: {hint}"));
        }
        value
    }

    /// An array of `min..=max` items.
    fn list<'v>(&mut self, path: &str, value: &'v Value, min: usize, max: usize, what: &str) -> Option<&'v [Value]> {
        let Value::Array(items) = value else {
            self.issue(path, format!("expected an array of {what}, got {}", type_name(value)));
            return None;
        };
        if items.len() < min {
            self.issue(path, format!("has {} items; at least {min} {what} are required", items.len()));
            return None;
        }
        if items.len() > max {
            self.issue(path, format!("has {} items; at most {max} are allowed", items.len()));
            return None;
        }
        Some(items)
    }

    fn id(&mut self, path: &str, value: &Value) -> Option<String> {
        let Value::String(s) = value else {
            self.issue(path, format!("expected an id string, got {}", type_name(value)));
            return None;
        };
        if !valid_id(s) {
            self.issue(
                path,
                format!(
                    "{value} is not a valid id: it must match ^[A-Za-z][A-Za-z0-9._-]{{0,63}}$ (a letter, then at most 63 letters, digits, `.`, `_` or `-`)"
                ),
            );
            return None;
        }
        Some(s.clone())
    }

    /// An array of `min..=max` ids; `None` when any item is broken.
    fn ids(&mut self, path: &str, value: &Value, min: usize, max: usize) -> Option<Vec<String>> {
        let items = self.list(path, value, min, max, "event ids")?;
        let ids: Vec<Option<String>> =
            items.iter().enumerate().map(|(i, v)| self.id(&join_index(path, i), v)).collect();
        ids.into_iter().collect()
    }

    /// An optional array of ids, empty when absent.
    fn optional_ids(&mut self, path: &str, map: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
        match map.get(key) {
            None => Some(Vec::new()),
            Some(v) => self.ids(&join_key(path, key), v, 0, MAX_CONSTRAINTS),
        }
    }

    /// An integer in `0..=max`; integral floats (`2.0`) count as integers.
    fn count(&mut self, path: &str, value: &Value, max: u64) -> Option<u64> {
        let expected = format!("an integer from 0 to {max}");
        let parsed = match value {
            Value::Number(n) => match (n.as_u64(), n.as_f64()) {
                (Some(u), _) => Ok(u),
                (None, Some(f)) if f < 0.0 => Err(format!("{n} is negative; expected {expected}")),
                (None, Some(f)) if f.fract() != 0.0 => Err(format!("{n} is not a whole number; expected {expected}")),
                // A whole, non-negative float: compare as f64 before converting.
                (None, Some(f)) if f > max as f64 => Err(format!("{n} is above the maximum {max}")),
                (None, Some(f)) => Ok(f as u64),
                (None, None) => Err(format!("{n} is not {expected}")),
            },
            other => Err(format!("expected {expected}, got {}", type_name(other))),
        };
        match parsed {
            Ok(u) if u > max => {
                self.issue(path, format!("{u} is above the maximum {max}"));
                None
            }
            Ok(u) => Some(u),
            Err(rule) => {
                self.issue(path, rule);
                None
            }
        }
    }

    /// The whole document.
    pub(super) fn spec(&mut self, value: &Value) -> Option<Parsed> {
        let map = self.object("", value, TOP_KEYS)?;
        if let Some(v) = self.required("", map, "version", "set \"version\": 1") {
            let version_ok = v.as_f64() == Some(1.0);
            if !version_ok {
                self.issue("version", format!("{v} is not a supported version; the only version is 1"));
            }
        }
        let events = match self.required("", map, "events", "declare 1 to 256 events") {
            Some(v) => match self.list("events", v, 1, MAX_EVENTS, "event objects") {
                Some(items) => {
                    items.iter().enumerate().map(|(i, item)| self.event(&join_index("events", i), item)).collect()
                }
                None => Vec::new(),
            },
            None => Vec::new(),
        };
        let language = self
            .required("", map, "language", "an object with \"kind\": \"partial_order\" or \"finite_traces\"")
            .and_then(|v| self.language(v));
        Some(Parsed { events, language })
    }

    fn event(&mut self, path: &str, value: &Value) -> Option<TraceEvent> {
        let map = self.object(path, value, EVENT_KEYS)?;
        let id = self.required(path, map, "id", "name the event").and_then(|v| self.id(&join_key(path, "id"), v));
        let source = self
            .required(path, map, "source", "the observation family the event is drawn from")
            .and_then(|v| self.source(&join_key(path, "source"), v));
        let exact = self.required(path, map, "exact", "the JSON payload an observation must equal").cloned();
        let ignore_fields = match map.get("ignore_fields") {
            None => Some(Vec::new()),
            Some(v) => self.ignore_fields(&join_key(path, "ignore_fields"), v),
        };
        let cardinality = match map.get("cardinality") {
            None => Some(Cardinality::Required),
            Some(v) => self.cardinality(&join_key(path, "cardinality"), v),
        };
        Some(TraceEvent {
            id: id?,
            source: source?,
            exact: exact?,
            ignore_fields: ignore_fields?,
            cardinality: cardinality?,
        })
    }

    fn source(&mut self, path: &str, value: &Value) -> Option<Source> {
        let names: Vec<&str> = Source::ALL.iter().map(|s| s.name()).collect();
        let Value::String(s) = value else {
            self.issue(
                path,
                format!("expected a source name, got {}; use one of: {}", type_name(value), names.join(", ")),
            );
            return None;
        };
        if let Some(source) = Source::from_name(s) {
            return Some(source);
        }
        let why = if REFERENCE_ONLY_SOURCES.contains(&s.as_str()) {
            " (rea captures no protocol traffic, command shims or replay transitions)"
        } else {
            ""
        };
        self.issue(path, format!("unknown source {value}{why}; use one of: {}", names.join(", ")));
        None
    }

    fn ignore_fields(&mut self, path: &str, value: &Value) -> Option<Vec<String>> {
        let items = self.list(path, value, 0, MAX_IGNORE_FIELDS, "field names")?;
        let mut out: Vec<String> = Vec::new();
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let item_path = join_index(path, i);
            match item {
                Value::String(s) if IGNORABLE_FIELDS.contains(&s.as_str()) => {
                    if let Some(j) = out.iter().position(|f| f == s) {
                        self.issue(&item_path, format!("repeats {item} (already at index {j}); list each field once"));
                        ok = false;
                    }
                    out.push(s.clone());
                }
                _ => {
                    self.issue(
                        &item_path,
                        format!(
                            "{item} cannot be ignored; only these top-level fields can: {}",
                            IGNORABLE_FIELDS.join(", ")
                        ),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    fn cardinality(&mut self, path: &str, value: &Value) -> Option<Cardinality> {
        let kinds = ["required", "optional", "exact", "range"];
        let Value::Object(map) = value else {
            self.issue(path, format!("expected an object, got {}", type_name(value)));
            return None;
        };
        let kind_path = join_key(path, "kind");
        let kind = match map.get("kind") {
            None => {
                self.issue(&kind_path, "is required: one of \"required\", \"optional\", \"exact\", \"range\"");
                return None;
            }
            Some(Value::String(k)) if kinds.contains(&k.as_str()) => k.as_str(),
            Some(other) => {
                self.issue(
                    &kind_path,
                    format!(
                        "{other} is not a cardinality kind; use \"required\", \"optional\", \"exact\" or \"range\""
                    ),
                );
                return None;
            }
        };
        let allowed: &[&str] = match kind {
            "exact" => &["kind", "count"],
            "range" => &["kind", "min", "max"],
            _ => &["kind"],
        };
        self.object(path, value, allowed)?;
        let number = |this: &mut Self, key: &str| {
            this.required(path, map, key, "an integer from 0 to 10000")
                .and_then(|v| this.count(&join_key(path, key), v, MAX_CARDINALITY))
        };
        match kind {
            "required" => Some(Cardinality::Required),
            "optional" => Some(Cardinality::Optional),
            "exact" => number(self, "count").map(Cardinality::Exact),
            _ => {
                let (min, max) = (number(self, "min"), number(self, "max"));
                let (min, max) = (min?, max?);
                if min > max {
                    self.issue(&join_key(path, "min"), format!("{min} is above max ({max}); min must not exceed max"));
                    return None;
                }
                Some(Cardinality::Range { min, max })
            }
        }
    }

    fn language(&mut self, value: &Value) -> Option<Language> {
        let Value::Object(map) = value else {
            self.issue("language", format!("expected an object, got {}", type_name(value)));
            return None;
        };
        match map.get("kind") {
            Some(Value::String(k)) if k == "partial_order" => self.partial_order(value),
            Some(Value::String(k)) if k == "finite_traces" => self.finite_traces(value),
            None => {
                self.issue("language.kind", "is required: \"partial_order\" or \"finite_traces\"");
                None
            }
            Some(other) => {
                self.issue(
                    "language.kind",
                    format!("{other} is not a language kind; use \"partial_order\" or \"finite_traces\""),
                );
                None
            }
        }
    }

    /// Each item of an optional array of `{a, b}` id pairs, as `(a, b)`.
    fn pairs(&mut self, map: &Map<String, Value>, key: &str, names: [&str; 2]) -> Option<Vec<(String, String)>> {
        let path = join_key("language", key);
        let Some(value) = map.get(key) else { return Some(Vec::new()) };
        let items = self.list(&path, value, 0, MAX_CONSTRAINTS, "objects")?;
        let pairs: Vec<Option<(String, String)>> = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let item_path = join_index(&path, i);
                let pair = self.object(&item_path, item, &names)?;
                let side = |this: &mut Self, name: &str| {
                    this.required(&item_path, pair, name, "an event id")
                        .and_then(|v| this.id(&join_key(&item_path, name), v))
                };
                let (a, b) = (side(self, names[0]), side(self, names[1]));
                Some((a?, b?))
            })
            .collect();
        pairs.into_iter().collect()
    }

    fn partial_order(&mut self, value: &Value) -> Option<Language> {
        let map = self.object("language", value, PARTIAL_ORDER_KEYS)?;
        let happens_before = self.pairs(map, "happens_before", ["before", "after"]);
        let not_before = self.pairs(map, "not_before", ["event", "anchor"]);
        let groups = match map.get("unordered_groups") {
            None => Some(Vec::new()),
            Some(v) => self.groups(v),
        };
        let prefix = self.optional_ids("language", map, "prefix");
        let suffix = self.optional_ids("language", map, "suffix");
        Some(Language::PartialOrder(PartialOrder {
            happens_before: happens_before?.into_iter().map(|(before, after)| Edge { before, after }).collect(),
            not_before: not_before?.into_iter().map(|(event, anchor)| NotBefore { event, anchor }).collect(),
            unordered_groups: groups?,
            prefix: prefix?,
            suffix: suffix?,
        }))
    }

    fn groups(&mut self, value: &Value) -> Option<Vec<Vec<String>>> {
        let path = "language.unordered_groups";
        let items = self.list(path, value, 0, MAX_GROUP, "group objects")?;
        let groups: Vec<Option<Vec<String>>> = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let item_path = join_index(path, i);
                let group = self.object(&item_path, item, &["events"])?;
                self.required(&item_path, group, "events", "2 to 256 event ids")
                    .and_then(|v| self.ids(&join_key(&item_path, "events"), v, 2, MAX_GROUP))
            })
            .collect();
        groups.into_iter().collect()
    }

    fn finite_traces(&mut self, value: &Value) -> Option<Language> {
        let map = self.object("language", value, FINITE_TRACES_KEYS)?;
        let value = self.required("language", map, "variants", "1 to 64 variant objects")?;
        let items = self.list("language.variants", value, 1, MAX_VARIANTS, "variant objects")?;
        let variants: Vec<Option<Variant>> =
            items.iter().enumerate().map(|(i, item)| self.variant(&join_index("language.variants", i), item)).collect();
        variants.into_iter().collect::<Option<Vec<_>>>().map(Language::FiniteTraces)
    }

    fn variant(&mut self, path: &str, value: &Value) -> Option<Variant> {
        let map = self.object(path, value, &["id", "trace"])?;
        let id = self.required(path, map, "id", "name the variant").and_then(|v| self.id(&join_key(path, "id"), v));
        let trace_path = join_key(path, "trace");
        let tokens = self
            .required(path, map, "trace", "the list of event ids and {\"unordered\": [...]} groups")
            .and_then(|v| self.list(&trace_path, v, 0, MAX_CONSTRAINTS, "tokens"));
        let trace: Option<Vec<Token>> = tokens.and_then(|tokens| {
            let parsed: Vec<Option<Token>> =
                tokens.iter().enumerate().map(|(i, t)| self.token(&join_index(&trace_path, i), t)).collect();
            parsed.into_iter().collect()
        });
        Some(Variant { id: id?, trace: trace? })
    }

    fn token(&mut self, path: &str, value: &Value) -> Option<Token> {
        if value.is_string() {
            return self.id(path, value).map(Token::Event);
        }
        if !value.is_object() {
            self.issue(
                path,
                format!("expected an event id or an {{\"unordered\": [...]}} object, got {}", type_name(value)),
            );
            return None;
        }
        let map = self.object(path, value, &["unordered"])?;
        self.required(path, map, "unordered", "2 to 256 event ids")
            .and_then(|v| self.ids(&join_key(path, "unordered"), v, 2, MAX_GROUP))
            .map(Token::Unordered)
    }
}
