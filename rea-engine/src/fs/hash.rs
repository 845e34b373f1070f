//! Whole-file hashing under the cumulative `file_bytes` budget.
//!
//! The budget is sequential by definition: walking the regular files in walk
//! order with a running budget, a file is digested exactly when its size fits
//! the budget left at that point, and only digested files consume budget (a
//! file that changed or could not be read frees its share for later files).
//!
//! Hashing itself runs on several threads. [`plan`] keeps the sequential
//! meaning by speculation: it replays the walk order with the outcomes known
//! so far, assumes every unknown file that fits will be digested, hashes all
//! of those in parallel, and replays again. When a replay needs no unknown
//! outcome it is exactly the sequential computation, and that is the result.
//! Each round hashes at least the first unknown file, so the loop ends; no
//! file is hashed twice. A speculatively hashed file whose budget was later
//! taken by a file that a failure made eligible is simply not reported.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use sha2::{Digest, Sha256};

use super::{FsError, FsKind, FsMeta, FsProbe};
use crate::evidence::HashOmissionReason;

/// Size of one read while hashing (the specification's 64 KiB chunks).
pub(super) const CHUNK: usize = 64 * 1024;

/// What one attempt to digest a file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Attempt {
    /// The SHA-256 (lowercase hex) of exactly the observed size's bytes.
    Digest(String),
    /// The file was not the observed object or changed while being read.
    Changed,
    /// Opening or reading failed with this OS error code.
    Unavailable(Option<i32>),
}

/// Why hashing stopped before every decision was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Interrupt {
    /// The caller cancelled.
    Cancelled,
    /// The probe failed without an OS error code (an unexpected failure).
    Failed(FsError),
}

/// The final answer for one regular file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Decision {
    /// Digested; the budget shrank by the file's size.
    Digest(String),
    /// No digest.
    Omitted {
        /// Budget left when the file was considered.
        remaining_budget: u64,
        /// Why.
        reason: HashOmissionReason,
        /// OS error code of a failed operation.
        system_code: Option<i32>,
    },
}

/// A replay of the walk order against the outcomes known so far.
struct Replay {
    /// Decisions that are certain; `None` from the first unknown outcome on.
    decisions: Vec<Option<Decision>>,
    /// Files whose outcome is needed, assuming every unknown one succeeds.
    wanted: Vec<usize>,
    /// The budget left just before the first unknown outcome (or at the end).
    certain_remaining: u64,
}

fn replay(sizes: &[u64], budget: u64, outcomes: &[Option<Attempt>]) -> Replay {
    let mut remaining = budget;
    let mut certain = true;
    let mut certain_remaining = budget;
    let mut decisions = Vec::with_capacity(sizes.len());
    let mut wanted = Vec::new();
    for (index, (&size, outcome)) in sizes.iter().zip(outcomes).enumerate() {
        let decision = if size > remaining {
            Some(omitted(remaining, HashOmissionReason::FileBytesBudget, None))
        } else {
            match outcome {
                Some(Attempt::Digest(digest)) => {
                    remaining -= size;
                    Some(Decision::Digest(digest.clone()))
                }
                Some(Attempt::Changed) => Some(omitted(remaining, HashOmissionReason::FileChangedOrShortRead, None)),
                Some(Attempt::Unavailable(code)) => {
                    Some(omitted(remaining, HashOmissionReason::FileUnavailable, *code))
                }
                None => {
                    if certain {
                        certain = false;
                        certain_remaining = remaining;
                    }
                    wanted.push(index);
                    remaining -= size;
                    None
                }
            }
        };
        decisions.push(decision.filter(|_| certain));
    }
    if certain {
        certain_remaining = remaining;
    }
    Replay { decisions, wanted, certain_remaining }
}

fn omitted(remaining_budget: u64, reason: HashOmissionReason, system_code: Option<i32>) -> Decision {
    Decision::Omitted { remaining_budget, reason, system_code }
}

/// The certain decisions given the outcomes known so far (`None` from the
/// first file whose outcome is still needed), and the budget left there.
pub(super) fn settle(sizes: &[u64], budget: u64, outcomes: &[Option<Attempt>]) -> (Vec<Option<Decision>>, u64) {
    let settled = replay(sizes, budget, outcomes);
    (settled.decisions, settled.certain_remaining)
}

