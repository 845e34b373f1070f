//! The macOS system-call layer: libproc, `getsid`, `kill`, and the process-
//! wide token reader. Everything here is a thin call into a documented API
//! (`libproc.h`, `sys/proc_info.h`, `signal.h`); the logic that decides what
//! the answers mean lives in the portable modules and is tested on Linux.
//! Not compiled or run on a Mac where it was written.

use std::io;
use std::sync::{Arc, OnceLock};

use rea_engine::Host;
use rea_engine::host::{CaptureSupport, Check, Pid};
use rea_engine::scenario::SignalName;

use crate::config::{CompileSettings, ConfigError};
use crate::ownership::{BsdInfo, DarwinSys, HelperVerifier, LibprocInspector, TokenSource};
use crate::protocol::{Reading, StartIdentity};
use crate::reader::TokenReader;

/// `PROC_PIDUNIQIDENTIFIERINFO` from `sys/proc_info.h` (not in the libc crate).
const PROC_PIDUNIQIDENTIFIERINFO: libc::c_int = 17;

/// `struct proc_uniqidentifierinfo` from `sys/proc_info.h`.
#[repr(C)]
#[derive(Default)]
#[allow(dead_code, reason = "the kernel fills every field; only p_uniqueid is read")]
struct ProcUniqIdentifierInfo {
    p_uuid: [u8; 16],
    p_uniqueid: u64,
    p_puniqueid: u64,
    p_idversion: i32,
    p_orig_ppidversion: i32,
    p_reserve2: u64,
    p_reserve3: u64,
}

/// Reads `flavor` of `pid` into `out`; `Ok(false)` when the process is gone.
#[expect(unsafe_code, reason = "proc_pidinfo is the documented libproc call")]
fn pidinfo<T>(pid: Pid, flavor: libc::c_int, out: &mut T) -> io::Result<bool> {
    let size = std::mem::size_of::<T>() as libc::c_int;
    // SAFETY: `out` is a valid, exclusively borrowed buffer of exactly `size`
    // bytes for the duration of the call; proc_pidinfo writes at most `size`
    // bytes into it and keeps no pointer.
    let read = unsafe { libc::proc_pidinfo(pid.0 as libc::c_int, flavor, 0, (out as *mut T).cast(), size) };
    if read == size {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::ESRCH) | Some(0) | None => Ok(false),
        _ if read > 0 => Err(io::Error::other(format!("proc_pidinfo returned {read} of {size} bytes"))),
        _ => Err(err),
    }
}

#[expect(unsafe_code, reason = "getsid and proc_pidpath are documented system calls")]
fn session_and_path(pid: Pid) -> (u32, Option<String>) {
    // SAFETY: getsid takes a plain integer and touches no memory of ours.
    let sid = unsafe { libc::getsid(pid.0 as libc::pid_t) };
    let mut buf = vec![0u8; libc::PROC_PIDPATHINFO_MAXSIZE as usize];
    // SAFETY: `buf` is a valid writable buffer of the size passed; the call
    // writes a NUL-terminated path of at most that size.
    let n = unsafe { libc::proc_pidpath(pid.0 as libc::c_int, buf.as_mut_ptr().cast(), buf.len() as u32) };
    let path = (n > 0).then(|| String::from_utf8_lossy(&buf[..n as usize]).into_owned());
    (if sid > 0 { sid as u32 } else { 0 }, path)
}

/// Lists PIDs with `proc_listallpids` or `proc_listchildpids`, which return
/// the number of PIDs written, growing the buffer until the answer fits.
fn list(call: impl Fn(*mut libc::c_void, libc::c_int) -> libc::c_int) -> io::Result<Vec<Pid>> {
    let mut capacity = 1024usize;
    loop {
        let mut buf = vec![0 as libc::pid_t; capacity];
        let bytes = (capacity * std::mem::size_of::<libc::pid_t>()) as libc::c_int;
        let n = call(buf.as_mut_ptr().cast(), bytes);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let count = n as usize;
        if count < capacity {
            buf.truncate(count);
            return Ok(buf.into_iter().filter(|p| *p > 0).map(|p| Pid(p as u32)).collect());
        }
        capacity *= 2;
    }
}

