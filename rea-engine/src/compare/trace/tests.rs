//! Tests of trace specifications: every validation rule, projection,
//! evaluation, verdicts, and the interplay with dimension statuses.

use serde_json::{Value, json};

use super::testkit::{RecordBuilder, compare_records, compare_records_with, partial_order};
use super::*;
use crate::evidence::CaptureRecord;

/// Dimension names, as the format writes them.
fn names(dimensions: &[crate::compare::Dimension]) -> Vec<&'static str> {
    dimensions.iter().map(|d| d.as_str()).collect()
}

mod validation {
    use super::*;

    /// Two lifecycle events ordered exit -> settled.
    fn events() -> Value {
        json!([
            {"id": "exit", "source": "lifecycle", "exact": {"event": "exit", "code": 0, "signal": 0, "reason": "exited"},
             "ignore_fields": ["elapsed_ms"]},
            {"id": "settled", "source": "lifecycle",
             "exact": {"event": "settlement", "state": "quiesced", "cleanup_outcome": "not_required"},
             "ignore_fields": ["elapsed_ms"]}
        ])
    }

    fn valid() -> Value {
        partial_order(events(), json!({"happens_before": [{"before": "exit", "after": "settled"}]}))
    }

    /// Sets the value at a `/`-separated pointer (created when absent).
    fn with(mut doc: Value, pointer: &str, value: Value) -> Value {
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let target = doc.pointer_mut(parent).unwrap_or_else(|| panic!("no {parent}"));
        match target {
            Value::Object(m) => {
                m.insert(key.to_owned(), value);
            }
            Value::Array(a) => a[key.parse::<usize>().unwrap()] = value,
            _ => panic!("{parent} is not a container"),
        }
        doc
    }

    fn without(mut doc: Value, pointer: &str) -> Value {
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        doc.pointer_mut(parent).unwrap().as_object_mut().unwrap().remove(key);
        doc
    }

    fn issues(doc: Value) -> Vec<crate::scenario::Issue> {
        match parse_trace_spec(doc) {
            Ok(_) => panic!("the specification was accepted"),
            Err(e) => e.issues,
        }
    }

    /// Asserts an issue at exactly `path` whose rule contains `rule`.
    #[track_caller]
    fn rejects(doc: Value, path: &str, rule: &str) {
        let all = issues(doc);
        assert!(all.iter().any(|i| i.path == path && i.rule.contains(rule)), "no issue {path}: …{rule}… in {all:#?}");
    }

    #[test]
    fn a_valid_specification_parses_with_defaults() {
        let doc = valid();
        let spec = parse_trace_spec(doc.clone()).unwrap();
        assert_eq!(spec.given, doc);
        assert_eq!(spec.events.len(), 2);
        assert_eq!(spec.events[0].cardinality, Cardinality::Required);
        assert_eq!(spec.events[1].source, Source::Lifecycle);
        assert_eq!(spec.sources(), [Source::Lifecycle]);
        let Language::PartialOrder(order) = &spec.language else { panic!("partial order") };
        assert_eq!(order.happens_before, [Edge { before: "exit".into(), after: "settled".into() }]);
        assert!(order.not_before.is_empty() && order.prefix.is_empty() && order.suffix.is_empty());
    }

    #[test]
    fn the_document_must_be_an_object_without_unknown_keys() {
        rejects(json!([]), "", "expected an object, got an array");
        rejects(
            with(valid(), "/extra", json!(1)),
            "extra",
            "unknown key; remove it or use one of: version, events, language",
        );
    }

    #[test]
    fn version_is_required_and_must_be_1() {
        rejects(without(valid(), "/version"), "version", "is required");
        rejects(with(valid(), "/version", json!(2)), "version", "2 is not a supported version; the only version is 1");
        assert!(parse_trace_spec(with(valid(), "/version", json!(1.0))).is_ok());
    }

    #[test]
    fn events_are_required_and_bounded() {
        rejects(without(valid(), "/events"), "events", "is required: declare 1 to 256 events");
        rejects(with(valid(), "/events", json!([])), "events", "has 0 items; at least 1 event objects are required");
        let many: Vec<Value> =
            (0..257).map(|i| json!({"id": format!("e{i}"), "source": "interaction", "exact": {"n": i}})).collect();
        rejects(with(valid(), "/events", Value::Array(many)), "events", "has 257 items; at most 256 are allowed");
        rejects(with(valid(), "/events", json!({})), "events", "expected an array of event objects, got an object");
    }

    #[test]
    fn an_event_rejects_unknown_keys_and_needs_id_source_and_exact() {
        rejects(with(valid(), "/events/0/approved", json!(true)), "events[0].approved", "unknown key");
        rejects(without(valid(), "/events/0/id"), "events[0].id", "is required");
        rejects(without(valid(), "/events/1/source"), "events[1].source", "is required");
        rejects(without(valid(), "/events/1/exact"), "events[1].exact", "is required");
        // `null` is a JSON payload like any other.
        let doc = with(valid(), "/events/1/exact", Value::Null);
        let doc = without(doc, "/events/1/ignore_fields");
        rejects(doc, "events[1].ignore_fields", "every event of one source must ignore the same fields");
    }

    #[test]
    fn ids_follow_the_pattern() {
        for bad in ["1exit", "ex it", "", "é"] {
            rejects(
                with(valid(), "/events/0/id", json!(bad)),
                "events[0].id",
                "is not a valid id: it must match ^[A-Za-z][A-Za-z0-9._-]{0,63}$",
            );
        }
        let long = format!("a{}", "b".repeat(64));
        rejects(with(valid(), "/events/0/id", json!(long)), "events[0].id", "is not a valid id");
        rejects(with(valid(), "/events/0/id", json!(7)), "events[0].id", "expected an id string, got a number");
        let ok = with(valid(), "/events/0/id", json!(format!("A{}", "z.-_9".repeat(12))));
        let ok = with(ok, "/language/happens_before/0/before", json!(format!("A{}", "z.-_9".repeat(12))));
        assert!(parse_trace_spec(ok).is_ok());
    }

    #[test]
    fn sources_of_the_reference_implementation_are_unknown() {
        for source in ["http", "websocket", "shim", "replay_transition"] {
            rejects(
                with(valid(), "/events/0/source", json!(source)),
                "events[0].source",
                "(rea captures no protocol traffic, command shims or replay transitions); use one of: terminal_raw, terminal_rendered, interaction, lifecycle, process, filesystem",
            );
        }
        rejects(
            with(valid(), "/events/0/source", json!("stdout")),
            "events[0].source",
            "unknown source \"stdout\"; use one of",
        );
    }

