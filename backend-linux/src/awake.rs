//! Keeps one CPU awake, at the lowest scheduling class, for a few
//! milliseconds after the traced tree's stops.
//!
//! Every ptrace stop is a round trip: the tracee stops, the keeper wakes,
//! handles it and resumes the tracee. When the other CPUs are idle the
//! scheduler sends each wake-up to one of them, and waking a halted CPU is
//! what costs (on a virtual machine, an exit to the hypervisor each time:
//! about 70 µs a round trip here against 6 µs on a running CPU). A thread
//! that busy-waits with `SCHED_IDLE` keeps its CPU running while taking
//! almost nothing from anyone (weight 3 against a normal task's 1024): the
//! scheduler counts a CPU that runs only `SCHED_IDLE`
//! work as idle, places wake-ups there and preempts the thread at once.
//!
//! The thread spins only for [`WINDOW`] after the keeper last handled a
//! stop (stops come in bursts: a fork, the child's first stop, its exec,
//! its exit), so a program that rarely starts processes costs nothing.
//! Measured in `docs/benchmarks.md` ("Exact process observation"); the
//! choice is in `docs/decisions.md`.
//!
//! The idle class has one cost to guard against: on a machine where every
//! CPU is busy, a `SCHED_IDLE` thread gets a turn about every quarter of a
//! second, and it needs one to exit, which the keeper's exit (and so the
//! capture's end) waits for (measured: a trivial capture took 279 ms
//! instead of 29 beside two busy loops). Two ways, by privilege:
//!
//! - [`Mode::Lasting`], where the keeper may give the thread the normal
//!   class back (`CAP_SYS_NICE`, or a `RLIMIT_NICE` that allows nice 0):
//!   one thread lives as long as the keeper, sleeping between bursts, and
//!   gets the normal class back before it is ended;
//! - [`Mode::PerBurst`] elsewhere (leaving the idle class is privileged): a
//!   thread lives for one burst only, ending itself when the window lapses,
//!   and is started only while `/proc/loadavg` shows no more runnable tasks
//!   than CPUs, so on a busy machine there is none to wait for. Left: a
//!   machine that becomes busy within the last window of a capture.

#![expect(unsafe_code, reason = "pthread_setschedparam and getrlimit have no wrapper in rustix")]

use std::os::unix::thread::JoinHandleExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long the thread keeps its CPU awake after the last stop.
pub(crate) const WINDOW: Duration = Duration::from_millis(3);

/// How the thread lives (see the module's text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Lasting,
    PerBurst,
}

/// What the keeper and the thread share.
struct Shared {
    /// When the keeper last handled stops, in nanoseconds after `base`.
    last: AtomicU64,
    base: Instant,
    /// The thread is asleep (or about to be) and needs an unpark
    /// ([`Mode::Lasting`]).
    asleep: AtomicBool,
    /// The thread is to end.
    stop: AtomicBool,
    window: Duration,
}

impl Shared {
    fn now(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }

    /// Whether the keeper handled stops less than a window ago.
    fn recent(&self) -> bool {
        self.now().saturating_sub(self.last.load(Ordering::SeqCst)) < self.window.as_nanos() as u64
    }
}

/// The handle of the awake-keeping thread; dropping it ends the thread.
pub(crate) struct Awake {
    shared: Arc<Shared>,
    mode: Mode,
    cpus: usize,
    /// The thread ([`Mode::PerBurst`]: the last one started, perhaps ended).
    thread: Option<JoinHandle<()>>,
    /// [`Mode::PerBurst`]: no CPU was free, so none is asked for again
    /// before this time (nanoseconds after `base`): on a busy machine every
    /// wake-up would read `/proc/loadavg` otherwise.
    ask_after: u64,
}

/// How long a busy machine is not asked again whether a CPU is free.
const BUSY_BACKOFF: Duration = Duration::from_millis(20);

impl Awake {
    /// The handle; `None` on a machine with a single CPU (there is no other
    /// CPU to keep awake).
    pub(crate) fn start() -> Option<Awake> {
        let cpus = cpus();
        let mode = if may_leave_idle_class() { Mode::Lasting } else { Mode::PerBurst };
        (cpus >= 2).then(|| Awake::new(mode, cpus, WINDOW)).flatten()
    }

