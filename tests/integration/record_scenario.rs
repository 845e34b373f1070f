//! `rea record-scenario`, driven through tmux as a person would: keys with
//! pauses, a resize, a password at a prompt that turns the echo off, exit.
//! The written scenario replays (`rea capture-process`) and compares
//! `unchanged` in terminal, interaction and exit with the live capture.
#![cfg(not(feature = "force-stub"))]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::util::{rea, rea_bin, wait_for};

const PASSWORD: &str = "hunter22";
/// Recordings per program (run three at a time); `REA_RECORD_REPEAT` overrides.
const REPEAT: usize = 10;
/// How long a person waits for the screen to show something, at most.
const LOOK: Duration = Duration::from_secs(60);

fn tmux() -> Option<PathBuf> {
    let found = Command::new("tmux").arg("-V").stdout(Stdio::null()).stderr(Stdio::null()).status();
    found.is_ok_and(|s| s.success()).then(|| PathBuf::from("tmux"))
}

/// A person at an 80x24 terminal in a private tmux server.
struct Person {
    socket: String,
    dir: PathBuf,
}

impl Person {
    /// Opens the terminal in `dir` and runs `command` in it (then marks `done`).
    fn start(dir: &Path, name: &str, command: &str) -> Person {
        let socket = format!("rea-rec-{}-{name}", std::process::id());
        let shell =
            format!("stty -a > before.stty; {command}; echo $? > rc; stty -a > after.stty; touch done; sleep 600");
        let status = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-s", "s"])
            .arg(shell)
            .current_dir(dir)
            .stdin(Stdio::null())
            .status()
            .expect("run tmux");
        assert!(status.success(), "tmux new-session failed");
        Person { socket, dir: dir.to_owned() }
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").args(["-L", &self.socket]).args(args).output().expect("run tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "s"])
    }

    /// Waits until the screen shows `text`, as a person would look.
    fn sees(&self, text: &str) {
        // tmux shows rows without their trailing blanks.
        let text = text.trim_end();
        let seen = wait_for(LOOK, || self.screen().contains(text));
        assert!(seen, "the screen never showed {text:?}:\n{}", self.screen());
        // A person reads before typing.
        std::thread::sleep(Duration::from_millis(300));
    }

    /// Types `text` (literally), then pauses.
    fn types(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "s", "-l", text]);
        std::thread::sleep(Duration::from_millis(250));
    }

    /// Presses a key tmux names (`Enter`, `Space`, `q`).
    fn presses(&self, key: &str) {
        self.tmux(&["send-keys", "-t", "s", key]);
        std::thread::sleep(Duration::from_millis(250));
    }

    fn resizes(&self, columns: u16, rows: u16) {
        self.tmux(&["resize-window", "-t", "s", "-x", &columns.to_string(), "-y", &rows.to_string()]);
        std::thread::sleep(Duration::from_millis(500));
    }

    fn finished(&self) -> bool {
        wait_for(LOOK, || self.dir.join("done").exists())
    }
}

impl Drop for Person {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.socket, "kill-server"]).output();
    }
}

/// What one recording and its replay left.
struct Recorded {
    scenario: Value,
    mode: u32,
    live: Vec<u8>,
    replay: Vec<u8>,
    comparison: Value,
}

/// Records `program` driven by `act`, then replays and compares.
fn record(name: &str, program: &str, act: impl FnOnce(&Person)) -> Recorded {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = r#"{"executable": "sh", "environment": {"PS1": "$ ", "LESSHISTFILE": "-"}}"#;
    std::fs::write(dir.path().join("base.json"), base).unwrap();
    std::fs::write(dir.path().join("numbers.txt"), (1..=200).map(|i| format!("line {i}\n")).collect::<String>())
        .unwrap();
    let bin = rea_bin();
    let command =
        format!("'{}' record-scenario out.json --capture live.json --from base.json -- {program}", bin.display());
    let person = Person::start(dir.path(), name, &command);
    act(&person);
    assert!(person.finished(), "{name}: the recording did not end:\n{}", person.screen());
    let rc = std::fs::read_to_string(dir.path().join("rc")).unwrap_or_default();
    assert_eq!(rc.trim(), "0", "{name}: record-scenario failed:\n{}", person.screen());
    assert_eq!(stty(dir.path(), "before"), stty(dir.path(), "after"), "{name}: terminal not restored");
    let replay = rea(dir.path(), &["capture-process", "out.json", "--json"]);
    assert_eq!(replay.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&replay.stderr));
    std::fs::write(dir.path().join("replay.json"), &replay.stdout).unwrap();
    // Start-up times vary on a loaded machine by more than the default 250 ms.
    let args = ["compare-process-captures", "live.json", "replay.json", "--json", "--timing-tolerance-ms", "2000"];
    let compared = rea(dir.path(), &args);
    assert_eq!(compared.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&compared.stdout));
    let out = dir.path().join("out.json");
    Recorded {
        scenario: serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap(),
        mode: mode_of(&out),
        live: std::fs::read(dir.path().join("live.json")).unwrap(),
        replay: replay.stdout,
        comparison: serde_json::from_slice(&compared.stdout).unwrap(),
    }
}

