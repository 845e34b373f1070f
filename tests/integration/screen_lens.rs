//! Comparing what the screen shows (issue 21): `compare-process-captures
//! --terminal-lens screen` on real captures of real programs.
#![cfg(not(feature = "force-stub"))]

use std::path::Path;

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::util::{capture_file_in, rea};

/// A scenario running `sh -c script` on a small terminal, observing an
/// empty directory (so the filesystem dimension is known).
fn sh(script: &str) -> Value {
    json!({
        "executable": "sh",
        "arguments": ["-c", script],
        "terminal": {"columns": 30, "rows": 8},
        "filesystem_observation_paths": ["./obs"],
        "timeout_ms": 10000
    })
}

/// A directory to capture and compare in, with the empty `obs` both sides observe.
fn workdir() -> TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("obs")).expect("obs");
    dir
}

/// Captures `scenario` in `dir` (both sides of a comparison run in the same
/// directory: it is part of the contract) and writes the capture to `dir/name`.
fn capture_to(dir: &Path, name: &str, scenario: Value, files: &[(&str, &str)]) {
    for (file, text) in files {
        std::fs::write(dir.join(file), text).expect("write a program");
    }
    let scenario_file = format!("{name}.scenario");
    std::fs::write(dir.join(&scenario_file), scenario.to_string()).expect("write the scenario");
    let out = capture_file_in(dir, &scenario_file);
    assert_eq!(out.status.code(), Some(0), "capture failed: {}", String::from_utf8_lossy(&out.stdout));
    std::fs::write(dir.join(name), &out.stdout).expect("write the capture");
}

/// `rea compare-process-captures left.json right.json --json` with `extra` arguments.
fn compare(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["compare-process-captures", "left.json", "right.json", "--json"];
    args.extend_from_slice(extra);
    let out = rea(dir, &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&stdout).expect("a JSON document")
}

fn pair(left: Value, right: Value) -> TempDir {
    let dir = workdir();
    capture_to(dir.path(), "left.json", left, &[]);
    capture_to(dir.path(), "right.json", right, &[]);
    dir
}

fn terminal(document: &Value) -> &Value {
    let dimensions = document["normalized_result"]["dimensions"].as_array().expect("dimensions");
    dimensions.iter().find(|d| d["dimension"] == "terminal").expect("terminal")
}

fn paths(dimension: &Value) -> Vec<&str> {
    dimension["differences"].as_array().unwrap().iter().map(|d| d["path"].as_str().unwrap()).collect()
}

#[test]
fn the_same_screen_from_different_bytes_is_unchanged_under_the_screen_lens_only() {
    let dir =
        pair(sh(r"printf '\033[2J\033[HHello\033[3;5HWorld'"), sh(r"printf '\033[H\033[JHello\r\n\r\n    World'"));
    let stream = compare(dir.path(), &[]);
    assert_eq!(stream["normalized_result"]["status"], "changed");
    assert_eq!(terminal(&stream)["status"], "changed");
    assert!(stream["parameters"].get("terminal_lens").is_none(), "the default is not written");
    let same = compare(dir.path(), &["--terminal-lens", "stream"]);
    assert_eq!(same["evidence_id"], stream["evidence_id"], "--terminal-lens stream is the default, byte for byte");

    let screen = compare(dir.path(), &["--terminal-lens", "screen"]);
    let result = &screen["normalized_result"];
    assert_eq!(screen["parameters"]["terminal_lens"], "screen");
    assert_eq!(result["status"], "unchanged", "{result}");
    assert_eq!(result["first_divergence"], json!({"status": "none"}));
    let t = terminal(&screen);
    assert_eq!(t["status"], "unchanged");
    // The stream difference is still listed, marked as not deciding.
    assert_eq!(paths(t), ["terminal.segments[0]"]);
    assert_eq!(t["differences"][0]["deciding"], false);
    assert!(stream["normalized_result"].to_string().find("\"deciding\"").is_none());
}