    fn new(mode: Mode, cpus: usize, window: Duration) -> Option<Awake> {
        let shared = Arc::new(Shared {
            last: AtomicU64::new(0),
            // The last stop is long enough ago that nothing spins yet.
            base: Instant::now().checked_sub(window * 2)?,
            asleep: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            window,
        });
        let mut awake = Awake { shared, mode, cpus, thread: None, ask_after: 0 };
        if mode == Mode::Lasting && !awake.spawn() {
            return None;
        }
        Some(awake)
    }

    /// Starts a thread and gives it the idle class. The keeper sets the
    /// class (not the thread itself), so that the normal class given back
    /// when it ends always comes after. Whether it runs at the idle class.
    fn spawn(&mut self) -> bool {
        let (theirs, mode) = (Arc::clone(&self.shared), self.mode);
        let spawned = thread::Builder::new()
            .name("rea-awake".into())
            .stack_size(64 * 1024)
            .spawn(move || keep_awake(&theirs, mode));
        let Ok(handle) = spawned else { return false };
        if let Some(ended) = self.thread.replace(handle) {
            let _ = ended.join();
        }
        if self.set_class(libc::SCHED_IDLE) {
            return true;
        }
        // Spinning at the normal class would take CPU from the program.
        self.end();
        false
    }

    /// The keeper just handled stops: keep a CPU awake for the window.
    pub(crate) fn touch(&mut self) {
        let cpus = self.cpus;
        self.touch_with(|| runnable_tasks().is_some_and(|runnable| runnable <= cpus));
    }

    /// [`Awake::touch`], with `free` telling whether a CPU is free now
    /// (asked only when a per-burst thread is to start).
    fn touch_with(&mut self, free: impl FnOnce() -> bool) {
        let now = self.shared.now();
        self.shared.last.store(now, Ordering::SeqCst);
        match self.mode {
            Mode::Lasting => {
                if self.shared.asleep.swap(false, Ordering::SeqCst)
                    && let Some(thread) = &self.thread
                {
                    thread.thread().unpark();
                }
            }
            Mode::PerBurst => {
                let running = self.thread.as_ref().is_some_and(|t| !t.is_finished());
                if running || now < self.ask_after {
                    return;
                }
                if free() {
                    self.spawn();
                } else {
                    self.ask_after = now + BUSY_BACKOFF.as_nanos() as u64;
                }
            }
        }
    }

    /// Sets the thread's scheduling class; whether that was done.
    fn set_class(&self, policy: libc::c_int) -> bool {
        let Some(thread) = self.thread.as_ref().filter(|t| !t.is_finished()) else { return false };
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: the thread is not joined yet (the handle is held), so its
        // pthread_t is valid; `param` lives for the call.
        unsafe { libc::pthread_setschedparam(thread.as_pthread_t(), policy, &param) == 0 }
    }

    /// Ends the thread: the normal class back (where allowed), so that it
    /// ends at once even when every CPU is busy; then joins it.
    fn end(&mut self) {
        if self.mode == Mode::Lasting {
            self.set_class(libc::SCHED_OTHER);
        }
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
        self.shared.stop.store(false, Ordering::SeqCst);
    }
}

impl Drop for Awake {
    fn drop(&mut self) {
        self.end();
    }
}

/// For `rea doctor`: how the keeper keeps a CPU awake, or why it does not.
pub(crate) fn availability() -> Result<String, String> {
    let cpus = cpus();
    if cpus < 2 {
        return Err("one CPU: there is no other CPU to keep awake while traced processes start".into());
    }
    let window = WINDOW.as_millis();
    if may_leave_idle_class() {
        Ok(format!(
            "{cpus} CPUs, CAP_SYS_NICE or RLIMIT_NICE >= 20: the keeper keeps a CPU awake at the idle class for \
             {window} ms after each batch of ptrace stops"
        ))
    } else {
        Err(format!(
            "{cpus} CPUs, no CAP_SYS_NICE and RLIMIT_NICE below 20: the keeper keeps a CPU awake for {window} ms \
             after each batch of ptrace stops only while /proc/loadavg shows a free CPU, with a thread per burst"
        ))
    }
}

