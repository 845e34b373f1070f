//! The snapshot walk: enumeration of the observation roots, with hashing
//! running alongside it.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, mpsc};

use super::hash::{self, Decision, Interrupt, Speculation, Worked};
use super::{FsError, FsKind, FsMeta, FsProbe};
use crate::evidence::{
    EnumerationOmission, EnumerationOmissionReason, FileKind, FileState, FilesystemTruncation, HashOmission,
    HashOmissionReason, RootCoverage,
};

/// One filesystem checkpoint: the entries in walk order and their accounting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Observed entries, depth-first pre-order, children in UTF-16 order.
    pub files: Vec<FileState>,
    /// Limits, coverage per root, omissions and hashing.
    pub truncation: FilesystemTruncation,
}

/// A snapshot that did not finish. The examined entries are kept as a
/// partial observation whose coverage is incomplete.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    /// The caller cancelled.
    #[error("the filesystem snapshot was cancelled")]
    Cancelled {
        /// What was examined before the cancellation.
        partial: Box<Snapshot>,
    },
    /// The probe failed without an OS error code, which says nothing about
    /// the entry (for example a host that cannot observe the filesystem).
    #[error("the filesystem snapshot failed at {path}: {error}")]
    Failed {
        /// Root-aliased path of the entry being read.
        path: String,
        /// The failure.
        error: FsError,
        /// What was examined before the failure.
        partial: Box<Snapshot>,
    },
}

impl SnapshotError {
    /// The entries examined before the snapshot stopped.
    pub fn partial(&self) -> &Snapshot {
        match self {
            SnapshotError::Cancelled { partial } | SnapshotError::Failed { partial, .. } => partial,
        }
    }

    /// The entries examined before the snapshot stopped, to change.
    pub fn partial_mut(&mut self) -> &mut Snapshot {
        match self {
            SnapshotError::Cancelled { partial } | SnapshotError::Failed { partial, .. } => partial,
        }
    }
}

/// The bounds a snapshot keeps to: the scenario's `limits.files`,
/// `limits.filesystem_depth` and `limits.file_bytes` (built from the
/// scenario's `Limits`, which converts into it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotLimits {
    /// Entries recorded at most.
    pub files: u64,
    /// Levels walked below a root at most.
    pub filesystem_depth: u64,
    /// Bytes hashed at most, over all files.
    pub file_bytes: u64,
}

/// Takes a snapshot of `roots` (absolute paths, aliased `root_<i>` in this
/// order), hashing on as many threads as the host has cores.
///
/// `cancel` is polled before every entry and every 64 KiB read.
pub fn snapshot(
    probe: &dyn FsProbe,
    roots: &[PathBuf],
    limits: impl Into<SnapshotLimits>,
    cancel: &(dyn Fn() -> bool + Sync),
) -> Result<Snapshot, SnapshotError> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    snapshot_with_threads(probe, roots, limits, cancel, threads)
}

