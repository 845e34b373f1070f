//! Strict validation of a scenario document.
//!
//! The validator walks the JSON value once, collecting every broken rule with
//! the JSON path it applies to, then checks the cross-field rules whose inputs
//! were valid. Integral numbers written as floats (`5000.0`) are accepted and
//! rewritten as integers, as a JavaScript reader would see them. Only when no
//! issue was found is the value turned into a [`Scenario`], so a `Scenario`
//! always satisfies every rule.

use serde_json::{Map, Value};

use super::model::*;
use crate::keys::keys;
use crate::path::{Issue, join_index, join_key};

/// Keys of the earlier TypeScript scenario format that this format does not have.
const REFERENCE_ONLY_KEYS: &[(&str, &str)] = &[
    ("approved", "rea runs the command with your permissions and has no approval field"),
    ("unknown_registry_approved", "rea has no session unknown registry"),
    ("inherit_environment", "rea inherits the whole host environment; list overrides in `environment`"),
    ("secret_aliases", "mark secret input with `\"sensitive\": true` on an input event instead"),
    ("network_access", "rea does not manage network access"),
    ("checkpoints", "rea snapshots files before launch and after settlement only"),
    ("command_shims", "rea does not install command shims"),
    ("replay", "rea does not replay network traffic"),
    ("reactive", "wait on output with `wait_for` on an event instead"),
    ("filesystem_roots", "the key is now `filesystem_observation_paths`"),
];

/// Keys of the earlier format's `limits` that this format does not have.
const REFERENCE_ONLY_LIMITS: &[(&str, &str)] = &[
    ("protocol_events", "rea does not replay network traffic, so it records no protocol events"),
    ("protocol_body_bytes", "rea does not replay network traffic, so it records no protocol bodies"),
    ("connections", "rea does not replay network traffic, so it opens no connections"),
];

/// Validates `value` in place and builds the scenario, or returns every issue.
pub(super) fn validate(mut value: Value) -> Result<Scenario, Vec<Issue>> {
    let mut v = Validator::default();
    let mut size = ByteCount(0);
    if let Err(e) = serde_json::to_writer(&mut size, &value) {
        v.issue("", format!("internal error: the scenario could not be measured as compact JSON ({e})"));
        return Err(v.issues);
    }
    let ByteCount(size) = size;
    if size > MAX_SCENARIO_BYTES {
        v.issue(
            "",
            format!(
                "the scenario is {size} bytes as compact JSON; at most {MAX_SCENARIO_BYTES} are allowed, so every capture stays importable"
            ),
        );
        return Err(v.issues);
    }
    v.scenario(&mut value);
    if !v.issues.is_empty() {
        return Err(v.issues);
    }
    serde_json::from_value(value).map_err(|e| {
        vec![Issue { path: String::new(), rule: format!("internal error: validated scenario did not convert ({e})") }]
    })
}

/// Counts the bytes written to it.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[derive(Default)]
struct Validator {
    issues: Vec<Issue>,
}

pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn range_text(min: u64, max: u64) -> String {
    format!("an integer from {min} to {max}")
}

impl Validator {
    fn issue(&mut self, path: &str, rule: impl Into<String>) {
        self.issues.push(Issue { path: path.to_owned(), rule: rule.into() });
    }

