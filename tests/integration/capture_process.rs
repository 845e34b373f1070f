//! `rea capture-process` on real processes: output, interactions, deadlines,
//! finalization, cancellation and progress.
#![cfg(not(feature = "force-stub"))]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{Capture, capture, capture_in, frames_text, rea_bin, wait_for};

fn result(c: &Capture) -> &Value {
    &c.document["normalized_result"]
}

#[test]
fn a_printing_command_is_captured_with_its_exit() {
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "printf 'ready\\n'"],
        "timeout_ms": 5000
    }));
    assert_eq!(c.status, 0, "stdout: {}", c.stdout);
    let r = result(&c);
    assert_eq!(frames_text(r), "ready\r\n");
    assert_eq!(r["exit"], json!({"code": 0, "signal": 0, "reason": "exited"}));
    assert_eq!(r["settlement"]["state"], "quiesced");
    assert_eq!(r["cleanup"]["owned_process_group"], "verified");
    assert_eq!(r["cleanup"]["temporary_root"], "removed");
    assert_eq!(c.document["predicate_type"], "rea.process-capture/v5");
    let last = c.progress.last().expect("a terminal progress line");
    assert_eq!(last["terminal"], true);
    assert!(last["message"].as_str().unwrap().contains("disposition=exited"), "{last}");
}

#[test]
fn a_sensitive_password_reaches_the_program_and_nothing_else() {
    let secret = "hunter2-Sekr1t";
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "stty -echo; printf 'Password: '; read pw; stty echo; echo; echo \"len=${#pw}\"; echo \"$pw\" > received.txt"],
        // Late enough that the prompt has turned echo off even on a loaded machine.
        "events": [{"type": "input", "at_ms": 1500, "data": format!("{secret}\r"), "sensitive": true}],
        "timeout_ms": 10000
    }));
    assert_eq!(c.status, 0, "stdout: {}", c.stdout);
    let r = result(&c);
    // The program proves it received the secret (its length, and the file it wrote).
    assert!(frames_text(r).contains(&format!("len={}", secret.len())), "{}", frames_text(r));
    assert_eq!(std::fs::read_to_string(c.dir.path().join("received.txt")).unwrap().trim(), secret);
    let redacted = format!("<redacted-input:{}-bytes>", secret.len() + 1);
    assert_eq!(r["interaction_events"][0]["data"], redacted.as_str());
    assert_eq!(r["manifest"]["scenario"]["events"][0]["data"], redacted.as_str());
    assert_eq!(r["manifest"]["comparison_contract"]["events"][0]["data"], redacted.as_str());
    // No byte of stdout or stderr holds the secret, and rea wrote no file.
    assert!(!c.stdout.contains(secret));
    assert!(!c.stderr.contains(secret));
    let mut names: Vec<String> =
        std::fs::read_dir(c.dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["received.txt", "scenario.json", "tmp"]);
    assert_eq!(std::fs::read_dir(c.dir.path().join("tmp")).unwrap().count(), 0, "temporary root left behind");
}

#[test]
fn a_resize_is_seen_and_a_scripted_sigint_ends_the_program() {
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "trap 'stty size' WINCH; echo go; while :; do sleep 0.02; done"],
        "events": [
            {"type": "resize", "at_ms": 1000, "columns": 100, "rows": 30},
            {"type": "signal", "at_ms": 2000, "signal": "SIGINT"}
        ],
        "timeout_ms": 10000
    }));
    assert_eq!(c.status, 0, "stdout: {}", c.stdout);
    let r = result(&c);
    assert!(frames_text(r).contains("30 100\r\n"), "{}", frames_text(r));
    assert_eq!(r["exit"], json!({"code": null, "signal": 2, "reason": "exited"}));
    let events = r["interaction_events"].as_array().unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!((events[0]["type"].as_str(), events[0]["data"].as_str()), (Some("resize"), Some("100x30")));
    assert_eq!((events[1]["type"].as_str(), events[1]["outcome"].as_str()), (Some("signal"), Some("dispatched")));
    assert!(events[1]["dispatched_at_ms"].as_u64().unwrap() >= 2000);
}

