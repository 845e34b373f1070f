//! Filesystem observation: the [`FsProbe`] seam through which snapshots read
//! the filesystem.
//!
//! Backends implement the probe with the host's system calls; tests implement
//! it with scripted faults (a file that changes size while hashed, a directory
//! replaced mid-walk, ...). The snapshot algorithm itself never touches the
//! filesystem directly, which is what makes every fault reproducible.
//!
//! [`snapshot`] walks the observation roots and hashes regular files within
//! the limits; [`effects`] classifies the paths between two snapshots. The
//! format and every choice the specification leaves open are described in
//! `docs/filesystem.md`.

mod effects;
mod hash;
mod snapshot;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use effects::effects;
pub(crate) use snapshot::utf16_cmp;
pub use snapshot::{Snapshot, SnapshotError, SnapshotLimits, snapshot, snapshot_with_threads};

/// The kind of a filesystem entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link (never followed).
    Symlink,
    /// Anything else (device, FIFO, socket).
    Other,
}

/// Metadata of an entry, as `lstat` or `fstat` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsMeta {
    /// Entry kind.
    pub kind: FsKind,
    /// Full mode including the file-type bits.
    pub mode: u32,
    /// Size in bytes.
    pub size: u64,
    /// Device of the entry (identity, with `inode`).
    pub device: u64,
    /// Inode number.
    pub inode: u64,
    /// Modification time, nanoseconds since the epoch.
    pub modified_ns: i128,
    /// Status-change time (`ctime`), nanoseconds since the epoch: it moves
    /// whenever the file's content or metadata changes, even when the
    /// modification time is set back; 0 where the host has none.
    pub changed_ns: i128,
}

impl FsMeta {
    /// Whether two observations are of the same filesystem object.
    pub fn same_object(&self, other: &FsMeta) -> bool {
        self.device == other.device && self.inode == other.inode && self.kind == other.kind
    }
}

/// A failed filesystem operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FsError {
    /// The OS error code (`errno`), when the OS reported one.
    pub code: Option<i32>,
    /// Whether the path does not exist: no such entry (`ENOENT`), or a
    /// component of it is not a directory (`ENOTDIR`). At a path's initial
    /// lookup this is an observed absence; on a later read it is a failure.
    pub not_found: bool,
    /// Description.
    pub message: String,
}

impl FsError {
    /// Converts an I/O error.
    pub fn from_io(err: &std::io::Error) -> FsError {
        FsError {
            code: err.raw_os_error(),
            not_found: matches!(err.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory),
            message: err.to_string(),
        }
    }
}

/// A directory listing read within a capacity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirListing {
    /// Names read, in the order the filesystem returned them.
    pub names: Vec<OsString>,
    /// Whether the directory was read to its end.
    pub exhausted: bool,
    /// The opened directory's metadata, read from the open handle.
    pub meta: FsMeta,
}

/// An open regular file being hashed.
pub trait ProbeFile: Send {
    /// Metadata of the open file (`fstat`).
    fn meta(&self) -> Result<FsMeta, FsError>;
    /// Reads into `buf`; 0 means end of file.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, FsError>;
}

/// Filesystem reads used by snapshots. Paths are absolute.
pub trait FsProbe: Send + Sync {
    /// Metadata without following a final symlink.
    fn lstat(&self, path: &Path) -> Result<FsMeta, FsError>;
    /// A symlink's target text.
    fn read_link(&self, path: &Path) -> Result<OsString, FsError>;
    /// Opens a directory (without following a final symlink) and reads at
    /// most `capacity` names, excluding `.` and `..`, in the order the
    /// filesystem returns them. `exhausted` says whether no further name
    /// exists, so a `capacity` of 0 tells whether the directory is empty.
    fn read_dir(&self, path: &Path, capacity: usize) -> Result<DirListing, FsError>;
    /// Opens a file for reading without following a final symlink and
    /// without blocking (a FIFO that replaced the file must not hang the
    /// snapshot); the caller checks what was opened through [`ProbeFile::meta`].
    fn open_file(&self, path: &Path) -> Result<Box<dyn ProbeFile>, FsError>;
    /// The absolute path with every symbolic link resolved (`realpath`):
    /// scenario resolution reads the working directory and the executable
    /// through it.
    fn canonicalize(&self, path: &Path) -> Result<PathBuf, FsError>;
}
