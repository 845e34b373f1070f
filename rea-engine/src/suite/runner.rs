//! The parallel runner: a bounded pool of threads, each taking the next case
//! and running its captures to the end; the calling thread gathers the
//! results (summaries only: each case's documents are on disk once it ends)
//! and tells the observer as cases start and finish.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::case::{Context, PlannedCase, run_case};
use super::record::{CaseResult, Verdict};

/// How often the observer is told that time passed (a live line's clock).
const TICK: Duration = Duration::from_millis(250);

/// Where a run stands, for progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Cases finished.
    pub done: usize,
    /// Cases the run holds.
    pub total: usize,
    /// Cases running now.
    pub running: usize,
    /// Finished cases whose verdict is `changed`, `error` or `unstable`.
    pub failures: usize,
    /// Since the run started.
    pub elapsed: Duration,
}

/// Told what happens during a run, on the thread that runs the suite.
pub trait SuiteObserver {
    /// A case started.
    fn case_started(&mut self, _name: &str, _progress: Progress) {}
    /// A case finished with `result`.
    fn case_finished(&mut self, result: &CaseResult, progress: Progress);
    /// Time passed (about every quarter of a second) with no case ending.
    fn tick(&mut self, _progress: Progress) {}
}

/// An observer that is told nothing.
#[derive(Debug, Default)]
pub struct Quiet;

impl SuiteObserver for Quiet {
    fn case_finished(&mut self, _result: &CaseResult, _progress: Progress) {}
}

/// Whether a verdict counts as a failure in progress lines.
pub(crate) fn is_failure(verdict: Verdict) -> bool {
    matches!(verdict, Verdict::Changed | Verdict::Error | Verdict::Unstable)
}

enum Event {
    Started(usize),
    Finished(usize, Option<Box<CaseResult>>),
}

/// One worker: the next case, to its end, until none is left or the run stops.
fn work(ctx: &Context<'_>, cases: &[PlannedCase], next: &AtomicUsize, tx: &mpsc::Sender<Event>) {
    while ctx.stop.fired().is_none() {
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some(case) = cases.get(i) else { break };
        let _ = tx.send(Event::Started(i));
        let result = run_case(ctx, case);
        let _ = tx.send(Event::Finished(i, result.map(Box::new)));
    }
}

/// Runs `cases`, `jobs` at a time; each slot is the case's result, `None`
/// when the run was stopped before it finished.
pub(crate) fn run_all(
    ctx: &Context<'_>,
    cases: &[PlannedCase],
    jobs: usize,
    observer: &mut dyn SuiteObserver,
) -> Vec<Option<CaseResult>> {
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<CaseResult>> = vec![None; cases.len()];
    let mut progress = Progress { done: 0, total: cases.len(), running: 0, failures: 0, elapsed: Duration::ZERO };
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<Event>();
        let mut workers = 0;
        for worker in 0..jobs.clamp(1, cases.len().max(1)) {
            let (tx, next) = (tx.clone(), &next);
            let spawned = std::thread::Builder::new()
                .name(format!("rea-suite-{worker}"))
                .spawn_scoped(scope, move || work(ctx, cases, next, &tx));
            // A pool that could not grow runs on the threads it has.
            workers += usize::from(spawned.is_ok());
        }
        if workers == 0 {
            // Not one thread: the cases run here, one at a time.
            work(ctx, cases, &next, &tx);
        }
        drop(tx);
        loop {
            progress.elapsed = started.elapsed();
            match rx.recv_timeout(TICK) {
                Ok(Event::Started(i)) => {
                    progress.running += 1;
                    observer.case_started(&cases[i].name, progress);
                }
                Ok(Event::Finished(i, result)) => {
                    progress.running -= 1;
                    if let Some(result) = &result {
                        progress.done += 1;
                        progress.failures += usize::from(is_failure(result.verdict));
                        observer.case_finished(result, progress);
                    }
                    results[i] = result.map(|r| *r);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => observer.tick(progress),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    results
}