/// The CPUs this process may run on (1 when unknown).
fn cpus() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runnable tasks on the machine now (the fourth field of `/proc/loadavg`,
/// `running/total`, counts the reader too).
fn runnable_tasks() -> Option<usize> {
    parse_runnable(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

fn parse_runnable(loadavg: &str) -> Option<usize> {
    loadavg.split_ascii_whitespace().nth(3)?.split_once('/')?.0.parse().ok()
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

/// The thread: spin while the last stop is recent; then sleep until the
/// next `touch` ([`Mode::Lasting`]) or end ([`Mode::PerBurst`]); end when
/// told to.
fn keep_awake(shared: &Shared, mode: Mode) {
    while !shared.stop.load(Ordering::SeqCst) {
        if shared.recent() {
            std::hint::spin_loop();
            continue;
        }
        if mode == Mode::PerBurst {
            return;
        }
        shared.asleep.store(true, Ordering::SeqCst);
        // A touch between the check above and `asleep` either is seen here
        // or sees `asleep` and unparks (both are sequentially consistent).
        if shared.recent() || shared.stop.load(Ordering::SeqCst) {
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

    /// Tests that look for the `rea-awake` thread run one at a time.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn the_lasting_thread_runs_at_the_idle_class_spins_after_a_touch_sleeps_after_the_window_and_ends_at_once_on_a_busy_machine()
     {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let window = Duration::from_secs(1);
        let cpus = cpus();
        let mut awake = Awake::new(Mode::Lasting, cpus, window).expect("the thread starts at the idle class");
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
        assert!(!awake.shared.recent(), "asleep inside the window");
        if !may_leave_idle_class() {
            eprintln!("not checked: ending on a busy machine (this process may not leave the idle class)");
            return;
        }
        // Every CPU busy at the normal class, the thread spinning: an idle
        // thread would wait about a quarter of a second for a turn to end.
        awake.touch();
        let busy = Arc::new(AtomicBool::new(true));
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

    #[test]
    fn a_per_burst_thread_starts_only_with_a_free_cpu_runs_at_the_idle_class_and_ends_with_its_window() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let mut awake = Awake::new(Mode::PerBurst, 2, Duration::from_secs(1)).expect("the handle");
        assert!(awake_thread().is_none(), "a thread before any touch");
        // No free CPU: nothing starts, and the machine is not asked again
        // at once.
        awake.touch_with(|| false);
        awake.touch_with(|| panic!("asked again right after a busy answer"));
        thread::sleep(BUSY_BACKOFF + Duration::from_millis(5));
        assert!(awake_thread().is_none(), "a thread started without a free CPU");
        // A free CPU: a thread at the idle class, which ends by itself once
        // the window passed.
        awake.touch_with(|| true);
        assert!(eventually(|| awake_thread().is_some()), "no thread after a touch with a free CPU");
        assert_eq!(awake_thread().unwrap().1, libc::SCHED_IDLE as u32);
        assert!(eventually(|| awake_thread().is_none()), "the thread outlived its window");
        assert!(!awake.shared.recent());
        // The next burst starts the next thread; a touch while one spins
        // asks nothing and starts nothing.
        awake.touch_with(|| true);
        assert!(eventually(|| awake_thread().is_some()));
        awake.touch_with(|| panic!("asked for a free CPU while a thread spins"));
        drop(awake);
        assert!(awake_thread().is_none(), "the thread outlived its handle");
    }

    #[test]
    fn runnable_tasks_are_the_fourth_field_of_loadavg() {
        assert_eq!(parse_runnable("0.52 0.58 0.59 3/467 12345\n"), Some(3));
        assert_eq!(parse_runnable("0.52 0.58 0.59 x/467 12345\n"), None);
        assert_eq!(parse_runnable("0.52 0.58\n"), None);
        assert!(runnable_tasks().is_some_and(|n| n >= 1), "this test runs, so at least one task is runnable");
    }
}
