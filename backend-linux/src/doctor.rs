//! `rea doctor` checks of the Linux backend.

use rea_engine::host::{Check, PtyBackend, SpawnSpec, TermSize};

fn check(name: &str, ok: Result<String, String>, remediation: &str) -> Check {
    match ok {
        Ok(detail) => Check { name: name.to_owned(), classification: "healthy", detail, remediation: None },
        Err(detail) => Check {
            name: name.to_owned(),
            classification: "missing_dependency",
            detail,
            remediation: Some(remediation.to_owned()),
        },
    }
}

fn procfs() -> Result<String, String> {
    match crate::procfs::stat(std::process::id()) {
        Ok(Some(_)) => match crate::procfs::environ_lookup(std::process::id(), "PATH") {
            Ok(_) => Ok("/proc is mounted and rea can read its own stat and environ".into()),
            Err(e) => Err(format!("/proc/<pid>/environ is unreadable: {e}")),
        },
        Ok(None) => Err("/proc does not list rea itself".into()),
        Err(e) => Err(format!("/proc/<pid>/stat is unreadable: {e}")),
    }
}

fn pidfd() -> Result<String, String> {
    if crate::ownership::pidfds_available() {
        Ok("pidfd_open works: signals go to verified processes through pidfds".into())
    } else {
        Err("pidfd_open is unavailable (kernel older than 5.3?): signals use check-then-kill".into())
    }
}

fn pty_probe() -> Result<String, String> {
    let spec = SpawnSpec {
        program: "/bin/sh".into(),
        argv0: "sh".into(),
        args: vec!["-c".into(), "exit 0".into()],
        working_directory: "/".into(),
        environment: vec![("TERM".into(), "xterm-256color".into())],
        size: TermSize { columns: 80, rows: 24 },
    };
    let mut process = crate::pty::OpenptyPty.spawn(&spec).map_err(|e| format!("the PTY probe failed: {e}"))?;
    let status = async_io::block_on(process.wait()).map_err(|e| format!("the PTY probe could not be awaited: {e}"))?;
    process.close_terminal();
    match status {
        rea_engine::host::ExitStatus::Code(0) => Ok("launched /bin/sh in a new session on a PTY; it exited 0".into()),
        other => Err(format!("the PTY probe ended with {other:?}")),
    }
}

/// The backend's doctor checks.
pub fn diagnose() -> Vec<rea_engine::host::Check> {
    vec![
        check(
            "procfs",
            procfs(),
            "Mount /proc (procfs) readable by this user; rea reads process identity and ownership from it.",
        ),
        check(
            "pidfd",
            pidfd(),
            "Use Linux 5.3 or newer for pidfd-based signalling; capture still works with check-then-kill.",
        ),
        check(
            "pty_probe",
            pty_probe(),
            "Make /dev/ptmx and /dev/pts available (mount devpts) so rea can open pseudo-terminals.",
        ),
    ]
}
