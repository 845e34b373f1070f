//! Fakes of the host traits, for engine tests that must not depend on real
//! processes or on timing.
//!
//! A [`FakeWorld`] scripts one launched process: the bytes it writes, how it
//! reacts to each signal (exit with a status, or ignore it), and what
//! ownership verification answers for each PID. It records every signal that
//! actually reached a process, so a test can prove that nothing was signalled
//! without a verified identity.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use futures_lite::{AsyncRead, AsyncWrite};

use crate::host::{
    BoxFuture, CaptureSupport, Check, Descendants, ExitStatus, Host, HostError, NoInterrupts, OwnedProcess, Ownership,
    OwnershipClaim, OwnershipVerifier, Pid, ProcessIdentity, ProcessInspector, ProcessRow, ProcessTable, Proof,
    PtyBackend, PtyProcess, SignalError, SpawnSpec, StartTime, TermSize,
};
use crate::scenario::SignalName;

/// The fake launched process's PID.
pub const ROOT_PID: u32 = 4242;

/// What the fake process does when a signal reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    /// Exit with this status.
    Exit(ExitStatus),
    /// Keep running.
    Ignore,
}

/// What verification answers for a PID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FakeOwnership {
    /// Owned; signals reach it.
    Owned,
    /// Gone.
    Gone,
    /// The PID now names another process.
    IdentityChanged,
    /// Readable, without the token.
    Foreign,
    /// Ownership cannot be read.
    Unverifiable(String),
}

#[derive(Default)]
struct World {
    output: VecDeque<Vec<u8>>,
    output_waker: Option<Waker>,
    exit: Option<ExitStatus>,
    exit_waker: Option<Waker>,
    reactions: HashMap<SignalName, Reaction>,
    ownership: HashMap<u32, FakeOwnership>,
    ownership_queue: HashMap<u32, VecDeque<FakeOwnership>>,
    extra_rows: Vec<ProcessRow>,
    unreadable_rows: Vec<(Pid, String)>,
    delivered: Vec<(u32, SignalName)>,
    input: Vec<u8>,
    resizes: Vec<TermSize>,
    spawned: Option<SpawnSpec>,
    no_streams: bool,
    reaps: usize,
    descendants: Option<Descendants>,
    generations: HashMap<u32, u64>,
    reuse_after_verify: Vec<u32>,
    proofs: HashMap<u32, Proof>,
    dialogue: VecDeque<Line>,
}

/// One turn of a scripted dialogue: when the input written so far ends
/// with `after`, the process writes `reply` (and exits, with `exit`).
struct Line {
    after: Vec<u8>,
    reply: Vec<u8>,
    exit: Option<ExitStatus>,
}

impl World {
    /// Plays the dialogue's next turns that the input written so far calls for.
    fn answer_input(&mut self) {
        while self.dialogue.front().is_some_and(|l| self.input.ends_with(&l.after)) {
            let Some(line) = self.dialogue.pop_front() else { break };
            self.output.push_back(line.reply);
            if let Some(waker) = self.output_waker.take() {
                waker.wake();
            }
            if let Some(status) = line.exit {
                self.exit = Some(status);
                if let Some(waker) = self.exit_waker.take() {
                    waker.wake();
                }
            }
        }
    }
}

/// A scripted host.
#[derive(Clone, Default)]
pub struct FakeWorld(Arc<Mutex<World>>);

impl FakeWorld {
    /// A world whose process has written nothing and runs until signalled.
    pub fn new() -> FakeWorld {
        FakeWorld::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut World) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The process writes `bytes` to its terminal.
    pub fn write_output(&self, bytes: &[u8]) {
        self.with(|w| {
            w.output.push_back(bytes.to_vec());
            if let Some(waker) = w.output_waker.take() {
                waker.wake();
            }
        });
    }

    /// When the input written so far ends with `after`, the process writes
    /// `reply`, and exits with `exit` when given; turns are played in the
    /// order they were added.
    pub fn on_input(&self, after: &[u8], reply: &[u8], exit: Option<ExitStatus>) {
        self.with(|w| w.dialogue.push_back(Line { after: after.to_vec(), reply: reply.to_vec(), exit }));
    }

