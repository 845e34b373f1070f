//! The person's terminal while `rea record-scenario` bridges it to a
//! program: raw mode (always restored), its size, and the signals that
//! resize or end the recording.
//!
//! The terminal's settings before raw mode are kept in one process-wide
//! slot, so that every way out (the guard's drop, a panic hook, a signal
//! handler's thread) restores the same settings exactly once.

use std::io;
use std::os::fd::AsFd;
use std::sync::{Mutex, PoisonError};

use futures_lite::StreamExt;
use rustix::termios::{self, OptionalActions, Termios};

/// The settings raw mode replaced, while it is on.
static SAVED: Mutex<Option<Termios>> = Mutex::new(None);

/// Raw mode on the terminal of standard input; dropping it restores the
/// settings it found.
#[derive(Debug)]
pub struct RawMode(());

impl RawMode {
    /// Switches standard input's terminal to raw mode; `None` when standard
    /// input is no terminal (keys are then passed on as read).
    pub fn enter() -> io::Result<Option<RawMode>> {
        let stdin = std::io::stdin();
        let fd = stdin.as_fd();
        if !termios::isatty(fd) {
            return Ok(None);
        }
        let saved = termios::tcgetattr(fd).map_err(io::Error::from)?;
        let mut raw = saved.clone();
        raw.make_raw();
        *SAVED.lock().unwrap_or_else(PoisonError::into_inner) = Some(saved);
        termios::tcsetattr(fd, OptionalActions::Flush, &raw).map_err(|e| {
            restore();
            io::Error::from(e)
        })?;
        Ok(Some(RawMode(())))
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore();
    }
}

/// Restores the settings raw mode replaced, if it is on (safe to call from
/// any thread, any number of times).
pub fn restore() {
    let saved = SAVED.lock().unwrap_or_else(PoisonError::into_inner).take();
    if let Some(saved) = saved {
        let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, &saved);
    }
}

/// The size (columns, rows) of the terminal of standard output, else of
/// standard input; `None` when neither is a terminal.
pub fn size() -> Option<(u16, u16)> {
    let usable = |w: &termios::Winsize| w.ws_col > 0 && w.ws_row > 0;
    let (stdout, stdin) = (std::io::stdout(), std::io::stdin());
    let of_stdout = termios::tcgetwinsize(stdout.as_fd()).ok().filter(usable);
    of_stdout.or_else(|| termios::tcgetwinsize(stdin.as_fd()).ok().filter(usable)).map(|w| (w.ws_col, w.ws_row))
}

/// A signal to the recording `rea`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersonSignal {
    /// The terminal was resized (SIGWINCH).
    Resized,
    /// SIGINT, SIGTERM or SIGHUP: the recording must end.
    End,
}

/// Delivers SIGWINCH, SIGINT, SIGTERM and SIGHUP to `on` on a thread of
/// its own (they no longer stop `rea` by themselves).
pub fn watch_signals(mut on: impl FnMut(PersonSignal) + Send + 'static) -> io::Result<()> {
    use async_signal::{Signal, Signals};
    let mut signals = Signals::new([Signal::Winch, Signal::Int, Signal::Term, Signal::Hup])?;
    std::thread::Builder::new().name("rea-signals".into()).spawn(move || {
        while let Some(signal) = futures_lite::future::block_on(signals.next()) {
            match signal {
                Ok(Signal::Winch) => on(PersonSignal::Resized),
                Ok(_) => on(PersonSignal::End),
                Err(_) => break,
            }
        }
    })?;
    Ok(())
}

/// Creates (or truncates) `path` for writing; with `private`, readable and
/// writable by the user only (mode 0600, also when it existed).
pub fn create(path: &std::path::Path, private: bool) -> io::Result<std::fs::File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mode = if private { 0o600 } else { 0o644 };
    let file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(mode).open(path)?;
    if private {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}
