//! Large input files mapped into memory instead of read: the comparison of
//! two maximum-budget captures reads about 55 MB, and a mapping costs no
//! copy and no fresh memory, and lets the pages the parser has passed go
//! back to the system while it parses (see the engine's
//! `evidence::behind`). Small files are read as before.
//!
//! The accepted risk of any mapped input (ripgrep's too): if another
//! process truncates or rewrites the file while rea reads it, the bytes can
//! change under the parser or a read can fault (SIGBUS). rea only reads its
//! inputs; docs/decisions.md ("Mapped input") says so.
#![expect(unsafe_code, reason = "mmap, madvise and munmap, and reading the mapping as a slice, have no safe wrapper")]

use std::ffi::c_void;
use std::fs::File;
use std::io;
use std::ptr::NonNull;
use std::sync::Arc;

use rea_engine::input::{MappedBytes, OpenedInput};
use rustix::mm::{MapFlags, ProtFlags};

/// Files at least this large are mapped; smaller ones are read.
pub const MAP_FROM_BYTES: u64 = 1 << 20;

/// A regular file mapped read-only and private, unmapped when dropped.
#[derive(Debug)]
pub struct Mapping {
    addr: NonNull<c_void>,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone; reading
// it from several threads is as safe as reading a shared `&[u8]`, and
// `release_before` only asks the kernel to drop page-table entries (the
// bytes stay the file's), which any thread may do.
unsafe impl Send for Mapping {}
// SAFETY: as for `Send`: no method mutates what the mapping holds.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps `file` whole, or `None` when it is empty (nothing to map) or
    /// larger than the address space.
    pub fn of(file: &File) -> io::Result<Option<Mapping>> {
        let Ok(len) = usize::try_from(file.metadata()?.len()) else { return Ok(None) };
        if len == 0 {
            return Ok(None);
        }
        // SAFETY: a fresh read-only private mapping of an open file at an
        // address the kernel chooses: it aliases no Rust memory. The bytes
        // change only if another process changes the file (the accepted
        // risk in the module documentation).
        let addr = unsafe { rustix::mm::mmap(std::ptr::null_mut(), len, ProtFlags::READ, MapFlags::PRIVATE, file, 0)? };
        let addr = NonNull::new(addr).ok_or_else(|| io::Error::other("mmap returned a null address"))?;
        Ok(Some(Mapping { addr, len }))
    }
}

impl MappedBytes for Mapping {
    fn bytes(&self) -> &[u8] {
        // SAFETY: `addr` is the start of a live readable mapping of `len`
        // bytes, unmapped only in `drop`, which cannot run while this
        // borrow lives.
        unsafe { std::slice::from_raw_parts(self.addr.as_ptr().cast::<u8>(), self.len) }
    }

    fn release_before(&self, offset: usize) {
        let end = offset.min(self.len) / rustix::param::page_size() * rustix::param::page_size();
        if end > 0 {
            release(self.addr, end);
        }
    }
}

/// Drops the page-table entries of the first `len` bytes (a whole number of
/// pages) of the private, never-written file mapping at `addr`: its
/// resident memory goes back to the system, and a later read maps the
/// file's same bytes in again from the page cache.
#[cfg(target_os = "linux")]
fn release(addr: NonNull<c_void>, len: usize) {
    // SAFETY: the range lies in this live mapping and is page-aligned; on a
    // private file mapping that was never written, MADV_DONTNEED changes
    // no byte a reader sees, only whether it is resident.
    let _ = unsafe { rustix::mm::madvise(addr.as_ptr(), len, rustix::mm::Advice::LinuxDontNeed) };
}

/// Elsewhere the memory is given back when the mapping is dropped.
#[cfg(not(target_os = "linux"))]
fn release(_addr: NonNull<c_void>, _len: usize) {}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping is live and no borrow of it outlives `self`.
        let _ = unsafe { rustix::mm::munmap(self.addr.as_ptr(), self.len) };
    }
}

/// `file`, opened as a regular input: mapped when it is large enough and
/// the mapping succeeds, otherwise kept to be read.
pub fn regular_input(file: File) -> OpenedInput {
    let large = file.metadata().is_ok_and(|m| m.len() >= MAP_FROM_BYTES);
    match large.then(|| Mapping::of(&file)) {
        Some(Ok(Some(mapping))) => OpenedInput::Mapped(file, Arc::new(mapping)),
        _ => OpenedInput::Regular(file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    #[test]
    fn released_pages_read_back_the_same_bytes() {
        let content: Vec<u8> = (0..3 * MAP_FROM_BYTES).map(|i| (i % 251) as u8).collect();
        let f = file_of(&content);
        let OpenedInput::Mapped(_, mapped) = regular_input(File::open(f.path()).unwrap()) else { panic!("not mapped") };
        assert_eq!(mapped.bytes(), &content[..]);
        mapped.release_before(content.len() / 2 + 17);
        mapped.release_before(content.len());
        assert_eq!(mapped.bytes(), &content[..], "released pages read back the file's bytes");
    }

    #[test]
    fn small_and_empty_files_are_read_not_mapped() {
        for content in [&b""[..], b"{}"] {
            let f = file_of(content);
            assert!(matches!(regular_input(File::open(f.path()).unwrap()), OpenedInput::Regular(_)));
        }
        assert!(Mapping::of(&File::open(file_of(b"").path()).unwrap()).unwrap().is_none());
    }
}