    /// The process exits with `status`.
    pub fn exit(&self, status: ExitStatus) {
        self.with(|w| {
            w.exit = Some(status);
            if let Some(waker) = w.exit_waker.take() {
                waker.wake();
            }
        });
    }

    /// How the process reacts to `signal` (default: ignore).
    pub fn on_signal(&self, signal: SignalName, reaction: Reaction) {
        self.with(|w| w.reactions.insert(signal, reaction));
    }

    /// What verification answers for `pid` (default for the launched
    /// process: owned while running, gone after exit; others: gone).
    pub fn set_ownership(&self, pid: u32, ownership: FakeOwnership) {
        self.with(|w| w.ownership.insert(pid, ownership));
    }

    /// Queues one answer for `pid`, used by the next verification only.
    pub fn push_ownership(&self, pid: u32, ownership: FakeOwnership) {
        self.with(|w| w.ownership_queue.entry(pid).or_default().push_back(ownership));
    }

    /// Adds a process to the table (a descendant of the launched process,
    /// in its session).
    pub fn add_descendant(&self, pid: u32) {
        self.with(|w| {
            w.extra_rows.push(ProcessRow {
                pid: Pid(pid),
                parent: Pid(ROOT_PID),
                group: Pid(ROOT_PID),
                session: Pid(ROOT_PID),
                start: StartTime(7),
                zombie: false,
                command: format!("child {pid}"),
            });
        });
    }

    /// Adds a process-table row that cannot be read.
    pub fn add_unreadable(&self, pid: u32, reason: &str) {
        self.with(|w| w.unreadable_rows.push((Pid(pid), reason.to_owned())));
    }

    /// Fault injection: the launched process hands out no terminal stream,
    /// so the engine fails right after the spawn.
    pub fn fail_streams(&self) {
        self.with(|w| w.no_streams = true);
    }

    /// How many times exited children were reaped.
    pub fn reaps(&self) -> usize {
        self.with(|w| w.reaps)
    }

    /// What the exact descendant check answers (default: it cannot).
    /// `NoneAlive` is answered only once no live row remains.
    pub fn set_descendants(&self, answer: Descendants) {
        self.with(|w| w.descendants = Some(answer));
    }

    /// The proof verification reports for `pid` (default: token).
    pub fn set_proof(&self, pid: u32, proof: Proof) {
        self.with(|w| w.proofs.insert(pid, proof));
    }

    /// PID reuse between check and signal: right after `pid` is next
    /// verified as owned, it exits and a foreign process takes its PID (the
    /// handle already given out names the old process).
    pub fn reuse_after_verify(&self, pid: u32) {
        self.with(|w| w.reuse_after_verify.push(pid));
    }

    /// Adds a foreign process to the table: not a descendant, in another
    /// session, without the run token.
    pub fn add_foreign(&self, pid: u32) {
        self.with(|w| {
            w.extra_rows.push(ProcessRow {
                pid: Pid(pid),
                parent: Pid(1),
                group: Pid(pid),
                session: Pid(pid),
                start: StartTime(9),
                zombie: false,
                command: format!("foreign {pid}"),
            });
            w.ownership.insert(pid, FakeOwnership::Foreign);
        });
    }

    /// Signals that reached a process, in order.
    pub fn delivered(&self) -> Vec<(u32, SignalName)> {
        self.with(|w| w.delivered.clone())
    }

    /// Bytes written to the terminal's input.
    pub fn input(&self) -> Vec<u8> {
        self.with(|w| w.input.clone())
    }

    /// Terminal sizes set after launch.
    pub fn resizes(&self) -> Vec<TermSize> {
        self.with(|w| w.resizes.clone())
    }

    /// The launch specification, once spawned.
    pub fn spawned(&self) -> Option<SpawnSpec> {
        self.with(|w| w.spawned.clone())
    }

    fn ownership_of(&self, pid: u32) -> FakeOwnership {
        self.with(|w| match w.ownership_queue.get_mut(&pid).and_then(VecDeque::pop_front) {
            Some(o) => o,
            None => match w.ownership.get(&pid) {
                Some(o) => o.clone(),
                None if pid == ROOT_PID && w.exit.is_none() => FakeOwnership::Owned,
                None if w.extra_rows.iter().any(|r| r.pid.0 == pid) => FakeOwnership::Owned,
                None => FakeOwnership::Gone,
            },
        })
    }

