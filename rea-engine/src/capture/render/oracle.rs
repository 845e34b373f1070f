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
use super::oracle_pens;

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

/// What tmux shows after a fixture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TmuxScreen {
    /// One string per row, trailing spaces removed (`capture-pane -p`).
    pub(crate) lines: Vec<String>,
    /// `#{cursor_x},#{cursor_y}`; a cursor waiting to wrap (x = columns) is
    /// reported on the last column, as rea's frames report it.
    pub(crate) cursor: (u16, u16),
    /// Each row's non-blank cells: the column and the characters it holds
    /// (U+0020 left out), see [`cell_columns`].
    pub(crate) cells: Vec<Vec<(u16, String)>>,
    /// Each row's runs of cells whose pen is not the default, as
    /// `first-last:pen` (see `oracle_pens.rs`).
    pub(crate) pens: Vec<String>,
}

/// The final size after the fixture's resizes.
fn final_size(fixture: &Fixture) -> (u16, u16) {
    fixture.steps.iter().fold((fixture.columns, fixture.rows), |size, s| match s {
        Step::Resize(c, r) => (*c, *r),
        Step::Feed(_) => size,
    })
}

/// Probe `x`: erase every row from its start through column `x` (0-based).
/// A character leaves the screen at the first probe that covers its first
/// column, so the probes tell each character's column without any width
/// table: only tmux decides.
fn probe(x: u16, rows: u16) -> String {
    let mut text = String::from(if x == 0 { "\x1b[?6l" } else { "" });
    for y in 1..=rows {
        write!(text, "\x1b[{y};{}H\x1b[1K", x + 1).expect("writing to a String cannot fail");
    }
    text
}

/// The pane script: each feed and each probe, then a cursor-position query
/// whose answer proves tmux parsed it, then a signal to the driver and a
/// wait for it.
fn pane_script(fixture: &Fixture, dir: &Path, tag: &str, probes: &[String], tmux: &str) -> String {
    let feeds = fixture.steps.iter().filter_map(|s| if let Step::Feed(b) = s { Some((*b).to_owned()) } else { None });
    let mut script = String::from("stty raw -echo -opost\n");
    for (n, bytes) in feeds.chain(probes.iter().cloned()).enumerate() {
        let file = dir.join(format!("{}-{tag}-{n}.bin", fixture.name));
        std::fs::write(&file, bytes).expect("write a fixture feed");
        let file = shell_quote(&file.to_string_lossy());
        writeln!(
            script,
            "cat {file}; printf '\\033[6n'; IFS= read -r -d R _; {tmux} wait-for -S fed{n}; {tmux} wait-for go{n}"
        )
        .expect("writing to a String cannot fail");
    }
    script
}

/// A detached pane replaying a fixture, then probes, one step at a time.
struct Session {
    server: Server,
    fed: usize,
}

impl Session {
    fn start(fixture: &Fixture, dir: &Path, tag: &str, probes: &[String]) -> Session {
        let socket = format!("rea-oracle-{}-{}-{tag}", std::process::id(), fixture.name);
        let server = Server { socket: socket.clone() };
        let script = pane_script(fixture, dir, tag, probes, &format!("tmux -L {}", shell_quote(&socket)));
        let script_path = dir.join(format!("{}-{tag}.sh", fixture.name));
        std::fs::write(&script_path, script).expect("write the pane script");
        let (columns, rows) = (fixture.columns.to_string(), fixture.rows.to_string());
        let command = format!("bash {}", shell_quote(&script_path.to_string_lossy()));
        server.tmux(&["new-session", "-d", "-s", "oracle", "-x", &columns, "-y", &rows, &command]);
        server.tmux(&["set-option", "-g", "status", "off"]);
        let mut session = Session { server, fed: 0 };
        for step in fixture.steps {
            match *step {
                Step::Feed(_) => session.next(),
                Step::Resize(c, r) => {
                    let (c, r) = (c.to_string(), r.to_string());
                    session.server.tmux(&["resize-window", "-t", "oracle", "-x", &c, "-y", &r]);
                }
            }
        }
        session
    }

    /// Lets the pane go on to its next feed or probe and waits until tmux parsed it.
    fn next(&mut self) {
        if self.fed > 0 {
            self.server.tmux(&["wait-for", "-S", &format!("go{}", self.fed - 1)]);
        }
        self.server.tmux(&["wait-for", &format!("fed{}", self.fed)]);
        self.fed += 1;
    }
}