    #[test]
    fn ignore_fields_are_a_few_distinct_schedule_fields() {
        rejects(
            with(valid(), "/events/0/ignore_fields", json!(["code"])),
            "events[0].ignore_fields[0]",
            "\"code\" cannot be ignored; only these top-level fields can: sequence, at_ms, scheduled_at_ms, dispatched_at_ms, elapsed_ms",
        );
        rejects(
            with(valid(), "/events/0/ignore_fields", json!(["elapsed_ms", "elapsed_ms"])),
            "events[0].ignore_fields[1]",
            "repeats \"elapsed_ms\" (already at index 0)",
        );
        rejects(
            with(
                valid(),
                "/events/0/ignore_fields",
                json!(["sequence", "at_ms", "scheduled_at_ms", "dispatched_at_ms", "elapsed_ms", "at_ms"]),
            ),
            "events[0].ignore_fields",
            "has 6 items; at most 5 are allowed",
        );
    }

    #[test]
    fn ignore_fields_require_an_object_payload() {
        let doc = with(valid(), "/events/0/exact", json!(["exit"]));
        rejects(doc, "events[0].ignore_fields", "requires `exact` to be an object");
    }

    #[test]
    fn events_of_one_source_ignore_the_same_fields() {
        let doc = with(valid(), "/events/1/ignore_fields", json!(["elapsed_ms", "sequence"]));
        rejects(
            doc,
            "events[1].ignore_fields",
            "ignores [elapsed_ms, sequence] but events[0] of the same source \"lifecycle\" ignores [elapsed_ms]",
        );
        // The order of the list does not matter.
        let a = with(valid(), "/events/0/ignore_fields", json!(["sequence", "elapsed_ms"]));
        let b = with(a, "/events/1/ignore_fields", json!(["elapsed_ms", "sequence"]));
        assert!(parse_trace_spec(b).is_ok());
    }

    #[test]
    fn an_exact_payload_omits_ignored_fields() {
        let doc = with(valid(), "/events/1/exact/elapsed_ms", json!(12));
        rejects(doc, "events[1].exact.elapsed_ms", "names the ignored field \"elapsed_ms\"");
    }

    #[test]
    fn event_ids_are_unique() {
        let doc = with(valid(), "/events/1/id", json!("exit"));
        rejects(doc, "events[1].id", "repeats the id \"exit\" of events[0]; event ids must be unique");
    }

    #[test]
    fn predicates_must_not_overlap() {
        let doc =
            with(valid(), "/events/1/exact", json!({"event": "exit", "code": 0, "signal": 0, "reason": "exited"}));
        rejects(doc, "events[1].exact", "overlaps the predicate of events[0]");
        // The same payload under another source is a different predicate.
        let events = json!([
            {"id": "a", "source": "interaction", "exact": {"x": 1}},
            {"id": "b", "source": "process", "exact": {"x": 1}}
        ]);
        let ok = partial_order(events, json!({"unordered_groups": [{"events": ["a", "b"]}]}));
        assert!(parse_trace_spec(ok).is_ok());
    }

    #[test]
    fn cardinality_kinds_and_bounds() {
        let card = |c: Value| with(valid(), "/events/0/cardinality", c);
        rejects(card(json!({"kind": "many"})), "events[0].cardinality.kind", "\"many\" is not a cardinality kind");
        rejects(card(json!({})), "events[0].cardinality.kind", "is required");
        rejects(
            card(json!({"kind": "exact", "count": 10_001})),
            "events[0].cardinality.count",
            "10001 is above the maximum 10000",
        );
        rejects(
            card(json!({"kind": "exact", "count": 1.5})),
            "events[0].cardinality.count",
            "1.5 is not a whole number",
        );
        rejects(card(json!({"kind": "exact", "count": -1})), "events[0].cardinality.count", "-1 is negative");
        rejects(card(json!({"kind": "exact"})), "events[0].cardinality.count", "is required");
        rejects(
            card(json!({"kind": "range", "min": 3, "max": 2})),
            "events[0].cardinality.min",
            "3 is above max (2); min must not exceed max",
        );
        rejects(
            card(json!({"kind": "required", "count": 1})),
            "events[0].cardinality.count",
            "unknown key; remove it or use one of: kind",
        );
        rejects(card(json!("required")), "events[0].cardinality", "expected an object, got a string");
        let spec = parse_trace_spec(card(json!({"kind": "range", "min": 1.0, "max": 2}))).unwrap();
        assert_eq!(spec.events[0].cardinality, Cardinality::Range { min: 1, max: 2 });
    }

    #[test]
    fn the_language_is_required_and_strict() {
        rejects(without(valid(), "/language"), "language", "is required");
        rejects(
            with(valid(), "/language/kind", json!("regular")),
            "language.kind",
            "\"regular\" is not a language kind",
        );
        rejects(without(valid(), "/language/kind"), "language.kind", "is required");
        rejects(
            with(valid(), "/language/variants", json!([])),
            "language.variants",
            "unknown key; remove it or use one of: kind, happens_before",
        );
        rejects(
            with(valid(), "/language/happens_before/0/weight", json!(1)),
            "language.happens_before[0].weight",
            "unknown key",
        );
        rejects(
            without(valid(), "/language/happens_before/0/after"),
            "language.happens_before[0].after",
            "is required",
        );
    }

    #[test]
    fn happens_before_references_known_distinct_events() {
        let doc = with(valid(), "/language/happens_before/0/after", json!("ghost"));
        rejects(doc, "language.happens_before[0].after", "unknown event id \"ghost\"; declare it in events");
        let self_edge =
            json!({"happens_before": [{"before": "exit", "after": "exit"}, {"before": "exit", "after": "settled"}]});
        rejects(
            partial_order(events(), self_edge),
            "language.happens_before[0]",
            "\"exit\" cannot happen before itself",
        );
    }

    #[test]
    fn happens_before_is_acyclic() {
        let order =
            json!({"happens_before": [{"before": "exit", "after": "settled"}, {"before": "settled", "after": "exit"}]});
        rejects(
            partial_order(events(), order),
            "language.happens_before",
            "the edges form a cycle (exit -> settled -> exit); happens-before must be acyclic",
        );
    }

    fn three() -> Value {
        json!([
            {"id": "a", "source": "interaction", "exact": {"n": 1}},
            {"id": "b", "source": "interaction", "exact": {"n": 2}},
            {"id": "c", "source": "interaction", "exact": {"n": 3}}
        ])
    }