    fn deliver(&self, pid: u32, generation: u64, signal: SignalName) -> Result<(), SignalError> {
        self.with(|w| {
            if w.generations.get(&pid).copied().unwrap_or(0) != generation {
                // The handle names a process that is gone; the PID's new
                // owner is not reached (a pidfd's guarantee).
                return Err(SignalError::Gone);
            }
            w.delivered.push((pid, signal));
            if pid == ROOT_PID {
                let reaction = w.reactions.get(&signal).copied().unwrap_or(if signal == SignalName::SIGKILL {
                    Reaction::Exit(ExitStatus::Signal(9))
                } else {
                    Reaction::Ignore
                });
                if let Reaction::Exit(status) = reaction
                    && w.exit.is_none()
                {
                    w.exit = Some(status);
                    if let Some(waker) = w.exit_waker.take() {
                        waker.wake();
                    }
                }
            } else if signal == SignalName::SIGKILL {
                w.extra_rows.retain(|r| r.pid.0 != pid);
            }
            Ok(())
        })
    }

    /// A [`Host`] over this world. Filesystem reads go to the real
    /// filesystem ([`super::StdFs`]), so scenarios resolve as on a real host.
    pub fn host(&self) -> Host {
        let fake = Arc::new(FakeHost(self.clone()));
        Host {
            platform: "fake",
            capture: CaptureSupport::Available,
            pty: fake.clone(),
            inspector: fake.clone(),
            verifier: fake,
            fs: Arc::new(super::StdFs),
            diagnose: Vec::<Check>::new,
            interrupts: Arc::new(NoInterrupts),
            open_input: crate::input::open_input_portable,
        }
    }
}

struct FakeHost(FakeWorld);

impl PtyBackend for FakeHost {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn is_executable(&self, _path: &Path) -> bool {
        true
    }
    fn spawn(&self, spec: &SpawnSpec) -> Result<Box<dyn PtyProcess>, HostError> {
        let no_streams = self.0.with(|w| {
            w.spawned = Some(spec.clone());
            w.no_streams
        });
        Ok(Box::new(FakeProcess { world: self.0.clone(), handed: if no_streams { 3 } else { 0 } }))
    }
    fn reap_adopted(&self) -> usize {
        self.0.with(|w| w.reaps += 1);
        0
    }
}

struct FakeProcess {
    world: FakeWorld,
    handed: u8,
}

struct FakeOutput(FakeWorld);

impl AsyncRead for FakeOutput {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<std::io::Result<usize>> {
        self.0.with(|w| match w.output.pop_front() {
            Some(mut chunk) => {
                let n = chunk.len().min(buf.len());
                buf[..n].copy_from_slice(&chunk[..n]);
                if n < chunk.len() {
                    w.output.push_front(chunk.split_off(n));
                }
                Poll::Ready(Ok(n))
            }
            None => {
                w.output_waker = Some(cx.waker().clone());
                Poll::Pending
            }
        })
    }
}

struct FakeInput(FakeWorld);

impl AsyncWrite for FakeInput {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        self.0.with(|w| {
            w.input.extend_from_slice(buf);
            w.answer_input();
        });
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

struct ExitWait(FakeWorld);

impl std::future::Future for ExitWait {
    type Output = Result<ExitStatus, HostError>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.0.with(|w| match w.exit {
            Some(status) => Poll::Ready(Ok(status)),
            None => {
                w.exit_waker = Some(cx.waker().clone());
                Poll::Pending
            }
        })
    }
}

impl PtyProcess for FakeProcess {
    fn identity(&self) -> ProcessIdentity {
        ProcessIdentity { pid: Pid(ROOT_PID), start: StartTime(1) }
    }
    fn take_output(&mut self) -> Option<Box<dyn AsyncRead + Send + Unpin>> {
        (self.handed & 1 == 0).then(|| {
            self.handed |= 1;
            Box::new(FakeOutput(self.world.clone())) as Box<dyn AsyncRead + Send + Unpin>
        })
    }
    fn take_input(&mut self) -> Option<Box<dyn AsyncWrite + Send + Unpin>> {
        (self.handed & 2 == 0).then(|| {
            self.handed |= 2;
            Box::new(FakeInput(self.world.clone())) as Box<dyn AsyncWrite + Send + Unpin>
        })
    }
    fn resize(&self, size: TermSize) -> Result<(), HostError> {
        self.world.with(|w| w.resizes.push(size));
        Ok(())
    }
    fn wait(&self) -> BoxFuture<'static, Result<ExitStatus, HostError>> {
        Box::pin(ExitWait(self.world.clone()))
    }
    fn close_terminal(&mut self) {}
}