/// `stty -a` as saved, without the size (the person resized the window).
fn stty(dir: &Path, which: &str) -> String {
    let text = std::fs::read_to_string(dir.join(format!("{which}.stty"))).unwrap_or_default();
    let sized = |part: &str| part.trim_start().starts_with("rows ") || part.trim_start().starts_with("columns ");
    text.split(';').filter(|part| !sized(part)).collect::<Vec<_>>().join(";")
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn status(comparison: &Value, dimension: &str) -> String {
    let dims = comparison["normalized_result"]["dimensions"].as_array().cloned().unwrap_or_default();
    let found = dims.iter().find(|d| d["dimension"] == dimension);
    found.map_or_else(|| "missing".into(), |d| d["status"].as_str().unwrap_or("?").to_owned())
}

/// Checks one recording: it compares unchanged; the password (if typed) is
/// sensitive, the file 0600, and the password in neither capture.
fn check(name: &str, r: &Recorded, password: bool) -> Result<(), String> {
    for dimension in ["terminal", "interaction", "exit"] {
        let s = status(&r.comparison, dimension);
        if s != "unchanged" {
            let divergence = &r.comparison["normalized_result"]["first_divergence"];
            return Err(format!("{name}: {dimension} is {s}: {divergence}\nscenario: {}", r.scenario["events"]));
        }
    }
    let events = r.scenario["events"].as_array().cloned().unwrap_or_default();
    let secret: Vec<&Value> = events.iter().filter(|e| e["sensitive"] == true).collect();
    if password {
        let typed = secret.len() == 1 && secret[0]["data"].as_str().is_some_and(|d| d.starts_with(PASSWORD));
        if !typed || r.mode != 0o600 {
            return Err(format!("{name}: sensitive {secret:?}, mode {:o}", r.mode));
        }
    } else if !secret.is_empty() {
        return Err(format!("{name}: unexpected sensitive events {secret:?}"));
    }
    let leaked = |bytes: &[u8]| bytes.windows(PASSWORD.len()).any(|w| w == PASSWORD.as_bytes());
    if leaked(&r.live) || leaked(&r.replay) {
        return Err(format!("{name}: the password is in a capture"));
    }
    Ok(())
}

/// Runs `REPEAT` recordings of one program, three at a time.
fn repeated(name: &str, program: &str, password: bool, act: fn(&Person)) {
    if tmux().is_none() {
        eprintln!("skipping {name}: tmux is not installed (ci/setup.sh installs it)");
        return;
    }
    let repeat = std::env::var("REA_RECORD_REPEAT").ok().and_then(|v| v.parse().ok()).unwrap_or(REPEAT);
    let mut failures = Vec::new();
    for wave in (0..repeat).collect::<Vec<_>>().chunks(3) {
        let handles: Vec<_> = wave
            .iter()
            .map(|i| {
                let (name, program) = (format!("{name}-{i}"), program.to_owned());
                std::thread::spawn(move || {
                    let r = record(&name, &program, act);
                    check(&name, &r, password)
                })
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => failures.push(e),
                Err(_) => failures.push(format!("{name}: a recording panicked")),
            }
        }
    }
    assert!(failures.is_empty(), "{} of {repeat} failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_shell_session_with_a_password_replays_unchanged() {
    repeated("bash", "bash --norc --noprofile", true, |p| {
        p.sees("$ ");
        p.types("echo hello");
        p.presses("Enter");
        p.sees("hello");
        p.resizes(100, 30);
        p.types("read -s -p 'Password: ' pw; echo; echo got ${#pw}");
        p.presses("Enter");
        p.sees("Password: ");
        p.types(PASSWORD);
        p.presses("Enter");
        p.sees("got 8");
        p.types("exit");
        p.presses("Enter");
    });
}

#[test]
fn a_python_session_with_a_password_replays_unchanged() {
    repeated("python", "python3 -q", true, |p| {
        p.sees(">>> ");
        p.types("print(6 * 7)");
        p.presses("Enter");
        p.sees("42");
        p.resizes(100, 30);
        p.types("import getpass; pw = getpass.getpass('Password: ')");
        p.presses("Enter");
        p.sees("Password: ");
        p.types(PASSWORD);
        p.presses("Enter");
        p.types("len(pw)");
        p.presses("Enter");
        p.sees("8");
        p.types("exit()");
        p.presses("Enter");
    });
}

#[test]
fn a_pager_session_replays_unchanged() {
    repeated("less", "less numbers.txt", false, |p| {
        p.sees("line 1");
        p.presses("Space");
        p.sees("line 30");
        p.resizes(100, 30);
        p.presses("Space");
        p.presses("q");
    });
}

#[test]
fn the_terminal_is_restored_when_the_program_is_killed_mid_recording() {
    if tmux().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let rea = rea_bin();
    let program = "sh -c 'echo $$ > program.pid; echo ready; exec sleep 600'";
    let person =
        Person::start(dir.path(), "killed", &format!("'{}' record-scenario out.json -- {program}", rea.display()));
    person.sees("ready");
    let pid = std::fs::read_to_string(dir.path().join("program.pid")).expect("the program wrote its pid");
    let killed = Command::new("kill").args(["-KILL", pid.trim()]).status().expect("run kill");
    assert!(killed.success());
    assert!(person.finished(), "the recording did not end:\n{}", person.screen());
    let (before, after) = (stty(dir.path(), "before"), stty(dir.path(), "after"));
    assert!(before.contains(" icanon ") && before.contains(" echo "), "{before}");
    assert_eq!(before, after, "stty -a differs after the recording");
}