    #[test]
    fn not_before_is_known_distinct_declared_once_and_consistent() {
        let doc = |nb: Value| {
            partial_order(
                three(),
                json!({"happens_before": [{"before": "a", "after": "b"}, {"before": "b", "after": "c"}], "not_before": nb}),
            )
        };
        rejects(
            doc(json!([{"event": "a", "anchor": "zz"}])),
            "language.not_before[0].anchor",
            "unknown event id \"zz\"",
        );
        rejects(
            doc(json!([{"event": "a", "anchor": "a"}])),
            "language.not_before[0]",
            "\"a\" cannot be constrained against itself",
        );
        rejects(
            doc(json!([{"event": "c", "anchor": "a"}, {"event": "a", "anchor": "c"}])),
            "language.not_before[1]",
            "repeats the pair a/c of not_before[0]; declare each pair once",
        );
        // a happens before c (through b), so "a must not occur before c" can never hold.
        rejects(
            doc(json!([{"event": "a", "anchor": "c"}])),
            "language.not_before[0]",
            "conflicts with happens_before: \"a\" already happens before \"c\"",
        );
        // The same direction as the order is redundant but allowed.
        assert!(parse_trace_spec(doc(json!([{"event": "c", "anchor": "a"}]))).is_ok());
    }

    #[test]
    fn unordered_groups_are_known_distinct_declared_once_and_unordered() {
        let doc = |order: Value| partial_order(three(), order);
        rejects(
            doc(
                json!({"unordered_groups": [{"events": ["a", "b", "a"]}, {"events": ["a", "c"]}, {"events": ["b", "c"]}]}),
            ),
            "language.unordered_groups[0].events[2]",
            "repeats \"a\" (already at index 0)",
        );
        rejects(
            doc(json!({"unordered_groups": [{"events": ["a", "b", "c"]}, {"events": ["q", "a"]}]})),
            "language.unordered_groups[1].events[0]",
            "unknown event id \"q\"",
        );
        rejects(
            doc(json!({"unordered_groups": [{"events": ["a", "b", "c"]}, {"events": ["c", "a"]}]})),
            "language.unordered_groups[1]",
            "the pair a/c is already declared unordered in unordered_groups[0]",
        );
        rejects(
            doc(
                json!({"happens_before": [{"before": "a", "after": "b"}], "unordered_groups": [{"events": ["a", "b", "c"]}]}),
            ),
            "language.unordered_groups[0]",
            "a/b is already ordered by happens_before or not_before and cannot also be unordered",
        );
        rejects(
            doc(
                json!({"not_before": [{"event": "c", "anchor": "b"}], "unordered_groups": [{"events": ["a", "b", "c"]}]}),
            ),
            "language.unordered_groups[0]",
            "b/c is already ordered",
        );
        rejects(
            doc(json!({"unordered_groups": [{"events": ["a"]}]})),
            "language.unordered_groups[0].events",
            "has 1 items; at least 2 event ids are required",
        );
    }

    #[test]
    fn every_pair_is_ordered_or_unordered() {
        let doc = partial_order(three(), json!({"happens_before": [{"before": "a", "after": "b"}]}));
        let all = issues(doc);
        let rules: Vec<&str> = all.iter().filter(|i| i.path == "language").map(|i| i.rule.as_str()).collect();
        assert_eq!(rules.len(), 2, "{all:#?}");
        assert!(rules[0].starts_with("event pair a/c must be explicitly ordered or unordered"), "{rules:?}");
        assert!(rules[1].starts_with("event pair b/c must be explicitly ordered or unordered"), "{rules:?}");
        // Ordered transitively, through not_before, or declared unordered: complete.
        let ok = partial_order(
            three(),
            json!({"happens_before": [{"before": "a", "after": "b"}], "not_before": [{"event": "c", "anchor": "a"}],
                   "unordered_groups": [{"events": ["b", "c"]}]}),
        );
        assert!(parse_trace_spec(ok).is_ok());
    }

    #[test]
    fn missing_pairs_beyond_twenty_are_counted() {
        let events: Vec<Value> =
            (0..8).map(|i| json!({"id": format!("e{i}"), "source": "interaction", "exact": {"n": i}})).collect();
        let all = issues(partial_order(Value::Array(events), json!({})));
        assert_eq!(all.len(), 21, "{all:#?}");
        assert_eq!(all[20].rule, "8 more event pairs are neither ordered nor unordered");
    }

    #[test]
    fn prefix_and_suffix_ids_are_known() {
        let doc = with(valid(), "/language/prefix", json!(["exit", "nope"]));
        rejects(doc, "language.prefix[1]", "unknown event id \"nope\"");
        let doc = with(valid(), "/language/suffix", json!(["gone"]));
        rejects(doc, "language.suffix[0]", "unknown event id \"gone\"");
        rejects(
            with(valid(), "/language/prefix", json!("exit")),
            "language.prefix",
            "expected an array of event ids, got a string",
        );
    }

    fn finite(variants: Value) -> Value {
        json!({"version": 1, "events": three(), "language": {"kind": "finite_traces", "variants": variants}})
    }

    #[test]
    fn finite_trace_variants_are_distinct() {
        rejects(
            finite(json!([{"id": "v", "trace": ["a", "b", "c"]}, {"id": "v", "trace": ["c", "b", "a"]}])),
            "language.variants[1].id",
            "repeats the id \"v\" of variants[0]; variant ids must be unique",
        );
        rejects(
            finite(
                json!([{"id": "v", "trace": ["a", {"unordered": ["b", "c"]}]}, {"id": "w", "trace": ["a", {"unordered": ["b", "c"]}]}]),
            ),
            "language.variants[1].trace",
            "is the same trace as variants[0]; each variant must differ",
        );
        rejects(finite(json!([])), "language.variants", "has 0 items; at least 1 variant objects are required");
        rejects(
            finite(json!([{"id": "v", "trace": ["a", "b", "c"], "weight": 1}])),
            "language.variants[0].weight",
            "unknown key; remove it or use one of: id, trace",
        );
        let with_edges = finite(json!([{"id": "v", "trace": ["a", "b", "c"]}]));
        rejects(
            with(with_edges, "/language/prefix", json!([])),
            "language.prefix",
            "unknown key; remove it or use one of: kind, variants",
        );
    }

    #[test]
    fn finite_trace_tokens_reference_known_events() {
        rejects(
            finite(json!([{"id": "v", "trace": ["a", "b", "x"]}])),
            "language.variants[0].trace[2]",
            "unknown event id \"x\"",
        );
        rejects(
            finite(json!([{"id": "v", "trace": ["a", {"unordered": ["b", "y"]}]}])),
            "language.variants[0].trace[1].unordered[1]",
            "unknown event id \"y\"",
        );
        rejects(
            finite(json!([{"id": "v", "trace": ["a", 3]}])),
            "language.variants[0].trace[1]",
            "expected an event id or an {\"unordered\": [...]} object, got a number",
        );
        rejects(
            finite(json!([{"id": "v", "trace": [{"unordered": ["a"]}]}])),
            "language.variants[0].trace[0].unordered",
            "at least 2 event ids are required",
        );
    }

