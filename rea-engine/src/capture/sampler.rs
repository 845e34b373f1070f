//! Process-tree sampling on a background thread.
//!
//! Every 50 ms (and once immediately) the sampler walks the tree below the
//! launched process breadth-first through the inspector. A row is recorded
//! when its `(parent, command, group, session)` differs from the last row
//! recorded for that PID; a PID whose start identity changed is a new
//! process. A row is kept only if its parent is the process it was found
//! under. Reads that fail (other than a process exiting meanwhile) mark
//! sampling partial and are counted; readable rows are kept. The sampler only
//! stops between passes, so a pass is never left half done.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::host::{ExitStatus, Pid, ProcessIdentity, ProcessInspector, ProcessRow, StartTime};

/// Sampling interval.
pub(super) const INTERVAL: Duration = Duration::from_millis(50);

/// Longest sampled command line a record shows, in UTF-8 bytes; a longer
/// one is cut at a character boundary and ends in
/// `<truncated-command:N-bytes>`, N the length read from the host.
pub(crate) const MAX_SAMPLED_COMMAND_BYTES: usize = 4096;

/// Bytes of a command line the sampler keeps: the record shows at most
/// [`MAX_SAMPLED_COMMAND_BYTES`], and the rest leaves room to redact a secret
/// that starts inside them (a secret is at most `MAX_INPUT_DATA_BYTES`).
pub(super) const KEPT_COMMAND_BYTES: usize = crate::host::KEPT_COMMAND_BYTES;
const _: () = assert!(KEPT_COMMAND_BYTES == MAX_SAMPLED_COMMAND_BYTES + crate::scenario::MAX_INPUT_DATA_BYTES);

/// A sampled row before normalization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RawSample {
    /// Milliseconds after launch at the start of the pass.
    pub at_ms: u64,
    /// PID.
    pub pid: u32,
    /// Parent PID.
    pub parent: u32,
    /// Command line, its first [`KEPT_COMMAND_BYTES`] at most.
    pub command: String,
    /// Bytes of the command line as read (more than `command` holds when cut).
    pub command_bytes: usize,
    /// Why the command this image exec'd could not be read (exact
    /// observation only): `command` is then not recorded.
    pub unread: Option<String>,
    /// Process group.
    pub group: u32,
    /// Session.
    pub session: u32,
    /// When the row was recorded (for the journal order).
    pub recorded: Instant,
    /// How the image ended, when it was observed (exact observation only;
    /// a sample never sees an exit).
    pub exit: Option<ExitStatus>,
}

/// What sampling produced.
#[derive(Debug, Clone, Default)]
pub(super) struct SamplerResult {
    /// Recorded rows in recording order.
    pub samples: Vec<RawSample>,
    /// Whether new observations were dropped at the limit.
    pub limit_reached: bool,
    /// Failed reads.
    pub failures: u64,
    /// The first failure's description.
    pub first_failure: Option<String>,
    /// Process groups seen (leaders' PIDs), for settlement and cleanup.
    pub groups: BTreeSet<u32>,
}

struct State {
    stop: bool,
    result: SamplerResult,
}

/// A running sampler.
pub(super) struct Sampler {
    shared: Arc<(Mutex<State>, Condvar)>,
    count: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    /// Starts sampling below `root`.
    pub(super) fn start(
        inspector: Arc<dyn ProcessInspector>,
        root: ProcessIdentity,
        launch: Instant,
        limit: u64,
    ) -> Sampler {
        let shared = Arc::new((Mutex::new(State { stop: false, result: SamplerResult::default() }), Condvar::new()));
        let count = Arc::new(AtomicU64::new(0));
        let (s, c) = (Arc::clone(&shared), Arc::clone(&count));
        let thread = std::thread::Builder::new()
            .name("rea-sampler".into())
            .spawn(move || run(&*inspector, root, launch, limit, &s, &c))
            .ok();
        Sampler { shared, count, thread }
    }

    /// Samples recorded so far.
    pub(super) fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// Process groups seen so far.
    pub(super) fn groups(&self) -> BTreeSet<u32> {
        let (lock, _) = &*self.shared;
        lock.lock().unwrap_or_else(|e| e.into_inner()).result.groups.clone()
    }

