//! Exact observation of the launched tree: the keeper traces it with
//! ptrace event stops only.
//!
//! The keeper seizes the launched process before its `exec` (the forked
//! child waits on a pipe until the keeper has called `PTRACE_SEIZE`), and
//! from the first `exec` on every descendant is traced with
//! `TRACEFORK|TRACEVFORK|TRACECLONE|TRACEEXEC|EXITKILL`: no system-call
//! stops, and no exit stops either (a tracee's zombie, which the tracer must
//! wait for anyway, carries the same status: one stop less per process,
//! measured in `docs/benchmarks.md`). Each stop is handled at once and the
//! tracee resumed:
//!
//! - fork, vfork, clone (a new process, not a thread): a row whose command
//!   is the parent's until the child's own `exec`;
//! - exec: the command line, read from `/proc/PID/cmdline` while the process
//!   is stopped, so it is never missed;
//! - exit: the status, from `waitid` on the tracee's zombie;
//! - group-stop (`PTRACE_EVENT_STOP` with a stop signal): `PTRACE_LISTEN`, so
//!   the process stays stopped as without a tracer and job control works;
//! - signal-delivery stop: the signal is re-injected unchanged.
//!
//! A zombie tracee is visible only to its tracer until the tracer waits for
//! it, so the keeper releases (waits for) every zombie whose real parent is
//! another process at once: its parent's `wait` sees it as without a tracer.
//! The keeper's own children (the launched process, adopted orphans) stay
//! unreaped until `rea` asks, as before: the lineage proof is unchanged.

#![expect(unsafe_code, reason = "ptrace, waitid with WNOWAIT and signalfd have no safe wrapper in rustix")]

use std::collections::{HashMap, HashSet};
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use rea_engine::host::ExitStatus;

use crate::procfs;

/// The trace options: creation and exec events, and tracees die with the
/// keeper.
const OPTIONS: libc::c_int = libc::PTRACE_O_TRACEFORK
    | libc::PTRACE_O_TRACEVFORK
    | libc::PTRACE_O_TRACECLONE
    | libc::PTRACE_O_TRACEEXEC
    | libc::PTRACE_O_EXITKILL;

/// Longest wait for the tree to stop so that it can be detached.
const DETACH_BOUND: Duration = Duration::from_secs(1);

/// One journal row: a process image (from its fork, or its exec).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    /// Microseconds after the seize.
    pub(crate) at_us: u64,
    /// PID.
    pub(crate) pid: u32,
    /// The PID of the process that created it (0: the keeper).
    pub(crate) parent: u32,
    /// Command line, at most `KEPT_COMMAND_BYTES`.
    pub(crate) command: String,
    /// Bytes of the command line as read.
    pub(crate) command_bytes: u32,
    /// Why what this process exec'd could not be read (it died at once):
    /// `command` is then empty and not what it ran.
    pub(crate) unread: Option<String>,
    /// How the image ended (`None`: not observed).
    pub(crate) exit: Option<ExitStatus>,
}

/// A traced task (a process, or a thread of one).
#[derive(Debug)]
struct Task {
    thread: bool,
    /// The process that created it (0: the keeper).
    parent: u32,
    /// Its current row, unless the journal was full.
    row: Option<usize>,
    /// Whether the row still shows the parent's command (no exec yet).
    inherited: bool,
}

/// What `waitid` reported.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Waited {
    /// A ptrace stop: the task and `si_status` (signal | event << 8).
    Stop(u32, i32),
    /// An exit (the task is reaped, or released to its real parent).
    Exit(u32, ExitStatus),
}