    #[test]
    fn finite_trace_variants_satisfy_every_cardinality() {
        rejects(
            finite(json!([{"id": "v", "trace": ["a", "b", "c", "c"]}])),
            "language.variants[0].trace",
            "holds \"c\" 2 times, but its cardinality allows 1..1; variant \"v\" can never be observed",
        );
        rejects(finite(json!([{"id": "v", "trace": ["a", "b"]}])), "language.variants[0].trace", "holds \"c\" 0 times");
        let optional = with(
            finite(json!([{"id": "v", "trace": ["a", "b"]}])),
            "/events/2/cardinality",
            json!({"kind": "optional"}),
        );
        assert!(parse_trace_spec(optional).is_ok());
    }

    #[test]
    fn every_issue_is_reported_at_once() {
        let doc = with(with(valid(), "/events/0/source", json!("http")), "/language/prefix", json!(["exit"]));
        let doc = with(doc, "/extra", json!(0));
        let all = issues(doc);
        let paths: Vec<&str> = all.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, ["extra", "events[0].source"], "{all:#?}");
    }

    #[test]
    fn the_error_names_file_path_and_rule() {
        let mut err = parse_trace_spec(with(valid(), "/events/0/source", json!("http"))).unwrap_err();
        err.file = Some("trace.json".into());
        let message = err.to_string();
        assert!(
            message.starts_with("trace specification trace.json is invalid: events[0].source: unknown source \"http\""),
            "{message}"
        );
        use crate::error::UserError;
        assert_eq!(err.code(), "invalid_trace_specification");
        assert_eq!(err.category(), crate::error::Category::InvalidInput);
        let details = err.details().unwrap();
        assert_eq!(details["file"], "trace.json");
        assert_eq!(details["issues"][0]["path"], "events[0].source");
    }
}

/// Parses a document that must be valid.
fn spec(doc: Value) -> TraceSpec {
    parse_trace_spec(doc).unwrap_or_else(|e| panic!("{e}"))
}

/// An interaction input event ignoring its schedule fields.
fn input_event(id: &str, data: &str) -> Value {
    json!({"id": id, "source": "interaction",
           "exact": {"type": "input", "data": data, "outcome": "dispatched"},
           "ignore_fields": ["sequence", "scheduled_at_ms", "dispatched_at_ms"]})
}

fn exit_event(code: i64) -> Value {
    json!({"id": "exit", "source": "lifecycle", "exact": {"event": "exit", "code": code, "signal": 0, "reason": "exited"},
           "ignore_fields": ["elapsed_ms"]})
}

fn settled_event() -> Value {
    json!({"id": "settled", "source": "lifecycle",
           "exact": {"event": "settlement", "state": "quiesced", "cleanup_outcome": "not_required"},
           "ignore_fields": ["elapsed_ms"]})
}

/// `hello` typed, then exit 0, then settlement.
fn lifecycle_spec() -> TraceSpec {
    spec(partial_order(
        json!([input_event("hello", "hello\r"), exit_event(0), settled_event()]),
        json!({"happens_before": [{"before": "hello", "after": "exit"}, {"before": "exit", "after": "settled"}]}),
    ))
}

fn loc(collection: &'static str, index: u64, capture_order: u64) -> Location {
    Location { collection, index, capture_order }
}

mod projection {
    use super::*;

    #[test]
    fn the_journal_is_walked_in_order_for_the_selected_sources() {
        let r = RecordBuilder::new()
            .frame(0, "a")
            .input(100, 103, "x\r")
            .normalized_frame(110, "<pid>\r\n", "4242\r\n")
            .sample(120, "sh")
            .exit(0)
            .settle(51)
            .build();
        let all = project(&r, &Source::ALL).unwrap();
        let ids: Vec<&str> = all.iter().map(|o| o.event_id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "obs.frames.0",
                "obs.interaction_events.0",
                "obs.frames.1",
                "obs.process_samples.0",
                "obs.lifecycle.0",
                "obs.lifecycle.1"
            ]
        );
        assert_eq!(all[2].location, loc("frames", 1, 2));
        // Normalized text only: raw_data is not part of the payload.
        assert_eq!(all[2].payload, json!({"sequence": 1, "at_ms": 110, "data": "<pid>\r\n"}));
        assert_eq!(all[2].source, Source::TerminalRaw);
        assert_eq!(
            all[1].payload,
            json!({"sequence": 0, "scheduled_at_ms": 100, "dispatched_at_ms": 103, "type": "input", "data": "x\r", "outcome": "dispatched"})
        );
        assert_eq!(all[4].payload, json!({"event": "exit", "code": 0, "signal": 0, "reason": "exited"}));
        assert_eq!(
            all[5].payload,
            json!({"event": "settlement", "state": "quiesced", "elapsed_ms": 51, "cleanup_outcome": "not_required"})
        );

        let lifecycle = project(&r, &[Source::Lifecycle, Source::Interaction]).unwrap();
        let ids: Vec<&str> = lifecycle.iter().map(|o| o.event_id.as_str()).collect();
        assert_eq!(ids, ["obs.interaction_events.0", "obs.lifecycle.0", "obs.lifecycle.1"]);
        assert_eq!(lifecycle[1].location.capture_order, 4);
    }

    #[test]
    fn filesystem_effects_follow_the_journal() {
        let r = RecordBuilder::new().exit(0).settle(50).created_file("out.txt", "ab").build();
        let obs = project(&r, &[Source::Filesystem, Source::Lifecycle]).unwrap();
        assert_eq!(obs.len(), 3);
        assert_eq!(obs[2].event_id, "obs.filesystem_effects.0");
        assert_eq!(obs[2].location, loc("filesystem_effects", 0, 2));
        assert_eq!(obs[2].payload["status"], "created");
        assert_eq!(obs[2].payload["after"]["path"], "root_0:out.txt");
        assert!(project(&r, &[Source::Lifecycle]).unwrap().iter().all(|o| o.source == Source::Lifecycle));
    }
}

mod evaluation {
    use super::*;

    fn run(r: &crate::evidence::CaptureRecord, s: &TraceSpec) -> (SideResult, Option<Diagnostic>) {
        evaluate_side(r, s, "left")
    }

    fn typed() -> RecordBuilder {
        RecordBuilder::new().frame(0, "prompt").input(100, 104, "hello\r").frame(110, "hello\r\n")
    }

