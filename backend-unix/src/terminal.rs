//! The terminal both Unix backends give a command: a `posix_openpt`
//! master/slave pair, both close-on-exec, the slave configured with the
//! termios of the reference implementation (echo on, canonical input,
//! `ONLCR`, UTF-8) and the scenario's size.

use std::os::fd::OwnedFd;

use rea_engine::host::{HostError, TermSize};
use rustix::fs::{Mode, OFlags};
use rustix::pty::OpenptFlags;
use rustix::termios::{
    ControlModes, InputModes, LocalModes, OptionalActions, OutputModes, SpecialCodeIndex, Termios, Winsize,
};

/// A host error of the system call that failed while doing `op`.
pub fn io_err(op: &'static str) -> impl FnOnce(rustix::io::Errno) -> HostError {
    move |e| HostError::Io { op, source: e.into() }
}

/// The reference control characters.
const CONTROL_CHARACTERS: [(SpecialCodeIndex, u8); 16] = [
    (SpecialCodeIndex::VEOF, 4),
    (SpecialCodeIndex::VEOL, 0xff),
    (SpecialCodeIndex::VEOL2, 0xff),
    (SpecialCodeIndex::VERASE, 0x7f),
    (SpecialCodeIndex::VWERASE, 23),
    (SpecialCodeIndex::VKILL, 21),
    (SpecialCodeIndex::VREPRINT, 18),
    (SpecialCodeIndex::VINTR, 3),
    (SpecialCodeIndex::VQUIT, 0x1c),
    (SpecialCodeIndex::VSUSP, 26),
    (SpecialCodeIndex::VSTART, 17),
    (SpecialCodeIndex::VSTOP, 19),
    (SpecialCodeIndex::VLNEXT, 22),
    (SpecialCodeIndex::VDISCARD, 15),
    (SpecialCodeIndex::VMIN, 1),
    (SpecialCodeIndex::VTIME, 0),
];

/// Applies the terminal settings of the reference implementation to `slave`.
fn apply_reference_settings(slave: &OwnedFd) -> Result<(), HostError> {
    let mut t: Termios = rustix::termios::tcgetattr(slave).map_err(io_err("read the terminal settings"))?;
    t.input_modes = InputModes::ICRNL
        | InputModes::IXON
        | InputModes::IXANY
        | InputModes::IMAXBEL
        | InputModes::BRKINT
        | InputModes::IUTF8;
    t.output_modes = OutputModes::OPOST | OutputModes::ONLCR;
    t.control_modes = ControlModes::CREAD | ControlModes::CS8 | ControlModes::HUPCL;
    t.local_modes = LocalModes::ICANON
        | LocalModes::ISIG
        | LocalModes::IEXTEN
        | LocalModes::ECHO
        | LocalModes::ECHOE
        | LocalModes::ECHOK
        | LocalModes::ECHOKE
        | LocalModes::ECHOCTL;
    for (index, value) in CONTROL_CHARACTERS {
        t.special_codes[index] = value;
    }
    t.set_speed(38400).map_err(io_err("set the terminal speed"))?;
    rustix::termios::tcsetattr(slave, OptionalActions::Now, &t).map_err(io_err("apply the terminal settings"))
}

/// The window size of `size`.
pub fn winsize(size: TermSize) -> Winsize {
    Winsize { ws_row: size.rows, ws_col: size.columns, ws_xpixel: 0, ws_ypixel: 0 }
}

/// Opens the master, close-on-exec. Linux sets the flag in the same call;
/// macOS's `posix_openpt` cannot, so it is set right after.
fn open_master() -> Result<OwnedFd, HostError> {
    #[cfg(target_os = "linux")]
    let master = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)
        .map_err(io_err("open a pseudo-terminal master"))?;
    #[cfg(not(target_os = "linux"))]
    let master = {
        let master = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY)
            .map_err(io_err("open a pseudo-terminal master"))?;
        rustix::io::fcntl_setfd(&master, rustix::io::FdFlags::CLOEXEC)
            .map_err(io_err("mark the terminal close-on-exec"))?;
        master
    };
    Ok(master)
}

/// Opens a master/slave pair of the given size, both close-on-exec, the
/// slave with the reference settings.
pub fn open_pair(size: TermSize) -> Result<(OwnedFd, OwnedFd), HostError> {
    let master = open_master()?;
    rustix::pty::grantpt(&master).map_err(io_err("grant the pseudo-terminal"))?;
    rustix::pty::unlockpt(&master).map_err(io_err("unlock the pseudo-terminal"))?;
    let name = rustix::pty::ptsname(&master, Vec::new()).map_err(io_err("name the pseudo-terminal"))?;
    let slave = rustix::fs::open(name.as_c_str(), OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC, Mode::empty())
        .map_err(io_err("open the pseudo-terminal slave"))?;
    apply_reference_settings(&slave)?;
    rustix::termios::tcsetwinsize(&master, winsize(size)).map_err(io_err("set the terminal size"))?;
    Ok((master, slave))
}

/// Whether `path` names a regular file this user may execute.
pub fn is_executable(path: &std::path::Path) -> bool {
    path.is_file() && rustix::fs::access(path, rustix::fs::Access::EXEC_OK).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_has_the_size_and_the_reference_settings() {
        let (master, slave) = open_pair(TermSize { columns: 91, rows: 7 }).expect("a pseudo-terminal");
        let size = rustix::termios::tcgetwinsize(&master).expect("the size");
        assert_eq!((size.ws_col, size.ws_row), (91, 7));
        let t = rustix::termios::tcgetattr(&slave).expect("the settings");
        assert!(t.local_modes.contains(LocalModes::ECHO | LocalModes::ICANON));
        assert!(t.output_modes.contains(OutputModes::ONLCR));
        assert_eq!(t.special_codes[SpecialCodeIndex::VINTR], 3);
        let flags = rustix::io::fcntl_getfd(&master).expect("the descriptor flags");
        assert!(flags.contains(rustix::io::FdFlags::CLOEXEC));
    }
}
