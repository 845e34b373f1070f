//! The interaction, exit, filesystem and process dimensions: exact fields,
//! timing values within the tolerance, and field paths for each difference.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::diff::{Findings, Interval, Location, phase};
use crate::evidence::{CaptureRecord, FileEffect, FileState, InteractionEvent, InteractionKind, WaitOutcome};

/// Segment index that event `i` ends (boundary events before it).
fn segment_of_event(events: &[InteractionEvent], i: usize) -> usize {
    events[..i.min(events.len())].iter().filter(|e| super::terminal::is_boundary(e)).count()
}

fn last_segment(l: &CaptureRecord, r: &CaptureRecord) -> usize {
    let n = |x: &CaptureRecord| segment_of_event(&x.interaction_events, x.interaction_events.len());
    n(l).max(n(r))
}

/// The scripted events (`replies` false) or the terminal replies, with their indexes.
fn picked(x: &CaptureRecord, replies: bool) -> Vec<(usize, &InteractionEvent)> {
    let events = x.interaction_events.iter().enumerate();
    events.filter(|(_, e)| (e.kind == InteractionKind::TerminalReply) == replies).collect()
}

/// Type, data (redacted stays redacted), query, outcome and order exactly;
/// times within the tolerance. Scripted events are compared in scenario
/// order (`interaction_events[i]` is the scenario's event i). Replies to
/// terminal queries are listed apart from them in the order they were sent
/// (`terminal_replies[j]`, the j-th reply) as information only (`deciding`
/// false): rea wrote them, following what the program wrote, so they never
/// decide the dimension; the queries are the program's output and are
/// judged in the terminal dimension. `screen_before` names a frame of its own record and is not compared;
/// the screens themselves are (the terminal dimension).
///
/// An event whose wait held on both sides is timed by the program: its
/// `wait.satisfied_at_ms` is compared as the interval since the previous
/// scripted event's dispatch (launch for the first), and its own
/// `dispatched_at_ms`, without `at_ms`, not at all (the gap between the
/// condition and the dispatch is the driver's: rea's lag in a replay, a
/// person's think time in a recording). Every other time is compared as
/// recorded.
pub(super) fn interaction(l: &CaptureRecord, r: &CaptureRecord, tolerance: u64) -> Findings {
    let mut f = Findings::default();
    for (name, replies) in [("interaction_events", false), ("terminal_replies", true)] {
        let (a, b) = (picked(l, replies), picked(r, replies));
        let from = f.differences.len();
        for i in 0..a.len().max(b.len()) {
            let (events, at) =
                if i < a.len() { (&l.interaction_events, a[i].0) } else { (&r.interaction_events, b[i].0) };
            let segment = segment_of_event(events, at);
            let order = (segment, phase::EVENT, at);
            let path = format!("{name}[{i}]");
            match (a.get(i).map(|p| p.1), b.get(i).map(|p| p.1)) {
                (Some(x), Some(y)) => {
                    f.field(&format!("{path}.type"), &x.kind, &y.kind, order);
                    f.field(&format!("{path}.query"), &x.query, &y.query, order);
                    f.field(&format!("{path}.data"), &x.data, &y.data, order);
                    f.field(&format!("{path}.outcome"), &x.outcome, &y.outcome, order);
                    f.field(&format!("{path}.reason"), &x.reason, &y.reason, order);
                    f.field(&format!("{path}.scheduled_at_ms"), &x.scheduled_at_ms, &y.scheduled_at_ms, order);
                    let starts = wait_start(&a, i).zip(wait_start(&b, i));
                    let timed_by_wait = starts.is_some() && satisfied(x).zip(satisfied(y)).is_some();
                    let unscheduled = x.scheduled_at_ms.is_none() && y.scheduled_at_ms.is_none();
                    if !(timed_by_wait && unscheduled) {
                        let at = format!("{path}.dispatched_at_ms");
                        match (x.sent_at_ms(), y.sent_at_ms()) {
                            (Some(p), Some(q)) => f.timing(&at, p, q, tolerance, order),
                            (p, q) => f.field(&at, &p, &q, order),
                        }
                    }
                    wait(&mut f, &path, (x, y), starts, tolerance, order);
                }
                (x, y) => f.values(path, &x, &y, Some(Location::Index { segment, index: i }), order),
            }
        }
        if replies {
            f.not_deciding_from(from);
        }
    }
    f
}