    #[test]
    fn a_conforming_capture_passes_with_its_constraints() {
        let r = typed().exit(0).settle(50).build();
        let (result, diag) = run(&r, &lifecycle_spec());
        assert_eq!(diag, None);
        assert_eq!(result.status, SideStatus::Pass);
        assert_eq!(result.matched_variant, None);
        assert_eq!(result.satisfied_constraints, ["happens_before:hello:exit", "happens_before:exit:settled"]);
        let trace: Vec<(&str, u64)> =
            result.raw_trace.iter().map(|m| (m.event_id.as_str(), m.location.capture_order)).collect();
        assert_eq!(trace, [("hello", 1), ("exit", 3), ("settled", 4)]);
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(
            json["raw_trace"][0],
            json!({"event_id": "hello", "location": {"collection": "interaction_events", "index": 0, "capture_order": 1}})
        );
        assert!(json.get("reasons").is_none());
    }

    #[test]
    fn an_unmatched_observation_fails_the_predicate() {
        let r = typed().exit(3).settle(50).build();
        let (result, diag) = run(&r, &lifecycle_spec());
        assert_eq!(result.status, SideStatus::Fail);
        let ids: Vec<&str> = result.raw_trace.iter().map(|m| m.event_id.as_str()).collect();
        assert_eq!(ids, ["hello"], "matches before the failure");
        let diag = diag.unwrap();
        assert_eq!(diag.kind, DiagnosticKind::Predicate);
        assert_eq!(diag.side, "left");
        assert_eq!(
            diag.message,
            "Observed event obs.lifecycle.0 (lifecycle) does not match any declared exact predicate."
        );
        assert_eq!(diag.event_ids, ["obs.lifecycle.0"]);
        assert_eq!(diag.locations, [loc("lifecycle", 0, 3)]);
        assert_eq!(names(&diag.dimensions), ["exit"]);
    }

    #[test]
    fn ignored_fields_absorb_timing_only() {
        let a = typed().exit(0).settle(50).build();
        let b = RecordBuilder::new().input(100, 187, "hello\r").exit(0).settle(912).build();
        for r in [&a, &b] {
            assert_eq!(run(r, &lifecycle_spec()).0.status, SideStatus::Pass);
        }
        let other = RecordBuilder::new().input(100, 104, "bye\r").exit(0).settle(50).build();
        assert_eq!(run(&other, &lifecycle_spec()).1.unwrap().locations, [loc("interaction_events", 0, 0)]);
    }

    #[test]
    fn cardinality_is_checked_in_declaration_order() {
        let r = RecordBuilder::new().input(100, 101, "hello\r").input(200, 201, "hello\r").exit(0).settle(50).build();
        let (result, diag) = run(&r, &lifecycle_spec());
        assert_eq!(result.status, SideStatus::Fail);
        assert_eq!(result.raw_trace.len(), 4, "every observation matched");
        let diag = diag.unwrap();
        assert_eq!(diag.kind, DiagnosticKind::Cardinality);
        assert_eq!(diag.message, "hello observed 2 times; expected 1..1.");
        assert_eq!(diag.event_ids, ["hello"]);
        assert_eq!(diag.locations, [loc("interaction_events", 0, 0), loc("interaction_events", 1, 1)]);
        assert_eq!(names(&diag.dimensions), ["interaction"]);

        let none = RecordBuilder::new().exit(0).settle(50).build();
        let diag = run(&none, &lifecycle_spec()).1.unwrap();
        assert_eq!(diag.message, "hello observed 0 times; expected 1..1.");
        assert!(diag.locations.is_empty());
        assert_eq!(names(&diag.dimensions), ["interaction"], "from the declared event's source");
    }

    #[test]
    fn happens_before_needs_the_last_before_ahead_of_the_first_after() {
        let late = RecordBuilder::new().exit(0).input(100, 101, "hello\r").settle(50).build();
        let diag = run(&late, &lifecycle_spec()).1.unwrap();
        assert_eq!(diag.kind, DiagnosticKind::Edge);
        assert_eq!(diag.message, "hello must happen before exit.");
        assert_eq!(diag.event_ids, ["hello", "exit"]);
        assert_eq!(diag.locations, [loc("interaction_events", 0, 1), loc("lifecycle", 0, 0)]);
        assert_eq!(names(&diag.dimensions), ["interaction", "exit"]);

        let optional = spec(partial_order(
            json!([
                {"id": "hello", "source": "interaction", "exact": {"type": "input", "data": "hello\r", "outcome": "dispatched"},
                 "ignore_fields": ["sequence", "scheduled_at_ms", "dispatched_at_ms"], "cardinality": {"kind": "optional"}},
                exit_event(0), settled_event()
            ]),
            json!({"happens_before": [{"before": "hello", "after": "exit"}, {"before": "exit", "after": "settled"}]}),
        ));
        let skipped = RecordBuilder::new().exit(0).settle(50).build();
        let diag = run(&skipped, &optional).1.unwrap();
        assert_eq!(diag.message, "hello is required when exit occurs.");
        assert_eq!(diag.locations, [loc("lifecycle", 0, 0)]);
    }

    fn not_before_spec() -> TraceSpec {
        // `b` may come with or after `a`, never first; `a` is optional.
        spec(partial_order(
            json!([
                {"id": "a", "source": "interaction", "exact": {"type": "input", "data": "a", "outcome": "dispatched"},
                 "ignore_fields": ["sequence", "scheduled_at_ms", "dispatched_at_ms"], "cardinality": {"kind": "optional"}},
                {"id": "b", "source": "interaction", "exact": {"type": "input", "data": "b", "outcome": "dispatched"},
                 "ignore_fields": ["sequence", "scheduled_at_ms", "dispatched_at_ms"], "cardinality": {"kind": "optional"}}
            ]),
            json!({"not_before": [{"event": "b", "anchor": "a"}]}),
        ))
    }

    #[test]
    fn not_before_holds_back_the_event_until_its_anchor() {
        let s = not_before_spec();
        let ok = RecordBuilder::new().input(0, 1, "a").input(0, 2, "b").build();
        let (result, _) = run(&ok, &s);
        assert_eq!(result.status, SideStatus::Pass);
        assert_eq!(result.satisfied_constraints, ["not_before:b:a"]);

        let early = RecordBuilder::new().input(0, 1, "b").input(0, 2, "a").build();
        let diag = run(&early, &s).1.unwrap();
        assert_eq!((diag.kind, diag.message.as_str()), (DiagnosticKind::Edge, "b must not occur before a."));
        assert_eq!(diag.locations, [loc("interaction_events", 0, 0), loc("interaction_events", 1, 1)]);

        let alone = RecordBuilder::new().input(0, 1, "b").build();
        assert_eq!(run(&alone, &s).1.unwrap().message, "a is required when b occurs.");
        let nothing = RecordBuilder::new().exit(0).build();
        assert_eq!(run(&nothing, &s).0.status, SideStatus::Pass);
    }

