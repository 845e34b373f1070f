//! Minimal, allocation-light readers of `/proc/<pid>/{stat,cmdline,environ}`
//! and `/proc/<pid>/task/<tid>/children`.
//!
//! Each reader distinguishes "the process is gone" (`Ok(None)`) from a real
//! failure (`Err`), because sampling and cleanup treat them differently: an
//! exit race is expected, a denied read is evidence.

use std::io::{self, Read};
use std::path::PathBuf;

use rea_engine::host::{Pid, ProcessRow, StartTime};

/// The fields of `/proc/<pid>/stat` rea uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    pub(crate) pid: u32,
    pub(crate) state: u8,
    pub(crate) ppid: u32,
    pub(crate) pgrp: u32,
    pub(crate) session: u32,
    pub(crate) starttime: u64,
}

/// Whether a `/proc` state letter is a zombie or a dead task.
fn is_dead_state(state: u8) -> bool {
    matches!(state, b'Z' | b'X' | b'x')
}

impl Stat {
    /// Whether the process has exited: its leader is a zombie (or dead) and
    /// so is every other thread. A leader that called `pthread_exit` shows
    /// `Z` in `/proc/<pid>/stat` while its other threads still run; such a
    /// process is alive, and is signalled, killed and reaped like any other.
    pub(crate) fn exited(&self) -> bool {
        is_dead_state(self.state) && !any_thread_alive(self.pid)
    }
}

/// Whether any thread of `pid` other than its leader is neither a zombie nor
/// dead (`/proc/<pid>/task/<tid>/stat`). A process that is gone has none.
fn any_thread_alive(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(proc_path(pid, "task")) else { return false };
    tasks.flatten().any(|task| {
        let Some(tid) = task.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { return false };
        if tid == pid {
            return false;
        }
        match read_file(pid, &format!("task/{tid}/stat"), 4096) {
            Ok(Some(bytes)) => parse_stat(&bytes).is_some_and(|st| !is_dead_state(st.state)),
            // A thread whose status cannot be read may be alive.
            Err(e) => !is_gone(&e),
            Ok(None) => false,
        }
    })
}

/// Whether an error means the process no longer exists.
pub(crate) fn is_gone(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(libc::ENOENT) | Some(libc::ESRCH))
}

fn proc_path(pid: u32, tail: &str) -> PathBuf {
    PathBuf::from(format!("/proc/{pid}/{tail}"))
}

/// `Ok(None)` for an error that says the process is gone.
fn unless_gone<T>(result: io::Result<T>) -> io::Result<Option<T>> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(e) if is_gone(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads a whole small proc file; `Ok(None)` when the process is gone.
pub(crate) fn read_file(pid: u32, tail: &str, limit: usize) -> io::Result<Option<Vec<u8>>> {
    let Some(file) = unless_gone(std::fs::File::open(proc_path(pid, tail)))? else { return Ok(None) };
    let mut buf = Vec::with_capacity(512);
    Ok(unless_gone(file.take(limit as u64).read_to_end(&mut buf))?.map(|_| buf))
}

/// Reads `/proc/<pid>/stat` or `/proc/<pid>/cmdline` (at most `limit`
/// bytes); `Ok(None)` when the process is gone. Both hand over everything
/// they have up to the size asked for (`stat` is one record, `cmdline` is
/// copied page by page until the size is reached), so a first read shorter
/// than the buffer is the whole file: one read instead of the two of
/// [`read_file`] (the tracer reads both files for every traced process).
/// Not for `seq_file` lists such as `children`, whose reads can stop short
/// at a page.
fn read_record(pid: u32, tail: &str, limit: usize) -> io::Result<Option<Vec<u8>>> {
    let Some(mut file) = unless_gone(std::fs::File::open(proc_path(pid, tail)))? else { return Ok(None) };
    let first = limit.min(4096);
    let mut buf = vec![0; first];
    let read = loop {
        match file.read(&mut buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            result => break unless_gone(result)?,
        }
    };
    let Some(read) = read else { return Ok(None) };
    buf.truncate(read);
    if read == first && unless_gone(file.take((limit - read) as u64).read_to_end(&mut buf))?.is_none() {
        return Ok(None);
    }
    Ok(Some(buf))
}

/// Parses the text of `/proc/<pid>/stat`. Fields are counted after the last
/// `)`, because the command name in parentheses may contain spaces and `)`.
pub(crate) fn parse_stat(text: &[u8]) -> Option<Stat> {
    let open = text.iter().position(|&b| b == b'(')?;
    let close = text.iter().rposition(|&b| b == b')')?;
    let pid: u32 = std::str::from_utf8(&text[..open]).ok()?.trim().parse().ok()?;
    let rest = std::str::from_utf8(text.get(close + 1..)?).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let state = *fields.next()?.as_bytes().first()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    let session = fields.next()?.parse().ok()?;
    // After session: tty_nr tpgid flags minflt cminflt majflt cmajflt utime
    // stime cutime cstime priority nice num_threads itrealvalue starttime.
    let starttime = fields.nth(15)?.parse().ok()?;
    Some(Stat { pid, state, ppid, pgrp, session, starttime })
}

/// Reads and parses `/proc/<pid>/stat`.
pub(crate) fn stat(pid: u32) -> io::Result<Option<Stat>> {
    match read_record(pid, "stat", 4096)? {
        None => Ok(None),
        Some(bytes) => parse_stat(&bytes)
            .map(Some)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("/proc/{pid}/stat is not parseable"))),
    }
}

