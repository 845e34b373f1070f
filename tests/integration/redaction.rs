//! Secret echo redaction: a sensitive input echoed by the terminal, printed
//! back by the program (split across chunks), or never echoed, is absent from
//! every byte `rea` writes (capture JSON and TOON, stderr, the comparison, the
//! working directory), and the capture counts the redactions.

#![cfg(not(feature = "force-stub"))]

use serde_json::{Value, json};

use crate::util::{Capture, capture, files, frames_text, rea};

const SECRET: &str = "Qz7-hunter2-Xk9";

fn marker() -> String {
    format!("<redacted-input:{}-bytes>", SECRET.len() + 1)
}

fn sensitive_capture(script: &str) -> Capture {
    capture(json!({
        "executable": "sh",
        "arguments": ["-c", script],
        // Late enough that the script's `stty -echo` has run on a loaded machine.
        "events": [{"type": "input", "at_ms": 1500, "data": format!("{SECRET}\r"), "sensitive": true}],
        "timeout_ms": 15000
    }))
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Checks the secret is nowhere rea wrote and returns the redaction count the
/// capture's limitation states.
fn assert_secret_absent(c: &Capture) -> u64 {
    assert_eq!(c.status, 0, "stdout: {}", c.stdout);
    assert!(!c.stdout.contains(SECRET), "the secret is in stdout");
    assert!(!c.stderr.contains(SECRET), "the secret is in stderr");
    // The scenario file is the test's own input; everything else is rea's
    // (there should be nothing else: the programs write no file).
    for (name, bytes) in files(c.dir.path()).into_iter().filter(|(n, _)| !n.ends_with("/scenario.json")) {
        assert!(!contains(&bytes, SECRET), "the secret is in {name}");
    }
    let record = &c.document["normalized_result"];
    let limitation = record["limitations"]
        .as_array()
        .expect("limitations")
        .iter()
        .filter_map(Value::as_str)
        .find(|l| {
            l.starts_with(
                "Terminal text, rendered screens, sampled command lines and the names filesystem snapshots record were searched",
            )
        })
        .expect("a redaction limitation");
    let count = limitation.split(" replaced by <redacted-input:N-bytes> ").nth(1).expect("a count");
    let count: u64 = count.split(' ').next().unwrap().parse().expect("a number");
    // The envelope repeats the record's limitations.
    assert!(c.document["limitations"].as_array().unwrap().iter().any(|l| l == limitation));
    count
}

#[test]
fn a_secret_echoed_by_the_terminal_is_redacted() {
    let c = sensitive_capture("printf 'Password: '; read pw; echo \"len=${#pw}\"");
    assert_eq!(assert_secret_absent(&c), 1);
    let text = frames_text(&c.document["normalized_result"]);
    assert!(text.contains(&format!("Password: {}\r\n", marker())), "{text}");
    assert!(text.contains(&format!("len={}", SECRET.len())), "{text}");
}

#[test]
fn a_secret_printed_twice_in_split_chunks_is_redacted_everywhere_rea_writes() {
    // Each copy is written in two parts a moment apart, split inside the
    // secret, so the PTY delivers them as separate chunks.
    let script = "stty -echo; read pw; stty echo; a=$(printf %s \"$pw\" | cut -c1-6); b=$(printf %s \"$pw\" | cut -c7-); \
                  for i in 1 2; do printf '[%s' \"$a\"; sleep 0.3; printf '%s]\\n' \"$b\"; sleep 0.3; done";
    let c = sensitive_capture(script);
    let count = assert_secret_absent(&c);
    let record = &c.document["normalized_result"];
    let text = frames_text(record);
    assert_eq!(text.matches(&format!("[{}]", marker())).count(), 2, "{text}");
    // Two printed copies; a third only if the input arrived before the
    // script's `stty -echo` (a very loaded machine) and the terminal echoed it.
    assert_eq!(count, text.matches(&marker()).count() as u64, "{text}");
    assert!(count == 2 || count == 3, "{count} redactions: {text}");
    // No frame holds any fragment that only the split could leave behind.
    assert!(!text.contains(&SECRET[..6]) && !text.contains(&SECRET[6..]), "{text}");

    // The comparison of the capture with itself, and the TOON rendering of
    // both documents, hold no secret either.
    std::fs::write(c.dir.path().join("capture.json"), &c.stdout).unwrap();
    for args in [
        &["compare-process-captures", "capture.json", "capture.json", "--json"][..],
        &["compare-process-captures", "capture.json", "capture.json"][..],
    ] {
        let out = rea(c.dir.path(), args);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
        assert!(out.stdout.len() > 100, "the comparison printed a document");
        assert!(!contains(&out.stdout, SECRET) && !contains(&out.stderr, SECRET), "the comparison leaks");
    }
    let toon = rea(c.dir.path(), &["capture-process", "scenario.json"]);
    assert_eq!(toon.status.code(), Some(0), "{}", String::from_utf8_lossy(&toon.stdout));
    assert!(contains(&toon.stdout, &marker()), "the TOON capture shows the marker");
    assert!(!contains(&toon.stdout, SECRET) && !contains(&toon.stderr, SECRET), "the TOON capture leaks");
}

#[test]
fn a_secret_never_echoed_is_counted_as_no_redaction() {
    let c = sensitive_capture("stty -echo; printf 'Password: '; read pw; stty echo; echo; echo \"len=${#pw}\"");
    let count = assert_secret_absent(&c);
    let text = frames_text(&c.document["normalized_result"]);
    // The input arrives after `stty -echo` has run (1.5 s is ample unless
    // the machine is very loaded; then the terminal echoed it once, and the
    // count says so).
    assert_eq!(count, text.matches(&marker()).count() as u64, "{text}");
    assert!(count <= 1, "{count} redactions: {text}");
    if count == 0 {
        assert!(text.starts_with("Password: \r\n") || text.starts_with("Password: \n"), "{text}");
    }
    assert!(text.contains(&format!("len={}", SECRET.len())), "{text}");
}

#[test]
fn a_secret_used_in_file_names_and_a_symlink_target_is_redacted_in_both_snapshots_and_the_effects() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Present before the run too, so both snapshots record the name.
    std::fs::create_dir_all(dir.path().join("state")).unwrap();
    std::fs::write(dir.path().join("state").join(format!("old-{SECRET}")), "").unwrap();
    let script = "stty -echo; read pw; stty echo; mkdir \"state/$pw\"; : > \"state/$pw/inner\"; \
                  : > \"state/a-$pw.txt\"; ln -s \"$pw/inner\" state/link; rm \"state/old-$pw\"; echo done";
    let c = crate::util::capture_in(
        dir,
        json!({
            "executable": "sh",
            "arguments": ["-c", script],
            "filesystem_observation_paths": ["./state"],
            "events": [{"type": "input", "at_ms": 1500, "data": format!("{SECRET}\r"), "sensitive": true}],
            "timeout_ms": 15000
        }),
    );
    let count = assert_secret_absent(&c);
    // The program's own files carry the secret in their names: that is the
    // test's setup, not rea's output (assert_secret_absent reads contents).
    let record = &c.document["normalized_result"];
    let m = marker();
    let effects: Vec<(String, String)> = record["filesystem_effects"]
        .as_array()
        .expect("effects")
        .iter()
        .map(|e| (e["path"].as_str().unwrap().to_owned(), e["status"].as_str().unwrap().to_owned()))
        .collect();
    let expected = [
        (format!("root_0:{m}"), "created"),
        (format!("root_0:{m}/inner"), "created"),
        (format!("root_0:a-{m}.txt"), "created"),
        ("root_0:link".to_owned(), "created"),
        (format!("root_0:old-{m}"), "deleted"),
    ];
    for (path, status) in &expected {
        assert!(effects.iter().any(|(p, s)| p == path && s == status), "no {status} {path} in {effects:?}");
    }
    let link = record["files_after"].as_array().unwrap().iter().find(|f| f["path"] == "root_0:link").expect("link");
    assert_eq!(link["symlink_target"], json!(format!("{m}/inner")));
    // The count covers the names: four in files_after (the directory, the
    // file below it, the file beside it, the link's target), one in
    // files_before, plus whatever the terminal showed.
    // The exact process journal records the commands that used the secret
    // (mkdir, ln, rm), each redacted once.
    let terminal = frames_text(record).matches(&m).count() as u64;
    let commands = record["process_samples"].to_string().matches(&m).count() as u64;
    assert_eq!(record["truncation_details"]["process"]["coverage"], "exact");
    assert!(commands >= 3, "{}", record["process_samples"]);
    assert_eq!(
        count,
        terminal + 5 + commands,
        "{count} redactions, {terminal} in the terminal, {commands} in commands"
    );
    assert!(record["truncation_details"]["filesystem_after"]["roots"][0]["complete"] == json!(true));
}

