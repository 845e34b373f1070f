//! The interaction, exit, filesystem and process dimensions: exact fields,
//! timing values within the tolerance, and field paths for each difference.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::diff::{Findings, Interval, Location, phase};
use crate::evidence::{
    CaptureRecord, FileEffect, FileState, InteractionEvent, InteractionKind, ProcessSample, WaitOutcome,
};

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

/// Where the two root command lines differ (the contract lets the sides'
/// executables and arguments differ): the words that differ, once the
/// words both lines begin and end with are set aside, joined by spaces,
/// left then right. A non-root command line that names them (a pipeline's
/// `sh -c "{side} | sort"` child, a side that runs itself again) names
/// `<side>` instead on each side. Only a command that ran: on each side a
/// non-root process must name it, as its first word or, for a path, as
/// whole words anywhere (`/bin/sh /path/tool` runs a script), so `sleep 5`
/// under `--count 5` against `--count 6` stays a difference. `None` when
/// the roots are equal, one is not recorded, or no process ran them.
pub(super) fn side_commands(l: &CaptureRecord, r: &CaptureRecord) -> Option<[String; 2]> {
    let root = |x: &CaptureRecord| x.process_samples.iter().find(|s| s.pid == 1).and_then(|s| s.command.clone());
    let (a, b) = (root(l)?, root(r)?);
    let (a, b): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
    let lead = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[lead..], &b[lead..]);
    let tail = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[..a.len() - tail], &b[..b.len() - tail]);
    // A path names a program wherever it stands (a script's interpreter
    // comes first); a bare word must have started a process.
    let ran = |x: &CaptureRecord, words: &[&str]| {
        let (first, joined) = (words[0], words.join(" "));
        x.process_samples
            .iter()
            .filter(|s| s.pid != 1)
            .filter_map(|s| s.command.as_deref())
            .any(|c| c.split(' ').next() == Some(first) || (first.contains('/') && side_aliased(c, &joined) != c))
    };
    match (a.is_empty(), b.is_empty()) {
        (false, false) if ran(l, a) && ran(r, b) => Some([a.join(" "), b.join(" ")]),
        _ => None,
    }
}

/// Distinct non-root processes as `(command, parent command)` (see
/// [`keyed`]), with the sampling passes (distinct `at_ms`) that saw each.
fn processes(r: &CaptureRecord, side: Option<&str>) -> BTreeMap<(String, String), BTreeSet<u64>> {
    let mut out: BTreeMap<(String, String), BTreeSet<u64>> = BTreeMap::new();
    for (s, key) in keyed(r, side) {
        out.entry(key).or_default().insert(s.at_ms);
    }
    out
}

/// Each non-root row with its `(command, parent command)` key: the
/// root's own command line may differ by contract, PIDs are replaced by
/// the commands they stand for, and `side`'s command (when given) by
/// `<side>`.
fn keyed<'a>(
    r: &'a CaptureRecord,
    side: Option<&str>,
) -> impl Iterator<Item = (&'a ProcessSample, (String, String))> + 'a {
    let side = side.map(str::to_owned);
    let name = move |command: &str| match &side {
        Some(words) => side_aliased(command, words),
        None => command.to_owned(),
    };
    let command: BTreeMap<u64, &str> = r.process_samples.iter().map(|s| (s.pid, command_of(s))).collect();
    r.process_samples.iter().filter(|s| s.pid != 1).map(move |s| {
        let parent = match s.parent_pid {
            1 => "<root>".to_owned(),
            pid => name(command.get(&pid).copied().unwrap_or("")),
        };
        (s, (name(command_of(s)), parent))
    })
}

/// A row's command, or a label for one that could not be read.
fn command_of(s: &ProcessSample) -> &str {
    s.command.as_deref().unwrap_or("<command unread>")
}

/// `command` with each occurrence of `words` that stands as whole words
/// (at the start or after a space, and at the end or before a space)
/// replaced by `<side>`.
pub(super) fn side_aliased(command: &str, words: &str) -> String {
    if words.is_empty() {
        return command.to_owned();
    }
    let bytes = command.as_bytes();
    let mut out = String::with_capacity(command.len());
    let (mut copied, mut from) = (0, 0);
    while let Some(i) = command[from..].find(words).map(|i| i + from) {
        let end = i + words.len();
        if (i == 0 || bytes[i - 1] == b' ') && (end == bytes.len() || bytes[end] == b' ') {
            out.push_str(&command[copied..i]);
            out.push_str("<side>");
            (copied, from) = (end, end);
        } else {
            from = i + command[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out.push_str(&command[copied..]);
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
fn journaled(r: &CaptureRecord, side: Option<&str>) -> BTreeMap<(String, String), Vec<String>> {
    let mut out: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (s, key) in keyed(r, side) {
        let ended = match &s.exit {
            None => "end not observed".to_owned(),
            Some(e) if e.signal != 0 => format!("killed by signal {}", e.signal),
            Some(e) => format!("exit {}", e.code.unwrap_or(0)),
        };
        out.entry(key).or_default().push(ended);
    }
    out.values_mut().for_each(|v| {
        v.sort();
        v.dedup();
    });
    out
}

/// Two exact journals compared structurally: every difference is proven,
/// and names the command.
fn journals(l: &CaptureRecord, r: &CaptureRecord, sides: [Option<&str>; 2]) -> ProcessFindings {
    let mut f = Findings::default();
    let (a, b) = (journaled(l, sides[0]), journaled(r, sides[1]));
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
    let aliases = side_commands(l, r);
    let sides = match &aliases {
        Some([a, b]) => [Some(a.as_str()), Some(b.as_str())],
        None => [None, None],
    };
    if exact(l) && exact(r) {
        return journals(l, r, sides);
    }
    let mut f = Findings::default();
    let (a, b) = (processes(l, sides[0]), processes(r, sides[1]));
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

#[cfg(test)]
mod side_tests {
    use super::side_aliased;

    #[test]
    fn a_side_command_is_named_only_as_whole_words() {
        let w = "/usr/bin/coreutils ls";
        assert_eq!(side_aliased("/usr/bin/coreutils ls -l x", w), "<side> -l x");
        assert_eq!(side_aliased("xargs /usr/bin/coreutils ls", w), "xargs <side>");
        assert_eq!(side_aliased("/usr/bin/coreutils lsblk", w), "/usr/bin/coreutils lsblk");
        assert_eq!(side_aliased("x/usr/bin/coreutils ls", w), "x/usr/bin/coreutils ls");
        assert_eq!(side_aliased("a /usr/bin/coreutils ls /usr/bin/coreutils ls", w), "a <side> <side>");
        assert_eq!(
            side_aliased("é/usr/bin/coreutils ls é /usr/bin/coreutils ls", w),
            "é/usr/bin/coreutils ls é <side>"
        );
        assert_eq!(side_aliased("sort", ""), "sort");
    }
}
