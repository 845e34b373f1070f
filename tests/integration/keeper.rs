//! Nothing outlives `rea`, whatever kills it (issue 23): a SIGKILLed
//! `rea capture-process` or `rea mcp` leaves no process and no temporary
//! root within a second, because the keeper holds the tree; and a process
//! whose main thread exited while another thread runs is alive, so it is
//! killed like any other, as a descendant and as the launched process.
#![cfg(not(feature = "force-stub"))]

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::adversarial::{kill_marked, marked, marked_alive};
use crate::util::{capture_file_in, rea_bin, wait_for};

/// Runs of each shape.
const RUNS: usize = 3;
/// How long after `rea`'s death everything must be gone.
const GONE_WITHIN: Duration = Duration::from_secs(1);

/// Drops its controlling terminal with `TIOCNOTTY`, records its PID in
/// `argv[2]`, and becomes a `sleep` named `argv[1]`.
const NOTTY: &str = r#"import fcntl, os, sys, termios
fd = os.open("/dev/tty", os.O_RDWR)
fcntl.ioctl(fd, termios.TIOCNOTTY)
os.close(fd)
with open(sys.argv[2], "a") as f:
    f.write(f"{os.getpid()}\n")
os.execv("/bin/sleep", [sys.argv[1], "1000"])
"#;

/// Ignores SIGHUP, SIGTERM and SIGINT, starts a thread, and ends its main thread
/// with `pthread_exit`: `/proc/PID/stat` then says `Z` while the process
/// lives on. The thread records the PID in `argv[2]` once the leader shows
/// `Z`, then sleeps. `argv[1]` is the run's marker.
const ZOMBIE_LEADER: &str = r#"import ctypes, os, signal, sys, threading, time
for s in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
    signal.signal(s, signal.SIG_IGN)
def live():
    while open("/proc/self/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.005)
    with open(sys.argv[2], "a") as f:
        f.write(f"{os.getpid()}\n")
    time.sleep(1000)
threading.Thread(target=live).start()
ctypes.CDLL(None).pthread_exit(None)
"#;

/// A daemon shape: a name and the script that starts it (as a marked
/// process that records its PID in `started`), then waits.
type Shape = (&'static str, fn(&str, &Path) -> String);

fn notty(m: &str, dir: &Path) -> String {
    format!("python3 {} {m} {}", dir.join("notty.py").display(), dir.join("started").display())
}

fn shapes() -> Vec<Shape> {
    vec![
        ("hupignorer", |m, d| format!("{} & sleep 1000", marked(m, d, "trap '' HUP;"))),
        ("setsiddaemon", |m, d| format!("/usr/bin/setsid -f {}; sleep 1000", marked(m, d, ""))),
        ("nohupchild", |m, d| format!("nohup {} >/dev/null 2>&1 & sleep 1000", marked(m, d, ""))),
        ("tiocnotty", |m, d| format!("{} & sleep 1000", notty(m, d))),
        // A traced thread-group leader that ended never stops again: the
        // keeper's clean-up must not wait for it (issue 32).
        ("zombieleader", |m, d| {
            format!("python3 {} {m} {} & sleep 1000", d.join("zl.py").display(), d.join("started").display())
        }),
        ("allfour", |m, d| {
            format!(
                "{} & /usr/bin/setsid -f {}; nohup {} >/dev/null 2>&1 & {} & sleep 1000",
                marked(m, d, "trap '' HUP;"),
                marked(m, d, ""),
                marked(m, d, ""),
                notty(m, d)
            )
        }),
    ]
}

/// How many marked processes a shape starts.
fn expected(name: &str) -> usize {
    if name == "allfour" { 4 } else { 1 }
}

/// The `rea-process-*` roots under `tmp`.
fn roots(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .map(|entries| entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

fn started(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("started")).unwrap_or_default().lines().count()
}

/// Whether `pid` is alive (neither gone nor a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')').map(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])))
        .unwrap_or(false)
}

/// The processes marked `marker` with a live thread (a process whose
/// leader ended while another thread runs is alive too; its command line
/// is read through a live thread, as the leader's memory is gone).
fn live(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten();
        if tasks.into_iter().any(|t| {
            let alive = std::fs::read_to_string(t.path().join("stat"))
                .ok()
                .and_then(|s| s.rsplit_once(')').map(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])))
                .unwrap_or(false);
            alive
                && String::from_utf8_lossy(&std::fs::read(t.path().join("cmdline")).unwrap_or_default())
                    .contains(marker)
        }) {
            out.push(pid);
        }
    }
    out
}

