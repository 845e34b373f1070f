//! Filesystem reads of the macOS backend: snapshots through the shared
//! [`UnixFs`] probe (portable POSIX calls), input documents through
//! [`open_input`]. Builds and is tested on Linux.

use std::fs::File;
use std::io;
use std::path::Path;

pub use rea_backend_unix::fs::UnixFs;
use rea_backend_unix::fs::not_regular;
use rea_engine::input::OpenedInput;
use rustix::fs::{Mode, OFlags};

/// Opens an input document's path (following symlinks) only if it is a
/// regular file: checked before opening and again on the opened descriptor,
/// which is opened with `O_NONBLOCK | O_NOCTTY` so a FIFO swapped in cannot
/// block. macOS has no kernel filesystem of generated files (`/dev` holds
/// devices, refused by type).
pub fn open_input(path: &Path) -> io::Result<OpenedInput> {
    if let Some(kind) = not_regular(&std::fs::metadata(path)?) {
        return Ok(OpenedInput::NotRegular(kind));
    }
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let file = File::from(rustix::fs::open(path, flags, Mode::empty())?);
    Ok(match not_regular(&file.metadata()?) {
        Some(kind) => OpenedInput::NotRegular(kind),
        None => rea_backend_unix::map::regular_input(file),
    })
}
