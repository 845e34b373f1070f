//! Comparisons of real captures: behaviour, not transport. Reruns of six
//! deterministic programs captured while both cores are busy compare
//! `unchanged` (and `--exit-code` gives 0); planted differences are each
//! reported in their dimension with their location (and `--exit-code` 3).
#![cfg(not(feature = "force-stub"))]

use std::fs;
use std::process::{Child, Command, Stdio};

use rea_engine::evidence::capture_evidence;
use rea_engine::testing;
use serde_json::{Value, json};

use crate::sandbox::Sandbox;

/// Keeps both cores busy until dropped.
struct Load(Vec<Child>);

impl Load {
    fn start() -> Load {
        let spin = || {
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .spawn()
                .expect("start a busy loop")
        };
        Load(vec![spin(), spin()])
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for child in &mut self.0 {
            // Each child is ours; kill by its own handle.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Captures `scenario` in `sandbox` into `out` and returns the record.
fn capture(sandbox: &Sandbox, scenario: &Value, out: &str) -> Value {
    let scenario_file = format!("{out}.scenario.json");
    fs::write(sandbox.work().join(&scenario_file), scenario.to_string()).unwrap();
    let output = sandbox.rea(&["capture-process", &scenario_file, "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stdout));
    fs::write(sandbox.work().join(out), &output.stdout).unwrap();
    let evidence: Value = serde_json::from_slice(&output.stdout).unwrap();
    evidence["normalized_result"].clone()
}

/// Compares two files with `--exit-code` and returns the exit status and
/// the comparison record.
fn compare(sandbox: &Sandbox, left: &str, right: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["compare-process-captures", left, right, "--json", "--exit-code"];
    args.extend_from_slice(extra);
    let output = sandbox.rea(&args);
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)));
    (output.status.code().unwrap_or(-1), document["normalized_result"].clone())
}

fn status(result: &Value, dimension: &str) -> String {
    let d = result["dimensions"].as_array().unwrap().iter().find(|d| d["dimension"] == dimension).unwrap();
    d["status"].as_str().unwrap().to_owned()
}

fn behavioural_statuses(result: &Value) -> Vec<String> {
    ["terminal", "interaction", "exit", "filesystem"].iter().map(|d| status(result, d)).collect()
}

/// The six deterministic programs. Scheduled times leave a loaded machine
/// ample room: the prompt is printed long before the input is typed, and
/// the TERM trap is set long before the deadline.
fn programs() -> Vec<(&'static str, Value)> {
    vec![
        ("plain", json!({"executable": "sh", "arguments": ["-c", "seq 1 3000; echo done"], "timeout_ms": 60000})),
        (
            "prompt",
            json!({"executable": "sh", "arguments": ["-c", "printf 'name? '; read n; echo \"hello $n\"; exit 4"],
                   "events": [{"type": "input", "at_ms": 1000, "data": "ada\r"}], "timeout_ms": 60000}),
        ),
        (
            "redraw",
            json!({"executable": "sh", "arguments": ["-c",
                "printf '\\033[2J\\033[H'; for i in 1 2 3 4 5; do printf '\\033[5;10Hcount %s\\033[1;1H' $i; done; printf '\\033[10;1Hend\\r\\n'"],
                   "timeout_ms": 60000}),
        ),
        (
            "writer",
            json!({"executable": "sh", "arguments": ["-c", "mkdir -p state/sub; echo result 42 > state/sub/out.txt; rm -f state/old.txt; echo wrote"],
                   "filesystem_observation_paths": ["./state"], "timeout_ms": 60000}),
        ),
        (
            "trap",
            json!({"executable": "sh", "arguments": ["-c", "trap 'echo bye; exit 7' TERM; echo up; while :; do sleep 0.05; done"],
                   "timeout_ms": 1000, "finalization_ms": 5000}),
        ),
        (
            "bulk",
            json!({"executable": "sh", "arguments": ["-c", "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 5000000; echo"],
                   "limits": {"output_bytes": 10000000, "frames": 100000}, "timeout_ms": 120000}),
        ),
    ]
}

/// Puts the writer's observed directory back in its starting state.
fn reset_state(sandbox: &Sandbox) {
    let state = sandbox.work().join("state");
    let _ = fs::remove_dir_all(&state);
    fs::create_dir_all(&state).unwrap();
    fs::write(state.join("old.txt"), "old\n").unwrap();
}

const RERUNS: usize = 20;

#[test]
fn reruns_of_deterministic_programs_under_load_are_unchanged() {
    let load = Load::start();
    let mut programs = programs();
    // Every program's filesystem is observed, so that dimension is compared too.
    for (_, scenario) in &mut programs {
        scenario["filesystem_observation_paths"] = json!(["./state"]);
    }
    // Two programs at a time: bounded concurrency on two busy cores.
    std::thread::scope(|scope| {
        for pair in programs.chunks(programs.len().div_ceil(2)) {
            scope.spawn(move || {
                for (name, scenario) in pair {
                    rerun(name, scenario);
                }
            });
        }
    });
    drop(load);
}

fn rerun(name: &str, scenario: &Value) {
    let sandbox = Sandbox::new();
    let mut first = Value::Null;
    for i in 0..RERUNS {
        reset_state(&sandbox);
        let record = capture(&sandbox, scenario, &format!("{name}-{i}.json"));
        if i == 0 {
            first = record;
            continue;
        }
        let (code, result) = compare(&sandbox, &format!("{name}-0.json"), &format!("{name}-{i}.json"), &[]);
        assert_eq!(
            behavioural_statuses(&result),
            ["unchanged"; 4],
            "{name}: rerun {i} differs from the first: {}",
            serde_json::to_string_pretty(&result).unwrap()
        );
        assert_eq!(code, 0, "{name}: rerun {i}: --exit-code");
        assert_ne!(result["status"], "changed");
    }
    // The captures observed what the programs do.
    let text: String = first["frames"].as_array().unwrap().iter().map(|f| f["data"].as_str().unwrap()).collect();
    let expected = match name {
        "plain" => "2999\r\n3000\r\ndone\r\n",
        "prompt" => "hello ada\r\n",
        "redraw" => "\x1b[10;1Hend\r",
        "writer" => "wrote\r\n",
        "trap" => "bye\r\n",
        _ => "0123456789abcdefghijklmnopqrstuvwxyz\r\n",
    };
    assert!(text.contains(expected), "{name}: {text:.200}");
    if name == "bulk" {
        assert!(text.len() > 5_000_000, "{name}: {} bytes", text.len());
    }
}

fn sh(script: &str) -> Value {
    json!({"executable": "sh", "arguments": ["-c", script], "timeout_ms": 60000})
}

/// Captures two scenarios and compares them.
fn planted(left: Value, right: Value) -> (i32, Value) {
    let sandbox = Sandbox::new();
    reset_state(&sandbox);
    capture(&sandbox, &left, "left.json");
    reset_state(&sandbox);
    capture(&sandbox, &right, "right.json");
    let (same, result) = compare(&sandbox, "left.json", "left.json", &[]);
    assert_eq!(same, 0, "self-comparison: {result}");
    assert!(behavioural_statuses(&result).iter().all(|s| s == "unchanged" || s == "unknown"), "{result}");
    assert_eq!(
        result["first_divergence"]["status"],
        if status(&result, "filesystem") == "unknown" { "unknown" } else { "none" }
    );
    compare(&sandbox, "left.json", "right.json", &[])
}

fn assert_found(code: i32, result: &Value, dimension: &str, path: &str, location: Value) {
    assert_eq!(code, 3, "{result}");
    assert_eq!(result["status"], "changed");
    assert_eq!(status(result, dimension), "changed", "{result}");
    let first = &result["first_divergence"];
    assert_eq!(first["status"], "found", "{result}");
    assert_eq!(first["dimension"], dimension);
    assert_eq!(first["path"], path, "{first}");
    if !location.is_null() {
        assert_eq!(first["location"], location, "{first}");
    }
}

#[test]
fn a_changed_output_byte_is_located() {
    let (code, result) = planted(sh("echo ready; echo answer 42"), sh("echo ready; echo answer 43"));
    assert_found(
        code,
        &result,
        "terminal",
        "terminal.segments[0]",
        json!({"segment": 0, "byte_offset": 15, "line": 2, "column": 9}),
    );
    assert_eq!(result["first_divergence"]["left"], "ready\r\nanswer 42\r\n");
    assert_eq!(behavioural_statuses(&result)[1..3], ["unchanged"; 2]);
}

#[test]
fn a_changed_exit_code_is_located() {
    let (code, result) = planted(sh("echo x; exit 0"), sh("echo x; exit 3"));
    assert_found(code, &result, "exit", "exit.code", Value::Null);
    assert_eq!(
        (result["first_divergence"]["left"].as_i64(), result["first_divergence"]["right"].as_i64()),
        (Some(0), Some(3))
    );
    assert_eq!(status(&result, "terminal"), "unchanged");
}

#[test]
fn a_changed_file_is_located() {
    let writer = |text: &str| {
        json!({"executable": "sh", "arguments": ["-c", format!("echo {text} > state/out.txt")],
               "filesystem_observation_paths": ["./state"], "timeout_ms": 60000})
    };
    let (code, result) = planted(writer("a"), writer("b"));
    assert_found(code, &result, "filesystem", "files_after[\"root_0:out.txt\"].sha256", Value::Null);
    assert_eq!(status(&result, "terminal"), "unchanged");
}

#[test]
fn a_prompt_after_the_input_is_located_in_the_first_segment() {
    let with = |script: &str| {
        json!({"executable": "sh", "arguments": ["-c", script],
               "events": [{"type": "input", "at_ms": 700, "data": "ada\r"}], "timeout_ms": 60000})
    };
    let (code, result) =
        planted(with("printf 'name? '; read n; echo \"hello $n\""), with("read n; printf 'name? '; echo \"hello $n\""));
    assert_found(
        code,
        &result,
        "terminal",
        "terminal.segments[0]",
        json!({"segment": 0, "byte_offset": 0, "line": 1, "column": 1}),
    );
    assert_eq!(result["first_divergence"]["left"], "name? ");
    assert_eq!(result["first_divergence"]["right"], "");
    assert_eq!(status(&result, "interaction"), "unchanged");
}

#[test]
fn a_changed_screen_cell_is_located() {
    // Rendered frames are written with rea_engine::testing records.
    let sandbox = Sandbox::new();
    let scenario = json!({"executable": "sh", "arguments": ["-c", "echo ready"], "timeout_ms": 5000});
    let resolved = testing::resolve(&sandbox.work(), scenario);
    let record = testing::capture_record(&resolved);
    assert!(!record.rendered_frames.is_empty());
    let mut changed = record.clone();
    let last = changed.rendered_frames.last_mut().unwrap();
    let mut rows = last.lines.to_vec();
    let row = rows.len() - 1;
    rows[row].replace_range(0..1, "D");
    last.lines = rows.into();
    for (name, r) in [("left.json", &record), ("right.json", &changed)] {
        let evidence = capture_evidence(r, testing::capture_parameters(&resolved)).unwrap();
        fs::write(sandbox.work().join(name), serde_json::to_string(&evidence).unwrap()).unwrap();
    }
    let (code, result) = compare(&sandbox, "left.json", "right.json", &[]);
    let segment = result["first_divergence"]["segment"].as_u64().unwrap();
    let path = format!("terminal.screens[{segment}].lines[{row}]");
    assert_found(code, &result, "terminal", &path, json!({"segment": segment, "row": row + 1, "column": 1}));
    let (same, _) = compare(&sandbox, "left.json", "left.json", &[]);
    assert_eq!(same, 0);
}

#[test]
fn a_random_port_is_equal_only_when_ports_are_normalized() {
    let server = |ports: bool| {
        json!({"executable": "sh", "arguments": ["-c", "echo \"listening on http://127.0.0.1:$(( 1024 + $$ % 60000 ))/\""],
               "normalization": {"ports": ports}, "timeout_ms": 60000})
    };
    let (code, result) = planted(server(true), server(true));
    assert_eq!((code, status(&result, "terminal")), (0, "unchanged".to_owned()), "{result}");
    let (code, result) = planted(server(false), server(false));
    assert_found(code, &result, "terminal", "terminal.segments[0]", Value::Null);
}

#[test]
fn a_long_sequence_of_numbers_equals_itself() {
    // `seq 1 40000` prints both runs' PIDs; they are data, not PIDs.
    let (code, result) = planted(sh("seq 1 40000"), sh("seq 1 40000"));
    assert_eq!((code, status(&result, "terminal")), (0, "unchanged".to_owned()), "{result}");
}

#[test]
fn outputs_differing_in_one_invalid_byte_are_changed() {
    let (code, result) = planted(sh("printf 'a\\377b\\n'"), sh("printf 'a\\376b\\n'"));
    assert_found(code, &result, "terminal", "terminal.segments[0].invalid_utf8", Value::Null);
    assert_eq!(
        (result["first_divergence"]["left"].as_str(), result["first_divergence"]["right"].as_str()),
        (Some("ff"), Some("fe"))
    );
}

#[test]
fn a_difference_in_the_retained_part_of_a_truncated_terminal_is_changed() {
    let big = |script: &str| {
        json!({"executable": "sh", "arguments": ["-c", script],
               "limits": {"output_bytes": 600000}, "timeout_ms": 60000})
    };
    let sandbox = Sandbox::new();
    capture(&sandbox, &big("seq 1 100000"), "a.json");
    let b = capture(&sandbox, &big("seq 1 100000"), "b.json");
    assert_eq!(b["truncation_details"]["raw_terminal"]["truncated"], true);
    capture(&sandbox, &big("seq 1 100000 | sed 's/^5$/five/'"), "c.json");
    let (code, result) = compare(&sandbox, "a.json", "b.json", &[]);
    assert_eq!((code, status(&result, "terminal")), (0, "truncated".to_owned()), "{result}");
    let (code, result) = compare(&sandbox, "a.json", "c.json", &[]);
    assert_eq!((code, status(&result, "terminal")), (3, "changed".to_owned()), "{result}");
    let d = &result["dimensions"][0]["differences"][0];
    assert_eq!(d["location"], json!({"segment": 0, "byte_offset": 12, "line": 5, "column": 1}));
}

#[test]
fn the_tolerance_is_recorded_and_zero_is_strict() {
    let sandbox = Sandbox::new();
    let slow = json!({"executable": "sh", "arguments": ["-c", "echo hi"], "timeout_ms": 60000, "settle_ms": 50});
    capture(&sandbox, &slow, "a.json");
    capture(&sandbox, &slow, "b.json");
    let output = sandbox.rea(&["compare-process-captures", "a.json", "b.json", "--json", "--timing-tolerance-ms", "7"]);
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["parameters"]["timing_tolerance_ms"], 7);
    let exit = &document["normalized_result"]["dimensions"][2];
    let delta = &exit["timing_deltas"][0];
    assert_eq!(delta["path"], "settlement.elapsed_ms");
    let (l, r) = (delta["left_ms"].as_i64().unwrap(), delta["right_ms"].as_i64().unwrap());
    assert_eq!(delta["delta_ms"].as_i64(), Some(r - l));
    assert_eq!(delta["within_tolerance"], (r - l).abs() <= 7);
    let (_, default) = compare(&sandbox, "a.json", "b.json", &[]);
    assert_eq!(status(&default, "exit"), "unchanged");
    // A usage error is never mistaken for a comparison result.
    let output = sandbox.rea(&["compare-process-captures", "a.json", "b.json", "--timing-tolerance-ms", "soon"]);
    assert!(matches!(output.status.code(), Some(1 | 2)), "{output:?}");
}

#[test]
fn exit_code_is_documented_and_an_error_stays_1() {
    let sandbox = Sandbox::new();
    let help = sandbox.rea(&["compare-process-captures", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("--exit-code") && text.contains("3 when one was"), "{text}");
    assert!(text.contains("--timing-tolerance-ms <N>") && text.contains("[default: 250]"), "{text}");
    let output = sandbox.rea(&["compare-process-captures", "missing.json", "missing.json", "--exit-code", "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["category"], "invalid_input", "{document}");
}
