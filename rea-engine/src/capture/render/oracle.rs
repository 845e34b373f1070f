//! tmux as an independent oracle: replays a fixture in a detached pane of
//! the same size and reads the screen back with `capture-pane -p`.
//!
//! Synchronisation is by content, not by sleeping: after each feed the pane
//! asks tmux for the cursor position (`CSI 6 n`) and waits for the answer,
//! which tmux only sends once it has parsed every byte before the query;
//! only then does the pane signal the driver through `tmux wait-for`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::fixtures::{Fixture, Step};

/// Whether a usable tmux is on `PATH`.
pub(crate) fn tmux_available() -> bool {
    Command::new("tmux").arg("-V").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

struct Server {
    socket: String,
}

/// How long one tmux command may take; `wait-for` waits on the pane.
const DEADLINE: Duration = Duration::from_secs(60);

impl Server {
    /// Runs a tmux command against this server, failing the test if it does
    /// not finish within [`DEADLINE`] (a pane that never signals).
    fn tmux(&self, args: &[&str]) -> std::process::Output {
        let mut child = Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("tmux {args:?} could not run: {e}"));
        let start = Instant::now();
        while child.try_wait().expect("poll tmux").is_none() {
            if start.elapsed() > DEADLINE {
                let _ = child.kill();
                let _ = child.wait();
                panic!("tmux {args:?} did not finish within {} s", DEADLINE.as_secs());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let out = child.wait_with_output().expect("collect tmux output");
        assert!(out.status.success(), "tmux {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        out
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The screen tmux shows after the fixture: one string per row, trailing
/// spaces removed.
pub(crate) fn tmux_screen(fixture: &Fixture, dir: &Path) -> Vec<String> {
    let socket = format!("rea-oracle-{}-{}", std::process::id(), fixture.name);
    let server = Server { socket: socket.clone() };
    let tmux = format!("tmux -L {}", shell_quote(&socket));
    let mut script = String::from("stty raw -echo -opost\n");
    let mut feeds = 0;
    for step in fixture.steps {
        if let Step::Feed(bytes) = step {
            let file = dir.join(format!("{}-{feeds}.bin", fixture.name));
            std::fs::write(&file, bytes).expect("write a fixture feed");
            let file = shell_quote(&file.to_string_lossy());
            writeln!(
                script,
                "cat {file}; printf '\\033[6n'; IFS= read -r -d R _; {tmux} wait-for -S fed{feeds}; {tmux} wait-for go{feeds}"
            )
            .expect("writing to a String cannot fail");
            feeds += 1;
        }
    }
    let script_path = dir.join(format!("{}.sh", fixture.name));
    std::fs::write(&script_path, script).expect("write the pane script");
    let (columns, rows) = (fixture.columns.to_string(), fixture.rows.to_string());
    let command = format!("bash {}", shell_quote(&script_path.to_string_lossy()));
    server.tmux(&["new-session", "-d", "-s", "oracle", "-x", &columns, "-y", &rows, &command]);
    server.tmux(&["set-option", "-g", "status", "off"]);
    let mut feed = 0;
    let mut waiting: Option<usize> = None;
    for step in fixture.steps {
        match *step {
            Step::Feed(_) => {
                if let Some(n) = waiting.take() {
                    server.tmux(&["wait-for", "-S", &format!("go{n}")]);
                }
                server.tmux(&["wait-for", &format!("fed{feed}")]);
                waiting = Some(feed);
                feed += 1;
            }
            Step::Resize(c, r) => {
                server.tmux(&["resize-window", "-t", "oracle", "-x", &c.to_string(), "-y", &r.to_string()]);
            }
        }
    }
    let out = server.tmux(&["capture-pane", "-p", "-t", "oracle"]);
    let rows = fixture.steps.iter().fold(fixture.rows, |r, s| if let Step::Resize(_, rows) = s { *rows } else { r });
    let mut lines: Vec<String> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| l.trim_end_matches(' ').to_owned()).collect();
    lines.resize(usize::from(rows), String::new());
    lines
}
