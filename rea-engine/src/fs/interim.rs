//! Interim snapshot entry points, replaced by the filesystem-observation work.

use std::path::PathBuf;

use super::{FsError, FsProbe};
use crate::evidence::{FileEffect, FileState, FilesystemTruncation};
use crate::scenario::Limits;

/// One filesystem checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Observed entries.
    pub files: Vec<FileState>,
    /// Accounting.
    pub truncation: FilesystemTruncation,
}

/// A snapshot that did not finish.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    /// The caller cancelled.
    #[error("the filesystem snapshot was cancelled")]
    Cancelled {
        /// Examined entries.
        partial: Box<Snapshot>,
    },
    /// The probe failed.
    #[error("the filesystem snapshot failed at {path}: {error}")]
    Failed {
        /// Path.
        path: String,
        /// Failure.
        error: FsError,
        /// Examined entries.
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
}

fn empty(limits: &Limits) -> Snapshot {
    Snapshot {
        files: Vec::new(),
        truncation: FilesystemTruncation {
            truncated: false,
            entry_limit: limits.files,
            depth_limit: limits.filesystem_depth,
            entries: 0,
            entry_limit_reached: false,
            depth_limit_reached: false,
            roots: Vec::new(),
            enumeration_omissions: Vec::new(),
            file_bytes_budget: limits.file_bytes,
            bytes_hashed: 0,
            hash_omissions: Vec::new(),
        },
    }
}

/// Snapshots `roots`.
pub fn snapshot(
    _probe: &dyn FsProbe,
    roots: &[PathBuf],
    limits: &Limits,
    _cancel: &(dyn Fn() -> bool + Sync),
) -> Result<Snapshot, SnapshotError> {
    if roots.is_empty() {
        return Ok(empty(limits));
    }
    Err(SnapshotError::Failed {
        path: "root_0:.".into(),
        error: FsError { code: None, not_found: false, message: "filesystem snapshots are not wired in yet".into() },
        partial: Box::new(empty(limits)),
    })
}

/// Classifies paths between two snapshots.
pub fn effects(_before: &Snapshot, _after: &Snapshot) -> Vec<FileEffect> {
    Vec::new()
}
