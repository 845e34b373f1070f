//! Filesystem reads for snapshots (interim std-based implementation).

use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use rea_engine::fs::{DirListing, FsError, FsKind, FsMeta, FsProbe, ProbeFile};

/// Snapshot reads through std and `O_NOFOLLOW`.
#[derive(Debug, Default)]
pub struct LinuxFs;

fn meta(m: &Metadata) -> FsMeta {
    let ft = m.file_type();
    let kind = if ft.is_file() {
        FsKind::File
    } else if ft.is_dir() {
        FsKind::Directory
    } else if ft.is_symlink() {
        FsKind::Symlink
    } else {
        FsKind::Other
    };
    FsMeta {
        kind,
        mode: m.mode(),
        size: m.size(),
        device: m.dev(),
        inode: m.ino(),
        modified_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
    }
}

fn err(e: std::io::Error) -> FsError {
    FsError::from_io(&e)
}

impl FsProbe for LinuxFs {
    fn lstat(&self, path: &Path) -> Result<FsMeta, FsError> {
        std::fs::symlink_metadata(path).map(|m| meta(&m)).map_err(err)
    }

    fn read_link(&self, path: &Path) -> Result<OsString, FsError> {
        std::fs::read_link(path).map(|p| p.into_os_string()).map_err(err)
    }

    fn read_dir(&self, path: &Path, capacity: usize) -> Result<DirListing, FsError> {
        let dir = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_DIRECTORY)
            .open(path)
            .map_err(err)?;
        let dir_meta = meta(&dir.metadata().map_err(err)?);
        let mut names = Vec::new();
        let mut exhausted = true;
        for entry in std::fs::read_dir(path).map_err(err)? {
            let entry = entry.map_err(err)?;
            if names.len() == capacity {
                exhausted = false;
                break;
            }
            names.push(entry.file_name());
        }
        Ok(DirListing { names, exhausted, meta: dir_meta })
    }

    fn open_file(&self, path: &Path) -> Result<Box<dyn ProbeFile>, FsError> {
        let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(path).map_err(err)?;
        Ok(Box::new(OpenFile(file)))
    }
}

struct OpenFile(File);

impl ProbeFile for OpenFile {
    fn meta(&self) -> Result<FsMeta, FsError> {
        self.0.metadata().map(|m| meta(&m)).map_err(err)
    }
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, FsError> {
        self.0.read(buf).map_err(err)
    }
}