/// [`snapshot`] with an explicit number of hashing threads (at least one).
/// The result does not depend on `threads`.
///
/// Hashing starts while the walk is still running: the files that the first
/// round of [`hash::plan`] would hash (every file that fits the budget if all
/// earlier admitted files are digested) go to the hashing threads as soon as
/// they are found. After the walk, further rounds settle the files whose
/// eligibility depended on a failure.
pub fn snapshot_with_threads(
    probe: &dyn FsProbe,
    roots: &[PathBuf],
    limits: impl Into<SnapshotLimits>,
    cancel: &(dyn Fn() -> bool + Sync),
    threads: usize,
) -> Result<Snapshot, SnapshotError> {
    let limits = &limits.into();
    let threads = threads.max(1);
    let stopped = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<(usize, PathBuf, FsMeta)>();
    let receiver = Mutex::new(receiver);
    let (walker, walked, worked) = std::thread::scope(|scope| {
        let hashers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    hash::work(
                        || receiver.lock().ok()?.recv().ok().map(|(index, path, meta)| (index, (path, meta))),
                        |_, (path, meta): &(PathBuf, FsMeta), buffer| {
                            hash::hash_file(probe, path, meta, buffer, cancel)
                        },
                        &stopped,
                    )
                })
            })
            .collect();
        // The walker owns the sender, so the hashing threads see the end of
        // the jobs when it is dropped, also if the walk panics.
        let mut walker = Walker {
            probe,
            cancel,
            entry_limit: limits.files,
            depth_limit: limits.filesystem_depth,
            files: Vec::new(),
            jobs: Vec::new(),
            omissions: Vec::new(),
            entry_limit_reached: false,
            depth_limit_reached: false,
            speculation: Speculation::new(limits.file_bytes),
            sender: Some(sender),
        };
        let walked = walker.walk(roots);
        walker.sender = None;
        let worked = Worked::merge(hashers.into_iter().map(hash::join));
        (walker, walked, worked)
    });
    let mut outcomes = vec![None; walker.jobs.len()];
    for (index, outcome) in worked.done {
        outcomes[index] = Some(outcome);
    }
    let (coverage, mut stop) = match walked {
        Ok(coverage) => (coverage, None),
        Err((stop, coverage)) => (coverage, Some(stop)),
    };
    if let Some((index, interrupt)) = worked.interrupt
        && !matches!(stop, Some(Stop::Failed { .. }))
    {
        stop = Some(walker.hash_stop(index, interrupt));
    }
    let sizes: Vec<u64> = walker.jobs.iter().map(|job| job.meta.size).collect();
    if let Some(stop) = stop {
        let (decisions, remaining) = hash::settle(&sizes, limits.file_bytes, &outcomes);
        return Err(walker.interrupted(stop, coverage, limits, decisions, remaining));
    }
    let planned = hash::plan(&sizes, limits.file_bytes, threads, outcomes, |index, buffer| {
        let job = &walker.jobs[index];
        hash::hash_file(probe, &job.path, &job.meta, buffer, cancel)
    });
    match planned {
        Ok(decisions) => Ok(walker.finish(coverage, limits, decisions.into_iter().map(Some).collect(), 0)),
        Err(unfinished) => {
            let stop = walker.hash_stop(unfinished.index, unfinished.interrupt);
            Err(walker.interrupted(stop, coverage, limits, unfinished.decisions, unfinished.remaining_budget))
        }
    }
}

/// Why the walk stopped.
enum Stop {
    Cancelled,
    Failed { path: String, error: FsError },
}

/// A regular file waiting for its digest.
struct HashJob {
    /// Index in `files`.
    entry: usize,
    path: PathBuf,
    meta: FsMeta,
}

struct RootWalk {
    alias: String,
    complete: bool,
}

struct Walker<'a> {
    probe: &'a dyn FsProbe,
    cancel: &'a (dyn Fn() -> bool + Sync),
    entry_limit: u64,
    depth_limit: u64,
    files: Vec<FileState>,
    jobs: Vec<HashJob>,
    omissions: Vec<EnumerationOmission>,
    entry_limit_reached: bool,
    depth_limit_reached: bool,
    /// The first hashing round's admission, applied as files are found.
    speculation: Speculation,
    /// Where admitted files go to be hashed during the walk.
    sender: Option<mpsc::Sender<(usize, PathBuf, FsMeta)>>,
}

