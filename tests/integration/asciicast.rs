//! `rea export-asciicast`: a capture of a curses-style program (screen
//! clearing, cursor addressing, in-place updates, SGR) exported and played
//! by the asciinema command-line player.
#![cfg(not(feature = "force-stub"))]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::tools::require;
use crate::util::{capture, frames_text, rea, wait_for};

/// Draws a title, counts to 3 in place, asks for a key, and overwrites the
/// prompt with the answer.
fn curses_style_scenario() -> Value {
    let script = concat!(
        r"printf '\033[2J\033[H\033[1;7m rea demo \033[0m\n'; ",
        r"for i in 1 2 3; do printf '\033[5;10HCount: %s' $i; sleep 0.05; done; ",
        r"printf '\033[7;10HPress a key: '; read k; ",
        r#"printf '\033[7;10H\033[2KGot \033[32m%s\033[0m\033[9;1H' "$k""#,
    );
    json!({
        "executable": "sh",
        "arguments": ["-c", script],
        "events": [
            {"type": "resize", "at_ms": 300, "columns": 80, "rows": 24},
            {"type": "input", "at_ms": 400, "data": "x\r"}
        ],
        "timeout_ms": 10000
    })
}

/// The screen the program leaves, as tmux shows it (trailing spaces trimmed).
const FINAL_SCREEN: [&str; 7] = [" rea demo", "", "", "", "         Count: 3", "", "         Got x"];

/// Plays `command` in a detached 80x24 tmux pane on a private server and
/// returns the pane's text once `command` has finished.
pub(crate) struct Tmux {
    socket: String,
    tmux: std::path::PathBuf,
}

impl Tmux {
    pub(crate) fn new(tmux: std::path::PathBuf) -> Tmux {
        Tmux { socket: format!("rea-test-{}", std::process::id()), tmux }
    }

    pub(crate) fn screen_after(&self, session: &str, command: &str, dir: &Path) -> Vec<String> {
        let done = dir.join(format!("{session}.done"));
        let shell = format!("{command}; touch '{}'; sleep 600", done.display());
        let status = Command::new(&self.tmux)
            .args(["-L", &self.socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-s", session])
            .arg(shell)
            .current_dir(dir)
            .stdin(Stdio::null())
            .status()
            .expect("run tmux");
        assert!(status.success(), "tmux new-session failed");
        assert!(wait_for(Duration::from_secs(60), || done.exists()), "{command} did not finish in tmux");
        let out = Command::new(&self.tmux)
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", session])
            .output()
            .expect("tmux capture-pane");
        let text = String::from_utf8(out.stdout).expect("pane text is UTF-8");
        let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_owned()).collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new(&self.tmux).args(["-L", &self.socket, "kill-server"]).output();
    }
}

#[test]
fn an_exported_capture_plays_in_asciinema_with_the_captured_text_and_screen() {
    let cap = capture(curses_style_scenario());
    assert_eq!(cap.status, 0, "{}", cap.stdout);
    let dir = cap.dir.path();
    let record = &cap.document["normalized_result"];
    std::fs::write(dir.join("capture.json"), &cap.stdout).unwrap();
    let out = rea(dir, &["export-asciicast", "capture.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let cast = String::from_utf8(out.stdout).unwrap();
    std::fs::write(dir.join("capture.cast"), &cast).unwrap();

    // The file itself: a v2 header of the terminal's size, then events whose
    // output is exactly the capture's.
    let lines: Vec<Value> = cast.lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    assert_eq!(lines[0]["version"], 2);
    assert_eq!((lines[0]["width"].as_u64(), lines[0]["height"].as_u64()), (Some(80), Some(24)));
    assert_eq!(lines[0]["env"]["TERM"], "xterm-256color");
    let output: String = lines[1..].iter().filter(|e| e[1] == "o").map(|e| e[2].as_str().unwrap()).collect();
    let captured = frames_text(record);
    assert_eq!(output, captured);
    let kinds: Vec<&str> = lines[1..].iter().map(|e| e[1].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "i").count(), 1, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "r").count(), 1, "{kinds:?}");
    assert_eq!(lines.last().unwrap()[2], "exit: code 0 (exited)");
    let times: Vec<f64> = lines[1..].iter().map(|e| e[0].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "times go backwards: {times:?}");

    let Some(asciinema) = require("asciinema", "asciinema", "ci/setup-asciinema.sh") else { return };
    // `asciinema cat` prints the output events: the capture's text, byte for byte.
    let cat = Command::new(&asciinema).arg("cat").arg("capture.cast").current_dir(dir).output().unwrap();
    assert!(cat.status.success(), "asciinema cat: {}", String::from_utf8_lossy(&cat.stderr));
    assert_eq!(String::from_utf8(cat.stdout).unwrap(), captured);
    if record["frames"].as_array().unwrap().iter().all(|f| f.get("raw_data").is_none()) {
        let normalized: String =
            record["frames"].as_array().unwrap().iter().map(|f| f["data"].as_str().unwrap()).collect();
        assert_eq!(captured, normalized);
    }

    // `asciinema play` in an 80x24 terminal leaves the program's final screen.
    let Some(tmux) = require("tmux", "asciinema", "ci/setup-asciinema.sh") else { return };
    let tmux = Tmux::new(tmux);
    let played = tmux.screen_after("play", &format!("'{}' play -s 4 capture.cast", asciinema.display()), dir);
    assert_eq!(played, FINAL_SCREEN);
    std::fs::write(dir.join("captured.txt"), &captured).unwrap();
    assert_eq!(tmux.screen_after("raw", "cat captured.txt", dir), FINAL_SCREEN);
    // Once rendered frames are recorded, the last one is the same screen.
    if let Some(last) = record["rendered_frames"].as_array().and_then(|f| f.last()) {
        let mut rendered: Vec<String> =
            last["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().trim_end().to_owned()).collect();
        while rendered.last().is_some_and(String::is_empty) {
            rendered.pop();
        }
        assert_eq!(rendered, FINAL_SCREEN);
    }
}

#[test]
fn a_sensitive_input_stays_redacted_in_the_cast() {
    let secret = "hunter2-cast-secret";
    let cap = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "stty -echo; printf 'Password: '; read p; stty echo; printf '\\nlength %s\\n' ${#p}"],
        "events": [{"type": "input", "at_ms": 200, "data": format!("{secret}\r"), "sensitive": true}],
        "timeout_ms": 10000
    }));
    assert_eq!(cap.status, 0, "{}", cap.stdout);
    std::fs::write(cap.dir.path().join("capture.json"), &cap.stdout).unwrap();
    let out = rea(cap.dir.path(), &["export-asciicast", "capture.json"]);
    assert_eq!(out.status.code(), Some(0));
    let cast = String::from_utf8(out.stdout).unwrap();
    assert!(!cast.contains(secret), "{cast}");
    let inputs: Vec<Value> =
        cast.lines().skip(1).map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|e| e[1] == "i").collect();
    assert_eq!(inputs.len(), 1, "{cast}");
    assert_eq!(inputs[0][2], format!("<redacted-input:{}-bytes>", secret.len() + 1));
    assert!(cast.contains("length 19"), "{cast}");
}
