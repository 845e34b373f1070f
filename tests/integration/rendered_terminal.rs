//! Rendered terminal states of real captures: a full-screen program across
//! a scripted resize, the final screen, and an exhausted rendered budget.
#![cfg(not(feature = "force-stub"))]

use serde_json::{Value, json};

use crate::util::capture;

fn rendered(r: &Value) -> &Vec<Value> {
    r["rendered_frames"].as_array().expect("rendered_frames")
}

fn lines(frame: &Value) -> Vec<&str> {
    frame["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect()
}

/// UTF-8 bytes the rendered budget counts for a frame.
fn size(frame: &Value) -> u64 {
    frame["serialized_state"].as_str().unwrap().len() as u64 + lines(frame).iter().map(|l| l.len() as u64).sum::<u64>()
}

fn check_order(frames: &[Value]) {
    let mut at = 0;
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f["sequence"], i as u64);
        let now = f["at_ms"].as_u64().unwrap();
        assert!(now >= at, "at_ms goes back at rendered frame {i}");
        at = now;
    }
}

#[test]
fn a_full_screen_program_shows_its_screen_before_and_after_a_resize() {
    // Draws its size at the top and "bottom" on the last row of the
    // alternate screen, redraws on SIGWINCH, and leaves on SIGTERM.
    let script = r#"
draw() { set -- $(stty size); printf '\033[H\033[2J+ size %sx%s\033[%s;1Hbottom' "$1" "$2" "$1"; }
trap draw WINCH
trap 'printf "\033[?1049l"; echo bye; exit 0' TERM
printf '\033[?1049h'; draw
while :; do sleep 0.05; done
"#;
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", script],
        "terminal": {"columns": 40, "rows": 10},
        "events": [
            {"type": "resize", "at_ms": 2000, "columns": 60, "rows": 15},
            {"type": "signal", "at_ms": 4000, "signal": "SIGTERM"}
        ],
        "timeout_ms": 20000
    }));
    assert_eq!(c.status, 0, "stdout: {}", c.stdout);
    let r = &c.document["normalized_result"];
    let frames = rendered(r);
    check_order(frames);
    let before = frames
        .iter()
        .find(|f| f["columns"] == 40 && lines(f).first() == Some(&"+ size 10x40"))
        .unwrap_or_else(|| panic!("no 40x10 screen: {frames:#?}"));
    assert_eq!(lines(before).len(), 10);
    assert_eq!(lines(before)[9], "bottom");
    assert_eq!(before["active_buffer"], "alternate");
    let resized = frames.iter().position(|f| f["columns"] == 60 && f["rows"] == 15).expect("a frame after the resize");
    let after = frames[resized..]
        .iter()
        .find(|f| lines(f).first() == Some(&"+ size 15x60"))
        .unwrap_or_else(|| panic!("no redraw at 60x15: {frames:#?}"));
    assert_eq!(lines(after)[14], "bottom");
    assert_eq!((after["cursor_x"].as_u64(), after["cursor_y"].as_u64()), (Some(6), Some(14)));
    let last = frames.last().unwrap();
    assert_eq!(last["active_buffer"], "normal");
    assert!(lines(last).contains(&"bye"), "{last:#}");
    // Accounting, provenance, journal, progress.
    let account = &r["truncation_details"]["rendered_terminal"];
    assert_eq!(account["truncated"], false);
    assert_eq!(account["retained_frames"], frames.len() as u64);
    assert_eq!(account["observed_frames"], frames.len() as u64);
    // One state per admitted chunk and per resize.
    assert_eq!(frames.len() as u64, r["truncation_details"]["raw_terminal"]["retained_chunks"].as_u64().unwrap() + 1);
    assert_eq!(account["retained_bytes"], frames.iter().map(size).sum::<u64>());
    assert_eq!(r["manifest"]["terminal_emulator"], "avt 0.19.0+rea.1");
    assert_eq!(r["cleanup"]["terminal_renderer"], "disposed");
    assert!(!r["limitations"].to_string().contains("does not render"));
    let journaled = r["event_journal"].as_array().unwrap().iter().filter(|e| e["collection"] == "rendered_frames");
    assert_eq!(journaled.count(), frames.len());
    let message = c.progress.last().unwrap()["message"].as_str().unwrap().to_owned();
    assert!(message.contains("terminal_renderer=cleaned"), "{message}");
}

#[test]
fn an_exhausted_rendered_budget_still_keeps_the_final_screen() {
    // Separate writes (one chunk each, mostly) rewriting one line in place;
    // the raw text (about 1.2 kB) fits the budget, the repeated screens
    // (each at least its 40-byte dump) do not.
    let c = capture(json!({
        "executable": "sh",
        "arguments": ["-c", "i=0; while [ $i -lt 100 ]; do printf '\\rprogress %s' $i; sleep 0.01; i=$((i+1)); done; printf '\\rprogress done\\n'"],
        "terminal": {"columns": 30, "rows": 3},
        "limits": {"output_bytes": 1600},
        "timeout_ms": 20000
    }));
    assert_eq!(c.status, 0, "stdout: {}", c.stdout);
    let r = &c.document["normalized_result"];
    let raw = &r["truncation_details"]["raw_terminal"];
    assert_eq!(raw["truncated"], false, "the raw output must be complete for this test");
    let frames = rendered(r);
    check_order(frames);
    let account = &r["truncation_details"]["rendered_terminal"];
    assert_eq!(account["truncated"], true, "the budget was not exhausted: {account}");
    assert_eq!(lines(frames.last().unwrap()), ["progress done", "", ""]);
    assert_eq!(account["observed_frames"], raw["retained_chunks"]);
    assert_eq!(account["retained_frames"], frames.len() as u64);
    let retained: u64 = frames.iter().map(size).sum();
    assert_eq!(account["retained_bytes"], retained);
    assert!(retained <= 1600);
    assert!(account["observed_bytes"].as_u64().unwrap() > retained);
    assert_eq!(account["unknown_size_frames"], 0);
    assert_eq!(r["truncated"], true);
}