/// Whether a record has no scripted event (replies aside).
pub(super) fn no_scripted_event(x: &CaptureRecord) -> bool {
    picked(x, false).is_empty()
}

/// When a satisfied wait held, in milliseconds after launch.
fn satisfied(e: &InteractionEvent) -> Option<u64> {
    e.wait.as_ref().filter(|w| w.outcome == WaitOutcome::Satisfied).and_then(|w| w.satisfied_at_ms)
}

/// Where the wait of scripted event `i` started, as capture does it:
/// `launch` (0) for the first, else the previous scripted event's dispatch
/// (`None` when it has none, so no interval can be taken).
fn wait_start(scripted: &[(usize, &InteractionEvent)], i: usize) -> Option<(String, u64)> {
    match i.checked_sub(1) {
        None => Some(("launch".to_owned(), 0)),
        Some(k) => {
            let at = scripted.get(k).and_then(|(_, e)| e.sent_at_ms())?;
            Some((format!("interaction_events[{k}].dispatched_at_ms"), at))
        }
    }
}

/// An event's wait: condition, timeout and outcome exactly; when both
/// were satisfied, `satisfied_at_ms` within the tolerance, as the interval
/// since the wait's start when both starts are known.
fn wait(
    f: &mut Findings,
    path: &str,
    (x, y): (&InteractionEvent, &InteractionEvent),
    starts: Option<((String, u64), (String, u64))>,
    tolerance: u64,
    order: (usize, u8, usize),
) {
    let path = format!("{path}.wait");
    match (&x.wait, &y.wait) {
        (Some(a), Some(b)) => {
            f.field(&format!("{path}.condition"), &a.condition, &b.condition, order);
            f.field(&format!("{path}.timeout_ms"), &a.timeout_ms, &b.timeout_ms, order);
            f.field(&format!("{path}.outcome"), &a.outcome, &b.outcome, order);
            let at = format!("{path}.satisfied_at_ms");
            match (a.satisfied_at_ms, b.satisfied_at_ms, starts) {
                (Some(p), Some(q), Some(((since, left_since_ms), (_, right_since_ms)))) => {
                    let interval = Interval { since, left_since_ms, right_since_ms, left_at_ms: p, right_at_ms: q };
                    f.timing_interval(&at, interval, tolerance, order);
                }
                (Some(p), Some(q), None) => f.timing(&at, p, q, tolerance, order),
                (p, q, _) => f.field(&at, &p, &q, order),
            }
        }
        (a, b) => f.field(&path, a, b, order),
    }
}