/// One `waitid` without blocking; `Ok(None)`: nothing to report.
pub(crate) fn wait_once(pid: Option<u32>, flags: libc::c_int) -> io::Result<Option<Waited>> {
    let (idtype, id) = pid.map_or((libc::P_ALL, 0), |p| (libc::P_PID, p));
    // SAFETY: a zeroed siginfo_t is a valid value; waitid writes into it.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: `info` is a valid, writable siginfo_t for the call.
    let rc = unsafe { libc::waitid(idtype, id, &mut info, flags | libc::WNOHANG | libc::__WALL) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: waitid filled a SIGCHLD siginfo (or left it zeroed).
    let (who, status) = unsafe { (info.si_pid(), info.si_status()) };
    if who == 0 {
        return Ok(None);
    }
    let who = who as u32;
    Ok(Some(match info.si_code {
        libc::CLD_EXITED => Waited::Exit(who, ExitStatus::Code(status)),
        libc::CLD_KILLED | libc::CLD_DUMPED => Waited::Exit(who, ExitStatus::Signal(status)),
        _ => Waited::Stop(who, status),
    }))
}

fn ptrace(request: libc::c_uint, pid: u32, data: usize) -> io::Result<libc::c_long> {
    // SAFETY: every request used here takes a PID and an integer (or a
    // pointer to a c_ulong for GETEVENTMSG, passed by the caller); none
    // dereferences memory of this process otherwise.
    let rc = unsafe { libc::ptrace(request, pid as libc::pid_t, 0usize, data) };
    if rc == -1 { Err(io::Error::last_os_error()) } else { Ok(rc) }
}

fn event_message(pid: u32) -> u64 {
    let mut message: libc::c_ulong = 0;
    let _ = ptrace(libc::PTRACE_GETEVENTMSG, pid, &raw mut message as usize);
    message
}

/// Seizes the forked, not yet exec'd launched process (only the exec event
/// until its exec; every event from then on).
pub(crate) fn seize(pid: u32) -> io::Result<()> {
    ptrace(libc::PTRACE_SEIZE, pid, libc::PTRACE_O_TRACEEXEC as usize).map(drop)
}

/// Blocks `SIGCHLD` in the calling thread (threads started later inherit
/// it) and returns a descriptor that becomes readable when one is pending.
pub(crate) fn child_signals() -> io::Result<OwnedFd> {
    // SAFETY: plain signal-set manipulation on a local set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGCHLD);
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = libc::signalfd(-1, &set, libc::SFD_NONBLOCK | libc::SFD_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(OwnedFd::from_raw_fd(fd))
    }
}

/// Empties the signal descriptor (a read shorter than the buffer took
/// every pending signal).
pub(crate) fn drain(signals: &OwnedFd) {
    let mut buf = [0u8; 128 * 8];
    while matches!(rustix::io::read(signals, &mut buf), Ok(n) if n == buf.len()) {}
}

/// The tracer's state and the journal.
pub(crate) struct Tracer {
    keeper: u32,
    tasks: HashMap<u32, Task>,
    /// New tasks that stopped before their creator's event: held stopped.
    parked: HashMap<u32, i32>,
    /// Processes whose first exec has not been seen (options not yet set).
    unarmed: HashSet<u32>,
    rows: Vec<Row>,
    limit: usize,
    dropped: u64,
    start: Instant,
}

impl Tracer {
    /// A tracer of the seized launched process `root`, keeping at most
    /// `limit` rows.
    pub(crate) fn new(root: u32, limit: usize) -> Tracer {
        let mut tracer = Tracer {
            keeper: std::process::id(),
            tasks: HashMap::new(),
            parked: HashMap::new(),
            unarmed: HashSet::from([root]),
            rows: Vec::new(),
            limit,
            dropped: 0,
            start: Instant::now(),
        };
        let row = tracer.push_row(root, 0, String::new(), 0);
        tracer.tasks.insert(root, Task { thread: false, parent: 0, row, inherited: true });
        tracer
    }

    /// A tracer holding `rows` (for tests of the wire format).
    #[cfg(test)]
    pub(crate) fn holding(rows: Vec<Row>, dropped: u64) -> Tracer {
        Tracer { rows, dropped, ..Tracer::new(1, 0) }
    }

    /// The journal so far, and how many rows did not fit.
    pub(crate) fn journal(&self) -> (&[Row], u64) {
        (&self.rows, self.dropped)
    }

    fn push_row(&mut self, pid: u32, parent: u32, command: String, command_bytes: u32) -> Option<usize> {
        if self.rows.len() >= self.limit {
            self.dropped += 1;
            return None;
        }
        let at_us = self.start.elapsed().as_micros() as u64;
        self.rows.push(Row { at_us, pid, parent, command, command_bytes, unread: None, exit: None });
        Some(self.rows.len() - 1)
    }

    /// Handles every pending stop, then releases the zombies that belong to
    /// other parents.
    pub(crate) fn pump(&mut self) {
        while let Ok(Some(waited)) = wait_once(None, libc::WSTOPPED) {
            self.on_waited(waited);
        }
        self.release_zombies();
    }

    /// Releases every zombie tracee whose real parent is not the keeper,
    /// which hands it to that parent; the keeper's own children stay
    /// unreaped (their status is noted and they leave the task table). One
    /// `waitid` that peeks at the first reportable task finds each, instead
    /// of a look at every task. A zombie that is not in the task table (the
    /// keeper's own, or a new child whose creator's event is not handled
    /// yet) can keep being reported first and hide the others: then every
    /// task is looked at, as the tasks it may hide are all in the table.
    fn release_zombies(&mut self) {
        loop {
            match wait_once(None, libc::WEXITED | libc::WNOWAIT) {
                Ok(Some(Waited::Exit(pid, status))) => {
                    self.before_reap(pid, status);
                    if !self.tasks.contains_key(&pid) || self.hold_if_ours(pid, status) {
                        return self.scan_zombies();
                    }
                    match wait_once(Some(pid), libc::WEXITED) {
                        Ok(Some(waited)) => self.on_waited(waited),
                        _ => return self.scan_zombies(),
                    }
                }
                // A stop that came in meanwhile (a tracer's wait reports
                // stops whatever the options).
                Ok(Some(Waited::Stop(pid, _))) => match wait_once(Some(pid), libc::WSTOPPED) {
                    Ok(Some(waited)) => self.on_waited(waited),
                    _ => return self.scan_zombies(),
                },
                _ => return,
            }
        }
    }

    /// Whether the zombie `pid` (a task) is the keeper's own child: then
    /// its status is noted and it leaves the task table, unreaped.
    fn hold_if_ours(&mut self, pid: u32, status: ExitStatus) -> bool {
        let thread = self.tasks.get(&pid).is_some_and(|t| t.thread);
        let ours = !thread && procfs::stat(pid).ok().flatten().is_some_and(|st| st.ppid == self.keeper);
        if ours {
            self.ended(pid, status);
            self.tasks.remove(&pid);
        }
        ours
    }

    /// Handles what a `waitid` (of the tracer's or of a reap) reported.
    pub(crate) fn on_waited(&mut self, waited: Waited) {
        match waited {
            Waited::Stop(pid, status) => self.on_stop(pid, status),
            Waited::Exit(pid, status) => self.on_exit(pid, status),
        }
    }

    fn on_stop(&mut self, pid: u32, status: i32) {
        let (signal, event) = (status & 0xff, (status >> 8) & 0xff);
        if !self.tasks.contains_key(&pid) {
            // A new task's first stop can come before its creator's event.
            self.parked.insert(pid, status);
            return;
        }
        match event {
            libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK | libc::PTRACE_EVENT_CLONE => {
                let child = event_message(pid) as u32;
                self.created(pid, child, event == libc::PTRACE_EVENT_CLONE);
                resume(pid, 0);
            }
            libc::PTRACE_EVENT_EXEC => {
                self.executed(pid);
                resume(pid, 0);
            }
            libc::PTRACE_EVENT_STOP
                if matches!(signal, libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU) =>
            {
                // Group-stop: stay stopped, as without a tracer.
                let _ = ptrace(libc::PTRACE_LISTEN, pid, 0);
            }
            libc::PTRACE_EVENT_STOP => resume(pid, 0),
            // A signal-delivery stop: deliver the signal unchanged.
            0 => resume(pid, signal as usize),
            _ => resume(pid, 0),
        }
    }

    /// `parent` (a task) created `child`: a thread, or a new process.
    fn created(&mut self, parent: u32, child: u32, clone: bool) {
        let Some(task) = self.tasks.get(&parent) else { return };
        let process = self.process_of(parent);
        let thread = clone && std::path::Path::new(&format!("/proc/{process}/task/{child}")).exists();
        let (command, bytes) = match task.row.map(|i| &self.rows[i]) {
            Some(row) => (row.command.clone(), row.command_bytes),
            None => (String::new(), 0),
        };
        let row = if thread { None } else { self.push_row(child, process, command, bytes) };
        self.tasks.insert(child, Task { thread, parent: process, row, inherited: true });
        if let Some(status) = self.parked.remove(&child) {
            self.on_stop(child, status);
        }
    }

    /// The process a task belongs to (for a thread, its creator's process).
    fn process_of(&self, pid: u32) -> u32 {
        match self.tasks.get(&pid) {
            Some(t) if t.thread => t.parent,
            _ => pid,
        }
    }

    /// `pid` completed an exec: its command line, read while it is stopped.
    fn executed(&mut self, pid: u32) {
        if self.unarmed.remove(&pid) {
            let _ = ptrace(libc::PTRACE_SETOPTIONS, pid, OPTIONS as usize);
        }
        // A thread that execs takes over its process's PID.
        let former = event_message(pid) as u32;
        if former != pid {
            self.tasks.remove(&former);
        }
        let full = procfs::cmdline(pid).ok().flatten().unwrap_or_default();
        let unread = if full.is_empty() { killed_in_exec_stop(pid) } else { None };
        let command_bytes = full.len() as u32;
        let mut command = full;
        command.truncate(command.floor_char_boundary(rea_engine::host::KEPT_COMMAND_BYTES));
        let Some(task) = self.tasks.get(&pid) else { return };
        let (parent, row, inherited) = (task.parent, task.row, task.inherited);
        let row = match row {
            Some(i) if inherited => {
                let r = &mut self.rows[i];
                (r.command, r.command_bytes) = (command, command_bytes);
                Some(i)
            }
            _ => self.push_row(pid, parent, command, command_bytes),
        };
        if let Some(i) = row {
            self.rows[i].unread = unread;
        }
        if let Some(task) = self.tasks.get_mut(&pid) {
            (task.row, task.inherited) = (row, false);
        }
    }

    /// Looks at the zombie `pid` (ended with `status`, not yet reaped)
    /// for an `exec` whose stop never came: the kernel skips the exec stop
    /// of a process that has `SIGKILL` pending, so a process killed right
    /// after its `exec` can end still showing its creator's command. Its
    /// `stat` tells: `PF_FORKNOEXEC` is cleared by the first `exec`. Such a
    /// row's command is unknown (the zombie's name is all that is left).
    pub(crate) fn before_reap(&mut self, pid: u32, status: ExitStatus) {
        if status != ExitStatus::Signal(libc::SIGKILL) {
            return;
        }
        let Some(task) = self.tasks.get(&pid).filter(|t| !t.thread && t.inherited) else { return };
        let Some(i) = task.row.filter(|&i| self.rows[i].unread.is_none() && self.rows[i].exit.is_none()) else {
            return;
        };
        let why = match procfs::image(pid) {
            Some(image) if !image.exec_done => return,
            Some(image) => format!(
                "it was killed (SIGKILL) right after an exec, before the exec's stop; its name at exit: {:?}",
                image.name
            ),
            None => "it was killed (SIGKILL) and whether it had exec'd could not be read".to_owned(),
        };
        let row = &mut self.rows[i];
        (row.command, row.command_bytes, row.unread) = (String::new(), 0, Some(why));
    }

    /// A process's image ended with `status` (its first report counts).
    fn ended(&mut self, pid: u32, status: ExitStatus) {
        let Some(task) = self.tasks.get(&pid) else { return };
        if let Some(i) = task.row.filter(|_| !task.thread)
            && self.rows[i].exit.is_none()
        {
            self.rows[i].exit = Some(status);
        }
    }

    /// A task was reaped or released.
    fn on_exit(&mut self, pid: u32, status: ExitStatus) {
        self.ended(pid, status);
        self.tasks.remove(&pid);
        self.parked.remove(&pid);
    }

    /// Looks at every task for a zombie: releases those of other parents
    /// and leaves the keeper's own (see [`Tracer::release_zombies`]).
    fn scan_zombies(&mut self) {
        let pids: Vec<u32> = self.tasks.keys().copied().collect();
        for pid in pids {
            let peeked = wait_once(Some(pid), libc::WEXITED | libc::WNOWAIT);
            let Ok(Some(Waited::Exit(_, status))) = peeked else { continue };
            self.before_reap(pid, status);
            if !self.hold_if_ours(pid, status)
                && let Ok(Some(waited)) = wait_once(Some(pid), libc::WEXITED)
            {
                self.on_waited(waited);
            }
        }
    }

    /// Whether a task that can still stop is left: a dead task (a
    /// thread-group leader that ended while its other threads run) never
    /// stops, so it is not waited for; it is released when its process
    /// ends, or when the keeper exits.
    fn stoppable_left(&self) -> bool {
        self.tasks.keys().any(|&tid| !procfs::task_dead(self.process_of(tid), tid))
    }

    /// Stops tracing: every tracee is interrupted and detached (a pending
    /// signal is delivered on detach), within [`DETACH_BOUND`]; zombies are
    /// released. What does not stop in time is killed with the keeper.
    pub(crate) fn detach_all(&mut self, signals: &OwnedFd) {
        for &pid in self.tasks.keys() {
            let _ = ptrace(libc::PTRACE_INTERRUPT, pid, 0);
        }
        for (pid, status) in std::mem::take(&mut self.parked) {
            detach(pid, status);
        }
        let deadline = Instant::now() + DETACH_BOUND;
        while self.stoppable_left() && Instant::now() < deadline {
            while let Ok(Some(waited)) = wait_once(None, libc::WSTOPPED) {
                match waited {
                    Waited::Stop(pid, status) => {
                        detach(pid, status);
                        self.tasks.remove(&pid);
                    }
                    Waited::Exit(pid, status) => self.on_exit(pid, status),
                }
            }
            self.release_zombies();
            let mut poll = [rustix::event::PollFd::new(signals, rustix::event::PollFlags::IN)];
            let tick = rustix::time::Timespec { tv_sec: 0, tv_nsec: 10_000_000 };
            let _ = rustix::event::poll(&mut poll, Some(&tick));
            drain(signals);
        }
    }
}

/// Why the empty command line read at `pid`'s exec stop is not its
/// command: the process is no longer in its stop (SIGKILL ended it, so its
/// memory is gone); `None` when it is still stopped, so the empty command
/// line is what it exec'd.
fn killed_in_exec_stop(pid: u32) -> Option<String> {
    match procfs::image(pid) {
        Some(image) if image.state == b't' => None,
        Some(image) => Some(format!(
            "it was killed during its exec stop, before its command line could be read; its name at exit: {:?}",
            image.name
        )),
        None => Some("it was killed during its exec stop, before its command line could be read".to_owned()),
    }
}

fn resume(pid: u32, signal: usize) {
    let _ = ptrace(libc::PTRACE_CONT, pid, signal);
}

/// Detaches a stopped tracee, delivering the signal of a signal-delivery stop.
fn detach(pid: u32, status: i32) {
    let signal = if (status >> 8) & 0xff == 0 { (status & 0xff) as usize } else { 0 };
    let _ = ptrace(libc::PTRACE_DETACH, pid, signal);
}

/// Whether this process may seize a child of its own, as the keeper does:
/// forks a child that waits, seizes it, kills and reaps it.
pub(crate) fn probe() -> io::Result<()> {
    // SAFETY: the child calls only async-signal-safe functions (pause,
    // _exit) before it is killed; the parent reaps it below.
    let child = unsafe { libc::fork() };
    if child < 0 {
        return Err(io::Error::last_os_error());
    }
    if child == 0 {
        // SAFETY: async-signal-safe calls in the forked child.
        unsafe {
            libc::pause();
            libc::_exit(0)
        }
    }
    let seized = ptrace(libc::PTRACE_SEIZE, child as u32, 0).map(drop);
    // SAFETY: the child is ours and unreaped, so its PID is its own.
    unsafe {
        libc::kill(child, libc::SIGKILL);
        libc::waitpid(child, std::ptr::null_mut(), libc::__WALL);
    }
    seized
}

/// The YAMA `ptrace_scope` setting, when the host has YAMA.
pub(crate) fn yama_scope() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/yama/ptrace_scope").ok().map(|s| s.trim().to_owned())
}
