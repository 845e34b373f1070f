//! A wait does not split one write burst of the program: a prompt written
//! one byte per `write` with 2 ms pauses (as gdb writes `(gdb) `), scripted
//! with screen waits and with output waits, gives captures that compare
//! `unchanged` pairwise, 20 of each.
#![cfg(not(feature = "force-stub"))]

use std::fs;

use rea_engine::compare::{CompareOptions, TerminalLens, compare_records_with};
use rea_engine::evidence::{CaptureRecord, import_capture_record};
use serde_json::{Value, json};

use crate::sandbox::Sandbox;

/// Three prompts, each written a byte at a time; each answer echoed back.
const PROGRAM: &str = r#"
import os, sys, time
for n in range(1, 4):
    for byte in b"(gdb %d) " % n:
        os.write(1, bytes([byte]))
        time.sleep(0.002)
    line = sys.stdin.readline().strip()
    os.write(1, ("ran %s\r\n" % line).encode())
"#;

const RUNS: usize = 20;

/// The scenario with `wait(n)` before the input at prompt n (the prompts
/// are numbered, so no wait can hold on the previous prompt's screen).
fn scenario(wait: fn(usize) -> Value) -> Value {
    let event = |n: usize, data: &str| json!({"type": "input", "wait_for": wait(n), "data": data});
    json!({
        "executable": "python3",
        "arguments": ["prompt.py"],
        "events": [event(1, "info\r"), event(2, "next\r"), event(3, "quit\r")],
        "timeout_ms": 60000
    })
}

/// `RUNS` captures of `scenario`, four at a time.
fn captures(sandbox: &Sandbox, name: &str, scenario: &Value) -> Vec<CaptureRecord> {
    let file = format!("{name}.scenario.json");
    fs::write(sandbox.work().join(&file), scenario.to_string()).unwrap();
    let runs: Vec<usize> = (0..RUNS).collect();
    let mut out = Vec::new();
    std::thread::scope(|scope| {
        let workers: Vec<_> = runs
            .chunks(RUNS / 4)
            .map(|chunk| {
                let file = &file;
                scope.spawn(move || {
                    chunk.iter().map(|_| sandbox.rea(&["capture-process", file, "--json"])).collect::<Vec<_>>()
                })
            })
            .collect();
        for worker in workers {
            for output in worker.join().unwrap() {
                assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
                let value: Value = serde_json::from_slice(&output.stdout).unwrap();
                out.push(import_capture_record(name, value).unwrap().1);
            }
        }
    });
    out
}

/// Every pair compares `unchanged` in the terminal and interaction
/// dimensions; the whole prompt was read before each input went out.
fn assert_pairwise_unchanged(name: &str, runs: &[CaptureRecord], lens: TerminalLens) {
    for record in runs {
        let events = &record.interaction_events;
        assert!(events.iter().all(|e| e.outcome.as_str() == "dispatched"), "{name}: {events:?}");
    }
    // Python's start on a machine at load 17 varies by more than the default
    // 250 ms (the first wait's interval since launch); this test is about
    // where the inputs cut the output, so times get a wide tolerance.
    let options = CompareOptions { terminal_lens: lens, timing_tolerance_ms: 5000 };
    let mut changed = Vec::new();
    for i in 0..runs.len() {
        for j in i + 1..runs.len() {
            let result = compare_records_with(&runs[i], &runs[j], None, options).unwrap();
            for d in &result.dimensions {
                let behavioural = ["terminal", "interaction", "exit"].contains(&d.dimension.as_str());
                if behavioural && d.status.as_str() != "unchanged" {
                    changed.push(format!("{i}-{j} {}: {:?}", d.dimension, d.differences.first()));
                }
            }
        }
    }
    assert!(changed.is_empty(), "{name}: {} of {} pairs differ: {changed:#?}", changed.len(), RUNS * (RUNS - 1) / 2);
}

#[test]
fn a_prompt_written_a_byte_at_a_time_is_never_split_by_a_wait() {
    let sandbox = Sandbox::new();
    fs::write(sandbox.work().join("prompt.py"), PROGRAM).unwrap();
    let on_screen = |n| json!({"screen_matches": format!("^\\(gdb {n}\\)$"), "timeout_ms": 30000});
    let in_output = |n| json!({"output_contains": format!("(gdb {n})"), "timeout_ms": 30000});
    let screen = captures(&sandbox, "screen", &scenario(on_screen));
    let output = captures(&sandbox, "output", &scenario(in_output));
    for (name, runs) in [("screen", &screen), ("output", &output)] {
        // Each segment after launch begins with the answer's echo, never with the prompt's space.
        for record in runs.iter() {
            let text: String = record.frames.iter().map(|f| f.data.as_str()).collect();
            assert!(text.contains("(gdb 1) info\r\nran info\r\r\n(gdb 2) next"), "{name}: {text:?}");
        }
        assert_pairwise_unchanged(name, runs, TerminalLens::Stream);
        assert_pairwise_unchanged(name, runs, TerminalLens::Screen);
    }
}
