//! [`FsProbe`] over portable POSIX calls (`lstat`, `readlink`, `opendir`/
//! `readdir`, `open`), as macOS provides them; Linux reads directories with
//! `getdents64` and shares the rest.
//!
//! Directories and files are opened with `O_NOFOLLOW`, files also with
//! `O_NONBLOCK | O_NOCTTY`, so a symlink or FIFO that replaced an observed
//! entry can neither redirect nor block a read; directory reads stop once
//! `capacity` names were taken and one more name proves more exist.

use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use rea_engine::fs::{DirListing, FsError, FsKind, FsMeta, FsProbe, ProbeFile};
use rea_engine::input::InputKind;
use rustix::fs::{Mode, OFlags};

/// What `metadata` says the file is, when it is not a regular file.
pub fn not_regular(metadata: &Metadata) -> Option<InputKind> {
    use std::os::unix::fs::FileTypeExt;
    let t = metadata.file_type();
    match () {
        () if t.is_file() => None,
        () if t.is_dir() => Some(InputKind::Directory),
        () if t.is_fifo() => Some(InputKind::Fifo),
        () if t.is_char_device() => Some(InputKind::CharacterDevice),
        () if t.is_block_device() => Some(InputKind::BlockDevice),
        () if t.is_socket() => Some(InputKind::Socket),
        () => Some(InputKind::Other),
    }
}

/// The filesystem probe.
#[derive(Debug, Clone, Copy, Default)]
pub struct UnixFs;

/// The engine's metadata of `m`.
pub fn meta(m: &Metadata) -> FsMeta {
    let t = m.file_type();
    let kind = match () {
        () if t.is_file() => FsKind::File,
        () if t.is_dir() => FsKind::Directory,
        () if t.is_symlink() => FsKind::Symlink,
        () => FsKind::Other,
    };
    FsMeta {
        kind,
        mode: m.mode(),
        size: m.size(),
        device: m.dev(),
        inode: m.ino(),
        modified_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        changed_ns: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
    }
}

/// An I/O error as the engine's filesystem error (its `errno` kept).
pub fn io_error(e: io::Error) -> FsError {
    FsError::from_io(&e)
}

/// Opens `path` read-only, close-on-exec, without following a final
/// symlink, with `flags` added.
pub fn open_nofollow(path: &Path, flags: OFlags) -> Result<File, FsError> {
    rustix::fs::open(path, flags | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())
        .map(File::from)
        .map_err(|e| io_error(e.into()))
}

/// The names of a directory as they are read, up to `capacity`: one more
/// name proves the directory holds more (the listing is then not exhausted).
pub struct DirNames {
    names: Vec<OsString>,
    capacity: usize,
    exhausted: bool,
}

impl DirNames {
    /// An empty listing that takes at most `capacity` names.
    pub fn new(capacity: usize) -> DirNames {
        DirNames { names: Vec::new(), capacity, exhausted: true }
    }

    /// Takes one entry's name (`.` and `..` are skipped); `false` once a
    /// name past the capacity was seen, when reading should stop.
    pub fn offer(&mut self, name: &[u8]) -> bool {
        if name == b"." || name == b".." {
            return true;
        }
        if self.names.len() == self.capacity {
            self.exhausted = false;
            return false;
        }
        self.names.push(OsString::from_vec(name.to_vec()));
        true
    }

    /// The listing, with the directory's own metadata.
    pub fn into_listing(self, meta: FsMeta) -> DirListing {
        DirListing { names: self.names, exhausted: self.exhausted, meta }
    }
}

impl FsProbe for UnixFs {
    fn lstat(&self, path: &Path) -> Result<FsMeta, FsError> {
        std::fs::symlink_metadata(path).map(|m| meta(&m)).map_err(io_error)
    }

    fn read_link(&self, path: &Path) -> Result<OsString, FsError> {
        std::fs::read_link(path).map(|t| t.into_os_string()).map_err(io_error)
    }

    fn read_dir(&self, path: &Path, capacity: usize) -> Result<DirListing, FsError> {
        let dir = open_nofollow(path, OFlags::DIRECTORY)?;
        let listing_meta = meta(&dir.metadata().map_err(io_error)?);
        let entries = rustix::fs::Dir::read_from(&dir).map_err(|e| io_error(e.into()))?;
        let mut names = DirNames::new(capacity);
        for entry in entries {
            let entry = entry.map_err(|e| io_error(e.into()))?;
            if !names.offer(entry.file_name().to_bytes()) {
                break;
            }
        }
        Ok(names.into_listing(listing_meta))
    }

    fn open_file(&self, path: &Path) -> Result<Box<dyn ProbeFile>, FsError> {
        Ok(Box::new(OpenFile(open_nofollow(path, OFlags::NONBLOCK | OFlags::NOCTTY)?)))
    }

    fn canonicalize(&self, path: &Path) -> Result<std::path::PathBuf, FsError> {
        std::fs::canonicalize(path).map_err(io_error)
    }
}

/// A file opened for hashing.
pub struct OpenFile(pub File);

impl ProbeFile for OpenFile {
    fn meta(&self) -> Result<FsMeta, FsError> {
        self.0.metadata().map(|m| meta(&m)).map_err(io_error)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, FsError> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other.map_err(io_error),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_within_capacity_without_following_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a", "b", "c"] {
            std::fs::write(dir.path().join(name), name).unwrap();
        }
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("link")).unwrap();
        let fs = UnixFs;
        let all = fs.read_dir(dir.path(), 10).unwrap();
        let mut names: Vec<_> = all.names.iter().map(|n| n.to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names, ["a", "b", "c", "link"]);
        assert!(all.exhausted);
        assert_eq!(all.meta.kind, FsKind::Directory);
        let two = fs.read_dir(dir.path(), 2).unwrap();
        assert_eq!((two.names.len(), two.exhausted), (2, false));
        assert!(fs.read_dir(dir.path(), 0).unwrap().names.is_empty());
        assert_eq!(fs.lstat(&dir.path().join("link")).unwrap().kind, FsKind::Symlink);
        assert_eq!(fs.read_link(&dir.path().join("link")).unwrap(), dir.path().join("a").into_os_string());
        assert!(fs.open_file(&dir.path().join("link")).is_err());
        let mut file = fs.open_file(&dir.path().join("b")).unwrap();
        let mut buf = [0u8; 8];
        assert_eq!(file.read(&mut buf).unwrap(), 1);
        assert_eq!(&buf[..1], b"b");
        assert_eq!(file.meta().unwrap().size, 1);
        assert!(fs.lstat(&dir.path().join("missing")).unwrap_err().not_found);
    }
}
