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
//! Input documents (scenarios, captures, trace specifications) are opened by
//! [`open_input`], which follows symlinks but refuses what is not a regular
//! file, and a file of a kernel filesystem (`/proc`, `/sys`, ...) whose size
//! is not its content, both before opening (`stat`, `statfs`) and on the
//! opened descriptor (`fstat`, `fstatfs`); it opens with
//! `O_NONBLOCK | O_NOCTTY`, so a FIFO swapped in cannot block.
//!
//! Every error keeps its `errno`. `ENOENT` and `ENOTDIR` mean the path does
//! not exist. Closing a read-only descriptor cannot lose data, so handles are
//! closed by dropping them.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::Path;

use rea_backend_unix::fs::{DirNames, UnixFs, io_error, meta, not_regular, open_nofollow};
use rea_engine::fs::{DirListing, FsError, FsMeta, FsProbe, ProbeFile};
use rea_engine::input::{InputKind, OpenedInput};
use rustix::fs::{Mode, OFlags, RawDir};

/// Bytes of `getdents64` buffer per directory read (a few hundred names).
const DIRENT_BUFFER: usize = 32 * 1024;

/// The Linux filesystem probe.
#[derive(Debug, Clone, Copy, Default)]
pub struct LinuxFs;

fn errno_error(errno: rustix::io::Errno) -> FsError {
    FsError::from_io(&io::Error::from(errno))
}

impl FsProbe for LinuxFs {
    fn lstat(&self, path: &Path) -> Result<FsMeta, FsError> {
        UnixFs.lstat(path)
    }

    fn read_link(&self, path: &Path) -> Result<OsString, FsError> {
        UnixFs.read_link(path)
    }

    fn read_dir(&self, path: &Path, capacity: usize) -> Result<DirListing, FsError> {
        let dir = open_nofollow(path, OFlags::DIRECTORY)?;
        let meta = meta(&dir.metadata().map_err(io_error)?);
        let mut buffer = Vec::with_capacity(DIRENT_BUFFER);
        let mut entries = RawDir::new(&dir, buffer.spare_capacity_mut());
        let mut names = DirNames::new(capacity);
        while let Some(entry) = entries.next() {
            let entry = entry.map_err(errno_error)?;
            if !names.offer(entry.file_name().to_bytes()) {
                break;
            }
        }
        Ok(names.into_listing(meta))
    }

    fn open_file(&self, path: &Path) -> Result<Box<dyn ProbeFile>, FsError> {
        UnixFs.open_file(path)
    }

    fn canonicalize(&self, path: &Path) -> Result<std::path::PathBuf, FsError> {
        UnixFs.canonicalize(path)
    }
}

/// Magic numbers (`statfs.f_type`) of the kernel filesystems whose files
/// are generated as they are read: proc, sysfs, debugfs, tracefs,
/// securityfs, cgroup, cgroup2, configfs, efivarfs, bpf.
const KERNEL_FILESYSTEMS: [u32; 10] = [
    0x9fa0,
    0x6265_6572,
    0x6462_6720,
    0x7472_6163,
    0x7363_6673,
    0x0027_e0eb,
    0x6367_7270,
    0x6265_6570,
    0xde5e_81e4,
    0xcafe_4a11,
];

fn kernel_generated(statfs: &rustix::fs::StatFs) -> bool {
    // `f_type`'s integer type differs between architectures; the magic
    // numbers are its low 32 bits.
    #[allow(clippy::unnecessary_cast, reason = "f_type is u32 on some architectures, i64 on others")]
    let magic = statfs.f_type as u32;
    KERNEL_FILESYSTEMS.contains(&magic)
}

/// Opens an input document's path (following symlinks) only if it is a
/// regular file of an ordinary filesystem; checked before opening and again
/// on the opened descriptor, which is opened without blocking.
pub fn open_input(path: &Path) -> io::Result<OpenedInput> {
    if let Some(kind) = not_regular(&std::fs::metadata(path)?) {
        return Ok(OpenedInput::NotRegular(kind));
    }
    if kernel_generated(&rustix::fs::statfs(path)?) {
        return Ok(OpenedInput::NotRegular(InputKind::KernelGenerated));
    }
    open_checked(path)
}

/// Opens `path` without blocking and checks what was opened: the file that
/// passed the checks before opening may have been swapped for another.
fn open_checked(path: &Path) -> io::Result<OpenedInput> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let file = File::from(rustix::fs::open(path, flags, Mode::empty())?);
    if let Some(kind) = not_regular(&file.metadata()?) {
        return Ok(OpenedInput::NotRegular(kind));
    }
    if kernel_generated(&rustix::fs::fstatfs(&file)?) {
        return Ok(OpenedInput::NotRegular(InputKind::KernelGenerated));
    }
    Ok(rea_backend_unix::map::regular_input(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FIFO swapped in after the checks before opening (opened here
    /// directly) neither blocks the open, though no writer exists, nor is
    /// taken for a regular file.
    #[test]
    fn a_fifo_behind_the_checks_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("capture.json");
        rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, Mode::from_raw_mode(0o600), 0).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || tx.send(open_checked(&path).map(|o| format!("{o:?}"))));
        let opened = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("the open returned");
        assert_eq!(opened.unwrap(), "NotRegular(Fifo)");
        assert!(matches!(open_input(&fifo).unwrap(), OpenedInput::NotRegular(InputKind::Fifo)));
    }

    #[test]
    fn proc_files_are_kernel_generated_and_ordinary_files_are_regular() {
        for path in ["/proc/self/status", "/proc/kmsg", "/sys/kernel/mm/transparent_hugepage/enabled"] {
            if Path::new(path).exists() {
                let opened = open_input(Path::new(path));
                assert!(
                    matches!(opened, Ok(OpenedInput::NotRegular(InputKind::KernelGenerated))),
                    "{path}: {opened:?}"
                );
            }
        }
        let file = tempfile::NamedTempFile::new().unwrap();
        assert!(matches!(open_input(file.path()).unwrap(), OpenedInput::Regular(_)));
        assert!(matches!(
            open_input(Path::new("/dev/null")).unwrap(),
            OpenedInput::NotRegular(InputKind::CharacterDevice)
        ));
    }
}