    /// Stops after the pass in progress and returns everything recorded
    /// (once: a later call finds nothing).
    pub(super) fn stop(&mut self) -> SamplerResult {
        self.halt();
        let (lock, _) = &*self.shared;
        std::mem::take(&mut lock.lock().unwrap_or_else(|e| e.into_inner()).result)
    }

    fn halt(&mut self) {
        let (lock, cv) = &*self.shared;
        lock.lock().unwrap_or_else(|e| e.into_inner()).stop = true;
        cv.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.halt();
    }
}

struct Walker {
    last: HashMap<u32, (StartTime, u32, String, u32, u32)>,
}

fn run(
    inspector: &dyn ProcessInspector,
    root: ProcessIdentity,
    launch: Instant,
    limit: u64,
    shared: &(Mutex<State>, Condvar),
    count: &AtomicU64,
) {
    let (lock, cv) = shared;
    let mut walker = Walker { last: HashMap::new() };
    loop {
        let at_ms = launch.elapsed().as_millis() as u64;
        let pass = walker.pass(inspector, root, at_ms);
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        for row in pass.rows {
            state.result.groups.insert(row.group);
            if state.result.samples.len() as u64 >= limit {
                state.result.limit_reached = true;
                continue;
            }
            state.result.samples.push(row);
        }
        for failure in pass.failures {
            state.result.failures += 1;
            state.result.first_failure.get_or_insert(failure);
        }
        count.store(state.result.samples.len() as u64, Ordering::Relaxed);
        let deadline = Instant::now() + INTERVAL;
        while !state.stop {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            state = cv.wait_timeout(state, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
        }
        if state.stop {
            return;
        }
    }
}

struct Pass {
    rows: Vec<RawSample>,
    failures: Vec<String>,
}

impl Walker {
    fn pass(&mut self, inspector: &dyn ProcessInspector, root: ProcessIdentity, at_ms: u64) -> Pass {
        let mut pass = Pass { rows: Vec::new(), failures: Vec::new() };
        let mut queue: VecDeque<(Pid, Option<Pid>)> = VecDeque::from([(root.pid, None)]);
        let mut visited = BTreeSet::new();
        while let Some((pid, expected_parent)) = queue.pop_front() {
            if !visited.insert(pid) {
                continue;
            }
            let row = match inspector.process(pid) {
                Ok(Some(row)) => row,
                Ok(None) => continue,
                Err(e) => {
                    pass.failures.push(format!("process {pid}: {e}"));
                    continue;
                }
            };
            if row.zombie {
                continue;
            }
            if pid == root.pid && row.start != root.start {
                // The launched process is gone and its PID was reused.
                continue;
            }
            if expected_parent.is_some_and(|p| p != row.parent) {
                continue;
            }
            match inspector.children(pid) {
                Ok(children) => queue.extend(children.into_iter().map(|c| (c, Some(pid)))),
                Err(e) => pass.failures.push(format!("children of process {pid}: {e}")),
            }
            if let Some(sample) = self.changed(pid, row, at_ms) {
                pass.rows.push(sample);
            }
        }
        pass
    }

    /// The sample of `row`, unless the process looks as it did in the last
    /// sample recorded for `pid`.
    fn changed(&mut self, pid: Pid, row: ProcessRow, at_ms: u64) -> Option<RawSample> {
        // Compared in place: the command is copied only when it is recorded.
        let unchanged = self.last.get(&pid.0).is_some_and(|(start, parent, command, group, session)| {
            (*start, *parent, *group, *session) == (row.start, row.parent.0, row.group.0, row.session.0)
                && *command == row.command
        });
        if unchanged {
            return None;
        }
        self.last.insert(pid.0, (row.start, row.parent.0, row.command.clone(), row.group.0, row.session.0));
        let command_bytes = row.command.len();
        let mut command = row.command;
        command.truncate(command.floor_char_boundary(KEPT_COMMAND_BYTES));
        Some(RawSample {
            at_ms,
            pid: pid.0,
            parent: row.parent.0,
            command,
            command_bytes,
            unread: None,
            group: row.group.0,
            session: row.session.0,
            recorded: Instant::now(),
            exit: None,
        })
    }
}