/// Kills what a failed run left, zombie-leader processes included.
fn kill_live(marker: &str) {
    for pid in live(marker) {
        let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    }
    kill_marked(marker);
}

/// The keepers among `rea`'s children.
fn keepers_of(rea: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{rea}/task")).into_iter().flatten().flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for child in children.split_whitespace().filter_map(|c| c.parse::<u32>().ok()) {
            let cmdline = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains("__rea-keeper") {
                out.push(child);
            }
        }
    }
    out
}

/// Starts `rea capture-process` on `scenario` in `dir`, `dir/tmp` as TMPDIR.
fn start_capture(dir: &Path, scenario: &Value) -> (Child, Option<std::process::ChildStdin>) {
    std::fs::write(dir.join("scenario.json"), scenario.to_string()).unwrap();
    let child = Command::new(rea_bin())
        .args(["capture-process", "scenario.json", "--json"])
        .current_dir(dir)
        .env("TMPDIR", dir.join("tmp"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (child, None)
}

/// Starts `rea mcp` in `dir` and asks it to capture `scenario`; standard
/// input stays open (closing it would end the session and its capture).
fn start_mcp(dir: &Path, scenario: &Value) -> (Child, Option<std::process::ChildStdin>) {
    let mut child = Command::new(rea_bin())
        .arg("mcp")
        .current_dir(dir)
        .env("TMPDIR", dir.join("tmp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
               "capabilities": {}, "clientInfo": {"name": "rea-test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "capture_process_scenario", "arguments": scenario}}),
    ];
    for message in messages {
        writeln!(stdin, "{message}").unwrap();
    }
    (child, Some(stdin))
}

type Starter = fn(&Path, &Value) -> (Child, Option<std::process::ChildStdin>);

/// One SIGKILL of `rea` mid-capture of one shape; what went wrong, if anything.
fn killed_once(shape: &Shape, run: usize, start: Starter, via: &str) -> Result<(), String> {
    let (name, script) = shape;
    let marker = format!("REAKEEP{}x{via}x{name}x{run}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(dir.path().join("notty.py"), NOTTY).unwrap();
    std::fs::write(dir.path().join("zl.py"), ZOMBIE_LEADER).unwrap();
    let scenario = json!({"executable": "sh", "arguments": ["-c", script(&marker, dir.path())], "timeout_ms": 60_000});
    let (mut rea, stdin) = start(dir.path(), &scenario);
    let want = expected(name);
    let ready = wait_for(Duration::from_secs(30), || {
        started(dir.path()) >= want && live(&marker).len() > want && !roots(&tmp).is_empty()
    });
    let keepers = keepers_of(rea.id());
    rea.kill().unwrap();
    rea.wait().unwrap();
    let killed_at = Instant::now();
    drop(stdin);
    if !ready {
        kill_live(&marker);
        return Err(format!("the shape never started: {} of {want} recorded", started(dir.path())));
    }
    if keepers.is_empty() {
        kill_live(&marker);
        return Err("rea had no keeper child".into());
    }
    let gone = wait_for(GONE_WITHIN, || {
        live(&marker).is_empty() && roots(&tmp).is_empty() && !keepers.iter().any(|k| alive(*k))
    });
    if gone {
        return Ok(());
    }
    let (left, kept, keepers_alive) =
        (live(&marker), roots(&tmp), keepers.iter().filter(|k| alive(**k)).collect::<Vec<_>>());
    kill_live(&marker);
    Err(format!(
        "{:?} after rea was killed: processes {left:?}, temporary roots {kept:?}, keepers alive {keepers_alive:?}",
        killed_at.elapsed()
    ))
}

fn every_shape_killed(start: Starter, via: &str) {
    let mut failures = Vec::new();
    for run in 0..RUNS {
        for shape in shapes() {
            if let Err(why) = killed_once(&shape, run, start, via) {
                failures.push(format!("{} run {run}: {why}", shape.0));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_sigkilled_capture_leaves_no_daemon_and_no_temporary_root_within_a_second() {
    every_shape_killed(start_capture, "cli");
}

#[test]
fn a_sigkilled_mcp_server_leaves_no_daemon_and_no_temporary_root_within_a_second() {
    every_shape_killed(start_mcp, "mcp");
}

/// Captures `scenario` in a fresh directory holding the zombie-leader helper.
fn capture_zombie_leader(marker: &str, scenario: impl FnOnce(&Path) -> Value) -> (Value, Duration, usize) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("zl.py"), ZOMBIE_LEADER).unwrap();
    std::fs::write(dir.path().join("scenario.json"), scenario(dir.path()).to_string()).unwrap();
    let began = Instant::now();
    let out = capture_file_in(dir.path(), "scenario.json");
    let took = began.elapsed();
    let left = marked_alive(marker);
    kill_marked(marker);
    assert!(left.is_empty(), "the zombie-leader process survived the capture: {left:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    (doc, took, started(dir.path()))
}

#[test]
fn a_zombie_leader_descendant_is_killed_and_reaped() {
    for run in 0..RUNS {
        let marker = format!("REAKEEP{}xzldescx{run}", std::process::id());
        let (doc, _, started) = capture_zombie_leader(&marker, |d| {
            let helper = format!("python3 {} {marker} {}", d.join("zl.py").display(), d.join("started").display());
            let wait = format!("while [ ! -s {} ]; do sleep 0.01; done", d.join("started").display());
            json!({"executable": "sh", "arguments": ["-c", format!("{helper} & {wait}")], "timeout_ms": 30_000,
                   "settle_ms": 100})
        });
        assert_eq!(started, 1, "the helper never reached the zombie-leader state");
        let result = &doc["normalized_result"];
        assert_eq!(result["cleanup"]["owned_process_group"], "verified", "{doc}");
        assert_ne!(result["settlement"]["state"], "quiesced", "a live zombie leader was taken for gone: {doc}");
    }
}

#[test]
fn a_zombie_leader_launched_process_gets_the_deadline_sigkill() {
    for run in 0..RUNS {
        let marker = format!("REAKEEP{}xzlrootx{run}", std::process::id());
        let (doc, took, started) = capture_zombie_leader(&marker, |d| {
            json!({"executable": "python3", "arguments": [d.join("zl.py"), marker, d.join("started")],
                   "timeout_ms": 1500, "finalization_ms": 200})
        });
        assert_eq!(started, 1, "the helper never reached the zombie-leader state");
        let result = &doc["normalized_result"];
        assert_eq!(result["exit"]["reason"], "timeout", "{doc}");
        let signals = result["exit"]["finalization"]["signals"].as_array().cloned().unwrap_or_default();
        let kill = signals.iter().find(|s| s["signal"] == "SIGKILL");
        assert!(kill.is_some_and(|k| k["delivery"] == "signaled"), "no SIGKILL was delivered: {signals:?}");
        assert_eq!(result["cleanup"]["owned_process_group"], "verified", "{doc}");
        assert!(took < Duration::from_secs(6), "the capture took {took:?}: the deadline SIGKILL came late");
    }
}