/// libproc and `kill`.
#[derive(Debug, Default)]
pub(crate) struct LibprocSys;

impl DarwinSys for LibprocSys {
    fn info(&self, pid: Pid) -> io::Result<Option<BsdInfo>> {
        let mut info = zeroed_bsdinfo();
        if !pidinfo(pid, libc::PROC_PIDTBSDINFO, &mut info)? {
            return Ok(None);
        }
        let mut ids = ProcUniqIdentifierInfo::default();
        let unique = pidinfo(pid, PROC_PIDUNIQIDENTIFIERINFO, &mut ids).ok().filter(|ok| *ok).map(|_| ids.p_uniqueid);
        let (session, path) = session_and_path(pid);
        let comm: Vec<u8> = info.pbi_comm.iter().map(|c| *c as u8).take_while(|b| *b != 0).collect();
        Ok(Some(BsdInfo {
            identity: StartIdentity {
                seconds: info.pbi_start_tvsec,
                micros: info.pbi_start_tvusec.min(999_999) as u32,
                unique,
            },
            parent: info.pbi_ppid,
            group: info.pbi_pgid,
            session,
            zombie: info.pbi_status == libc::SZOMB,
            command: path.unwrap_or_else(|| String::from_utf8_lossy(&comm).into_owned()),
        }))
    }

    fn children(&self, pid: Pid) -> io::Result<Vec<Pid>> {
        list(|buf, size| list_children(pid, buf, size))
    }

    fn all_pids(&self) -> io::Result<Vec<Pid>> {
        list(list_all)
    }

    fn kill(&self, pid: Pid, signal: SignalName) -> io::Result<()> {
        let number = match signal {
            SignalName::SIGINT => libc::SIGINT,
            SignalName::SIGTERM => libc::SIGTERM,
            SignalName::SIGKILL => libc::SIGKILL,
            SignalName::SIGHUP => libc::SIGHUP,
            SignalName::SIGQUIT => libc::SIGQUIT,
            SignalName::SIGUSR1 => libc::SIGUSR1,
            SignalName::SIGUSR2 => libc::SIGUSR2,
        };
        if send(pid, number) == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::ESRCH) { Err(io::Error::from(io::ErrorKind::NotFound)) } else { Err(err) }
    }
}

#[expect(unsafe_code, reason = "a zeroed C struct")]
fn zeroed_bsdinfo() -> libc::proc_bsdinfo {
    // SAFETY: proc_bsdinfo is a plain C struct of integers and char arrays,
    // for which all-zero bytes are a valid value.
    unsafe { std::mem::zeroed() }
}

#[expect(unsafe_code, reason = "proc_listchildpids is the documented libproc call")]
fn list_children(pid: Pid, buf: *mut libc::c_void, size: libc::c_int) -> libc::c_int {
    // SAFETY: `list` passes a writable buffer of exactly `size` bytes.
    unsafe { libc::proc_listchildpids(pid.0 as libc::pid_t, buf, size) }
}

#[expect(unsafe_code, reason = "proc_listallpids is the documented libproc call")]
fn list_all(buf: *mut libc::c_void, size: libc::c_int) -> libc::c_int {
    // SAFETY: `list` passes a writable buffer of exactly `size` bytes.
    unsafe { libc::proc_listallpids(buf, size) }
}

#[expect(unsafe_code, reason = "kill is the documented system call")]
fn send(pid: Pid, signal: libc::c_int) -> libc::c_int {
    // SAFETY: kill takes two integers and touches no memory of ours.
    unsafe { libc::kill(pid.0 as libc::pid_t, signal) }
}

/// The settings, read once from the environment rea started in.
fn settings() -> &'static Result<CompileSettings, ConfigError> {
    static SETTINGS: OnceLock<Result<CompileSettings, ConfigError>> = OnceLock::new();
    SETTINGS.get_or_init(|| crate::config::from_env(|name| std::env::var_os(name)))
}

/// The token reader, compiled once for the run.
static READER: OnceLock<Result<TokenReader, String>> = OnceLock::new();

