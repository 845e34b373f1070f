//! Whether stdout was open when `rea` started.
//!
//! Before `main`, Rust's runtime reopens a closed descriptor 0, 1 or 2 on
//! `/dev/null`; after that, `rea ... >&-` cannot be told from
//! `rea ... > /dev/null`, and a document written to it would be lost with
//! exit status 0. The loader runs the constructors of the executable (ELF
//! `.init_array`; Mach-O `__DATA,__mod_init_func`, run by dyld) before it
//! calls `main`, and so before Rust's runtime: the one below records whether
//! descriptor 1 was open then.

use std::sync::atomic::{AtomicU8, Ordering};

/// The constructor has not run.
const UNRECORDED: u8 = 0;
/// Descriptor 1 was open.
const OPEN: u8 = 1;
/// Descriptor 1 was closed.
const CLOSED: u8 = 2;

static STDOUT_AT_START: AtomicU8 = AtomicU8::new(UNRECORDED);

extern "C" fn record_stdout_at_start() {
    // SAFETY: `fcntl(F_GETFD)` only reads the descriptor's flags; on a
    // descriptor that is not open it fails with EBADF and changes nothing.
    #[expect(unsafe_code, reason = "the descriptor may be closed, so no safe wrapper can borrow it")]
    let rc = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) };
    let closed = rc == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
    STDOUT_AT_START.store(if closed { CLOSED } else { OPEN }, Ordering::Relaxed);
}

// SAFETY: a constructor entry (`.init_array` on ELF, `__DATA,__mod_init_func`
// on Mach-O) is a function pointer the loader calls once, before `main`, with
// no Rust state yet; `record_stdout_at_start` only makes one system call and
// stores an atomic.
#[expect(unsafe_code, reason = "a constructor is the only hook that runs before Rust's runtime reopens stdout")]
#[used]
#[cfg_attr(target_vendor = "apple", unsafe(link_section = "__DATA,__mod_init_func"))]
#[cfg_attr(not(target_vendor = "apple"), unsafe(link_section = ".init_array"))]
static RECORD_STDOUT_AT_START: extern "C" fn() = record_stdout_at_start;

/// Whether descriptor 1 was closed when the process started (before Rust's
/// runtime reopened it on `/dev/null`).
pub fn stdout_closed_at_start() -> bool {
    STDOUT_AT_START.load(Ordering::Relaxed) == CLOSED
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constructor ran before the test harness, whose stdout is open.
    #[test]
    fn the_constructor_recorded_an_open_stdout() {
        assert_eq!(STDOUT_AT_START.load(Ordering::Relaxed), OPEN);
        assert!(!stdout_closed_at_start());
    }
}