#[test]
fn a_colour_change_is_changed_at_its_row_and_column_and_rea_show_draws_both_screens() {
    let dir = pair(
        sh(r"printf 'ok\r\n  \033[31mERROR\033[0m: disk\r\n'"),
        sh(r"printf 'ok\r\n  \033[32mERROR\033[0m: disk\r\n'"),
    );
    let screen = compare(dir.path(), &["--terminal-lens", "screen"]);
    let result = &screen["normalized_result"];
    assert_eq!(result["status"], "changed");
    let t = terminal(&screen);
    assert_eq!(t["status"], "changed");
    assert_eq!(paths(t), ["terminal.screens[0].rows[1]", "terminal.segments[0]"]);
    let found = &result["first_divergence"];
    assert_eq!(found["status"], "found");
    assert_eq!(found["path"], "terminal.screens[0].rows[1]");
    assert_eq!(found["location"], json!({"segment": 0, "row": 2, "column": 3}));
    assert_eq!(found["left"]["text"], "  ERROR: disk");
    assert_eq!(found["right"]["text"], "  ERROR: disk");
    assert_eq!(
        found["left"]["cell"],
        json!({"text": "E", "foreground": "1", "background": "default", "attributes": []})
    );
    assert_eq!(found["right"]["cell"]["foreground"], "2");
    assert_eq!(found["screens"]["differing_cells"], json!([{"row": 2, "from": 3, "to": 7}]));
    assert_eq!(found["screens"]["left"]["lines"][1], "  ERROR: disk");

    // The comparison as a file, shown without colour: the two screens side by
    // side, a marker line under the differing cells.
    std::fs::write(dir.path().join("comparison.json"), screen.to_string()).unwrap();
    let out = rea(dir.path(), &["show", "comparison.json"]);
    let view = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{view}");
    assert!(view.contains("lens       terminal decided by the screen"), "{view}");
    assert!(view.contains("[stream; does not decide the verdict]"), "{view}");
    let row = format!("  │{:<30}│ │{:<30}│", "  ERROR: disk", "  ERROR: disk");
    let marks = format!("   {}   {}", "  ^^^^^                       ", "  ^^^^^");
    assert!(view.contains(&format!("{row}\n{marks}\n")), "{view}");
    assert!(view.contains("  left:  30x8, cursor row 2 column 0 (shown), normal buffer"), "{view}");
}

#[test]
fn a_hidden_cursor_is_a_difference_and_a_hidden_cursor_position_is_not() {
    let dir = pair(sh(r"printf 'abc\033[?25l'"), sh(r"printf 'abc'"));
    let screen = compare(dir.path(), &["--terminal-lens", "screen"]);
    assert_eq!(screen["normalized_result"]["status"], "changed");
    let t = terminal(&screen);
    assert_eq!(paths(t)[0], "terminal.screens[0].cursor_visible");
    assert_eq!(t["differences"][0]["left"], false);
    assert_eq!(t["differences"][0]["right"], true);

    let dir = pair(sh(r"printf 'abc\033[?25l'"), sh(r"printf 'abc\033[H\033[?25l'"));
    let screen = compare(dir.path(), &["--terminal-lens", "screen"]);
    assert_eq!(terminal(&screen)["status"], "unchanged", "{}", terminal(&screen));
}

/// A curses program (Python's curses module) that draws a screen on the
/// alternate buffer and exits without restoring the terminal, so the final
/// screen is what it drew.
const CURSES: &str = r#"
import curses, os
s = curses.initscr()
curses.curs_set(0)
curses.start_color()
curses.use_default_colors()
curses.init_pair(1, curses.COLOR_RED, -1)
s.addstr(0, 0, "Inventory", curses.A_BOLD)
s.addstr(2, 2, "apples   12")
s.addstr(3, 2, "pears     7")
s.addstr(5, 0, "ERROR: out of plums", curses.color_pair(1))
s.refresh()
os._exit(0)
"#;

/// The same screen drawn by hand with escape sequences; `%s` is the colour
/// of the last line.
const BY_HAND: &str = r"printf '\033[?1049h\033[H\033[2J\033[?25l\033[1mInventory\033[0m\033[3;3Happles   12\033[4;3Hpears     7\033[6;1H\033[COLOURmERROR: out of plums\033[0m'";