#[test]
fn a_timeout_with_finalization_lets_a_term_trap_finish() {
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "trap 'echo finished > final.txt; exit 3' TERM; echo up; while :; do sleep 0.02; done"],
        "timeout_ms": 400,
        "finalization_ms": 5000
    }));
    assert_eq!(c.status, 0, "stdout: {}", c.stdout);
    let r = result(&c);
    assert_eq!(std::fs::read_to_string(c.dir.path().join("final.txt")).unwrap(), "finished\n");
    let exit = &r["exit"];
    assert_eq!(
        (exit["code"].clone(), exit["signal"].clone(), exit["reason"].clone()),
        (Value::Null, json!(0), json!("timeout"))
    );
    let fin = &exit["finalization"];
    assert_eq!(fin["requested_ms"], 5000);
    assert_eq!(fin["exit_code"], 3);
    assert!(fin["elapsed_ms"].as_u64().unwrap() < 5000);
    assert_eq!(fin["signals"], json!([{"signal": "SIGTERM", "sent_at_ms": 0, "delivery": "signaled"}]));
}

#[test]
fn a_program_ignoring_term_gets_exactly_one_sigkill() {
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "trap '' TERM; echo up; while :; do sleep 0.02; done"],
        "timeout_ms": 300,
        "finalization_ms": 400
    }));
    assert_eq!(c.status, 0, "stdout: {}", c.stdout);
    let exit = &result(&c)["exit"];
    assert_eq!((exit["code"].clone(), exit["signal"].clone()), (Value::Null, json!(9)));
    let signals = exit["finalization"]["signals"].as_array().unwrap();
    let names: Vec<&str> = signals.iter().map(|s| s["signal"].as_str().unwrap()).collect();
    assert_eq!(names, ["SIGTERM", "SIGKILL"]);
    assert!(signals.iter().all(|s| s["delivery"] == "signaled"), "{signals:?}");
    let kill_at = signals[1]["sent_at_ms"].as_u64().unwrap();
    assert!((400..5000).contains(&kill_at), "SIGKILL sent at {kill_at} ms, not after the 400 ms interval");
    assert_eq!(exit["finalization"]["exit_code"], Value::Null);
}

#[test]
fn the_idle_timeout_fires_on_silence_but_not_on_a_chatty_program() {
    let silent = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "echo a; exec sleep 30"],
        "timeout_ms": 20000,
        "idle_timeout_ms": 300
    }));
    let exit = &result(&silent)["exit"];
    assert_eq!(
        (exit["reason"].as_str(), exit["signal"].as_i64(), exit["code"].clone()),
        (Some("idle_timeout"), Some(9), Value::Null)
    );
    assert!(exit.get("finalization").is_none(), "no finalization was requested: {exit}");

    let chatty = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "i=0; while [ $i -lt 12 ]; do echo tick; sleep 0.05; i=$((i+1)); done"],
        "timeout_ms": 20000,
        "idle_timeout_ms": 400
    }));
    assert_eq!(result(&chatty)["exit"], json!({"code": 0, "signal": 0, "reason": "exited"}));
    assert_eq!(frames_text(result(&chatty)).matches("tick").count(), 12);
}

#[test]
fn sixty_four_kib_written_just_before_exit_are_never_lost() {
    let expected: String = (0..65536).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    for round in 0..50 {
        let c = capture(json!({
            "executable": "sh",
            "arguments": ["-c", "i=0; s=abcdefghijklmnopqrstuvwxyz; while [ $i -lt 2520 ]; do printf %s $s; i=$((i+1)); done; printf abcdefghijklmnop"],
            "timeout_ms": 20000,
            "normalization": {"paths": false, "pids": false, "ports": false}
        }));
        let text = frames_text(result(&c));
        assert_eq!(text.len(), expected.len(), "round {round}: {} bytes", text.len());
        assert!(text == expected, "round {round}: content differs");
    }
}