/// The run's reader, compiled on first use; closed when rea exits.
fn reader() -> &'static Result<TokenReader, String> {
    READER.get_or_init(|| {
        let settings = settings().as_ref().map_err(ToString::to_string)?;
        let reader = TokenReader::open(settings).map_err(|e| e.to_string())?;
        register_exit_close();
        Ok(reader)
    })
}

/// Closes the reader: rejects new queries, waits for admitted ones, removes
/// the private directory.
extern "C" fn close_reader_at_exit() {
    if let Some(Ok(reader)) = READER.get() {
        reader.close();
    }
}

#[expect(unsafe_code, reason = "atexit is the documented way to run cleanup when the process exits")]
fn register_exit_close() {
    // SAFETY: the handler is a plain `extern "C" fn()` without arguments
    // that only closes the reader; registering it has no other effect.
    unsafe {
        libc::atexit(close_reader_at_exit);
    }
}

/// Reads tokens through the run's reader, compiling it on first use.
struct RunReader;

impl TokenSource for RunReader {
    fn read(&self, pids: &[Pid]) -> Result<Vec<(Pid, Reading)>, String> {
        reader().as_ref().map_err(Clone::clone)?.read(pids)
    }
}

fn probe_pty(sys: &Arc<LibprocSys>) -> Result<String, String> {
    rea_engine::doctor::pty_probe(&crate::pty::DarwinPty::new(sys.clone()))
}

/// The doctor checks: compiling the helper is one of them.
pub fn diagnose() -> Vec<Check> {
    let sys = Arc::new(LibprocSys);
    let started = std::time::Instant::now();
    let helper = settings().as_ref().ok().map(|_| {
        reader()
            .as_ref()
            .map(|_| format!("compiled the token reader in {} ms", started.elapsed().as_millis()))
            .map_err(Clone::clone)
    });
    let process_table = sys
        .all_pids()
        .map(|pids| format!("proc_listallpids lists {} processes", pids.len()))
        .map_err(|e| format!("proc_listallpids failed: {e}"));
    crate::doctor::report(crate::doctor::Probes {
        settings: settings().as_ref(),
        helper,
        pty: probe_pty(&sys),
        process_table,
    })
}

/// The macOS host. Invalid settings make capture unavailable, with the
/// configuration error as the reason.
pub fn host() -> Host {
    let sys = Arc::new(LibprocSys);
    let capture = match settings() {
        Ok(_) => CaptureSupport::Available,
        // Leaked once per process: the reason must be 'static.
        Err(e) => CaptureSupport::Unavailable { reason: Box::leak(e.to_string().into_boxed_str()) },
    };
    Host {
        platform: "darwin",
        capture,
        // The token reader is compiled before the first launch, so a capture
        // never starts a process whose ownership it could not prove.
        pty: Arc::new(
            crate::pty::DarwinPty::new(sys.clone())
                .with_prerequisite(|| reader().as_ref().map(|_| ()).map_err(Clone::clone)),
        ),
        inspector: Arc::new(LibprocInspector::new(sys.clone())),
        verifier: Arc::new(HelperVerifier::new(sys, Arc::new(RunReader))),
        fs: Arc::new(crate::fs::UnixFs),
        diagnose,
        interrupts: Arc::new(HostSignals),
        open_input: crate::fs::open_input,
    }
}

/// SIGINT, SIGTERM and SIGHUP to rea cancel a capture (as on Linux).
struct HostSignals;

impl rea_engine::host::InterruptSource for HostSignals {
    fn listen(&self) -> Result<rea_engine::host::Interrupts, rea_engine::host::HostError> {
        use async_signal::{Signal, Signals};
        use futures_lite::StreamExt;
        use rea_engine::host::InterruptSignal;
        let signals = Signals::new([Signal::Int, Signal::Term, Signal::Hup]).map_err(|source| {
            rea_engine::host::HostError::Io { op: "install the cancellation signal handlers", source }
        })?;
        Ok(rea_engine::host::Interrupts::new(signals.filter_map(|s| match s {
            Ok(Signal::Int) => Some(InterruptSignal::SIGINT),
            Ok(Signal::Term) => Some(InterruptSignal::SIGTERM),
            Ok(Signal::Hup) => Some(InterruptSignal::SIGHUP),
            _ => None,
        })))
    }
}