/// Reads `/proc/<pid>/cmdline` as text, NUL separators joined by spaces.
pub(crate) fn cmdline(pid: u32) -> io::Result<Option<String>> {
    Ok(read_record(pid, "cmdline", 64 * 1024)?.map(|bytes| {
        let text = String::from_utf8_lossy(&bytes);
        text.split('\0').filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
    }))
}

/// The kernel's `PF_FORKNOEXEC` task flag: set at fork, cleared by the
/// first `exec` (and kept by the zombie, whose `stat` still shows it).
const PF_FORKNOEXEC: u64 = 0x40;

/// What a process's `stat` says about its image, read while it is stopped
/// or a zombie: its state letter, whether it ever completed an `exec`
/// since its fork, and its name (`comm`); `None` when it is gone or the
/// file is unreadable.
pub(crate) struct Image {
    pub(crate) state: u8,
    pub(crate) exec_done: bool,
    pub(crate) name: String,
}

/// Reads [`Image`] from `/proc/<pid>/stat` (the flags are the ninth field).
pub(crate) fn image(pid: u32) -> Option<Image> {
    let text = read_record(pid, "stat", 4096).ok().flatten()?;
    let open = text.iter().position(|&b| b == b'(')?;
    let close = text.iter().rposition(|&b| b == b')')?;
    let name = String::from_utf8_lossy(text.get(open + 1..close)?).into_owned();
    let mut fields = std::str::from_utf8(text.get(close + 1..)?).ok()?.split_ascii_whitespace();
    let state = *fields.next()?.as_bytes().first()?;
    // After state: ppid pgrp session tty_nr tpgid flags.
    let flags: u64 = fields.nth(5)?.parse().ok()?;
    Some(Image { state, exec_done: flags & PF_FORKNOEXEC == 0, name })
}

/// Whether the task `tid` of process `pid` is dead (a zombie, or gone): a
/// thread-group leader that ended while other threads run is such a task,
/// and never stops again.
pub(crate) fn task_dead(pid: u32, tid: u32) -> bool {
    match read_file(pid, &format!("task/{tid}/stat"), 4096) {
        Ok(Some(bytes)) => parse_stat(&bytes).is_some_and(|st| is_dead_state(st.state)),
        Ok(None) => true,
        Err(_) => false,
    }
}

/// What `/proc/<pid>/environ` says about a variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EnvLookup {
    /// The variable has this value.
    Found(Vec<u8>),
    /// The environment is readable and lacks the variable.
    Absent,
    /// The process is gone.
    Gone,
}

/// Looks `name` up in a process's initial environment.
pub(crate) fn environ_lookup(pid: u32, name: &str) -> io::Result<EnvLookup> {
    let Some(bytes) = read_file(pid, "environ", 4 * 1024 * 1024)? else { return Ok(EnvLookup::Gone) };
    let prefix = format!("{name}=");
    for entry in bytes.split(|&b| b == 0) {
        if let Some(value) = entry.strip_prefix(prefix.as_bytes()) {
            return Ok(EnvLookup::Found(value.to_vec()));
        }
    }
    Ok(EnvLookup::Absent)
}