/// The first round's admission, decided while the walk is still finding
/// files: assume every admitted file will be digested. This is exactly what
/// [`plan`]'s first replay, with no outcome known, selects.
#[derive(Debug)]
pub(super) struct Speculation {
    remaining: u64,
}

impl Speculation {
    /// Starts with the whole budget.
    pub(super) fn new(budget: u64) -> Speculation {
        Speculation { remaining: budget }
    }

    /// Whether the next file in walk order, of `size` bytes, is hashed in
    /// the first round.
    pub(super) fn admit(&mut self, size: u64) -> bool {
        let fits = size <= self.remaining;
        if fits {
            self.remaining -= size;
        }
        fits
    }
}

/// Hashing stopped early: the decisions that were already certain.
#[derive(Debug)]
pub(super) struct Unfinished {
    /// Why it stopped.
    pub(super) interrupt: Interrupt,
    /// The file being hashed when it stopped.
    pub(super) index: usize,
    /// Certain decisions; `None` where hashing did not get that far.
    pub(super) decisions: Vec<Option<Decision>>,
    /// The budget left at the first undecided file.
    pub(super) remaining_budget: u64,
}

/// Decides every file's digest with the sequential budget semantics, hashing
/// on up to `threads` threads. `outcomes` holds what earlier hashing already
/// found (`None` where nothing is known); `attempt(index, buffer)` hashes
/// file `index`. No file with a known outcome is hashed again, and each
/// other file at most once.
pub(super) fn plan<F>(
    sizes: &[u64],
    budget: u64,
    threads: usize,
    mut outcomes: Vec<Option<Attempt>>,
    attempt: F,
) -> Result<Vec<Decision>, Unfinished>
where
    F: Fn(usize, &mut Vec<u8>) -> Result<Attempt, Interrupt> + Sync,
{
    loop {
        let round = replay(sizes, budget, &outcomes);
        if round.wanted.is_empty() {
            return Ok(round.decisions.into_iter().flatten().collect());
        }
        let worked = run_parallel(&round.wanted, threads, &attempt);
        for (index, outcome) in worked.done {
            outcomes[index] = Some(outcome);
        }
        if let Some((index, interrupt)) = worked.interrupt {
            let (decisions, remaining_budget) = settle(sizes, budget, &outcomes);
            return Err(Unfinished { interrupt, index, decisions, remaining_budget });
        }
    }
}

/// What hashing threads produced.
#[derive(Debug, Default)]
pub(super) struct Worked {
    /// Finished outcomes by file index.
    pub(super) done: Vec<(usize, Attempt)>,
    /// The interruption that stopped the threads, with its file index.
    pub(super) interrupt: Option<(usize, Interrupt)>,
}

impl Worked {
    /// Combines the results of several threads. An unexpected failure says
    /// more than a cancellation, so it wins; among equals, the earlier file.
    pub(super) fn merge(parts: impl IntoIterator<Item = Worked>) -> Worked {
        let rank = |stop: &(usize, Interrupt)| (matches!(stop.1, Interrupt::Cancelled), stop.0);
        let mut merged = Worked::default();
        for part in parts {
            merged.done.extend(part.done);
            merged.interrupt = match (merged.interrupt, part.interrupt) {
                (Some(a), Some(b)) => Some(if rank(&b) < rank(&a) { b } else { a }),
                (a, b) => a.or(b),
            };
        }
        merged
    }
}

/// One hashing thread: hashes the `(index, job)` pairs `next` yields until it
/// yields none or a thread was interrupted, which sets `stopped`.
pub(super) fn work<J>(
    next: impl Fn() -> Option<(usize, J)>,
    attempt: impl Fn(usize, &J, &mut Vec<u8>) -> Result<Attempt, Interrupt>,
    stopped: &AtomicBool,
) -> Worked {
    let mut buffer = Vec::new();
    let mut worked = Worked::default();
    while !stopped.load(Ordering::Relaxed) {
        let Some((index, job)) = next() else { break };
        match attempt(index, &job, &mut buffer) {
            Ok(outcome) => worked.done.push((index, outcome)),
            Err(interrupt) => {
                stopped.store(true, Ordering::Relaxed);
                worked.interrupt = Some((index, interrupt));
            }
        }
    }
    worked
}