    fn unordered_spec(order: Value) -> TraceSpec {
        let mut base = json!({"unordered_groups": [{"events": ["a", "b"]}],
                              "happens_before": [{"before": "a", "after": "exit"}, {"before": "b", "after": "exit"}]});
        if let (Some(b), Value::Object(o)) = (base.as_object_mut(), order) {
            b.extend(o);
        }
        spec(partial_order(
            json!([input_event("a", "a"), input_event("b", "b"), {"id": "exit", "source": "lifecycle",
            "exact": {"event": "exit", "code": 0, "signal": 0, "reason": "exited"}}]),
            base,
        ))
    }

    #[test]
    fn a_prefix_fixes_the_first_events() {
        let s = unordered_spec(json!({"prefix": ["a"]}));
        let ok = RecordBuilder::new().input(0, 1, "a").input(0, 1, "b").exit(0).build();
        let (result, _) = run(&ok, &s);
        assert_eq!(
            result.satisfied_constraints,
            ["happens_before:a:exit", "happens_before:b:exit", "unordered:a:b", "prefix:a"]
        );
        let swapped = RecordBuilder::new().input(0, 1, "b").input(0, 1, "a").exit(0).build();
        let diag = run(&swapped, &s).1.unwrap();
        assert_eq!(diag.kind, DiagnosticKind::Prefix);
        assert_eq!(diag.message, "The matched trace starts with [b], not the declared prefix [a].");
        assert_eq!(diag.event_ids, ["a"]);
        assert_eq!(diag.locations, [loc("interaction_events", 0, 0)]);
    }

    #[test]
    fn a_suffix_fixes_the_last_events() {
        let s = unordered_spec(json!({"suffix": ["b", "exit"]}));
        let ok = RecordBuilder::new().input(0, 1, "a").input(0, 1, "b").exit(0).build();
        assert_eq!(run(&ok, &s).0.satisfied_constraints.last().unwrap(), "suffix:b:exit");
        let swapped = RecordBuilder::new().input(0, 1, "b").input(0, 1, "a").exit(0).build();
        let diag = run(&swapped, &s).1.unwrap();
        assert_eq!(diag.kind, DiagnosticKind::Suffix);
        assert_eq!(diag.message, "The matched trace ends with [a, exit], not the declared suffix [b, exit].");
        assert_eq!(diag.locations, [loc("interaction_events", 1, 1), loc("lifecycle", 0, 2)]);
        assert_eq!(names(&diag.dimensions), ["interaction", "exit"]);
    }

    fn finite_spec() -> TraceSpec {
        spec(json!({
            "version": 1,
            "events": [input_event("a", "a"), input_event("b", "b"), input_event("c", "c"),
                       {"id": "c2", "source": "interaction", "exact": {"type": "input", "data": "c2", "outcome": "dispatched"},
                        "ignore_fields": ["sequence", "scheduled_at_ms", "dispatched_at_ms"], "cardinality": {"kind": "optional"}}],
            "language": {"kind": "finite_traces", "variants": [
                {"id": "plain", "trace": ["a", "b", "c"]},
                {"id": "racy", "trace": [{"unordered": ["a", "b"]}, "c"]},
                {"id": "extra", "trace": ["a", "b", "c", "c2"]}
            ]}
        }))
    }

    fn inputs(data: &[&str]) -> crate::evidence::CaptureRecord {
        data.iter().fold(RecordBuilder::new(), |b, d| b.input(0, 1, d)).build()
    }

    #[test]
    fn finite_traces_take_the_first_matching_variant() {
        let s = finite_spec();
        let (plain, _) = run(&inputs(&["a", "b", "c"]), &s);
        assert_eq!(plain.matched_variant.as_deref(), Some("plain"));
        assert_eq!(plain.satisfied_constraints, ["variant:plain"]);
        let (racy, _) = run(&inputs(&["b", "a", "c"]), &s);
        assert_eq!(racy.matched_variant.as_deref(), Some("racy"));
        let (extra, _) = run(&inputs(&["a", "b", "c", "c2"]), &s);
        assert_eq!(extra.matched_variant.as_deref(), Some("extra"));
    }

    #[test]
    fn a_trace_outside_every_variant_fails() {
        let (result, diag) = run(&inputs(&["c", "a", "b"]), &finite_spec());
        assert_eq!(result.status, SideStatus::Fail);
        assert_eq!(result.matched_variant, None);
        assert_eq!(result.raw_trace.len(), 3);
        let diag = diag.unwrap();
        assert_eq!(diag.kind, DiagnosticKind::Trace);
        assert_eq!(diag.message, "The matched trace [c, a, b] is none of the declared variants.");
        assert_eq!(diag.event_ids, ["c", "a", "b"]);
        assert_eq!(diag.locations.len(), 3);
        // A variant must consume the whole trace.
        let (prefix_only, _) = run(&inputs(&["b", "a"]), &finite_spec());
        assert_eq!(prefix_only.status, SideStatus::Fail, "c is required by its cardinality");
    }

    #[test]
    fn a_residual_unknown_of_a_selected_source_makes_the_side_unknown() {
        let r = typed().exit(0).settle(50).residual("exit", "The exit was not observed.").build();
        let (result, diag) = run(&r, &lifecycle_spec());
        assert_eq!(result.status, SideStatus::Unknown);
        assert_eq!(diag, None);
        assert_eq!(result.reasons, ["Residual unknown (exit): The exit was not observed."]);
        assert!(result.raw_trace.is_empty());
        // Scopes of unselected sources do not matter.
        let other = typed().exit(0).settle(50).residual("process", "sampled").residual("filesystem", "none").build();
        assert_eq!(run(&other, &lifecycle_spec()).0.status, SideStatus::Pass);
    }

    fn raw_spec() -> TraceSpec {
        spec(partial_order(
            json!([{"id": "out", "source": "terminal_raw", "exact": {"data": "ok\r\n"}, "ignore_fields": ["sequence", "at_ms"]}]),
            json!({}),
        ))
    }

    #[test]
    fn a_raw_terminal_assertion_ignores_dropped_rendered_frames() {
        let r = RecordBuilder::new().frame(0, "ok\r\n").rendered(0, &["ok"]).dropped_rendered().exit(0).build();
        assert!(r.truncated);
        let (result, _) = run(&r, &raw_spec());
        assert_eq!(result.status, SideStatus::Pass);
    }