#[test]
fn sigint_to_rea_cancels_kills_everything_and_removes_the_temporary_root() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let scenario = json!({
        "executable": "sh",
        "arguments": ["-c", "sleep 60 & echo $! > pids; (setsid sleep 60 & echo $! >> pids); echo $$ >> pids; touch started; sleep 60"],
        "timeout_ms": 120000
    });
    std::fs::write(dir.path().join("s.json"), scenario.to_string()).unwrap();
    let child = Command::new(rea_bin())
        .args(["capture-process", "s.json", "--json"])
        .current_dir(dir.path())
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_for(Duration::from_secs(10), || dir.path().join("started").exists()), "the command never started");
    let pids: Vec<u32> =
        std::fs::read_to_string(dir.path().join("pids")).unwrap().lines().map(|l| l.trim().parse().unwrap()).collect();
    assert_eq!(pids.len(), 3);
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 1, "the private temporary root exists while running");
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["code"], "cancelled");
    assert_eq!(doc["category"], "cancelled");
    assert_eq!(doc["details"]["cleanup"], "complete");
    for pid in pids {
        assert!(!process_alive(pid), "process {pid} survived the cancellation");
    }
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "temporary root left behind");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let last: Value = serde_json::from_str(stderr.lines().last().unwrap()).unwrap();
    assert!(last["rea_progress"]["message"].as_str().unwrap().contains("disposition=cancelled"), "{last}");
}

fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").split_whitespace().next().unwrap_or("");
            state != "Z" && state != "X"
        }
        Err(_) => false,
    }
}

#[test]
fn a_missing_or_non_executable_program_is_a_clear_error_and_leaves_nothing() {
    for (executable, fragment) in [("./no-such-tool", "no-such-tool"), ("./not-exec.sh", "not-exec.sh")] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("not-exec.sh"), "#!/bin/sh\ntouch marker\n").unwrap();
        let c = capture_in(dir, json!({ "executable": executable, "timeout_ms": 1000 }));
        assert_eq!(c.status, 1, "{executable}: {}", c.stdout);
        assert!(c.document["message"].as_str().unwrap().contains(fragment), "{}", c.document);
        assert_eq!(c.document["category"], "invalid_input");
        assert_eq!(std::fs::read_dir(c.dir.path().join("tmp")).unwrap().count(), 0);
        assert!(c.stderr.is_empty(), "{}", c.stderr);
        assert!(!c.dir.path().join("marker").exists());
    }
}

#[test]
fn progress_lines_are_rate_limited_and_sequenced() {
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "i=0; while [ $i -lt 40 ]; do echo line $i; sleep 0.02; i=$((i+1)); done"],
        "timeout_ms": 20000
    }));
    assert_eq!(c.status, 0);
    assert!(c.progress.len() >= 3, "{:?}", c.progress);
    let mut previous_elapsed: Option<u64> = None;
    let mut previous_completed = 0;
    for (i, p) in c.progress.iter().enumerate() {
        assert_eq!(p["sequence"], i as u64 + 1);
        assert_eq!(p["total"], Value::Null);
        let completed = p["completed"].as_u64().unwrap();
        assert!(completed >= previous_completed);
        previous_completed = completed;
        let message = p["message"].as_str().unwrap();
        let elapsed: u64 = message.strip_prefix("elapsed_ms=").unwrap().split(' ').next().unwrap().parse().unwrap();
        if i + 1 < c.progress.len() {
            assert_eq!(p.get("terminal"), None);
            if let Some(prev) = previous_elapsed {
                assert!(elapsed >= prev + 100, "intermediate lines closer than 100 ms: {prev} then {elapsed}");
            }
            previous_elapsed = Some(elapsed);
        }
        assert!(["prepare", "running", "settling", "cleanup"].contains(&p["phase"].as_str().unwrap()));
    }
}

#[test]
fn the_example_scenario_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(rea_bin())
        .args(["capture-process", "examples/hello.json", "--json"])
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(frames_text(&doc["normalized_result"]).contains("hello from rea"));
}