impl Walker<'_> {
    /// Walks every root in order. On a stop, the coverage so far marks the
    /// interrupted root and every later one incomplete.
    fn walk(&mut self, roots: &[PathBuf]) -> Result<Vec<RootCoverage>, (Stop, Vec<RootCoverage>)> {
        let mut coverage = Vec::with_capacity(roots.len());
        for (index, root) in roots.iter().enumerate() {
            let mut walk = RootWalk { alias: format!("root_{index}"), complete: true };
            let result = self.visit(&mut walk, root, ".", 0);
            coverage.push(RootCoverage { root: walk.alias, complete: walk.complete && result.is_ok() });
            if let Err(stop) = result {
                coverage.extend(
                    (index + 1..roots.len())
                        .map(|later| RootCoverage { root: format!("root_{later}"), complete: false }),
                );
                return Err((stop, coverage));
            }
        }
        Ok(coverage)
    }

    /// The stop caused by an interruption while hashing file `index`.
    fn hash_stop(&self, index: usize, interrupt: Interrupt) -> Stop {
        match interrupt {
            Interrupt::Cancelled => Stop::Cancelled,
            Interrupt::Failed(error) => Stop::Failed { path: self.files[self.jobs[index].entry].path.clone(), error },
        }
    }

    fn at_capacity(&self) -> bool {
        self.files.len() as u64 >= self.entry_limit
    }

    fn omit(&mut self, root: &mut RootWalk, path: String, reason: EnumerationOmissionReason, system_code: Option<i32>) {
        root.complete = false;
        self.omissions.push(EnumerationOmission { path, reason, system_code });
    }

    /// A read of `path` failed: an `entry_unavailable` omission when the OS
    /// reported a code, otherwise an unexpected failure that stops the walk.
    fn unavailable(&mut self, root: &mut RootWalk, path: String, error: FsError) -> Result<(), Stop> {
        match error.code {
            Some(code) => {
                self.omit(root, path, EnumerationOmissionReason::EntryUnavailable, Some(code));
                Ok(())
            }
            None => Err(Stop::Failed { path, error }),
        }
    }

    fn record(&mut self, path: String, meta: &FsMeta, symlink_target: Option<String>) {
        let kind = match meta.kind {
            FsKind::File => FileKind::File,
            FsKind::Directory => FileKind::Directory,
            FsKind::Symlink => FileKind::Symlink,
            FsKind::Other => FileKind::Other,
        };
        self.files.push(FileState { path, mode: meta.mode, size: meta.size, kind, sha256: None, symlink_target });
    }

    fn visit(&mut self, root: &mut RootWalk, path: &Path, relative: &str, depth: u64) -> Result<(), Stop> {
        if (self.cancel)() {
            return Err(Stop::Cancelled);
        }
        let aliased = format!("{}:{relative}", root.alias);
        if depth > 0 && self.at_capacity() {
            // A listed child that no longer fits: it exists, unrecorded.
            self.entry_limit_reached = true;
            root.complete = false;
            return Ok(());
        }
        let meta = match self.probe.lstat(path) {
            Ok(meta) => meta,
            // Missing at its initial lookup: an observed absence.
            Err(error) if error.not_found => return Ok(()),
            Err(error) => return self.unavailable(root, aliased, error),
        };
        if self.at_capacity() {
            // Only a root gets here: it exists, but no entry is left for it.
            self.entry_limit_reached = true;
            root.complete = false;
            return Ok(());
        }
        match meta.kind {
            FsKind::File => {
                if self.speculation.admit(meta.size)
                    && let Some(sender) = &self.sender
                {
                    // Sending fails only when every hashing thread stopped,
                    // after an interruption that the snapshot reports.
                    let _ = sender.send((self.jobs.len(), path.to_owned(), meta));
                }
                self.jobs.push(HashJob { entry: self.files.len(), path: path.to_owned(), meta });
                self.record(aliased, &meta, None);
            }
            FsKind::Other => self.record(aliased, &meta, None),
            FsKind::Symlink => self.visit_symlink(root, path, aliased, &meta)?,
            FsKind::Directory => {
                self.record(aliased.clone(), &meta, None);
                self.visit_directory(root, path, aliased, relative, &meta, depth)?;
            }
        }
        Ok(())
    }

    /// Records a symlink (never followed) when its target is stable: the
    /// object must be unchanged between the `lstat` before and after `readlink`.
    fn visit_symlink(&mut self, root: &mut RootWalk, path: &Path, aliased: String, meta: &FsMeta) -> Result<(), Stop> {
        let target = match self.probe.read_link(path) {
            Ok(target) => target,
            Err(error) => return self.unavailable(root, aliased, error),
        };
        match self.probe.lstat(path) {
            Ok(again) if again == *meta => {}
            Ok(_) => {
                self.omit(root, aliased, EnumerationOmissionReason::IdentityChanged, None);
                return Ok(());
            }
            Err(error) => return self.unavailable(root, aliased, error),
        }
        match target.into_string() {
            Ok(target) => self.record(aliased, meta, Some(target)),
            Err(_) => self.omit(root, aliased, EnumerationOmissionReason::UnrepresentableSymlinkTarget, None),
        }
        Ok(())
    }

    /// Lists a recorded directory within the remaining entry capacity (none at
    /// the depth limit, where the listing only shows whether it is empty) and
    /// visits its children in UTF-16 order.
    fn visit_directory(
        &mut self,
        root: &mut RootWalk,
        path: &Path,
        aliased: String,
        relative: &str,
        meta: &FsMeta,
        depth: u64,
    ) -> Result<(), Stop> {
        let at_depth_limit = depth >= self.depth_limit;
        let capacity = if at_depth_limit {
            0
        } else {
            usize::try_from(self.entry_limit.saturating_sub(self.files.len() as u64)).unwrap_or(usize::MAX)
        };
        let listing = match self.probe.read_dir(path, capacity) {
            Ok(listing) => listing,
            Err(error) => return self.unavailable(root, aliased, error),
        };
        if !listing.meta.same_object(meta) || listing.meta.kind != FsKind::Directory {
            self.omit(root, aliased, EnumerationOmissionReason::IdentityChanged, None);
            return Ok(());
        }
        if !listing.exhausted || listing.names.len() > capacity {
            root.complete = false;
            if at_depth_limit {
                self.depth_limit_reached = true;
            } else {
                self.entry_limit_reached = true;
            }
        }
        let mut names = Vec::with_capacity(listing.names.len().min(capacity));
        for name in listing.names.into_iter().take(capacity) {
            match name.into_string() {
                Ok(name) => names.push(name),
                Err(_) => self.omit(root, aliased.clone(), EnumerationOmissionReason::UnrepresentableName, None),
            }
        }
        names.sort_by(|a, b| utf16_cmp(a, b));
        for name in names {
            let child = if relative == "." { name.clone() } else { format!("{relative}/{name}") };
            self.visit(root, &path.join(&name), &child, depth + 1)?;
        }
        Ok(())
    }

    /// Applies the hash decisions (`None`: not decided, because the snapshot
    /// stopped) and builds the snapshot.
    fn finish(
        self,
        roots: Vec<RootCoverage>,
        limits: &SnapshotLimits,
        decisions: Vec<Option<Decision>>,
        undecided_budget: u64,
    ) -> Snapshot {
        let Walker { mut files, jobs, omissions, entry_limit_reached, depth_limit_reached, .. } = self;
        let mut bytes_hashed = 0;
        let mut hash_omissions = Vec::new();
        for (job, decision) in jobs.iter().zip(decisions) {
            let state = &mut files[job.entry];
            let (remaining_budget, reason, system_code) = match decision {
                Some(Decision::Digest(digest)) => {
                    bytes_hashed += job.meta.size;
                    state.sha256 = Some(digest);
                    continue;
                }
                Some(Decision::Omitted { remaining_budget, reason, system_code }) => {
                    (remaining_budget, reason, system_code)
                }
                None => (undecided_budget, HashOmissionReason::Interrupted, None),
            };
            hash_omissions.push(HashOmission {
                path: state.path.clone(),
                size: job.meta.size,
                remaining_budget,
                reason,
                system_code,
            });
        }
        let truncation = FilesystemTruncation {
            truncated: roots.iter().any(|root| !root.complete) || !hash_omissions.is_empty(),
            entry_limit: limits.files,
            depth_limit: limits.filesystem_depth,
            entries: files.len() as u64,
            entry_limit_reached,
            depth_limit_reached,
            roots,
            enumeration_omissions: omissions,
            file_bytes_budget: limits.file_bytes,
            bytes_hashed,
            hash_omissions,
        };
        Snapshot { files, truncation }
    }

    fn interrupted(
        self,
        stop: Stop,
        roots: Vec<RootCoverage>,
        limits: &SnapshotLimits,
        decisions: Vec<Option<Decision>>,
        undecided_budget: u64,
    ) -> SnapshotError {
        let partial = Box::new(self.finish(roots, limits, decisions, undecided_budget));
        match stop {
            Stop::Cancelled => SnapshotError::Cancelled { partial },
            Stop::Failed { path, error } => SnapshotError::Failed { path, error, partial },
        }
    }
}

/// Orders strings by their UTF-16 code units, as JavaScript's default sort
/// does (it differs from byte order only above U+FFFF versus U+E000..U+FFFF).
pub(crate) fn utf16_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}