    #[test]
    fn a_dropped_raw_chunk_makes_terminal_assertions_unknown() {
        let r = RecordBuilder::new().frame(0, "ok\r\n").dropped_frame().exit(0).build();
        assert_eq!(run(&r, &raw_spec()).0.reasons, ["The capture omitted raw terminal chunks."]);
        // Rendered states are built from the retained chunks, so they are unknown too.
        let rendered = spec(partial_order(
            json!([{"id": "screen", "source": "terminal_rendered", "exact": {"lines": ["ok"]}}]),
            json!({}),
        ));
        assert_eq!(run(&r, &rendered).0.status, SideStatus::Unknown);
        // Lifecycle has no truncation area.
        let life = spec(partial_order(json!([exit_event(0)]), json!({})));
        assert_eq!(run(&r, &life).0.status, SideStatus::Pass);
    }

    #[test]
    fn an_empty_journal_is_unknown_with_a_journal_diagnostic() {
        let r = typed().exit(0).settle(50).without_journal().build();
        let (result, diag) = run(&r, &lifecycle_spec());
        assert_eq!(result.status, SideStatus::Unknown);
        let diag = diag.unwrap();
        assert_eq!(diag.kind, DiagnosticKind::Journal);
        assert_eq!(diag.message, "Capture has no cross-source event journal.");
        assert!(diag.event_ids.is_empty() && diag.locations.is_empty());
        assert_eq!(names(&diag.dimensions), ["interaction", "exit"], "every selected source's dimension");
    }
}

mod verdicts {
    use super::*;

    fn pass() -> crate::evidence::CaptureRecord {
        RecordBuilder::new().input(100, 101, "hello\r").exit(0).settle(50).build()
    }

    #[test]
    fn both_passing_is_equivalent() {
        let jitter = RecordBuilder::new().input(100, 180, "hello\r").exit(0).settle(400).build();
        let t = compare_traces(&pass(), &jitter, &lifecycle_spec());
        assert_eq!(t.verdict, Verdict::Equivalent);
        assert_eq!(t.diagnostic, None);
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["verdict"], "equivalent");
        assert_eq!(json["left"]["status"], "pass");
        assert!(json.get("diagnostic").is_none());
    }

    #[test]
    fn one_side_failing_is_different() {
        let fails = RecordBuilder::new().input(100, 101, "hello\r").exit(3).settle(50).build();
        let t = compare_traces(&pass(), &fails, &lifecycle_spec());
        assert_eq!(t.verdict, Verdict::Different);
        let diag = t.diagnostic.unwrap();
        assert_eq!((diag.side, diag.kind), ("right", DiagnosticKind::Predicate));
    }

    #[test]
    fn failing_differently_is_different_and_the_left_diagnostic_wins() {
        let early_fail = RecordBuilder::new().exit(3).build();
        let late_fail = RecordBuilder::new().input(100, 101, "hello\r").exit(3).build();
        let t = compare_traces(&early_fail, &late_fail, &lifecycle_spec());
        assert_eq!(t.verdict, Verdict::Different);
        assert_eq!(t.diagnostic.unwrap().side, "left");
    }

    #[test]
    fn failing_the_same_way_is_nonconforming() {
        let a = RecordBuilder::new().input(100, 101, "hello\r").exit(3).build();
        let b = RecordBuilder::new().input(100, 150, "hello\r").exit(4).build();
        let t = compare_traces(&a, &b, &lifecycle_spec());
        assert_eq!(t.verdict, Verdict::Nonconforming);
        assert_eq!(t.diagnostic.unwrap().side, "left");
    }

    #[test]
    fn an_unknown_side_makes_the_verdict_unknown() {
        let fails = RecordBuilder::new().exit(3).build();
        let legacy = RecordBuilder::new().input(100, 101, "hello\r").exit(0).settle(50).without_journal().build();
        let t = compare_traces(&legacy, &fails, &lifecycle_spec());
        assert_eq!(t.verdict, Verdict::Unknown);
        assert_eq!(t.diagnostic.unwrap().kind, DiagnosticKind::Journal, "the left diagnostic");
        let t = compare_traces(&pass(), &legacy, &lifecycle_spec());
        assert_eq!(t.verdict, Verdict::Unknown);
        assert_eq!(t.right.status, SideStatus::Unknown);
    }
}

mod interplay {
    use super::*;
    use crate::compare::CompareOptions;

    /// Compares with timing tolerance 0 (the strict reading), as these
    /// cases were written: their dispatch times differ by 89 ms.
    fn strict(a: &CaptureRecord, b: &CaptureRecord, spec: Option<&TraceSpec>) -> Value {
        compare_records_with(a, b, spec, CompareOptions { timing_tolerance_ms: 0, ..CompareOptions::default() })
    }