/// Code, signal, reason, finalization exit code and the ordered
/// `(signal, delivery)` attempts exactly; settlement state and cleanup
/// outcome exactly; every time within the tolerance.
pub(super) fn exit(l: &CaptureRecord, r: &CaptureRecord, tolerance: u64) -> Findings {
    let mut f = Findings::default();
    let s = last_segment(l, r);
    let mut n = 0;
    let mut order = || {
        n += 1;
        (s, phase::EXIT, n)
    };
    let (a, b) = (&l.exit, &r.exit);
    f.field("exit.code", &a.code, &b.code, order());
    f.field("exit.signal", &a.signal, &b.signal, order());
    f.field("exit.reason", &a.reason, &b.reason, order());
    match (&a.finalization, &b.finalization) {
        (Some(x), Some(y)) => {
            f.field("exit.finalization.requested_ms", &x.requested_ms, &y.requested_ms, order());
            f.field("exit.finalization.exit_code", &x.exit_code, &y.exit_code, order());
            match (x.elapsed_ms, y.elapsed_ms) {
                (Some(p), Some(q)) => f.timing("exit.finalization.elapsed_ms", p, q, tolerance, order()),
                (p, q) => f.field("exit.finalization.elapsed_ms", &p, &q, order()),
            }
            for i in 0..x.signals.len().max(y.signals.len()) {
                let path = format!("exit.finalization.signals[{i}]");
                match (x.signals.get(i), y.signals.get(i)) {
                    (Some(p), Some(q)) => {
                        let o = order();
                        f.field(&format!("{path}.signal"), &p.signal, &q.signal, o);
                        f.field(&format!("{path}.delivery"), &p.delivery, &q.delivery, o);
                        f.timing(&format!("{path}.sent_at_ms"), p.sent_at_ms, q.sent_at_ms, tolerance, o);
                    }
                    (p, q) => f.values(path, &p, &q, None, order()),
                }
            }
        }
        (x, y) => f.field("exit.finalization", x, y, order()),
    }
    let (x, y) = (&l.settlement, &r.settlement);
    f.field("settlement.state", &x.state, &y.state, order());
    f.field("settlement.cleanup_outcome", &x.cleanup_outcome, &y.cleanup_outcome, order());
    f.timing("settlement.elapsed_ms", x.elapsed_ms, y.elapsed_ms, tolerance, order());
    f
}

fn effects(r: &CaptureRecord) -> BTreeMap<&str, &FileEffect> {
    r.filesystem_effects.iter().map(|e| (e.path.as_str(), e)).collect()
}

fn by_path(list: &[FileState]) -> BTreeMap<&str, &FileState> {
    list.iter().map(|s| (s.path.as_str(), s)).collect()
}

/// Snapshots and effects, path by path.
pub(super) fn filesystem(l: &CaptureRecord, r: &CaptureRecord) -> Findings {
    let mut f = Findings::default();
    let s = last_segment(l, r);
    let mut n = 0;
    for (name, a, b) in
        [("files_before", &l.files_before, &r.files_before), ("files_after", &l.files_after, &r.files_after)]
    {
        let (a, b) = (by_path(a), by_path(b));
        let paths: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
        for p in paths {
            n += 1;
            let path = format!("{name}[{p:?}]");
            match (a.get(p), b.get(p)) {
                (Some(x), Some(y)) => {
                    let o = (s, phase::FILESYSTEM, n);
                    f.field(&format!("{path}.type"), &x.kind, &y.kind, o);
                    f.field(&format!("{path}.mode"), &x.mode, &y.mode, o);
                    f.field(&format!("{path}.size"), &x.size, &y.size, o);
                    f.field(&format!("{path}.sha256"), &x.sha256, &y.sha256, o);
                    f.field(&format!("{path}.symlink_target"), &x.symlink_target, &y.symlink_target, o);
                }
                (x, y) => f.values(path, &x, &y, None, (s, phase::FILESYSTEM, n)),
            }
        }
    }
    let (a, b) = (effects(l), effects(r));
    let paths: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
    for p in paths {
        n += 1;
        let (x, y) = (a.get(p).map(|e| &e.status), b.get(p).map(|e| &e.status));
        f.field(&format!("filesystem_effects[{p:?}].status"), &x, &y, (s, phase::FILESYSTEM, n));
    }
    f
}

/// What the process dimension found: differences, and whether each is
/// proven (seen in at least two sampling passes on the side that has it).
pub(super) struct ProcessFindings {
    pub(super) findings: Findings,
    pub(super) proven: bool,
}