/// Children of every thread of `pid`, sorted and deduplicated.
pub(crate) fn children(pid: u32) -> io::Result<Option<Vec<u32>>> {
    let tasks = match std::fs::read_dir(proc_path(pid, "task")) {
        Ok(t) => t,
        Err(e) if is_gone(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for task in tasks {
        let task = match task {
            Ok(t) => t,
            Err(e) if is_gone(&e) => continue,
            Err(e) => return Err(e),
        };
        let Some(tid) = task.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        match read_file(pid, &format!("task/{tid}/children"), 1024 * 1024)? {
            None => continue,
            Some(bytes) => {
                out.extend(
                    std::str::from_utf8(&bytes)
                        .unwrap_or("")
                        .split_ascii_whitespace()
                        .filter_map(|s| s.parse::<u32>().ok()),
                );
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(Some(out))
}

/// Builds a process row; `Ok(None)` when the process vanished meanwhile.
pub(crate) fn row(pid: u32) -> io::Result<Option<ProcessRow>> {
    let Some(st) = stat(pid)? else { return Ok(None) };
    let command = match cmdline(pid)? {
        Some(c) => c,
        None => return Ok(None),
    };
    Ok(Some(to_row(&st, command)))
}

/// Converts a stat record to the engine's row.
pub(crate) fn to_row(st: &Stat, command: String) -> ProcessRow {
    ProcessRow {
        pid: Pid(st.pid),
        parent: Pid(st.ppid),
        group: Pid(st.pgrp),
        session: Pid(st.session),
        start: StartTime(st.starttime),
        zombie: st.exited(),
        command,
    }
}

/// Every numeric entry of `/proc`.
pub(crate) fn all_pids() -> io::Result<Vec<u32>> {
    let mut pids: Vec<u32> = std::fs::read_dir("/proc")?
        .filter_map(|e| e.ok().and_then(|e| e.file_name().to_str().and_then(|s| s.parse().ok())))
        .collect();
    pids.sort_unstable();
    Ok(pids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_tells_a_fork_that_did_not_exec_from_one_that_did() {
        let me = image(std::process::id()).expect("own stat");
        assert!(me.exec_done, "this test process was exec'd");
        assert_eq!(me.name, std::fs::read_to_string("/proc/self/comm").unwrap().trim_end());
        // A subshell that runs two commands is a fork that never exec'd.
        let mut sh = std::process::Command::new("sh")
            .args(["-c", "(sleep 2; :) & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start sh");
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(sh.stdout.take().unwrap()), &mut line).unwrap();
        let subshell: u32 = line.trim().parse().expect("the subshell's PID");
        let forked = image(subshell).expect("the subshell's stat");
        let exec_d = image(sh.id()).expect("sh's stat");
        let _ = std::process::Command::new("kill").arg(subshell.to_string()).status();
        let _ = sh.kill();
        let _ = sh.wait();
        assert!(!forked.exec_done, "a fork that never exec'd shows PF_FORKNOEXEC");
        assert!(exec_d.exec_done, "sh was exec'd");
        assert_eq!(forked.name, exec_d.name);
    }

    #[test]
    fn stat_with_spaces_and_parens_in_the_name() {
        let text = b"4242 (a) b) c) S 1 4242 4242 34816 4242 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100";
        let st = parse_stat(text).unwrap();
        assert_eq!(st, Stat { pid: 4242, state: b'S', ppid: 1, pgrp: 4242, session: 4242, starttime: 987654 });
    }

    #[test]
    fn own_stat_matches_std() {
        let me = std::process::id();
        let st = stat(me).unwrap().unwrap();
        assert_eq!(st.pid, me);
        assert!(st.starttime > 0);
        assert!(!st.exited());
    }

    /// Python whose main thread calls `pthread_exit` while another runs.
    const ZOMBIE_LEADER: &str = "import ctypes, threading, time\n\
        threading.Thread(target=lambda: time.sleep(1000)).start()\n\
        ctypes.CDLL(None).pthread_exit(None)\n";

    #[test]
    fn a_zombie_leader_with_a_live_thread_is_alive() {
        let mut child = std::process::Command::new("python3").args(["-c", ZOMBIE_LEADER]).spawn().unwrap();
        let pid = child.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let leader_zombie = loop {
            let st = stat(pid).unwrap().unwrap();
            if st.state == b'Z' || std::time::Instant::now() >= deadline {
                break st;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert_eq!(leader_zombie.state, b'Z', "the leader never exited its thread");
        assert!(!leader_zombie.exited(), "a process with a live thread was taken for dead");
        assert!(!row(pid).unwrap().unwrap().zombie);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(stat(pid).unwrap().is_none());
    }

    #[test]
    fn command_lines_around_the_first_read_and_over_the_limit_are_read_whole_or_cut_at_the_limit() {
        const SCRIPT: &str = "read x; :";
        // The bytes before the padding argument: "sh\0-c\0read x; :\0_\0".
        let head = 3 + 3 + SCRIPT.len() + 1 + 2;
        for total in [100, 4095, 4096, 4097, 8192, 70_000] {
            let padding = "a".repeat(total - head - 1);
            let mut child = std::process::Command::new("sh")
                .args(["-c", SCRIPT, "_", &padding])
                .stdin(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let pid = child.id();
            let mut expected = format!("sh\0-c\0{SCRIPT}\0_\0{padding}\0").into_bytes();
            assert_eq!(expected.len(), total);
            expected.truncate(64 * 1024);
            // Until the child's exec, its command line is this test's.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            let read = loop {
                let read = read_record(pid, "cmdline", 64 * 1024).unwrap().unwrap();
                if read.starts_with(b"sh\0") || std::time::Instant::now() >= deadline {
                    break read;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            };
            assert!(read == expected, "{total} bytes: read {} bytes, expected {}", read.len(), expected.len());
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    #[test]
    fn environ_finds_a_variable_of_this_process() {
        // PATH is set for cargo test runs.
        assert!(matches!(environ_lookup(std::process::id(), "PATH").unwrap(), EnvLookup::Found(_)));
        assert_eq!(environ_lookup(std::process::id(), "REA_SURELY_NOT_SET_X").unwrap(), EnvLookup::Absent);
    }
}