    fn dims(result: &Value) -> Vec<(String, String, Option<String>)> {
        result["dimensions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["dimension"].as_str().unwrap().to_owned(),
                    d["status"].as_str().unwrap().to_owned(),
                    d.get("exact_status").and_then(Value::as_str).map(str::to_owned),
                )
            })
            .collect()
    }

    fn status<'a>(d: &'a [(String, String, Option<String>)], name: &str) -> (&'a str, Option<&'a str>) {
        let (_, s, e) = d.iter().find(|(n, _, _)| n == name).unwrap();
        (s.as_str(), e.as_deref())
    }

    #[test]
    fn without_a_trace_nothing_changes() {
        let a = RecordBuilder::new().input(100, 101, "hello\r").exit(0).settle(50).build();
        let result = compare_records(&a, &a, None);
        assert!(result.get("trace").is_none());
        assert_eq!(result["status"], "unchanged");
        assert_eq!(result["first_divergence"], json!({"status": "none"}));
    }

    #[test]
    fn an_equivalent_verdict_settles_covered_dimensions() {
        let a = RecordBuilder::new().frame(0, "$ ").input(100, 101, "hello\r").exit(0).settle(50).build();
        let b = RecordBuilder::new().frame(0, "> ").input(100, 190, "hello\r").exit(0).settle(420).build();
        let result = strict(&a, &b, Some(&lifecycle_spec()));
        assert_eq!(result["trace"]["verdict"], "equivalent");
        let d = dims(&result);
        assert_eq!(status(&d, "interaction"), ("unchanged", Some("changed")));
        assert_eq!(status(&d, "exit"), ("unchanged", Some("changed")));
        assert_eq!(status(&d, "terminal"), ("changed", None), "not selected: keeps its own status");
        assert_eq!(result["status"], "changed");
        // Divergences in dimensions the trace settled are dropped.
        assert_eq!(result["first_divergence"]["status"], "found");
        assert_eq!(result["first_divergence"]["dimension"], "terminal");
    }

    #[test]
    fn an_equivalent_verdict_over_everything_observed_has_no_divergence() {
        let a = RecordBuilder::new().input(100, 101, "hello\r").exit(0).settle(50).build();
        let b = RecordBuilder::new().input(100, 190, "hello\r").exit(0).settle(420).build();
        let exact = strict(&a, &b, None);
        assert_eq!(exact["first_divergence"]["status"], "found");
        let result = compare_records(&a, &b, Some(&lifecycle_spec()));
        assert_eq!(result["status"], "unchanged");
        assert_eq!(result["first_divergence"], json!({"status": "none"}));
    }

    #[test]
    fn a_raw_only_trace_is_not_made_unknown_by_a_dropped_rendered_frame() {
        let spec = spec(partial_order(
            json!([{"id": "out", "source": "terminal_raw", "exact": {"data": "ok\r\n"}, "ignore_fields": ["sequence", "at_ms"]}]),
            json!({}),
        ));
        let a = RecordBuilder::new().frame(0, "ok\r\n").rendered(0, &["ok"]).exit(0).build();
        let b = RecordBuilder::new().frame(20, "ok\r\n").dropped_rendered().exit(0).build();
        let result = compare_records(&a, &b, Some(&spec));
        assert_eq!(result["trace"]["verdict"], "equivalent");
        assert_eq!(result["trace"]["right"]["status"], "pass");
        // The rendered states are observed but not asserted, so terminal keeps its own (truncated) status.
        let d = dims(&result);
        assert_eq!(status(&d, "terminal"), ("truncated", None));

        // Without rendered states on either side, the raw assertion covers the terminal.
        let c = RecordBuilder::new().frame(0, "ok\r\n").exit(0).build();
        let e = RecordBuilder::new().frame(20, "ok\r\n").exit(0).build();
        let d = dims(&compare_records(&c, &e, Some(&spec)));
        // Chunk times are transport: the terminal is unchanged on its own too.
        assert_eq!(status(&d, "terminal"), ("unchanged", None));
    }

    #[test]
    fn a_different_verdict_changes_only_its_diagnostics_dimensions() {
        let a = RecordBuilder::new().input(100, 101, "hello\r").exit(0).settle(50).build();
        let b = RecordBuilder::new().input(100, 101, "hello\r").exit(3).settle(50).build();
        let result = compare_records(&a, &b, Some(&lifecycle_spec()));
        assert_eq!(result["trace"]["verdict"], "different");
        assert_eq!(result["trace"]["diagnostic"]["dimensions"], json!(["exit"]));
        let d = dims(&result);
        assert_eq!(status(&d, "exit"), ("changed", None), "already changed on its own");
        assert_eq!(status(&d, "interaction"), ("unchanged", None), "covered, but not in the diagnostic");
        assert_eq!(result["status"], "changed");
        assert_eq!(result["first_divergence"]["dimension"], "exit");
    }

    #[test]
    fn an_order_difference_marks_the_dimensions_the_edge_names() {
        // The same observations in another journal order: each collection is equal.
        let a = RecordBuilder::new().input(100, 101, "hello\r").exit(0).settle(50).build();
        let b = RecordBuilder::new().exit(0).input(100, 101, "hello\r").settle(50).build();
        let result = compare_records(&a, &b, Some(&lifecycle_spec()));
        assert_eq!(result["trace"]["diagnostic"]["kind"], "edge");
        let d = dims(&result);
        assert_eq!(status(&d, "exit"), ("changed", Some("unchanged")));
        assert_eq!(status(&d, "interaction"), ("changed", Some("unchanged")));
        let reasons = &result["dimensions"][2]["reasons"][0];
        assert!(reasons.as_str().unwrap().contains("hello must happen before exit."), "{reasons}");
        assert_eq!(result["first_divergence"]["status"], "unknown");
        assert!(result["first_divergence"]["reason"].as_str().unwrap().contains("trace.diagnostic"));
    }

    #[test]
    fn an_unknown_verdict_never_hides_a_seen_change() {
        let a = RecordBuilder::new().input(100, 101, "hello\r").exit(0).settle(50).without_journal().build();
        let b = RecordBuilder::new().input(100, 101, "bye\r").exit(0).settle(50).without_journal().build();
        let result = compare_records(&a, &b, Some(&lifecycle_spec()));
        assert_eq!(result["trace"]["verdict"], "unknown");
        let d = dims(&result);
        assert_eq!(status(&d, "interaction"), ("changed", None));
        assert_eq!(status(&d, "exit"), ("unknown", Some("unchanged")));
        let reasons = result["dimensions"][2]["reasons"].as_array().unwrap();
        assert_eq!(reasons[0], "Trace comparison is unknown: Left side: Capture has no cross-source event journal.");
        assert_eq!(result["status"], "changed");
    }

    #[test]
    fn a_nonconforming_verdict_keeps_every_status() {
        let a = RecordBuilder::new().input(100, 101, "hello\r").exit(3).settle(50).build();
        let b = RecordBuilder::new().input(100, 190, "hello\r").exit(3).settle(50).build();
        let result = strict(&a, &b, Some(&lifecycle_spec()));
        assert_eq!(result["trace"]["verdict"], "nonconforming");
        let d = dims(&result);
        assert_eq!(status(&d, "interaction"), ("changed", None));
        assert_eq!(status(&d, "exit"), ("unchanged", None));
    }

    #[test]
    fn filesystem_is_never_settled_by_a_trace() {
        let spec = spec(partial_order(
            json!([{"id": "out", "source": "filesystem", "exact": {"path": "root_0:out.txt", "status": "created", "before": null,
                "after": {"path": "root_0:out.txt", "mode": 33188, "size": 1, "type": "file", "sha256": "ab", "symlink_target": null}}}]),
            json!({}),
        ));
        let a = RecordBuilder::new().exit(0).created_file("out.txt", "ab").build();
        let result = compare_records(&a, &a, Some(&spec));
        assert_eq!(result["trace"]["verdict"], "equivalent");
        assert_eq!(result["trace"]["left"]["raw_trace"][0]["location"]["collection"], "filesystem_effects");
        assert_eq!(status(&dims(&result), "filesystem"), ("unchanged", None));
        let b = RecordBuilder::new().exit(0).created_file("out.txt", "cd").build();
        let result = compare_records(&a, &b, Some(&spec));
        assert_eq!(result["trace"]["verdict"], "different");
        assert_eq!(status(&dims(&result), "filesystem"), ("changed", None));
    }
}