#[test]
fn a_curses_program_and_a_hand_written_one_draw_the_same_screen_and_a_planted_difference_is_found() {
    let curses = json!({
        "executable": "python3",
        "arguments": ["prog.py"],
        "terminal": {"columns": 30, "rows": 8},
        "filesystem_observation_paths": ["./obs"],
        "timeout_ms": 10000
    });
    let dir = workdir();
    capture_to(dir.path(), "left.json", curses, &[("prog.py", CURSES)]);
    capture_to(dir.path(), "right.json", sh(&BY_HAND.replace("COLOUR", "31")), &[]);
    capture_to(dir.path(), "planted.json", sh(&BY_HAND.replace("COLOUR", "32")), &[]);

    let stream = compare(dir.path(), &[]);
    assert_eq!(terminal(&stream)["status"], "changed", "curses writes other bytes");
    let screen = compare(dir.path(), &["--terminal-lens", "screen"]);
    let t = terminal(&screen);
    assert_eq!(t["status"], "unchanged", "{t}");
    assert_eq!(paths(t), ["terminal.segments[0]"]);
    // (The process dimension depends on how python3 is installed; only the
    // terminal is asserted.)

    std::fs::rename(dir.path().join("planted.json"), dir.path().join("right.json")).unwrap();
    let screen = compare(dir.path(), &["--terminal-lens", "screen"]);
    let t = terminal(&screen);
    assert_eq!(t["status"], "changed");
    assert_eq!(paths(t), ["terminal.screens[0].rows[5]", "terminal.segments[0]"]);
    let found = &screen["normalized_result"]["first_divergence"];
    assert_eq!(found["path"], "terminal.screens[0].rows[5]", "{found}");
    assert_eq!(found["location"], json!({"segment": 0, "row": 6, "column": 1}));
    assert_eq!(found["left"]["cell"]["foreground"], "1");
    assert_eq!(found["right"]["cell"]["foreground"], "2");
    // The blanks between the words show no foreground: only the letters differ.
    let runs = [(1, 6), (8, 10), (12, 13), (15, 19)].map(|(from, to)| json!({"row": 6, "from": from, "to": to}));
    assert_eq!(found["screens"]["differing_cells"], json!(runs));
    assert_eq!(found["screens"]["left"]["active_buffer"], "alternate");
    assert_eq!(found["screens"]["left"]["lines"][0], "Inventory");
}

#[test]
fn a_screen_the_record_did_not_keep_prevents_an_unchanged_claim() {
    // A rendered budget of 100 bytes: the one screen, a row of 240 characters,
    // cannot be kept, so the final screen is not in either record.
    let mut scenario = sh("printf '%0240d' 0");
    scenario["limits"] = json!({"output_bytes": 100});
    let dir = pair(scenario.clone(), scenario);
    let screen = compare(dir.path(), &["--terminal-lens", "screen"]);
    let t = terminal(&screen);
    let result = &screen["normalized_result"];
    assert_ne!(result["status"], "unchanged", "{result}");
    assert_eq!(t["status"], "truncated", "{t}");
    let reasons = t["reasons"].to_string();
    assert!(reasons.contains("Left capture did not keep the final screen"), "{reasons}");
    assert!(reasons.contains("Right capture did not keep the final screen"), "{reasons}");
}

/// The lines of a capture's last rendered frame.
fn final_lines(dir: &Path, name: &str) -> Vec<String> {
    let record: Value = serde_json::from_slice(&std::fs::read(dir.join(name)).expect("read the capture")).unwrap();
    let frames = record["normalized_result"]["rendered_frames"].as_array().expect("rendered frames");
    let lines = frames.last().expect("a final frame")["lines"].as_array().expect("lines");
    lines.iter().map(|l| l.as_str().unwrap().to_owned()).collect()
}

fn screen_verdict(left: &str, right: &str) -> String {
    let dir = pair(sh(left), sh(right));
    let screen = compare(dir.path(), &["--terminal-lens", "screen"]);
    terminal(&screen)["status"].as_str().unwrap().to_owned()
}

#[test]
fn erased_and_scrolled_in_cells_keep_only_the_background_and_concealed_text_is_not_shown() {
    // `tput rev; tput el`: an erase keeps the background only, so the row is empty…
    assert_eq!(screen_verdict(r"printf 'x\r\n\033[7m\033[K\033[m'", r"printf 'x\r\n'"), "unchanged");
    // …and not the reversed bar that 30 reversed spaces draw.
    assert_eq!(screen_verdict(r"printf 'x\r\n\033[7m\033[K\033[m'", r"printf 'x\r\n\033[7m%30s\033[m' ''"), "changed");
    // `tput smul; echo heading; tput rmul` on a full screen: the line the
    // newline scrolls in is not underlined.
    let fill = "i=0; while [ $i -lt 9 ]; do echo line$i; i=$((i+1)); done;";
    let left = format!(r"{fill} printf '\033[4m'; echo heading; printf '\033[24m'");
    let right = format!(r"{fill} printf '\033[4mheading\033[24m\n'");
    assert_eq!(screen_verdict(&left, &right), "unchanged");
    // Concealed text (SGR 8) is blank on the screen and in `lines`.
    let dir = pair(sh(r"printf 'pw: \033[8msecret\033[m.'"), sh(r"printf 'pw: \033[8mhunter\033[m.'"));
    let screen = compare(dir.path(), &["--terminal-lens", "screen"]);
    assert_eq!(terminal(&screen)["status"], "unchanged");
    assert_eq!(final_lines(dir.path(), "left.json")[0], "pw:       .");
}
