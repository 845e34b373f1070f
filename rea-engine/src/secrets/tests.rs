use std::borrow::Cow;

use super::*;

fn redactor(secrets: &[&str]) -> Redactor {
    Secrets::new(secrets.iter().map(|s| (*s, format!("<R{}>", s.len())))).redactor()
}

fn run(r: &mut Redactor, chunks: &[&str]) -> String {
    let mut out: String = chunks.iter().map(|c| r.push(c).into_owned()).collect();
    out.push_str(&r.finish());
    out
}

#[test]
fn the_line_terminator_is_not_part_of_the_secret() {
    assert_eq!(secret_part("hunter2\r\n"), "hunter2");
    assert_eq!(secret_part("hunter2\n"), "hunter2");
    assert_eq!(secret_part("hunter2\r"), "hunter2");
    assert_eq!(secret_part("hunter2\n\n"), "hunter2\n");
    assert_eq!(secret_part("hunter2"), "hunter2");
}

#[test]
fn every_split_of_a_secret_across_chunks_is_redacted() {
    let text = "pw: s3cr3t-X\r\nagain s3cr3t-X!";
    for a in 0..=text.len() {
        for b in a..=text.len() {
            let mut r = redactor(&["s3cr3t-X"]);
            let out = run(&mut r, &[&text[..a], &text[a..b], &text[b..]]);
            assert_eq!(out, "pw: <R8>\r\nagain <R8>!", "split at {a},{b}");
            assert_eq!(r.redactions(), 2);
        }
    }
}

#[test]
fn held_back_text_is_at_most_one_byte_short_of_a_secret_and_released_when_decided() {
    let mut r = redactor(&["abcdef"]);
    assert_eq!(r.push("xxabcde"), "xx");
    assert_eq!(r.held.len(), 5);
    assert_eq!(r.push("Z"), "abcdeZ");
    assert_eq!(r.push("abc"), "");
    assert_eq!(r.finish(), "abc");
    assert_eq!(r.redactions(), 0);
}

#[test]
fn the_longest_secret_wins_even_when_a_shorter_one_completes_first() {
    let mut r = redactor(&["abcd", "abcdefgh"]);
    assert_eq!(run(&mut r, &["_abcd", "efgh_abcd_"]), "_<R8>_<R4>_");
    assert_eq!(r.redactions(), 2);
}

#[test]
fn text_without_secrets_is_borrowed_and_unchanged() {
    let mut r = Secrets::of_inputs([]).redactor();
    assert!(!r.is_active());
    assert!(matches!(r.push("hello"), Cow::Borrowed("hello")));
    let mut r = redactor(&["zzzz"]);
    assert_eq!(run(&mut r, &["héllo ", "wörld"]), "héllo wörld");
    assert_eq!(r.redactions(), 0);
}

#[test]
fn multibyte_secrets_split_inside_a_character_still_match() {
    let mut r = redactor(&["pässwört"]);
    let text = "<pässwört>";
    for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
        let mut r2 = redactor(&["pässwört"]);
        assert_eq!(run(&mut r2, &[&text[..cut], &text[cut..]]), "<<R10>>");
    }
    assert_eq!(run(&mut r, &[text]), "<<R10>>");
}

#[test]
fn every_writer_counts_into_the_one_tally_of_the_value_they_were_handed() {
    let secrets = Secrets::of_inputs(["s3cr3t-X\r", "0ther-Yz\n"]);
    let (mut stream, mut names, screens) = (secrets.redactor(), secrets.clone().redactor(), secrets.screens());
    // The terminal stream: two echoes, one split across chunks.
    let out = run(&mut stream, &["pw: s3cr", "3t-X ok s3cr3t-X"]);
    assert_eq!(out.matches("<redacted-input:9-bytes>").count(), 2, "{out}");
    // A name and a command line: one each.
    assert_eq!(names.whole("dir/s3cr3t-X.txt"), "dir/<redacted-input:9-bytes>.txt");
    assert_eq!(names.prefix("sh -c s3cr3t-X s3cr"), "sh -c <redacted-input:9-bytes> ");
    // A rendered screen: one.
    let mut frame = crate::evidence::RenderedFrame {
        sequence: 0,
        at_ms: 0,
        columns: 20,
        rows: 1,
        cursor_x: 0,
        cursor_y: 0,
        active_buffer: crate::evidence::ActiveBuffer::Normal,
        lines: ["s3cr3t-X"].iter().collect(),
        serialized_state: String::new(),
    };
    screens.redact(&mut frame, None);
    assert_eq!(secrets.redactions(), Redactions { total: 5, on_screens: 1 });
    assert_eq!(stream.redactions(), 4, "a redactor reads the shared tally of text replacements");
    let limitation = secrets.limitation().expect("a secret was looked for");
    assert!(limitation.contains("<redacted-input:N-bytes> 5 times (1 of them on rendered screens"), "{limitation}");
}

#[test]
fn no_sensitive_input_means_no_limitation_and_nothing_counted() {
    let secrets = Secrets::of_inputs([]);
    assert!(!secrets.is_active());
    assert_eq!(secrets.redactor().whole("s3cr3t-X"), "s3cr3t-X");
    assert_eq!((secrets.redactions(), secrets.limitation()), (Redactions::default(), None));
}