/// Joins a scoped thread, passing its panic on.
pub(super) fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Runs `attempt` over `jobs` on up to `threads` threads (the calling thread
/// is one of them).
fn run_parallel<F>(jobs: &[usize], threads: usize, attempt: &F) -> Worked
where
    F: Fn(usize, &mut Vec<u8>) -> Result<Attempt, Interrupt> + Sync,
{
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let worker = || {
        work(
            || jobs.get(next.fetch_add(1, Ordering::Relaxed)).map(|&index| (index, ())),
            |index, (), buffer| attempt(index, buffer),
            &stopped,
        )
    };
    let workers = threads.clamp(1, jobs.len().max(1));
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers).map(|_| scope.spawn(worker)).collect();
        let first = worker();
        Worked::merge(std::iter::once(first).chain(handles.into_iter().map(join)))
    })
}

/// Hashes the regular file at `path` whose `lstat` gave `observed`, reading
/// exactly `observed.size` bytes in [`CHUNK`]-sized reads.
///
/// The opened file must be the observed object with the observed size and
/// modification time; after `size` bytes the file must be at its end; and a
/// second `fstat` must show the same size and modification time. Anything
/// else is [`Attempt::Changed`]: a digest never covers a prefix.
pub(super) fn hash_file(
    probe: &dyn FsProbe,
    path: &Path,
    observed: &FsMeta,
    buffer: &mut Vec<u8>,
    cancel: &(dyn Fn() -> bool + Sync),
) -> Result<Attempt, Interrupt> {
    if cancel() {
        return Err(Interrupt::Cancelled);
    }
    let unavailable = |error: FsError| match error.code {
        Some(code) => Ok(Attempt::Unavailable(Some(code))),
        None => Err(Interrupt::Failed(error)),
    };
    let mut file = match probe.open_file(path) {
        Ok(file) => file,
        Err(error) => return unavailable(error),
    };
    let opened = match file.meta() {
        Ok(meta) => meta,
        Err(error) => return unavailable(error),
    };
    let unchanged = |meta: &FsMeta| meta.size == observed.size && meta.modified_ns == observed.modified_ns;
    if !opened.same_object(observed) || opened.kind != FsKind::File || !unchanged(&opened) {
        return Ok(Attempt::Changed);
    }
    if buffer.len() < CHUNK {
        buffer.resize(CHUNK, 0);
    }
    let mut hasher = Sha256::new();
    let mut left = observed.size;
    while left > 0 {
        if cancel() {
            return Err(Interrupt::Cancelled);
        }
        let want = usize::try_from(left).map_or(CHUNK, |left| left.min(CHUNK));
        let read = match file.read(&mut buffer[..want]) {
            Ok(0) => return Ok(Attempt::Changed),
            Ok(read) => read.min(want),
            Err(error) => return unavailable(error),
        };
        hasher.update(&buffer[..read]);
        left -= read as u64;
    }
    match file.read(&mut buffer[..1]) {
        Ok(0) => {}
        Ok(_) => return Ok(Attempt::Changed),
        Err(error) => return unavailable(error),
    }
    match file.meta() {
        Ok(meta) if unchanged(&meta) && meta.same_object(observed) => {}
        Ok(_) => return Ok(Attempt::Changed),
        Err(error) => return unavailable(error),
    }
    Ok(Attempt::Digest(crate::evidence::hex(&hasher.finalize())))
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// The specification's budget rule, written as plainly as possible.
    fn sequential(sizes: &[u64], budget: u64, outcome: impl Fn(usize) -> Attempt) -> Vec<Decision> {
        let mut remaining = budget;
        let mut decisions = Vec::new();
        for (index, &size) in sizes.iter().enumerate() {
            if size > remaining {
                decisions.push(omitted(remaining, HashOmissionReason::FileBytesBudget, None));
                continue;
            }
            decisions.push(match outcome(index) {
                Attempt::Digest(digest) => {
                    remaining -= size;
                    Decision::Digest(digest)
                }
                Attempt::Changed => omitted(remaining, HashOmissionReason::FileChangedOrShortRead, None),
                Attempt::Unavailable(code) => omitted(remaining, HashOmissionReason::FileUnavailable, code),
            });
        }
        decisions
    }

    /// A small deterministic generator (xorshift64*), so cases are reproducible.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, bound: u64) -> u64 {
            self.next() % bound
        }
    }

    fn outcome_of(kinds: &[u8], index: usize) -> Attempt {
        match kinds[index] {
            0 => Attempt::Changed,
            1 => Attempt::Unavailable(Some(13)),
            _ => Attempt::Digest(format!("digest-{index}")),
        }
    }

    #[test]
    fn parallel_plan_equals_the_sequential_rule() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..4000 {
            let count = rng.below(24) as usize;
            let sizes: Vec<u64> = (0..count).map(|_| rng.below(40)).collect();
            // Mostly successes, with failures often enough to free budget.
            let kinds: Vec<u8> = (0..count).map(|_| rng.below(6) as u8).collect();
            let budget = rng.below(120);
            let threads = 1 + (case / 2) % 4;
            let attempts = Mutex::new(vec![0u32; count]);
            let attempt = |index: usize| {
                attempts.lock().unwrap()[index] += 1;
                outcome_of(&kinds, index)
            };
            // Half the cases start as the snapshot does: the first round
            // hashed during the walk, by the running speculation.
            let mut known = vec![None; count];
            if case % 2 == 1 {
                let mut speculation = Speculation::new(budget);
                for (index, &size) in sizes.iter().enumerate() {
                    if speculation.admit(size) {
                        known[index] = Some(attempt(index));
                    }
                }
            }
            let planned = plan(&sizes, budget, threads, known, |index, _buffer| Ok(attempt(index))).unwrap();
            let expected = sequential(&sizes, budget, |index| outcome_of(&kinds, index));
            assert_eq!(planned, expected, "case {case}: sizes {sizes:?} kinds {kinds:?} budget {budget}");
            let attempts = attempts.into_inner().unwrap();
            assert!(attempts.iter().all(|&n| n <= 1), "case {case}: a file was hashed twice: {attempts:?}");
            for (index, decision) in expected.iter().enumerate() {
                if matches!(decision, Decision::Digest(_)) {
                    assert_eq!(attempts[index], 1, "case {case}: digested file {index} was never hashed");
                }
            }
        }
    }

    #[test]
    fn a_failure_frees_budget_for_a_later_file_in_a_further_round() {
        // Budget 10: file 0 (5) fails, so file 1 (6) fits after all, which
        // then leaves no room for file 2 (5) although round one hashed it.
        let sizes = [5, 6, 5];
        let rounds = Mutex::new(Vec::new());
        let planned = plan(&sizes, 10, 2, vec![None; 3], |index, _buffer| {
            rounds.lock().unwrap().push(index);
            Ok(if index == 0 { Attempt::Changed } else { Attempt::Digest(format!("d{index}")) })
        })
        .unwrap();
        assert_eq!(
            planned,
            vec![
                omitted(10, HashOmissionReason::FileChangedOrShortRead, None),
                Decision::Digest("d1".to_owned()),
                omitted(4, HashOmissionReason::FileBytesBudget, None),
            ]
        );
        let mut attempted = rounds.into_inner().unwrap();
        attempted.sort_unstable();
        assert_eq!(attempted, vec![0, 1, 2]);
    }

    #[test]
    fn an_interruption_keeps_only_certain_decisions() {
        let sizes = [1, 2, 3, 4];
        let unfinished = plan(&sizes, 100, 1, vec![None; 4], |index, _buffer| match index {
            2 => Err(Interrupt::Cancelled),
            _ => Ok(Attempt::Digest(format!("d{index}"))),
        })
        .unwrap_err();
        assert_eq!(unfinished.interrupt, Interrupt::Cancelled);
        assert_eq!(
            unfinished.decisions,
            vec![Some(Decision::Digest("d0".to_owned())), Some(Decision::Digest("d1".to_owned())), None, None]
        );
        assert_eq!(unfinished.remaining_budget, 97);
    }
}
