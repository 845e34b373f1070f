//! The cross-field rules of a trace specification (reference-notes §5.2):
//! unique ids, ignored-field consistency, non-overlapping predicates, and
//! the consistency and completeness of the declared ordering language.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::model::*;
use super::parse::Parser;
use crate::evidence::canonical_json;
use crate::path::{join_index, join_key};

/// At most this many "pair must be ordered or unordered" issues are listed
/// one by one; the rest are counted in one more issue.
pub(super) const MAX_PAIR_ISSUES: usize = 20;

/// The payload an observation or predicate is compared on: `value` without
/// the `ignored` top-level fields (only objects have fields to remove).
pub(super) fn comparable(value: &Value, ignored: &[String]) -> Value {
    match value {
        Value::Object(map) if !ignored.is_empty() => Value::Object(
            map.iter().filter(|(k, _)| !ignored.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect(),
        ),
        other => other.clone(),
    }
}

/// The matching key of a predicate or an observation: its source and the
/// canonical JSON of its comparable payload. A JSON value read from a file
/// always canonicalizes; should one not, the error is returned (never an
/// empty key, which would make two such payloads match each other).
pub(super) fn predicate_key(
    source: Source,
    payload: &Value,
    ignored: &[String],
) -> Result<(Source, Vec<u8>), serde_json::Error> {
    Ok((source, canonical_json(&comparable(payload, ignored))?))
}

fn event_path(i: usize) -> String {
    join_index("events", i)
}

/// The unordered pair `{a, b}`.
fn pair(a: &str, b: &str) -> (String, String) {
    if a <= b { (a.to_owned(), b.to_owned()) } else { (b.to_owned(), a.to_owned()) }
}

impl Parser {
    /// Records `id` of `list[index]` (at `path`) in `seen`, or reports that it repeats.
    fn unique_id<'a>(
        &mut self,
        seen: &mut BTreeMap<&'a str, usize>,
        id: &'a str,
        index: usize,
        path: &str,
        list: &str,
    ) {
        match seen.get(id) {
            Some(first) => self.issue(
                &join_key(path, "id"),
                format!("repeats the id {id:?} of {list}[{first}]; {} ids must be unique", &list[..list.len() - 1]),
            ),
            None => {
                seen.insert(id, index);
            }
        }
    }

    /// Rules over the events that parsed (`None` entries broke a structural rule).
    pub(super) fn events_rules(&mut self, events: &[Option<TraceEvent>]) {
        let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
        let mut ignored: BTreeMap<Source, (usize, Vec<String>)> = BTreeMap::new();
        let mut predicates: BTreeMap<(Source, Vec<u8>), usize> = BTreeMap::new();
        for (i, event) in events.iter().enumerate() {
            let Some(event) = event else { continue };
            let path = event_path(i);
            self.unique_id(&mut ids, &event.id, i, &path, "events");

            let mut fields = event.ignore_fields.clone();
            fields.sort();
            let object = event.exact.as_object();
            if !fields.is_empty() && object.is_none() {
                self.issue(
                    &join_key(&path, "ignore_fields"),
                    "requires `exact` to be an object: fields can only be ignored in an object payload",
                );
            }
            match ignored.get(&event.source) {
                Some((j, first)) if *first != fields => self.issue(
                    &join_key(&path, "ignore_fields"),
                    format!(
                        "ignores [{}] but events[{j}] of the same source {:?} ignores [{}]; every event of one source must ignore the same fields",
                        fields.join(", "),
                        event.source.name(),
                        first.join(", ")
                    ),
                ),
                Some(_) => {}
                None => {
                    ignored.insert(event.source, (i, fields.clone()));
                }
            }
            if let Some(object) = object {
                for field in fields.iter().filter(|f| object.contains_key(f.as_str())) {
                    self.issue(
                        &join_key(&join_key(&path, "exact"), field),
                        format!("names the ignored field {field:?}; an exact payload must omit every ignored field"),
                    );
                }
            }

            let key = match predicate_key(event.source, &event.exact, &fields) {
                Ok(key) => key,
                Err(e) => {
                    self.issue(&join_key(&path, "exact"), format!("cannot be written as canonical JSON ({e})"));
                    continue;
                }
            };
            if let Some(j) = predicates.get(&key) {
                self.issue(
                    &join_key(&path, "exact"),
                    format!(
                        "overlaps the predicate of events[{j}]: same source and the same exact payload once ignored fields are removed; each observation must match exactly one event"
                    ),
                );
            } else {
                predicates.insert(key, i);
            }
        }
    }

    fn known(&mut self, known: &BTreeSet<&str>, path: &str, id: &str) -> bool {
        let ok = known.contains(id);
        if !ok {
            self.issue(path, format!("unknown event id {id:?}; declare it in events"));
        }
        ok
    }

    /// Rules of the language; `events` all parsed.
    pub(super) fn language_rules(&mut self, events: &[TraceEvent], language: &Language) {
        let known: BTreeSet<&str> = events.iter().map(|e| e.id.as_str()).collect();
        match language {
            Language::PartialOrder(order) => self.partial_order_rules(events, &known, order),
            Language::FiniteTraces(variants) => self.finite_traces_rules(events, &known, variants),
        }
    }

    fn partial_order_rules(&mut self, events: &[TraceEvent], known: &BTreeSet<&str>, order: &PartialOrder) {
        // Happens-before graph over known ids.
        let mut graph: BTreeMap<&str, BTreeSet<&str>> = known.iter().map(|id| (*id, BTreeSet::new())).collect();
        for (k, edge) in order.happens_before.iter().enumerate() {
            let path = join_index("language.happens_before", k);
            let before = self.known(known, &join_key(&path, "before"), &edge.before);
            let after = self.known(known, &join_key(&path, "after"), &edge.after);
            if edge.before == edge.after {
                self.issue(
                    &path,
                    format!("{:?} cannot happen before itself; an edge needs two different events", edge.before),
                );
            } else if before && after {
                graph.entry(edge.before.as_str()).or_default().insert(edge.after.as_str());
            }
        }
        if let Some(cycle) = find_cycle(&graph) {
            self.issue(
                "language.happens_before",
                format!("the edges form a cycle ({}); happens-before must be acyclic", cycle.join(" -> ")),
            );
        }
        let reach = reachability(&graph);
        let ordered = |a: &str, b: &str| {
            reach.get(a).is_some_and(|s| s.contains(b)) || reach.get(b).is_some_and(|s| s.contains(a))
        };

        let mut not_before_pairs: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (k, c) in order.not_before.iter().enumerate() {
            let path = join_index("language.not_before", k);
            self.known(known, &join_key(&path, "event"), &c.event);
            self.known(known, &join_key(&path, "anchor"), &c.anchor);
            if c.event == c.anchor {
                self.issue(
                    &path,
                    format!("{:?} cannot be constrained against itself; use two different events", c.event),
                );
                continue;
            }
            let key = pair(&c.event, &c.anchor);
            if let Some(j) = not_before_pairs.get(&key) {
                self.issue(
                    &path,
                    format!("repeats the pair {}/{} of not_before[{j}]; declare each pair once", key.0, key.1),
                );
            } else {
                not_before_pairs.insert(key, k);
            }
            if reach.get(c.event.as_str()).is_some_and(|s| s.contains(c.anchor.as_str())) {
                self.issue(
                    &path,
                    format!(
                        "conflicts with happens_before: {:?} already happens before {:?}, so it can never wait for it",
                        c.event, c.anchor
                    ),
                );
            }
        }

        let mut unordered: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (g, group) in order.unordered_groups.iter().enumerate() {
            let path = join_index("language.unordered_groups", g);
            let events_path = join_key(&path, "events");
            for (e, id) in group.iter().enumerate() {
                let id_path = join_index(&events_path, e);
                self.known(known, &id_path, id);
                if let Some(first) = group[..e].iter().position(|other| other == id) {
                    self.issue(&id_path, format!("repeats {id:?} (already at index {first}); list each event once"));
                }
            }
            for (e, a) in group.iter().enumerate() {
                for b in group[e + 1..].iter().filter(|b| *b != a) {
                    let key = pair(a, b);
                    if let Some(h) = unordered.get(&key) {
                        if *h != g {
                            self.issue(
                                &path,
                                format!("the pair {}/{} is already declared unordered in unordered_groups[{h}]; declare each pair once", key.0, key.1),
                            );
                        }
                        continue;
                    }
                    if ordered(a, b) || not_before_pairs.contains_key(&key) {
                        self.issue(
                            &path,
                            format!(
                                "{}/{} is already ordered by happens_before or not_before and cannot also be unordered",
                                key.0, key.1
                            ),
                        );
                    }
                    unordered.insert(key, g);
                }
            }
        }

        let mut missing = Vec::new();
        for (i, a) in events.iter().enumerate() {
            for b in &events[i + 1..] {
                let key = pair(&a.id, &b.id);
                if a.id != b.id
                    && !ordered(&a.id, &b.id)
                    && !not_before_pairs.contains_key(&key)
                    && !unordered.contains_key(&key)
                {
                    missing.push((a.id.as_str(), b.id.as_str()));
                }
            }
        }
        for (a, b) in missing.iter().take(MAX_PAIR_ISSUES) {
            self.issue(
                "language",
                format!(
                    "event pair {a}/{b} must be explicitly ordered or unordered: add a happens_before edge, a not_before constraint, or an unordered group holding both"
                ),
            );
        }
        if missing.len() > MAX_PAIR_ISSUES {
            self.issue(
                "language",
                format!("{} more event pairs are neither ordered nor unordered", missing.len() - MAX_PAIR_ISSUES),
            );
        }

        for (name, ids) in [("prefix", &order.prefix), ("suffix", &order.suffix)] {
            for (k, id) in ids.iter().enumerate() {
                self.known(known, &join_index(&join_key("language", name), k), id);
            }
        }
    }

    fn finite_traces_rules(&mut self, events: &[TraceEvent], known: &BTreeSet<&str>, variants: &[Variant]) {
        let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
        let mut traces: Vec<&[Token]> = Vec::new();
        for (v, variant) in variants.iter().enumerate() {
            let path = join_index("language.variants", v);
            self.unique_id(&mut ids, &variant.id, v, &path, "variants");
            let trace_path = join_key(&path, "trace");
            if let Some(w) = traces.iter().position(|t| *t == variant.trace.as_slice()) {
                self.issue(&trace_path, format!("is the same trace as variants[{w}]; each variant must differ"));
            }
            traces.push(&variant.trace);

            let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
            for (t, token) in variant.trace.iter().enumerate() {
                let token_path = join_index(&trace_path, t);
                match token {
                    Token::Event(id) => {
                        self.known(known, &token_path, id);
                        *counts.entry(id).or_default() += 1;
                    }
                    Token::Unordered(group) => {
                        for (e, id) in group.iter().enumerate() {
                            self.known(known, &join_index(&join_key(&token_path, "unordered"), e), id);
                            *counts.entry(id).or_default() += 1;
                        }
                    }
                }
            }
            for event in events {
                let (min, max) = event.cardinality.bounds();
                let n = counts.get(event.id.as_str()).copied().unwrap_or(0);
                if n < min || n > max {
                    self.issue(
                        &trace_path,
                        format!(
                            "holds {:?} {n} times, but its cardinality allows {min}..{max}; variant {:?} can never be observed",
                            event.id, variant.id
                        ),
                    );
                }
            }
        }
    }
}

