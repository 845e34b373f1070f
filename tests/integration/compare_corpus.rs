//! Corpus: GNU coreutils as the authority against uutils (Debian
//! `rust-coreutils`) and BusyBox as reconstructions, on deterministic
//! invocations. The true verdict comes from outside rea
//! (`tests/corpus/pty_truth.py`: each run under a PTY with Python's `pty`
//! module, bytes and exit code compared); rea must agree on every one, and
//! every GNU rerun must compare `unchanged` with the first run.
//! `ci/setup-coreutils.sh` installs the tools; in CI a missing tool fails.
#![cfg(not(feature = "force-stub"))]

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::sandbox::Sandbox;

const UUTILS: &str = "/usr/bin/coreutils";
const BUSYBOX: &str = "/usr/bin/busybox";

/// Utility and arguments; each runs in a directory holding the fixtures.
const INVOCATIONS: &[&[&str]] = &[
    &["echo", "hello", "world"],
    &["echo", "-n", "abc"],
    &["printf", "%s-%d\\n", "x", "42"],
    &["printf", "%5.2f|%-4s|\\n", "3.14159", "ab"],
    &["printf", "a\\377b\\n"],
    &["seq", "1", "20"],
    &["seq", "-w", "8", "11"],
    &["seq", "1", "0.5", "3"],
    &["basename", "/a/b/c.txt", ".txt"],
    &["dirname", "/a/b/c.txt"],
    &["cat", "lines.txt"],
    &["cat", "-n", "lines.txt"],
    &["cat", "invalid.bin"],
    &["cat", "missing.txt"],
    &["head", "-n", "3", "lines.txt"],
    &["tail", "-n", "2", "lines.txt"],
    &["wc", "lines.txt"],
    &["wc", "-c", "lines.txt"],
    &["sort", "lines.txt"],
    &["sort", "-r", "-n", "numbers.txt"],
    &["uniq", "-c", "dup.txt"],
    &["cut", "-d:", "-f2", "fields.txt"],
    &["od", "-c", "small.bin"],
    &["od", "-An", "-tx1", "small.bin"],
    &["base64", "lines.txt"],
    &["sha256sum", "lines.txt"],
    &["md5sum", "lines.txt"],
    &["expand", "tabs.txt"],
    &["fold", "-w", "5", "lines.txt"],
    &["nl", "lines.txt"],
    &["paste", "lines.txt", "numbers.txt"],
    &["tac", "lines.txt"],
    &["expr", "6", "*", "7"],
    &["expr", "length", "abcdef"],
    &["factor", "360"],
    &["true"],
    &["false"],
    &["test", "-d", "lines.txt"],
    &["ls", "nonexistent"],
    &["numfmt", "--to=iec", "1048576"],
    &["comm", "a.txt", "b.txt"],
    &["join", "a.txt", "b.txt"],
];

fn fixtures(dir: &Path) {
    let files: [(&str, &[u8]); 10] = [
        ("lines.txt", b"pear\napple\nfig\nbanana\ncherry\n"),
        ("numbers.txt", b"10\n9\n100\n-3\n42\n"),
        ("dup.txt", b"a\na\nb\nc\nc\nc\n"),
        ("fields.txt", b"root:x:0\nuser:y:1000\n"),
        ("small.bin", b"AB\x00\x01\xfe\xffz\n"),
        ("invalid.bin", b"ok \xff\xfe done\n"),
        ("tabs.txt", b"a\tb\tc\n\tx\n"),
        ("a.txt", b"1 apple\n2 fig\n3 kiwi\n"),
        ("b.txt", b"1 red\n3 green\n4 blue\n"),
        ("empty.txt", b""),
    ];
    for (name, bytes) in files {
        fs::write(dir.join(name), bytes).unwrap();
    }
}

/// The executable and arguments of `invocation` under one implementation.
fn argv(implementation: &str, invocation: &[&str]) -> Vec<String> {
    let mut out = match implementation {
        "gnu" => vec![format!("/usr/bin/{}", invocation[0])],
        "uutils" => vec![UUTILS.to_owned(), invocation[0].to_owned()],
        _ => vec![BUSYBOX.to_owned(), invocation[0].to_owned()],
    };
    out.extend(invocation[1..].iter().map(|s| (*s).to_owned()));
    out
}

/// Whether a tool is present; a missing one fails in CI and is skipped (with
/// a message) elsewhere.
fn available(path: &str, what: &str) -> bool {
    if Path::new(path).exists() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{what} is not installed ({path}); run ci/setup-coreutils.sh"
    );
    eprintln!("skipped: {what} not installed");
    false
}

