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
//!
//! The idle class has one cost to guard against: on a machine where every
//! CPU is busy, a `SCHED_IDLE` thread gets a turn about every quarter of a
//! second, and it needs one to exit, which the keeper's exit (and so the
//! capture's end) waits for (measured: a trivial capture took 279 ms
//! instead of 29 beside two busy loops). So the keeper gives the thread the
//! normal class back before it ends it, and starts the thread only where
//! it may do so (`CAP_SYS_NICE`, or a `RLIMIT_NICE` that allows nice 0):
//! leaving the idle class is privileged.

#![expect(unsafe_code, reason = "pthread_setschedparam and getrlimit have no wrapper in rustix")]

use std::os::unix::thread::JoinHandleExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::{self, JoinHandle};
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
    /// The thread is to end.
    stop: AtomicBool,
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

/// The handle of the awake-keeping thread; dropping it ends the thread.
pub(crate) struct Awake {
    shared: Arc<Shared>,
    /// `None` once joined.
    thread: Option<JoinHandle<()>>,
}

impl Awake {
    /// Starts the thread, asleep; `None` when this machine has a single
    /// CPU (there is no other CPU to keep awake), when this process could
    /// not give the thread the normal class back (see the module's text),
    /// or when the thread cannot start or be given the idle class.
    pub(crate) fn start() -> Option<Awake> {
        let cpus = thread::available_parallelism().map_or(1, |n| n.get());
        if cpus < 2 || !may_leave_idle_class() {
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
            stop: AtomicBool::new(false),
        });
        let theirs = Arc::clone(&shared);
        let handle = thread::Builder::new()
            .name("rea-awake".into())
            .stack_size(64 * 1024)
            .spawn(move || keep_awake(&theirs, window))
            .ok()?;
        // The keeper sets the class (not the thread itself), so that the
        // normal class given back when it ends always comes after.
        let awake = Awake { shared, thread: Some(handle) };
        awake.set_class(libc::SCHED_IDLE).then_some(awake)
    }

    /// The keeper just handled stops: keep a CPU awake for the window.
    pub(crate) fn touch(&self) {
        self.shared.last.store(self.shared.now(), Ordering::SeqCst);
        if self.shared.asleep.swap(false, Ordering::SeqCst)
            && let Some(thread) = &self.thread
        {
            thread.thread().unpark();
        }
    }

    /// Sets the thread's scheduling class; whether that was done.
    fn set_class(&self, policy: libc::c_int) -> bool {
        let Some(thread) = &self.thread else { return false };
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: the thread is not joined yet (the handle is held), so its
        // pthread_t is valid; `param` lives for the call.
        unsafe { libc::pthread_setschedparam(thread.as_pthread_t(), policy, &param) == 0 }
    }
}

impl Drop for Awake {
    /// Gives the thread the normal class back, so that it ends at once even
    /// when every CPU is busy, and joins it.
    fn drop(&mut self) {
        self.set_class(libc::SCHED_OTHER);
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

/// For `rea doctor`: whether the keeper will keep a CPU awake, and why not.
pub(crate) fn availability() -> Result<String, String> {
    let cpus = thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        return Err("one CPU: there is no other CPU to keep awake while traced processes start".into());
    }
    if !may_leave_idle_class() {
        return Err("no CAP_SYS_NICE and RLIMIT_NICE below 20: the keeper could not take an idle-class thread out of \
                    that class to end it, so it traces without keeping a CPU awake"
            .into());
    }
    Ok(format!(
        "{cpus} CPUs and CAP_SYS_NICE or RLIMIT_NICE >= 20: the keeper keeps a CPU awake at the idle class for {} ms \
         after each batch of ptrace stops",
        WINDOW.as_millis()
    ))
}

/// Whether a thread of this process may leave `SCHED_IDLE` for the normal
/// class at nice 0: with `CAP_SYS_NICE` (bit 23 of the effective set), or
/// with a `RLIMIT_NICE` of at least 20.
fn may_leave_idle_class() -> bool {
    const CAP_SYS_NICE: u32 = 23;
    let capable = std::fs::read_to_string("/proc/thread-self/status").ok().is_some_and(|status| {
        status
            .lines()
            .find_map(|line| line.strip_prefix("CapEff:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .is_some_and(|mask| mask & (1 << CAP_SYS_NICE) != 0)
    });
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `limit` is a valid, writable rlimit for the call.
    let allowed = unsafe { libc::getrlimit(libc::RLIMIT_NICE, &mut limit) } == 0 && limit.rlim_cur >= 20;
    capable || allowed
}

/// The thread: spin while the last stop is recent and sleep until the next
/// `touch` otherwise, until told to stop.
fn keep_awake(shared: &Shared, window: Duration) {
    while !shared.stop.load(Ordering::SeqCst) {
        if shared.recent(window) {
            std::hint::spin_loop();
            continue;
        }
        shared.asleep.store(true, Ordering::SeqCst);
        // A touch between the check above and `asleep` either is seen here
        // or sees `asleep` and unparks (both are sequentially consistent).
        if shared.recent(window) || shared.stop.load(Ordering::SeqCst) {
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
    fn the_thread_runs_at_the_idle_class_spins_after_a_touch_sleeps_after_the_window_and_ends_at_once_on_a_busy_machine()
     {
        // One test for the thread's whole life: a second `rea-awake`
        // thread in this process would make `awake_thread` ambiguous.
        let window = Duration::from_secs(1);
        let awake = Awake::with_window(window).expect("the thread starts at the idle class");
        // The thread names itself once it runs.
        assert!(eventually(|| awake_thread().is_some()), "the thread is not listed");
        assert_eq!(awake_thread().unwrap().1, libc::SCHED_IDLE as u32);
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
        if !may_leave_idle_class() {
            eprintln!("not checked: ending on a busy machine (this process may not leave the idle class)");
            return;
        }
        // Every CPU busy at the normal class, the thread spinning: an idle
        // thread would wait about a quarter of a second for a turn to end.
        awake.touch();
        let busy = Arc::new(AtomicBool::new(true));
        let cpus = thread::available_parallelism().map_or(1, |n| n.get());
        let loops: Vec<_> = (0..cpus)
            .map(|_| {
                let busy = Arc::clone(&busy);
                thread::spawn(move || {
                    while busy.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        thread::sleep(Duration::from_millis(20));
        let started = Instant::now();
        drop(awake);
        let took = started.elapsed();
        busy.store(false, Ordering::Relaxed);
        loops.into_iter().for_each(|l| l.join().unwrap());
        assert!(awake_thread().is_none(), "the thread outlived its handle");
        assert!(took < Duration::from_millis(100), "ending the thread took {took:?} with every CPU busy");
    }
}