impl ProcessInspector for FakeHost {
    fn process(&self, pid: Pid) -> Result<Option<ProcessRow>, HostError> {
        Ok(self.table()?.rows.into_iter().find(|r| r.pid == pid))
    }
    fn children(&self, pid: Pid) -> Result<Vec<Pid>, HostError> {
        Ok(self.table()?.rows.into_iter().filter(|r| r.parent == pid).map(|r| r.pid).collect())
    }
    fn table(&self) -> Result<ProcessTable, HostError> {
        let unreadable = self.0.with(|w| w.unreadable_rows.clone());
        let mut rows = self.0.with(|w| {
            let mut rows = w.extra_rows.clone();
            if w.exit.is_none() {
                rows.push(ProcessRow {
                    pid: Pid(ROOT_PID),
                    parent: Pid(std::process::id()),
                    group: Pid(ROOT_PID),
                    session: Pid(ROOT_PID),
                    start: StartTime(1),
                    zombie: false,
                    command: "fake".into(),
                });
            }
            rows
        });
        rows.sort_by_key(|r| r.pid);
        Ok(ProcessTable { rows, unreadable })
    }
}

struct FakeOwned {
    world: FakeWorld,
    identity: ProcessIdentity,
    generation: u64,
    proof: Proof,
}

impl OwnedProcess for FakeOwned {
    fn identity(&self) -> ProcessIdentity {
        self.identity
    }
    fn signal(&self, signal: SignalName) -> Result<(), SignalError> {
        self.world.deliver(self.identity.pid.0, self.generation, signal)
    }
    fn proof(&self) -> Proof {
        self.proof
    }
}

impl OwnershipVerifier for FakeHost {
    fn verify(&self, pid: Pid, expected: Option<StartTime>, _claim: &OwnershipClaim<'_>) -> Ownership {
        match self.0.ownership_of(pid.0) {
            FakeOwnership::Owned => {
                let (generation, proof) = self.0.with(|w| {
                    let generation = w.generations.get(&pid.0).copied().unwrap_or(0);
                    if let Some(i) = w.reuse_after_verify.iter().position(|p| *p == pid.0) {
                        w.reuse_after_verify.remove(i);
                        *w.generations.entry(pid.0).or_default() += 1;
                        w.ownership.insert(pid.0, FakeOwnership::Foreign);
                        // The new process has a new start identity.
                        for row in w.extra_rows.iter_mut().filter(|r| r.pid == pid) {
                            row.start = StartTime(row.start.0 + 1000);
                        }
                    }
                    (generation, w.proofs.get(&pid.0).copied().unwrap_or(Proof::Token))
                });
                Ownership::Owned(Box::new(FakeOwned {
                    world: self.0.clone(),
                    identity: ProcessIdentity { pid, start: expected.unwrap_or(StartTime(1)) },
                    generation,
                    proof,
                }))
            }
            FakeOwnership::Gone => Ownership::Gone,
            FakeOwnership::IdentityChanged => Ownership::IdentityChanged,
            FakeOwnership::Foreign => Ownership::Foreign,
            FakeOwnership::Unverifiable(reason) => Ownership::Unverifiable { reason },
        }
    }
    /// The fake checks the identity, then signals the PID.
    fn mechanism(&self) -> crate::evidence::SignalMechanism {
        crate::evidence::SignalMechanism::CheckedKill
    }
    fn descendants(&self) -> Descendants {
        let (answer, alive) = self.0.with(|w| {
            let ours = |r: &&ProcessRow| !matches!(w.ownership.get(&r.pid.0), Some(FakeOwnership::Foreign));
            (w.descendants, w.exit.is_none() || w.extra_rows.iter().any(|r| ours(&r)))
        });
        match answer {
            Some(Descendants::NoneAlive) if alive => Descendants::SomeAlive,
            Some(answer) => answer,
            None => Descendants::Unknown,
        }
    }
}