/// A cycle in `graph`, as the ids along it with the first repeated at the end.
fn find_cycle<'a>(graph: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Option<Vec<&'a str>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Active,
        Done,
    }
    let mut marks: BTreeMap<&str, Mark> = BTreeMap::new();
    for start in graph.keys() {
        if marks.contains_key(start) {
            continue;
        }
        // Iterative depth-first search; `stack` holds (node, remaining successors).
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(start, graph[start].iter().copied().collect())];
        marks.insert(start, Mark::Active);
        while let Some((node, next)) = stack.last_mut() {
            let node = *node;
            match next.pop() {
                Some(succ) => match marks.get(succ) {
                    Some(Mark::Active) => {
                        let from = stack.iter().position(|(n, _)| *n == succ).unwrap_or(0);
                        let mut cycle: Vec<&str> = stack[from..].iter().map(|(n, _)| *n).collect();
                        cycle.push(succ);
                        return Some(cycle);
                    }
                    Some(Mark::Done) => {}
                    None => {
                        marks.insert(succ, Mark::Active);
                        let succs = graph.get(succ).map(|s| s.iter().copied().collect()).unwrap_or_default();
                        stack.push((succ, succs));
                    }
                },
                None => {
                    marks.insert(node, Mark::Done);
                    stack.pop();
                }
            }
        }
    }
    None
}

/// For each node, every node reachable from it by one or more edges.
fn reachability<'a>(graph: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> BTreeMap<&'a str, BTreeSet<&'a str>> {
    graph
        .keys()
        .map(|start| {
            let mut seen = BTreeSet::new();
            let mut pending: Vec<&str> = graph[start].iter().copied().collect();
            while let Some(node) = pending.pop() {
                if seen.insert(node) {
                    pending.extend(graph.get(node).into_iter().flatten().copied());
                }
            }
            (*start, seen)
        })
        .collect()
}
