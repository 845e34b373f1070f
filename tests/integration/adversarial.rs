//! The adversarial suite: programs that try to outlive their capture.
//!
//! Every shape runs at least [`RUNS`] times, [`POOL`] captures at a time.
//! Each run carries a unique marker in the command line of the processes
//! that try to escape; after `rea` returns, a `/proc` scan for the marker
//! must find nothing alive, and no record may claim `verified`, `quiesced`
//! or `cleaned` while a marked process is alive.
#![cfg(not(feature = "force-stub"))]

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{capture_file_in, rea_bin, wait_for};

/// Runs of each shape.
const RUNS: usize = 20;
/// Captures running at once.
const POOL: usize = 4;

/// Live (non-zombie) processes whose command line contains `marker`.
pub(crate) fn marked_alive(marker: &str) -> Vec<u32> {
    let mut alive = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        if !String::from_utf8_lossy(&cmdline).contains(marker) {
            continue;
        }
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])))
            .unwrap_or(true);
        if !zombie {
            alive.push(pid);
        }
    }
    alive
}

/// Kills what a failed run left (processes this test started), so one
/// failure does not leak into the machine.
pub(crate) fn kill_marked(marker: &str) {
    for _ in 0..50 {
        let alive = marked_alive(marker);
        if alive.is_empty() {
            return;
        }
        for pid in alive {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

struct Shape {
    name: &'static str,
    scenario: fn(&str, &Path) -> Value,
}

fn sh(script: String, timeout_ms: u64) -> Value {
    json!({"executable": "sh", "arguments": ["-c", script], "timeout_ms": timeout_ms})
}

/// A shell word that starts a marked `sleep 1000` through bash, after
/// `prelude`, recording its PID in `started` first (so a run whose marked
/// process never started fails instead of passing vacuously).
pub(crate) fn marked(m: &str, dir: &Path, prelude: &str) -> String {
    format!(r#"/bin/bash -c "{prelude} echo \$\$ >> {}; exec -a {m} /bin/sleep 1000""#, dir.join("started").display())
}

/// Perl that records its PID in `started`.
fn perl_started(dir: &Path) -> String {
    format!(r#"open(my $s, ">>", "{}"); print $s "$$\n"; close $s;"#, dir.join("started").display())
}

/// The five shapes that escaped before lineage, the group kill and the exact
/// final check, and the ten classic escapes.
fn shapes() -> Vec<Shape> {
    vec![
        Shape {
            name: "tokenless-setsid",
            scenario: |m, d| sh(format!("env -i /usr/bin/setsid -f {}; sleep 0.3", marked(m, d, "")), 3000),
        },
        Shape {
            name: "blank-environ-setsid",
            scenario: |m, d| {
                sh(
                    format!(
                        r#"perl -e 'use POSIX; exit 0 if fork; POSIX::setsid(); {} $0 = "{m}" . ("X" x 8000); sleep 1000'; sleep 0.3"#,
                        perl_started(d)
                    ),
                    3000,
                )
            },
        },
        Shape {
            name: "other-token",
            scenario: |m, d| sh(format!("REA_PROCESS_RUN_ID=x {} & sleep 0.3", marked(m, d, "trap '' HUP;")), 3000),
        },
        Shape {
            name: "pid-hopper",
            scenario: |m, dir| {
                let beat = dir.join("heartbeat");
                json!({"executable": "perl", "arguments": ["-e", format!(
                    r#"$SIG{{HUP}}="IGNORE"; $0="{m}"; {} my $end = time + 20; while (time < $end) {{ exit 0 if fork; open(my $f, ">>", "{}"); print $f "x"; close $f; select(undef, undef, undef, 0.002); }}"#,
                    perl_started(dir), beat.display()
                )], "timeout_ms": 2000})
            },
        },
        Shape {
            name: "private-temporary-root",
            scenario: |m, d| {
                sh(format!(r#"stat -c 'mode=%a' "$TMPDIR"/rea-process-*; {} & sleep 0.1"#, marked(m, d, "")), 3000)
            },
        },
        Shape { name: "double-fork", scenario: |m, d| sh(format!("({} &) ; sleep 0.3", marked(m, d, "")), 3000) },
        Shape { name: "setsid", scenario: |m, d| sh(format!("setsid {} & sleep 0.3", marked(m, d, "")), 3000) },
        Shape {
            name: "term-ignorer",
            scenario: |m, d| {
                json!({"executable": "bash", "arguments": ["-c", format!("trap '' TERM; echo $$ >> {}; exec -a {m} sleep 1000", d.join("started").display())],
                       "timeout_ms": 300, "finalization_ms": 100})
            },
        },
        Shape {
            name: "hup-ignorer",
            scenario: |m, d| sh(format!("{} & sleep 0.3", marked(m, d, "trap '' HUP;")), 3000),
        },
        Shape {
            name: "fork-burst",
            scenario: |m, d| sh(format!("for i in $(seq 30); do {} & done; sleep 0.5", marked(m, d, "")), 3000),
        },
        Shape { name: "env-clear", scenario: |m, d| sh(format!("env -i {} & sleep 0.3", marked(m, d, "")), 3000) },
        Shape {
            name: "setpgid",
            scenario: |m, d| {
                sh(format!(r#"perl -e 'setpgrp(0, 0); {} $0 = "{m}"; sleep 1000' & sleep 0.3"#, perl_started(d)), 3000)
            },
        },
        Shape {
            name: "tty-reopen",
            scenario: |m, d| {
                sh(
                    format!(
                        "export T=$(tty); setsid {} </dev/null >/dev/null 2>&1 & sleep 0.3",
                        marked(m, d, r"exec 0<>\$T 1>&0 2>&0;")
                    ),
                    3000,
                )
            },
        },
        Shape {
            name: "nohup-background",
            scenario: |m, d| sh(format!("nohup {} >/dev/null 2>&1 & sleep 0.3", marked(m, d, "")), 3000),
        },
        Shape {
            name: "garbage-flood",
            scenario: |m, d| {
                json!({"executable": "sh", "arguments": ["-c", format!("{} & head -c 209715200 /dev/urandom", marked(m, d, ""))],
                       "timeout_ms": 1500})
            },
        },
    ]
}

/// One capture of one shape; returns a description of what went wrong.
fn run_once(shape: &Shape, run: usize) -> Result<(), String> {
    let marker = format!("REAMARK{}x{}x{}", std::process::id(), shape.name.replace('-', ""), run);
    let dir = tempfile::tempdir().unwrap();
    let scenario = (shape.scenario)(&marker, dir.path());
    std::fs::write(dir.path().join("scenario.json"), scenario.to_string()).unwrap();
    let out = capture_file_in(dir.path(), "scenario.json");
    let alive = marked_alive(&marker);
    let doc: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("stdout is not JSON: {e}"))?;
    let result = &doc["normalized_result"];
    let claims = [
        result["cleanup"]["owned_process_group"] == "verified",
        result["settlement"]["state"] == "quiesced",
        result["settlement"]["cleanup_outcome"] == "cleaned",
        doc["details"]["cleanup"] == "complete",
    ];
    let verdict = if !alive.is_empty() {
        kill_marked(&marker);
        Err(format!("marked processes alive after rea returned: {alive:?} (record claims {claims:?})"))
    } else if out.status.success() && result["cleanup"]["owned_process_group"] != "verified" {
        Err(format!("a successful capture without verified cleanup: {}", result["cleanup"]))
    } else if !out.status.success() {
        Err(format!("rea failed: {}", String::from_utf8_lossy(&out.stdout)))
    } else {
        Ok(())
    };
    verdict?;
    let started = std::fs::read_to_string(dir.path().join("started")).unwrap_or_default();
    if started.trim().is_empty() {
        return Err("no marked process ever started; the run proves nothing".into());
    }
    let tail = crate::util::frames_text(result);
    match shape.name {
        "private-temporary-root" if !tail.contains("mode=700") => Err(format!("temporary root mode: {tail:?}")),
        "pid-hopper" => {
            let beat = dir.path().join("heartbeat");
            let size = || std::fs::metadata(&beat).map(|m| m.len()).unwrap_or(0);
            let before = size();
            std::thread::sleep(Duration::from_millis(100));
            if size() != before { Err("the heartbeat advanced after rea returned".into()) } else { Ok(()) }
        }
        _ => Ok(()),
    }
}

/// Runs `jobs` on a bounded pool; returns the failures.
fn pool(jobs: Vec<(usize, usize)>, shapes: &[Shape]) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..POOL {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(shape, run)) = jobs.get(i) else { return };
                    if let Err(why) = run_once(&shapes[shape], run) {
                        failures.lock().unwrap().push(format!("{} run {run}: {why}", shapes[shape].name));
                    }
                }
            });
        }
    });
    failures.into_inner().unwrap()
}

#[test]
fn nothing_escapes_and_no_record_claims_more_than_it_proved() {
    let shapes = shapes();
    let started = Instant::now();
    // Interleaved, so each shape also runs beside the others.
    let jobs: Vec<(usize, usize)> = (0..RUNS).flat_map(|run| (0..shapes.len()).map(move |s| (s, run))).collect();
    let failures = pool(jobs, &shapes);
    assert!(failures.is_empty(), "{} of {} runs failed:\n{}", failures.len(), RUNS * shapes.len(), failures.join("\n"));
    eprintln!("adversarial suite: {} captures in {:?}", RUNS * shapes.len(), started.elapsed());
}

#[test]
fn rea_inside_rea_leaves_nothing_when_the_inner_rea_is_killed_at_the_deadline() {
    let failures = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..POOL {
            scope.spawn(|| {
                loop {
                    let run = next.fetch_add(1, Ordering::SeqCst);
                    if run >= RUNS {
                        return;
                    }
                    if let Err(why) = nested_once(run) {
                        failures.lock().unwrap().push(format!("run {run}: {why}"));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn nested_once(run: usize) -> Result<(), String> {
    let marker = format!("REAMARK{}xnestedx{run}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let inner = sh(format!("{} & sleep 1000", marked(&marker, dir.path(), "trap '' HUP;")), 60_000);
    std::fs::write(dir.path().join("inner.json"), inner.to_string()).unwrap();
    // Even runs: the outer deadline SIGKILLs the inner rea (no
    // finalization). Odd runs: SIGTERM first, which the inner rea handles
    // as a cancellation, so it also removes its own temporary root.
    let finalization_ms = if run.is_multiple_of(2) { 0 } else { 5000 };
    let outer = json!({"executable": rea_bin(), "arguments": ["capture-process", "inner.json", "--json"],
                       "timeout_ms": 1500, "finalization_ms": finalization_ms});
    std::fs::write(dir.path().join("outer.json"), outer.to_string()).unwrap();
    let out = capture_file_in(dir.path(), "outer.json");
    let alive = marked_alive(&marker);
    if !alive.is_empty() {
        kill_marked(&marker);
        return Err(format!("marked processes alive: {alive:?}"));
    }
    let doc: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("stdout is not JSON: {e}"))?;
    let result = &doc["normalized_result"];
    if !out.status.success() || result["cleanup"]["owned_process_group"] != "verified" {
        return Err(format!("outer capture: {doc}"));
    }
    if std::fs::read_to_string(dir.path().join("started")).unwrap_or_default().trim().is_empty() {
        return Err("the inner capture never started its marked process".into());
    }
    if result["exit"]["reason"] != "timeout" {
        return Err(format!("the inner rea was expected to reach the outer deadline: {}", result["exit"]));
    }
    // A SIGKILLed inner rea leaves its root to its keeper, which removes it
    // while the outer capture settles; a SIGTERMed one removes it itself.
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().map(|e| e.file_name()).collect();
    if !left.is_empty() {
        return Err(format!("temporary roots left by the inner rea (finalization_ms {finalization_ms}): {left:?}"));
    }
    if finalization_ms > 0 {
        let inner_exit = &result["exit"]["finalization"];
        if inner_exit["signals"][0]["signal"] != "SIGTERM" || inner_exit["exit_code"].is_null() {
            return Err(format!("the inner rea did not end on SIGTERM: {inner_exit}"));
        }
    }
    Ok(())
}

#[test]
fn a_sigkilled_rea_takes_the_launched_group_with_it_within_a_second() {
    for run in 0..3 {
        let marker = format!("REAMARK{}xsigkillx{run}", std::process::id());
        let dir = tempfile::tempdir().unwrap();
        let scenario = json!({"executable": "bash", "arguments": ["-c", format!("sleep 1000 & exec -a {marker} sleep 1000")],
                              "timeout_ms": 60_000});
        std::fs::write(dir.path().join("scenario.json"), scenario.to_string()).unwrap();
        let mut child = Command::new(rea_bin())
            .args(["capture-process", "scenario.json", "--json"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut root = None;
        assert!(wait_for(Duration::from_secs(20), || {
            root = marked_alive(&marker).first().copied();
            root.is_some()
        }));
        let root = root.unwrap();
        let group = std::fs::read_to_string(format!("/proc/{root}/stat"))
            .unwrap()
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(2).and_then(|g| g.parse::<u32>().ok()))
            .unwrap();
        // The marker is in bash's command line before it forks the
        // background child and execs; wait until both are there.
        assert!(
            wait_for(Duration::from_secs(20), || group_members(group).len() >= 2),
            "the root and its background child share the group"
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let killed_at = Instant::now();
        let gone = wait_for(Duration::from_secs(1), || group_members(group).is_empty());
        let left = group_members(group);
        for pid in &left {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
        }
        assert!(gone, "group {group} still has {left:?} {:?} after rea was killed", killed_at.elapsed());
    }
}

/// Live members of process group `group`.
fn group_members(group: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.first().is_some_and(|s| *s != "Z" && *s != "X") && fields.get(2) == Some(&group.to_string().as_str())
        {
            members.push(pid);
        }
    }
    members
}