    fn object<'v>(&mut self, path: &str, value: &'v mut Value) -> Option<&'v mut Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            other => {
                let t = type_name(other);
                self.issue(path, format!("expected an object, got {t}"));
                None
            }
        }
    }

    fn unknown_keys(&mut self, path: &str, map: &Map<String, Value>, allowed: &[&str]) {
        for key in map.keys() {
            if allowed.contains(&key.as_str()) {
                continue;
            }
            let key_path = join_key(path, key);
            let reference_keys = match path {
                "" => REFERENCE_ONLY_KEYS,
                "limits" => REFERENCE_ONLY_LIMITS,
                _ => &[],
            };
            let reference = reference_keys.iter().find(|(k, _)| k == key).map(|(_, why)| *why);
            match reference {
                Some(why) => self.issue(
                    &key_path,
                    format!("unknown key: `{key}` belongs to the earlier TypeScript scenario format and is not accepted here ({why}); remove it"),
                ),
                None => self.issue(
                    &key_path,
                    format!("unknown key; remove it or use one of: {}", allowed.join(", ")),
                ),
            }
        }
    }

    /// Checks an integer in `min..=max`, normalizing integral floats.
    fn integer(&mut self, path: &str, value: &mut Value, min: u64, max: u64) -> Option<u64> {
        let Value::Number(n) = value else {
            let t = type_name(value);
            self.issue(path, format!("expected {}, got {t}", range_text(min, max)));
            return None;
        };
        let parsed = if let Some(u) = n.as_u64() {
            Ok(u)
        } else if let Some(i) = n.as_i64() {
            Err(format!("{i} is negative; expected {}", range_text(min, max)))
        } else {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() != 0.0 {
                Err(format!("{n} is not a whole number; expected {}", range_text(min, max)))
            } else if f < 0.0 {
                Err(format!("{n} is negative; expected {}", range_text(min, max)))
            } else if f > MAX_SAFE_INTEGER as f64 {
                // The number was read as a float and may have been rounded,
                // so it is not quoted as if it were what the user wrote.
                Err(format!("is about {n}, above the maximum {max}"))
            } else {
                // Exact: a whole f64 at or below 2^53 converts without loss.
                Ok(f as u64)
            }
        };
        match parsed {
            Ok(u) if u < min => {
                self.issue(path, format!("{u} is below the minimum {min}"));
                None
            }
            Ok(u) if u > max => {
                self.issue(path, format!("{u} is above the maximum {max}"));
                None
            }
            Ok(u) => {
                *value = Value::Number(u.into());
                Some(u)
            }
            Err(rule) => {
                self.issue(path, rule);
                None
            }
        }
    }

    fn optional_integer(
        &mut self,
        path: &str,
        map: &mut Map<String, Value>,
        key: &str,
        min: u64,
        max: u64,
        default: u64,
    ) -> Option<u64> {
        match map.get_mut(key) {
            None => Some(default),
            Some(value) => self.integer(&join_key(path, key), value, min, max),
        }
    }

    fn boolean(&mut self, path: &str, value: &Value) -> Option<bool> {
        match value {
            Value::Bool(b) => Some(*b),
            other => {
                let t = type_name(other);
                self.issue(path, format!("expected true or false, got {t}"));
                None
            }
        }
    }

    /// Checks a string; `nonempty` and `no_nul` add their rules.
    fn string<'v>(&mut self, path: &str, value: &'v Value, nonempty: bool, no_nul: bool) -> Option<&'v str> {
        let Value::String(s) = value else {
            let t = type_name(value);
            self.issue(path, format!("expected a string, got {t}"));
            return None;
        };
        if nonempty && s.is_empty() {
            self.issue(path, "must not be empty");
            return None;
        }
        if no_nul && s.contains('\0') {
            self.issue(
                path,
                "must not contain a NUL character (U+0000); the operating system cannot pass it to a program",
            );
            return None;
        }
        Some(s)
    }

    fn array<'v>(&mut self, path: &str, value: &'v mut Value, max: usize, what: &str) -> Option<&'v mut Vec<Value>> {
        let Value::Array(items) = value else {
            let t = type_name(value);
            self.issue(path, format!("expected an array of {what}, got {t}"));
            return None;
        };
        if items.len() > max {
            self.issue(path, format!("has {} items; at most {max} are allowed", items.len()));
            return None;
        }
        Some(items)
    }

    fn scenario(&mut self, value: &mut Value) {
        let Some(map) = self.object("", value) else { return };
        self.unknown_keys("", map, keys::<Scenario>());

        match map.get("executable") {
            None => self.issue("executable", "is required: name the program to run, e.g. \"executable\": \"node\""),
            Some(v) => {
                self.string("executable", v, true, true);
            }
        }

        if let Some(v) = map.get_mut("arguments")
            && let Some(items) = self.array("arguments", v, MAX_ARGUMENTS, "strings")
        {
            let items: &Vec<Value> = items;
            for (i, item) in items.iter().enumerate() {
                self.string(&join_index("arguments", i), item, false, true);
            }
        }

        if let Some(v) = map.get("working_directory") {
            self.string("working_directory", v, true, true);
        }

        if let Some(v) = map.get_mut("environment")
            && let Some(env) = self.object("environment", v)
        {
            let env: &Map<String, Value> = env;
            for (name, value) in env {
                let path = join_key("environment", name);
                if !valid_env_name(name) {
                    self.issue(
                        &path,
                        "is not a valid variable name: use letters, digits and `_`, not starting with a digit",
                    );
                } else if name == RUN_TOKEN_VARIABLE {
                    self.issue(
                        &path,
                        "is reserved: rea sets REA_PROCESS_RUN_ID to the run's ownership token; remove it",
                    );
                }
                self.string(&path, value, false, true);
            }
        }

        if let Some(v) = map.get_mut("filesystem_observation_paths")
            && let Some(items) = self.array("filesystem_observation_paths", v, MAX_OBSERVATION_PATHS, "paths")
        {
            let items: &Vec<Value> = items;
            for (i, item) in items.iter().enumerate() {
                self.string(&join_index("filesystem_observation_paths", i), item, true, true);
            }
        }

        let scrollback_and_size = match map.get_mut("terminal") {
            None => Some(Terminal::default()),
            Some(v) => self.terminal(v),
        };

        let timeout = self.optional_integer("", map, "timeout_ms", 1, MAX_SAFE_INTEGER, DEFAULT_TIMEOUT_MS);
        self.optional_integer("", map, "idle_timeout_ms", 1, MAX_SAFE_INTEGER, DEFAULT_IDLE_TIMEOUT_MS);
        let settle = self.optional_integer("", map, "settle_ms", 0, MAX_SAFE_INTEGER, DEFAULT_SETTLE_MS);
        let finalization =
            self.optional_integer("", map, "finalization_ms", 0, MAX_SAFE_INTEGER, DEFAULT_FINALIZATION_MS);
        if let (Some(t), Some(f), Some(s)) = (timeout, finalization, settle) {
            // Each term is at most 2^53 - 1, so the u128 sum cannot overflow.
            let total = u128::from(t) + u128::from(f) + u128::from(s);
            if total > u128::from(MAX_SAFE_INTEGER) {
                let path = if map.contains_key("finalization_ms") { "finalization_ms" } else { "timeout_ms" };
                self.issue(
                    path,
                    format!(
                        "timeout_ms + finalization_ms + settle_ms = {t} + {f} + {s} = {total}, above {MAX_SAFE_INTEGER} (2^53 - 1); shorten one of them"
                    ),
                );
            }
        }

        if let Some(v) = map.get_mut("events") {
            self.events(v, timeout, scrollback_and_size);
        }

        if let Some(v) = map.get_mut("limits") {
            self.limits(v);
        }

        if let Some(v) = map.get_mut("normalization") {
            self.normalization(v);
        }

        if let Some(v) = map.get("process_observation") {
            self.process_observation(v);
        }
    }

    fn terminal(&mut self, value: &mut Value) -> Option<Terminal> {
        let map = self.object("terminal", value)?;
        self.unknown_keys("terminal", map, keys::<Terminal>());
        let answer_queries = match map.get("answer_queries") {
            Some(v) => self.boolean("terminal.answer_queries", v),
            None => Some(DEFAULT_ANSWER_QUERIES),
        };
        let columns =
            self.optional_integer("terminal", map, "columns", 1, MAX_TERMINAL_DIMENSION, DEFAULT_COLUMNS.into());
        let rows = self.optional_integer("terminal", map, "rows", 1, MAX_TERMINAL_DIMENSION, DEFAULT_ROWS.into());
        let scrollback =
            self.optional_integer("terminal", map, "scrollback", 0, MAX_SCROLLBACK, DEFAULT_SCROLLBACK.into());
        let (columns, rows, scrollback, answer_queries) = (columns?, rows?, scrollback?, answer_queries?);
        if let Some(rule) = cell_budget_rule(columns, rows, scrollback) {
            self.issue("terminal", rule);
            return None;
        }
        // The bounds above keep each value within u16.
        Some(Terminal { columns: columns as u16, rows: rows as u16, scrollback: scrollback as u16, answer_queries })
    }

    fn events(&mut self, value: &mut Value, timeout: Option<u64>, terminal: Option<Terminal>) {
        let Some(items) = self.array("events", value, MAX_EVENTS, "event objects") else { return };
        let mut previous: Option<(usize, u64)> = None;
        let mut input_bytes = 0usize;
        for (i, item) in items.iter_mut().enumerate() {
            let path = join_index("events", i);
            let Some(event) = self.object(&path, item) else { continue };
            let kind = match event.get("type") {
                None => {
                    self.issue(&join_key(&path, "type"), "is required: one of \"input\", \"resize\", \"signal\"");
                    None
                }
                Some(Value::String(s)) if ["input", "resize", "signal"].contains(&s.as_str()) => Some(s.clone()),
                Some(other) => {
                    let shown = other.to_string();
                    self.issue(
                        &join_key(&path, "type"),
                        format!("{shown} is not an event type; use \"input\", \"resize\" or \"signal\""),
                    );
                    None
                }
            };
            let waits = match event.get_mut("wait_for") {
                Some(w) => {
                    self.wait_for(&join_key(&path, "wait_for"), w, timeout);
                    true
                }
                None => false,
            };
            let at_path = join_key(&path, "at_ms");
            let at = match event.get_mut("at_ms") {
                None if waits => None,
                None => {
                    self.issue(
                        &at_path,
                        "is required unless the event has wait_for: milliseconds after launch at which the event is due",
                    );
                    None
                }
                Some(v) => self.integer(&at_path, v, 0, MAX_SAFE_INTEGER),
            };
            if let Some(at) = at {
                if let Some((j, prev)) = previous
                    && at < prev
                {
                    self.issue(
                        &at_path,
                        format!(
                            "{at} is before events[{j}].at_ms ({prev}); events must be in non-decreasing at_ms order"
                        ),
                    );
                }
                if let Some(t) = timeout
                    && at > t
                {
                    self.issue(
                        &at_path,
                        format!("{at} is after timeout_ms ({t}); every event must fall within the timeout"),
                    );
                }
                previous = Some((i, at));
            }
            let Some(kind) = kind else { continue };
            match kind.as_str() {
                "input" => {
                    self.unknown_keys(&path, event, INPUT_EVENT_KEYS);
                    let sensitive = event.get("sensitive").and_then(|s| self.boolean(&join_key(&path, "sensitive"), s));
                    match event.get("data") {
                        None => self.issue(&join_key(&path, "data"), "is required: the text to type into the terminal"),
                        Some(d) => {
                            let data_path = join_key(&path, "data");
                            if let Some(data) = self.string(&data_path, d, false, false) {
                                input_bytes += data.len();
                                self.input_data(&data_path, data, sensitive == Some(true));
                            }
                        }
                    }
                }
                "resize" => {
                    self.unknown_keys(&path, event, RESIZE_EVENT_KEYS);
                    let mut dim = |this: &mut Self, key: &str, what: &str| {
                        let p = join_key(&path, key);
                        match event.get_mut(key) {
                            None => {
                                this.issue(
                                    &p,
                                    format!("is required for a resize: the new {what} in cells, from 1 to {MAX_TERMINAL_DIMENSION}"),
                                );
                                None
                            }
                            Some(v) => this.integer(&p, v, 1, MAX_TERMINAL_DIMENSION),
                        }
                    };
                    let columns = dim(self, "columns", "width");
                    let rows = dim(self, "rows", "height");
                    if let (Some(c), Some(r), Some(t)) = (columns, rows, terminal)
                        && let Some(rule) = cell_budget_rule(c, r, u64::from(t.scrollback))
                    {
                        self.issue(&path, format!("{rule} (a resize keeps terminal.scrollback)"));
                    }
                }
                _ => {
                    self.unknown_keys(&path, event, SIGNAL_EVENT_KEYS);
                    let names: Vec<&str> = SignalName::ALL.iter().map(|s| s.as_str()).collect();
                    let p = join_key(&path, "signal");
                    match event.get("signal") {
                        None => self.issue(&p, format!("is required: one of {}", names.join(", "))),
                        Some(Value::String(s)) if SignalName::from_name(s).is_some() => {}
                        Some(other) => {
                            let shown = other.to_string();
                            self.issue(
                                &p,
                                format!("{shown} is not a supported signal; use one of {}", names.join(", ")),
                            );
                        }
                    }
                }
            }
        }
        if input_bytes > MAX_TOTAL_INPUT_BYTES {
            self.issue(
                "events",
                format!(
                    "input events hold {input_bytes} bytes of data together; at most {MAX_TOTAL_INPUT_BYTES} are allowed, so every capture stays importable"
                ),
            );
        }
    }

    /// An event's `wait_for`: exactly one condition, its text or
    /// expression within bounds and compilable, and a timeout within the
    /// scenario's.
    fn wait_for(&mut self, path: &str, value: &mut Value, timeout: Option<u64>) {
        let Some(map) = self.object(path, value) else { return };
        let mut allowed = WaitCondition::KEYS.to_vec();
        allowed.push("timeout_ms");
        self.unknown_keys(path, map, &allowed);
        let present: Vec<&str> = WaitCondition::KEYS.into_iter().filter(|k| map.contains_key(*k)).collect();
        match present.as_slice() {
            [] => self.issue(path, format!("needs one condition: one of {}", WaitCondition::KEYS.join(", "))),
            [key] => {
                let key = *key;
                if let Some(v) = map.get_mut(key) {
                    self.wait_condition(&join_key(path, key), key, v, timeout);
                }
            }
            many => self.issue(
                path,
                format!("has {} conditions ({}); an event waits for exactly one", many.len(), many.join(", ")),
            ),
        }
        if let Some(v) = map.get_mut("timeout_ms") {
            let p = join_key(path, "timeout_ms");
            if let (Some(ms), Some(t)) = (self.integer(&p, v, 1, MAX_SAFE_INTEGER), timeout)
                && ms > t
            {
                self.issue(
                    &p,
                    format!("{ms} is after timeout_ms ({t}); a wait ends at the scenario's deadline anyway"),
                );
            }
        }
    }

    /// One condition of a `wait_for`.
    fn wait_condition(&mut self, path: &str, key: &str, value: &mut Value, timeout: Option<u64>) {
        if key == "quiet_ms" {
            if let (Some(ms), Some(t)) = (self.integer(path, value, 1, MAX_SAFE_INTEGER), timeout)
                && ms >= t
            {
                self.issue(
                    path,
                    format!("{ms} is not below timeout_ms ({t}); the program could never be quiet that long"),
                );
            }
            return;
        }
        let Some(text) = self.string(path, value, true, false) else { return };
        if text.len() > MAX_WAIT_TEXT_BYTES {
            let n = text.len();
            self.issue(path, format!("has {n} UTF-8 bytes; at most {MAX_WAIT_TEXT_BYTES} are allowed"));
            return;
        }
        let compiled = match key {
            "screen_matches" => super::wait::screen_regex(text).map(drop),
            "output_matches" => super::wait::output_dfa(text).map(drop),
            _ => Ok(()),
        };
        if let Err(why) = compiled {
            self.issue(path, format!("is not a usable regular expression: {why}"));
        }
    }

    /// The bounds of one input event's text.
    fn input_data(&mut self, path: &str, data: &str, sensitive: bool) {
        if data.len() > MAX_INPUT_DATA_BYTES {
            self.issue(
                path,
                format!(
                    "has {} UTF-8 bytes; at most {MAX_INPUT_DATA_BYTES} are allowed in one input event (split the text over several events)",
                    data.len()
                ),
            );
        }
        let secret = crate::secrets::secret_part(data).len();
        if sensitive && secret > 0 && secret < MIN_SENSITIVE_INPUT_BYTES {
            self.issue(
                path,
                format!(
                    "a sensitive input needs at least {MIN_SENSITIVE_INPUT_BYTES} bytes besides its line terminator (this one has {secret}), so that its echo can be redacted from terminal text without hiding unrelated text; remove \"sensitive\" if the text is not secret"
                ),
            );
        }
    }

    fn process_observation(&mut self, value: &Value) {
        let path = "process_observation";
        match value {
            Value::String(s) if ["exact", "sampled"].contains(&s.as_str()) => {}
            Value::String(_) => {
                let shown = value.to_string();
                self.issue(path, format!("{shown} is not a process observation; use \"exact\" or \"sampled\""));
            }
            _ => self.issue(path, "must be a string: \"exact\" or \"sampled\""),
        }
    }

    fn limits(&mut self, value: &mut Value) {
        let Some(map) = self.object("limits", value) else { return };
        self.unknown_keys("limits", map, keys::<Limits>());
        for (key, max, default) in [
            ("output_bytes", MAX_OUTPUT_BYTES, DEFAULT_OUTPUT_BYTES),
            ("frames", MAX_FRAMES, DEFAULT_FRAMES),
            ("files", MAX_FILES, DEFAULT_FILES),
            ("file_bytes", MAX_FILE_BYTES, DEFAULT_FILE_BYTES),
            ("processes", MAX_PROCESSES, DEFAULT_PROCESSES),
            ("filesystem_depth", MAX_FILESYSTEM_DEPTH, DEFAULT_FILESYSTEM_DEPTH),
        ] {
            self.optional_integer("limits", map, key, 1, max, default);
        }
    }

    fn normalization(&mut self, value: &mut Value) {
        let Some(map) = self.object("normalization", value) else { return };
        self.unknown_keys("normalization", map, keys::<Normalization>());
        for key in ["paths", "pids", "ports"] {
            if let Some(v) = map.get(key) {
                self.boolean(&join_key("normalization", key), v);
            }
        }
        self.optional_integer("normalization", map, "time_bucket_ms", 1, MAX_TIME_BUCKET_MS, DEFAULT_TIME_BUCKET_MS);
        let Some(v) = map.get_mut("patterns") else { return };
        let Some(items) = self.array("normalization.patterns", v, MAX_PATTERNS, "pattern objects") else { return };
        for (i, item) in items.iter_mut().enumerate() {
            let path = join_index("normalization.patterns", i);
            let Some(obj) = self.object(&path, item) else { continue };
            self.unknown_keys(&path, obj, keys::<Pattern>());
            for (key, max, what) in [
                ("pattern", MAX_PATTERN_CHARS, "the literal text to find (may be empty)"),
                ("replacement", MAX_REPLACEMENT_CHARS, "the literal text that replaces each occurrence (may be empty)"),
            ] {
                let p = join_key(&path, key);
                match obj.get(key) {
                    None => self.issue(&p, format!("is required: {what}")),
                    Some(v) => {
                        if let Some(s) = self.string(&p, v, false, false) {
                            let n = s.chars().count();
                            if n > max {
                                self.issue(&p, format!("has {n} characters; at most {max} are allowed"));
                            }
                        }
                    }
                }
            }
        }
    }
}

