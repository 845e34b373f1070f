//! [`FsProbe`] over Linux system calls.
//!
//! - `lstat` and `readlink` go through `std` (`statx` and `readlinkat`), which
//!   never follow a final symlink.
//! - A directory is opened with `O_DIRECTORY | O_NOFOLLOW`, its identity read
//!   with `fstat` on that descriptor, and its names read with `getdents64`
//!   into a fixed buffer, stopping as soon as `capacity` names were taken and
//!   one more name proves the directory was not exhausted.
//! - A file is opened with `O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`, so neither a
//!   symlink nor a FIFO that replaced the observed file can redirect or block
//!   the read; the engine then compares `fstat` on the handle with its
//!   `lstat` observation.
//!
//! Every error keeps its `errno`. `ENOENT` and `ENOTDIR` mean the path does
//! not exist. Closing a read-only descriptor cannot lose data, so handles are
//! closed by dropping them.

use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use rea_engine::fs::{DirListing, FsError, FsKind, FsMeta, FsProbe, ProbeFile};
use rustix::fs::{Mode, OFlags, RawDir};

/// Bytes of `getdents64` buffer per directory read (a few hundred names).
const DIRENT_BUFFER: usize = 32 * 1024;

/// The Linux filesystem probe.
#[derive(Debug, Clone, Copy, Default)]
pub struct LinuxFs;

fn errno_error(errno: rustix::io::Errno) -> FsError {
    FsError::from_io(&io::Error::from(errno))
}

fn fs_meta(metadata: &Metadata) -> FsMeta {
    let file_type = metadata.file_type();
    let kind = if file_type.is_file() {
        FsKind::File
    } else if file_type.is_dir() {
        FsKind::Directory
    } else if file_type.is_symlink() {
        FsKind::Symlink
    } else {
        FsKind::Other
    };
    FsMeta {
        kind,
        mode: metadata.mode(),
        size: metadata.size(),
        device: metadata.dev(),
        inode: metadata.ino(),
        modified_ns: i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec()),
    }
}

fn open(path: &Path, flags: OFlags) -> Result<File, FsError> {
    let fd = rustix::fs::open(path, flags | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())
        .map_err(errno_error)?;
    Ok(File::from(fd))
}

impl FsProbe for LinuxFs {
    fn lstat(&self, path: &Path) -> Result<FsMeta, FsError> {
        std::fs::symlink_metadata(path).map(|metadata| fs_meta(&metadata)).map_err(|error| FsError::from_io(&error))
    }

    fn read_link(&self, path: &Path) -> Result<OsString, FsError> {
        std::fs::read_link(path).map(|target| target.into_os_string()).map_err(|error| FsError::from_io(&error))
    }

    fn read_dir(&self, path: &Path, capacity: usize) -> Result<DirListing, FsError> {
        let dir = open(path, OFlags::DIRECTORY)?;
        let meta = fs_meta(&dir.metadata().map_err(|error| FsError::from_io(&error))?);
        let mut buffer = Vec::with_capacity(DIRENT_BUFFER);
        let mut entries = RawDir::new(&dir, buffer.spare_capacity_mut());
        let mut names = Vec::new();
        let mut exhausted = true;
        while let Some(entry) = entries.next() {
            let entry = entry.map_err(errno_error)?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            if names.len() == capacity {
                exhausted = false;
                break;
            }
            names.push(OsString::from_vec(name.to_vec()));
        }
        Ok(DirListing { names, exhausted, meta })
    }

    fn open_file(&self, path: &Path) -> Result<Box<dyn ProbeFile>, FsError> {
        let file = open(path, OFlags::NONBLOCK | OFlags::NOCTTY)?;
        Ok(Box::new(LinuxFile(file)))
    }
}

/// A file opened for hashing.
struct LinuxFile(File);

impl ProbeFile for LinuxFile {
    fn meta(&self) -> Result<FsMeta, FsError> {
        self.0.metadata().map(|metadata| fs_meta(&metadata)).map_err(|error| FsError::from_io(&error))
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, FsError> {
        loop {
            match self.0.read(buf) {
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                result => return result.map_err(|error| FsError::from_io(&error)),
            }
        }
    }
}