fn truth(dir: &Path, argvs: &[Vec<String>]) -> Vec<(Vec<u8>, i64)> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/pty_truth.py");
    let mut child = Command::new("python3")
        .arg(script)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run python3");
    child.stdin.take().unwrap().write_all(serde_json::to_string(argvs).unwrap().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "pty_truth.py failed");
    let runs: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    runs.iter()
        .map(|r| {
            let hex = r["output_hex"].as_str().unwrap();
            let bytes = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
            (bytes, r["exit_code"].as_i64().unwrap())
        })
        .collect()
}

fn capture(sandbox: &Sandbox, argv: &[String], out: &str) {
    let scenario = json!({
        "executable": argv[0], "arguments": &argv[1..], "timeout_ms": 60000,
        // Byte-exact text, as the outside verdict compares bytes.
        "normalization": {"paths": false, "pids": false, "ports": false}
    });
    let name = format!("{out}.scenario.json");
    fs::write(sandbox.work().join(&name), scenario.to_string()).unwrap();
    let output = sandbox.rea(&["capture-process", &name, "--json"]);
    assert_eq!(output.status.code(), Some(0), "{argv:?}");
    fs::write(sandbox.work().join(out), &output.stdout).unwrap();
}

/// rea's verdict: whether terminal, interaction and exit are unchanged,
/// checked against `--exit-code`.
fn rea_equal(sandbox: &Sandbox, left: &str, right: &str) -> bool {
    let output = sandbox.rea(&["compare-process-captures", left, right, "--json", "--exit-code"]);
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let result = &document["normalized_result"];
    let statuses: Vec<&str> =
        result["dimensions"].as_array().unwrap()[..3].iter().map(|d| d["status"].as_str().unwrap()).collect();
    let equal = statuses == ["unchanged"; 3];
    assert!(equal || statuses.contains(&"changed"), "{left} vs {right}: neither equal nor changed: {result}");
    assert_eq!(output.status.code(), Some(if equal { 0 } else { 3 }), "{left} vs {right}: {result}");
    equal
}

#[test]
fn rea_agrees_with_the_outside_verdict_on_coreutils_rewrites() {
    let implementations: Vec<&str> = ["gnu", "uutils", "busybox"]
        .into_iter()
        .filter(|i| match *i {
            "uutils" => available(UUTILS, "uutils (rust-coreutils)"),
            "busybox" => available(BUSYBOX, "busybox"),
            _ => true,
        })
        .collect();
    if !available("/usr/bin/python3", "python3") {
        return;
    }
    let sandbox = Sandbox::new();
    fixtures(&sandbox.work());
    let argvs: Vec<Vec<String>> =
        INVOCATIONS.iter().flat_map(|inv| implementations.iter().map(|i| argv(i, inv))).collect();
    let truths = truth(&sandbox.work(), &argvs);
    let disagreements = Mutex::new(Vec::new());
    let tally = Mutex::new((0usize, 0usize));
    let next = Mutex::new(0usize);
    // Two workers: bounded concurrency.
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let n = {
                        let mut next = next.lock().unwrap();
                        *next += 1;
                        *next - 1
                    };
                    let Some(invocation) = INVOCATIONS.get(n) else { break };
                    let base = n * implementations.len();
                    let gnu = format!("{n}-gnu.json");
                    capture(&sandbox, &argv("gnu", invocation), &gnu);
                    capture(&sandbox, &argv("gnu", invocation), &format!("{n}-gnu-again.json"));
                    assert!(
                        rea_equal(&sandbox, &gnu, &format!("{n}-gnu-again.json")),
                        "GNU {invocation:?} differs from itself"
                    );
                    for (k, implementation) in implementations.iter().enumerate().skip(1) {
                        let file = format!("{n}-{implementation}.json");
                        capture(&sandbox, &argv(implementation, invocation), &file);
                        let truly_equal = truths[base] == truths[base + k];
                        let equal = rea_equal(&sandbox, &gnu, &file);
                        let mut t = tally.lock().unwrap();
                        t.0 += 1;
                        t.1 += usize::from(truly_equal);
                        if equal != truly_equal {
                            disagreements.lock().unwrap().push(format!(
                                "{implementation} {invocation:?}: truly equal {truly_equal}, rea equal {equal}"
                            ));
                        }
                    }
                }
            });
        }
    });
    let (pairs, equal) = *tally.lock().unwrap();
    eprintln!("corpus: {} invocations, {pairs} pairs, {equal} truly equal", INVOCATIONS.len());
    assert_eq!(disagreements.into_inner().unwrap(), Vec::<String>::new());
}