fn valid_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn cell_budget_rule(columns: u64, rows: u64, scrollback: u64) -> Option<String> {
    let cells = columns * (rows + scrollback);
    (cells > MAX_TERMINAL_CELLS).then(|| {
        format!(
            "terminal working buffer columns × (rows + scrollback) = {columns} × ({rows} + {scrollback}) = {cells} cells, above the {MAX_TERMINAL_CELLS}-cell budget; rea never clamps it, so choose a smaller size or scrollback"
        )
    })
}

#[cfg(test)]
mod bound_tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_scenario_over_the_whole_document_bound_is_refused_at_its_root() {
        let big = "x".repeat(MAX_SCENARIO_BYTES);
        let issues = validate(json!({"executable": "sh", "arguments": [big]})).unwrap_err();
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].path, "");
        assert!(issues[0].rule.contains("at most 4194304 are allowed"), "{}", issues[0].rule);
    }

    #[test]
    fn input_bounds_count_utf8_bytes_and_a_bare_line_terminator_may_be_sensitive() {
        let at_bound = "é".repeat(MAX_INPUT_DATA_BYTES / 2);
        assert!(
            validate(json!({"executable": "sh", "events": [{"type": "input", "at_ms": 0, "data": at_bound}]})).is_ok()
        );
        let over = format!("{at_bound}x");
        let issues =
            validate(json!({"executable": "sh", "events": [{"type": "input", "at_ms": 0, "data": over}]})).unwrap_err();
        assert_eq!(issues[0].path, "events[0].data");
        for data in ["\r", "\r\n", "", "abcd\n"] {
            let scenario =
                json!({"executable": "sh", "events": [{"type": "input", "at_ms": 0, "data": data, "sensitive": true}]});
            assert!(validate(scenario).is_ok(), "{data:?}");
        }
        let issues = validate(
            json!({"executable": "sh", "events": [{"type": "input", "at_ms": 0, "data": "abc\n", "sensitive": true}]}),
        )
        .unwrap_err();
        assert!(issues[0].rule.contains("this one has 3"), "{}", issues[0].rule);
        let events: Vec<_> = (0..=MAX_TOTAL_INPUT_BYTES / MAX_INPUT_DATA_BYTES)
            .map(|i| json!({"type": "input", "at_ms": i, "data": "b".repeat(MAX_INPUT_DATA_BYTES)}))
            .collect();
        let issues = validate(json!({"executable": "sh", "events": events})).unwrap_err();
        assert_eq!((issues.len(), issues[0].path.as_str()), (1, "events"));
        assert!(issues[0].rule.contains("hold 266240 bytes of data together; at most 262144"), "{}", issues[0].rule);
    }
}