#[test]
fn a_process_that_drops_the_token_is_still_owned_through_its_session() {
    // `env -i` clears the environment, token included; `trap '' HUP` keeps
    // the process alive when the session leader exits. Only membership of
    // the launched session (and descent from rea) proves it is owned.
    let c = capture(json!({
        "executable": "sh",
        // The root exits only once the child ignores SIGHUP (it writes its
        // PID after the trap), so the session hang-up cannot kill it first.
        "arguments": ["-c", "sh -c 'trap \"\" HUP; echo $$ > tokenless.pid; exec env -i /bin/sleep 60' & while [ ! -s tokenless.pid ]; do sleep 0.01; done; exit 0"],
        "settle_ms": 200,
        "timeout_ms": 10000
    }));
    assert_eq!(c.status, 0, "{}", c.stdout);
    let pid: u32 = std::fs::read_to_string(c.dir.path().join("tokenless.pid")).unwrap().trim().parse().unwrap();
    let r = result(&c);
    assert_eq!(r["settlement"]["state"], "alive_at_deadline");
    assert_eq!(r["settlement"]["cleanup_outcome"], "cleaned");
    assert_eq!(r["cleanup"]["owned_process_group"], "verified");
    assert!(!process_alive(pid), "the tokenless descendant {pid} survived cleanup");
}

#[test]
fn an_unread_input_does_not_hold_back_the_deadline() {
    // In raw mode the terminal keeps unread input and stops accepting more
    // (about 68 KiB), so the largest input a scenario may hold (256 KiB in
    // 4 KiB events) cannot all be written to a program that never reads. (In
    // canonical mode the line discipline discards what it cannot hold.)
    let events: Vec<Value> =
        (0..64).map(|_| json!({"type": "input", "at_ms": 300, "data": "a".repeat(4096)})).collect();
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "stty raw -echo; exec sleep 60"],
        "events": events,
        "timeout_ms": 1500,
        "settle_ms": 0
    }));
    assert_eq!(c.status, 0, "{}", c.stdout);
    let r = result(&c);
    assert_eq!((r["exit"]["reason"].as_str(), r["exit"]["signal"].as_i64()), (Some("timeout"), Some(9)));
    let event = &r["interaction_events"][63];
    assert_eq!(event["outcome"], "target_exited", "the write could not have completed");
    assert_eq!(event["data"], "<not-dispatched>");
}

#[test]
fn a_silent_program_still_gets_heartbeat_progress() {
    let c = capture(json!({"executable": "sleep", "arguments": ["2.5"], "timeout_ms": 10000}));
    assert_eq!(c.status, 0, "{}", c.stdout);
    let running = c.progress.iter().filter(|p| p["phase"] == "running").count();
    assert!(running >= 2, "expected a progress line about every second, got {:?}", c.progress);
}

/// TOON, the default output, is written as the typed record is serialized:
/// it is exactly what the reference encoder makes of the document it
/// decodes to, and that document is a sealed capture (its identity
/// verifies when it is read back).
#[test]
fn the_default_toon_output_is_the_reference_encoding_of_the_capture() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).expect("create tmp");
    let scenario = json!({
        "executable": "sh",
        "arguments": ["-c", "printf 'héllo, 世界: \"q\" \\t- 12\\n'; read line; printf 'got %s\\n' \"$line\"; printf 'true'"],
        "events": [{"type": "input", "at_ms": 300, "data": "a,b: [c]\r"}],
        "normalization": {"patterns": [{"pattern": "got", "replacement": "GOT"}]},
        "timeout_ms": 10000
    });
    std::fs::write(dir.path().join("scenario.json"), scenario.to_string()).expect("write scenario");
    let out = Command::new(rea_bin())
        .args(["capture-process", "scenario.json"])
        .current_dir(dir.path())
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .output()
        .expect("run rea");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let value: Value = toon_format::decode_default(&text).unwrap_or_else(|e| panic!("not TOON ({e}): {text}"));
    assert_eq!(value["predicate_type"], "rea.process-capture/v5");
    assert!(frames_text(&value["normalized_result"]).contains("got a,b: [c]"), "{text}");
    assert_eq!(toon_format::encode_default(&value).expect("reference TOON") + "\n", text);
    std::fs::write(dir.path().join("capture.toon"), &text).expect("write capture");
    let same = crate::util::rea(dir.path(), &["compare-process-captures", "capture.toon", "capture.toon", "--json"]);
    assert_eq!(same.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&same.stderr));
}