/// The screen tmux shows after the fixture: rows, cursor, cells and pens.
pub(crate) fn tmux_screen(fixture: &Fixture, dir: &Path) -> TmuxScreen {
    let (columns, rows) = final_size(fixture);
    let probes: Vec<String> = (0..columns).map(|x| probe(x, rows)).collect();
    let mut main = Session::start(fixture, dir, "cells", &probes);
    let mut lines = capture(&main.server, rows, false);
    let coded = capture(&main.server, rows, true);
    let out = main.server.tmux(&["display-message", "-p", "-t", "oracle", "#{cursor_x},#{cursor_y}"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let (x, y) = text.trim().split_once(',').expect("cursor_x,cursor_y");
    let cursor = (x.parse::<u16>().expect("cursor_x").min(columns - 1), y.parse().expect("cursor_y"));
    let mut probed = Vec::new();
    for _ in 0..columns {
        main.next();
        probed.push(capture(&main.server, rows, false));
    }
    drop(main);
    let trailing = [marker_probe(columns, rows, false), marker_probe(columns, rows, true)].map(|probe| {
        let mut session =
            Session::start(fixture, dir, if probe.contains("\x1b[P") { "shifted" } else { "marked" }, &[probe]);
        session.next();
        capture(&session.server, rows, true)
    });
    let mut cells = cell_columns(&lines, &probed);
    let pens = oracle_pens::pen_columns(columns, &cells, &coded, &trailing[0], &trailing[1]);
    oracle_pens::hide_concealed(&pens, &coded, &mut lines, &mut cells);
    let pens = pens.iter().map(|row| oracle_pens::runs(row)).collect();
    TmuxScreen { cells, lines, cursor, pens }
}

/// A probe that writes `Z` in the default pen on the last column of every
/// row, after deleting each row's first cell when `shift` (so the last
/// column's own cell sits before the `Z`). `capture-pane -e` then prints the
/// blanks before the `Z` with their pens, which it leaves out at a row's end.
fn marker_probe(columns: u16, rows: u16, shift: bool) -> String {
    let mut text = String::from("\x1b[0m\x1b[?6l\x1b[4l");
    for y in 1..=rows {
        if shift {
            write!(text, "\x1b[{y};1H\x1b[P").expect("writing to a String cannot fail");
        }
        write!(text, "\x1b[{y};{columns}HZ").expect("writing to a String cannot fail");
    }
    text
}

/// The visible rows, trailing spaces removed, `rows` of them; with
/// `codes`, with the escape sequences of their pens (`capture-pane -e`).
fn capture(server: &Server, rows: u16, codes: bool) -> Vec<String> {
    let args: &[&str] =
        if codes { &["capture-pane", "-p", "-e", "-t", "oracle"] } else { &["capture-pane", "-p", "-t", "oracle"] };
    let out = server.tmux(args);
    let mut lines: Vec<String> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| l.trim_end_matches(' ').to_owned()).collect();
    lines.resize(usize::from(rows), String::new());
    lines
}

/// Each row's cells from the screen and the rows left after each probe:
/// the characters (but U+0020) that probe `x` removed sat in column `x`;
/// consecutive characters of one column are one cell.
pub(crate) fn cell_columns(lines: &[String], probed: &[Vec<String>]) -> Vec<Vec<(u16, String)>> {
    let visible = |line: &str| -> Vec<char> { line.chars().filter(|&c| c != ' ').collect() };
    let mut out = Vec::new();
    for (row, line) in lines.iter().enumerate() {
        let mut left = visible(line);
        let mut cells: Vec<(u16, String)> = Vec::new();
        for (x, screen) in (0u16..).zip(probed) {
            let now = visible(&screen[row]);
            assert!(left.ends_with(&now), "row {row}: probe {x} left {now:?}, not a suffix of {left:?}");
            let gone = left.len() - now.len();
            if gone > 0 {
                cells.push((x, left[..gone].iter().collect()));
            }
            left = now;
        }
        assert!(left.is_empty(), "row {row}: {left:?} is left after erasing every column");
        out.push(cells);
    }
    out
}