#[test]
fn a_secret_rebuilt_on_screen_from_pieces_is_in_no_byte_rea_writes_nor_on_a_replayed_screen() {
    // The stream never holds the secret whole: "X" + all but its first
    // character, a carriage return, then its first character over the "X".
    let scenario = json!({
        "executable": "bash",
        "arguments": ["-c", "stty -echo; printf 'Password: '; read x; stty echo; echo; printf \"X%s\\r%s\\n\" \"${x:1}\" \"${x:0:1}\"; sleep 0.2; echo bye"],
        "events": [{"type": "input", "at_ms": 1500, "data": format!("{SECRET}\r"), "sensitive": true}],
        "timeout_ms": 15000
    });
    let c = capture(scenario);
    let count = assert_secret_absent(&c);
    let record = &c.document["normalized_result"];
    let text = frames_text(record);
    // The chunks that drew it lost their text; the others kept theirs.
    assert!(!text.contains(&SECRET[1..]), "a piece is still in the frames: {text}");
    assert!(text.contains("Password: ") && text.contains("bye"), "{text}");
    assert!(text.contains(&marker()), "{text}");
    let frames = record["rendered_frames"].as_array().expect("rendered frames");
    let on_screens = frames.iter().filter(|f| f["lines"].to_string().contains(&marker())).count() as u64;
    assert!(on_screens >= 1 && count >= on_screens, "{count} redactions, {on_screens} screens");
    let limitations: Vec<&str> = record["limitations"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let pieces = limitations
        .iter()
        .find(|l| {
            l.starts_with("Replayed chunk by chunk, the terminal output drew a sensitive input on screen from pieces")
        })
        .unwrap_or_else(|| panic!("the limitation says which chunks lost their text: {limitations:?}"));
    assert!(pieces.contains("was replaced by <redacted-input:N-bytes>"), "{pieces}");
    assert!(c.document["limitations"].as_array().unwrap().iter().any(|l| l == pieces));

    // Nothing rea prints from the capture, JSON or TOON, shows it either.
    let dir = c.dir.path();
    std::fs::write(dir.join("capture.json"), &c.stdout).unwrap();
    let toon = rea(dir, &["capture-process", "scenario.json"]);
    assert_eq!(toon.status.code(), Some(0), "{}", String::from_utf8_lossy(&toon.stderr));
    assert!(!contains(&toon.stdout, SECRET) && !contains(&toon.stdout, &SECRET[1..]), "the TOON capture leaks");
    std::fs::write(dir.join("capture.toon"), &toon.stdout).unwrap();
    for args in [
        &["show", "capture.json"][..],
        &["show", "capture.toon"][..],
        &["export-asciicast", "capture.toon"][..],
        &["compare-process-captures", "capture.json", "capture.toon", "--json"][..],
        &["compare-process-captures", "capture.json", "capture.toon"][..],
    ] {
        let out = rea(dir, args);
        assert!(out.status.code().is_some_and(|c| c <= 1), "rea {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.len() > 100, "rea {args:?} printed a document");
        for needle in [SECRET, &SECRET[1..]] {
            assert!(!contains(&out.stdout, needle) && !contains(&out.stderr, needle), "rea {args:?} shows {needle}");
        }
    }

    // The asciicast played in a terminal does not draw it.
    let out = rea(dir, &["export-asciicast", "capture.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!contains(&out.stdout, SECRET) && !contains(&out.stdout, &SECRET[1..]), "the cast leaks");
    std::fs::write(dir.join("capture.cast"), &out.stdout).unwrap();
    let Some(asciinema) = crate::tools::require("asciinema", "asciinema", "ci/setup-asciinema.sh") else { return };
    let Some(tmux) = crate::tools::require("tmux", "asciinema", "ci/setup-asciinema.sh") else { return };
    let tmux = crate::asciicast::Tmux::new(tmux);
    let played = tmux.screen_after("pieces", &format!("'{}' cat capture.cast", asciinema.display()), dir).join("\n");
    assert!(played.contains("bye") && played.contains("Password:"), "the cast played: {played}");
    assert!(!played.contains(SECRET) && !played.contains(&SECRET[1..]), "the replayed screen shows it: {played}");
}