/// Distinct non-root processes as `(command, parent command)`, with the
/// number of sampling passes (distinct `at_ms`) that saw each. The root's
/// own command line may differ by contract and is left out, and PIDs are
/// replaced by the commands they stand for, so numbering never matters.
fn processes(r: &CaptureRecord) -> BTreeMap<(String, String), BTreeSet<u64>> {
    let command: BTreeMap<u64, &str> = r.process_samples.iter().map(|s| (s.pid, s.command.as_str())).collect();
    let mut out: BTreeMap<(String, String), BTreeSet<u64>> = BTreeMap::new();
    for s in r.process_samples.iter().filter(|s| s.pid != 1) {
        let parent = if s.parent_pid == 1 { "<root>" } else { command.get(&s.parent_pid).copied().unwrap_or("") };
        out.entry((s.command.clone(), parent.to_owned())).or_default().insert(s.at_ms);
    }
    out
}

/// Whether a record's process rows are an exact journal.
fn exact(r: &CaptureRecord) -> bool {
    r.truncation_details.process.coverage == crate::evidence::ProcessCoverage::Exact
}

/// An exact journal's non-root process images as `(command, parent
/// command)`, each with the distinct ways such an image ended (sorted):
/// which commands ran under which parent and with which status, PIDs,
/// timing and repetition counts aside (a polling loop that runs its
/// command once more on a slower run behaves the same).
fn journaled(r: &CaptureRecord) -> BTreeMap<(String, String), Vec<String>> {
    let command: BTreeMap<u64, &str> = r.process_samples.iter().map(|s| (s.pid, s.command.as_str())).collect();
    let mut out: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for s in r.process_samples.iter().filter(|s| s.pid != 1) {
        let parent = if s.parent_pid == 1 { "<root>" } else { command.get(&s.parent_pid).copied().unwrap_or("") };
        let ended = match &s.exit {
            None => "end not observed".to_owned(),
            Some(e) if e.signal != 0 => format!("killed by signal {}", e.signal),
            Some(e) => format!("exit {}", e.code.unwrap_or(0)),
        };
        out.entry((s.command.clone(), parent.to_owned())).or_default().push(ended);
    }
    out.values_mut().for_each(|v| {
        v.sort();
        v.dedup();
    });
    out
}

/// Two exact journals compared structurally: every difference is proven,
/// and names the command.
fn journals(l: &CaptureRecord, r: &CaptureRecord) -> ProcessFindings {
    let mut f = Findings::default();
    let (a, b) = (journaled(l), journaled(r));
    let s = last_segment(l, r);
    let keys: BTreeSet<&(String, String)> = a.keys().chain(b.keys()).collect();
    for (n, key) in keys.into_iter().enumerate() {
        let (x, y) = (a.get(key), b.get(key));
        if x != y {
            let ran = |v: Option<&Vec<String>>| v.map_or(Value::Null, |v| Value::from(v.clone()));
            f.push(
                format!("process_samples[command={:?}, parent={:?}]", key.0, key.1),
                ran(x),
                ran(y),
                None,
                (s, phase::PROCESS, n),
            );
        }
    }
    ProcessFindings { findings: f, proven: true }
}

/// Processes seen on one side only. Sampling can miss a short-lived
/// process or see it before its `exec`, so only a process seen in two or
/// more passes on one side and never on the other is a proven difference.
pub(super) fn process(l: &CaptureRecord, r: &CaptureRecord) -> ProcessFindings {
    if exact(l) && exact(r) {
        return journals(l, r);
    }
    let mut f = Findings::default();
    let (a, b) = (processes(l), processes(r));
    let s = last_segment(l, r);
    let mut proven = false;
    let keys: BTreeSet<&(String, String)> = a.keys().chain(b.keys()).collect();
    for (n, key) in keys.into_iter().enumerate() {
        let (x, y) = (a.get(key).map_or(0, BTreeSet::len), b.get(key).map_or(0, BTreeSet::len));
        if (x == 0) != (y == 0) {
            proven |= x.max(y) >= 2;
            let seen =
                |c: usize| if c == 0 { Value::Null } else { Value::from(format!("seen in {c} sampling passes")) };
            f.push(
                format!("process_samples[command={:?}, parent={:?}]", key.0, key.1),
                seen(x),
                seen(y),
                None,
                (s, phase::PROCESS, n),
            );
        }
    }
    ProcessFindings { findings: f, proven }
}
