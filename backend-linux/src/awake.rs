//! Keeps one CPU awake, at the lowest scheduling class, for a few
//! milliseconds after the traced tree's stops.
//!
//! Every ptrace stop is a round trip: the tracee stops, the keeper wakes,
//! handles it and resumes the tracee. When the other CPUs are idle the
//! scheduler sends each wake-up to one of them, and waking a halted CPU is
//! what costs (on a virtual machine, an exit to the hypervisor each time:
//! about 70 µs a round trip here against 6 µs on a running CPU). A thread
//! that busy-waits with `SCHED_IDLE` keeps its CPU running without taking
//! it from anyone: the scheduler counts a CPU that runs only `SCHED_IDLE`
//! work as idle, places wake-ups there and preempts the thread at once.
//!
//! The thread spins only for [`WINDOW`] after the keeper last handled a
//! stop (stops come in bursts: a fork, the child's first stop, its exec,
//! its exit) and sleeps otherwise, so a program that rarely starts
//! processes costs nothing. Measured in `docs/benchmarks.md` ("Exact
//! process observation"); the choice is in `docs/decisions.md`.

#![expect(unsafe_code, reason = "sched_setscheduler has no wrapper in rustix")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// How long the thread keeps its CPU awake after the last stop.
pub(crate) const WINDOW: Duration = Duration::from_millis(3);

/// What the keeper and the thread share.
struct Shared {
    /// When the keeper last handled stops, in nanoseconds after `base`.
    last: AtomicU64,
    base: Instant,
    /// The thread is asleep (or about to be) and needs an unpark.
    asleep: AtomicBool,
    /// The thread runs at `SCHED_IDLE` (`false`: not yet, or refused, and
    /// then the thread ended without spinning).
    idle_policy: AtomicBool,
}

impl Shared {
    fn now(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }

    /// Whether the keeper handled stops less than `window` ago.
    fn recent(&self, window: Duration) -> bool {
        self.now().saturating_sub(self.last.load(Ordering::SeqCst)) < window.as_nanos() as u64
    }
}

/// The handle of the awake-keeping thread.
pub(crate) struct Awake {
    shared: Arc<Shared>,
    thread: Thread,
}

impl Awake {
    /// Starts the thread, asleep; `None` when this machine has a single
    /// CPU (there is no other CPU to keep awake) or the thread cannot start.
    pub(crate) fn start() -> Option<Awake> {
        let cpus = thread::available_parallelism().map_or(1, |n| n.get());
        if cpus < 2 {
            return None;
        }
        Awake::with_window(WINDOW)
    }

    fn with_window(window: Duration) -> Option<Awake> {
        let shared = Arc::new(Shared {
            last: AtomicU64::new(0),
            // The last stop is long enough ago that the thread starts asleep.
            base: Instant::now().checked_sub(window * 2)?,
            asleep: AtomicBool::new(false),
            idle_policy: AtomicBool::new(false),
        });
        let theirs = Arc::clone(&shared);
        let handle = thread::Builder::new()
            .name("rea-awake".into())
            .stack_size(64 * 1024)
            .spawn(move || keep_awake(&theirs, window))
            .ok()?;
        Some(Awake { shared, thread: handle.thread().clone() })
    }

    /// The keeper just handled stops: keep a CPU awake for the window.
    pub(crate) fn touch(&self) {
        self.shared.last.store(self.shared.now(), Ordering::SeqCst);
        if self.shared.asleep.swap(false, Ordering::SeqCst) {
            self.thread.unpark();
        }
    }
}

/// The thread: lowest scheduling class, then spin while the last stop is
/// recent and sleep until the next `touch` otherwise.
fn keep_awake(shared: &Shared, window: Duration) {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid sched_param for the call's duration; PID 0
    // names the calling thread.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } != 0 {
        // Spinning at the normal class would take CPU from the program.
        return;
    }
    shared.idle_policy.store(true, Ordering::SeqCst);
    loop {
        if shared.recent(window) {
            std::hint::spin_loop();
            continue;
        }
        shared.asleep.store(true, Ordering::SeqCst);
        // A touch between the check above and `asleep` either is seen here
        // or sees `asleep` and unparks (both are sequentially consistent).
        if shared.recent(window) {
            shared.asleep.store(false, Ordering::SeqCst);
            continue;
        }
        thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waits up to 10 s for `condition`.
    fn eventually(mut condition: impl FnMut() -> bool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if condition() {
                return true;
            }
            thread::sleep(Duration::from_millis(1));
        }
        false
    }

    /// The CPU time the thread named `rea-awake` used so far, in clock
    /// ticks, and its scheduling policy, from `/proc/self/task/*/stat`.
    fn awake_thread() -> Option<(u64, u32)> {
        for task in std::fs::read_dir("/proc/self/task").ok()? {
            let dir = task.ok()?.path();
            let comm = std::fs::read_to_string(dir.join("comm")).ok()?;
            if comm.trim_end() != "rea-awake" {
                continue;
            }
            let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
            // After the command's closing parenthesis, field 3 (state) is
            // first: utime (14) and stime (15) are at 11 and 12, policy (41)
            // at 38.
            let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split(' ').collect();
            let ticks = fields[11].parse::<u64>().ok()? + fields[12].parse::<u64>().ok()?;
            return Some((ticks, fields[38].parse().ok()?));
        }
        None
    }

    #[test]
    fn the_thread_runs_at_the_idle_class_spins_after_a_touch_and_sleeps_after_the_window() {
        // One test for the thread's whole life: a second `rea-awake`
        // thread in this process would make `awake_thread` ambiguous.
        let window = Duration::from_secs(1);
        let awake = Awake::with_window(window).expect("the thread starts");
        assert!(eventually(|| awake.shared.idle_policy.load(Ordering::SeqCst)), "SCHED_IDLE was refused");
        assert_eq!(awake_thread().expect("the thread is listed").1, libc::SCHED_IDLE as u32);
        // Asleep from the start (no touch yet), using no CPU meanwhile.
        assert!(eventually(|| awake.shared.asleep.load(Ordering::SeqCst)));
        let (before, _) = awake_thread().unwrap();
        thread::sleep(Duration::from_millis(50));
        // (A spinning thread would use 5 ticks; one may be the rounding of
        // the last instructions before it slept.)
        assert!(awake_thread().unwrap().0 <= before + 1, "the thread used CPU while asleep");
        // A touch wakes it, and it stays awake inside the window...
        awake.touch();
        assert!(!awake.shared.asleep.load(Ordering::SeqCst));
        thread::sleep(Duration::from_millis(100));
        assert!(!awake.shared.asleep.load(Ordering::SeqCst), "asleep 100 ms after a touch");
        // ...and sleeps again once the window passed without a touch.
        assert!(eventually(|| awake.shared.asleep.load(Ordering::SeqCst)));
        assert!(!awake.shared.recent(window), "asleep inside the window");
    }
}
