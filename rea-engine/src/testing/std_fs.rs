//! A filesystem probe over `std::fs`, for tests that resolve scenarios in a
//! real temporary directory (the backends' probes live in crates that depend
//! on the engine, so the engine's own tests cannot use them).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::fs::{DirListing, FsError, FsKind, FsMeta, FsProbe, ProbeFile};

/// [`FsProbe`] through `std::fs`. Unlike the backends, `open_file` follows
/// a final symbolic link and may block on a FIFO (tests open what they
/// wrote), and the metadata's mode, device and inode are 0: fit for
/// resolving scenarios, not for snapshots.
#[derive(Debug, Default, Clone, Copy)]
pub struct StdFs;

fn io(error: std::io::Error) -> FsError {
    FsError::from_io(&error)
}

fn meta(m: &std::fs::Metadata) -> FsMeta {
    let t = m.file_type();
    let kind = if t.is_file() {
        FsKind::File
    } else if t.is_dir() {
        FsKind::Directory
    } else if t.is_symlink() {
        FsKind::Symlink
    } else {
        FsKind::Other
    };
    let modified_ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX));
    // `std` names the mode, device and inode only through OS extensions,
    // which the engine does not use: resolution needs the kind alone.
    FsMeta { kind, mode: 0, size: m.len(), device: 0, inode: 0, modified_ns, changed_ns: modified_ns }
}

impl FsProbe for StdFs {
    fn lstat(&self, path: &Path) -> Result<FsMeta, FsError> {
        std::fs::symlink_metadata(path).map(|m| meta(&m)).map_err(io)
    }

    fn read_link(&self, path: &Path) -> Result<OsString, FsError> {
        std::fs::read_link(path).map(PathBuf::into_os_string).map_err(io)
    }

    fn read_dir(&self, path: &Path, capacity: usize) -> Result<DirListing, FsError> {
        let listing_meta = self.lstat(path)?;
        let mut names = Vec::new();
        let mut exhausted = true;
        for entry in std::fs::read_dir(path).map_err(io)? {
            if names.len() == capacity {
                exhausted = false;
                break;
            }
            names.push(entry.map_err(io)?.file_name());
        }
        Ok(DirListing { names, exhausted, meta: listing_meta })
    }

    fn open_file(&self, path: &Path) -> Result<Box<dyn ProbeFile>, FsError> {
        Ok(Box::new(StdFile(std::fs::File::open(path).map_err(io)?)))
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, FsError> {
        std::fs::canonicalize(path).map_err(io)
    }
}

struct StdFile(std::fs::File);

impl ProbeFile for StdFile {
    fn meta(&self) -> Result<FsMeta, FsError> {
        self.0.metadata().map(|m| meta(&m)).map_err(io)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, FsError> {
        std::io::Read::read(&mut self.0, buf).map_err(io)
    }
}
