use super::*;
use crate::secrets::pieces_limitation;

const SECRET: &str = "Qz7-hunter2-Xk9";

fn secrets() -> Secrets {
    Secrets::new([(SECRET, "<R15>".to_owned())])
}

fn frames(texts: &[&str]) -> Vec<Frame> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| Frame {
            sequence: i as u64,
            at_ms: i as u64,
            data: (*t).to_owned(),
            raw_data: None,
            invalid_utf8: None,
        })
        .collect()
}

fn steps(n: usize) -> Vec<ReplayStep> {
    (0..n).map(ReplayStep::Frame).collect()
}

fn drop(frames: &mut [Frame], steps: &[ReplayStep]) -> DroppedPieces {
    secrets().drop_rebuilt_pieces(frames, Replay { columns: 40, rows: 5, steps })
}

/// The screen after replaying every chunk's text in `view`, rows joined by newlines.
fn replayed(frames: &[Frame], raw: bool) -> String {
    let mut e = Emulator::new(40, 5, 0);
    for f in frames {
        e.feed(if raw { f.raw_data.as_deref().unwrap_or(&f.data) } else { &f.data });
    }
    let mut out = String::new();
    let mut row = String::new();
    for line in e.terminal().screen().visible_lines() {
        e.row_text(line, &mut row);
        out.push_str(&row);
        out.push('\n');
    }
    out
}

#[test]
fn the_chunks_that_drew_a_secret_from_pieces_lose_their_text_and_the_others_keep_it() {
    let (first, rest) = SECRET.split_at(1);
    let x = format!("X{rest}");
    let mut f = frames(&["Password: \r\n", &x, "\r", first, "\r\nbye\r\n"]);
    assert!(replayed(&f, false).contains(SECRET), "the setup rebuilds the secret");
    let dropped = drop(&mut f, &steps(5));
    assert_eq!(dropped, DroppedPieces { replaced: vec![1, 3], emptied_all: false });
    let data: Vec<&str> = f.iter().map(|f| f.data.as_str()).collect();
    assert_eq!(data, ["Password: \r\n", "<R15>", "\r", "<R15>", "\r\nbye\r\n"]);
    assert!(!replayed(&f, false).contains(SECRET) && !replayed(&f, false).contains(rest));
}

#[test]
fn pieces_placed_by_cursor_moves_and_coloured_are_found_through_the_escape_sequences() {
    // The tail first at column 5 in red, then the head at column 1, in a
    // chunk that also carries an escape split across chunks.
    let mut f = frames(&["\x1b[1;5H\x1b[3", "1m", "hunter2-Xk9\x1b[0m", "\x1b[1;1HQz7-", "\x1b[3;1Hok"]);
    assert!(replayed(&f, false).contains(SECRET), "the setup rebuilds the secret");
    let dropped = drop(&mut f, &steps(5));
    assert_eq!(dropped.replaced, vec![2, 3]);
    assert_eq!(f[1].data, "1m", "the chunk that only held an escape keeps its text");
    assert_eq!(f[4].data, "\x1b[3;1Hok");
    assert!(!replayed(&f, false).contains(SECRET));
}

#[test]
fn a_secret_scrolled_and_moved_by_insertion_is_traced_to_the_chunks_that_printed_it() {
    // Printed as "Qz7-hu" + "Xnter2-Xk9" on one row, then a line feed
    // scrolls nothing (row 0 of 5), the cursor returns and one character is
    // deleted (DCH), joining the pieces in a chunk that prints nothing.
    let mut f = frames(&["Qz7-hu", "Xnter2-Xk9", "\r\n", "\x1b[1;7H\x1b[P"]);
    assert!(replayed(&f, false).contains(SECRET), "the setup rebuilds the secret");
    let dropped = drop(&mut f, &steps(4));
    assert_eq!(dropped.replaced, vec![0, 1, 3]);
    assert_eq!(f[2].data, "\r\n");
}

#[test]
fn the_raw_text_is_searched_too() {
    let mut f = frames(&["X", "\r", "ok"]);
    f[0].raw_data = Some(format!("X{}", &SECRET[1..]));
    f[2].raw_data = Some(SECRET[..1].to_owned());
    let dropped = drop(&mut f, &steps(3));
    assert_eq!(dropped.replaced, vec![0, 2]);
    assert!(f.iter().all(|f| f.raw_data.is_none()));
    assert!(!replayed(&f, true).contains(SECRET));
}

#[test]
fn a_resize_that_reflows_pieces_together_is_searched() {
    // "Qz7-hunter2" fills a 11-column row, "-Xk9" continues on the next:
    // the wrapped rows show the secret only through the row's continuation.
    let mut f = frames(&["Qz7-hunter2", "-Xk9", "\r\n"]);
    let steps = [ReplayStep::Frame(0), ReplayStep::Frame(1), ReplayStep::Frame(2)];
    let dropped = secrets().drop_rebuilt_pieces(&mut f, Replay { columns: 11, rows: 5, steps: &steps });
    assert_eq!(dropped.replaced, vec![0, 1]);
}

#[test]
fn chunks_that_draw_no_secret_are_left_as_they_are() {
    let texts = ["Qz7-hunter2", "\r\n", "-Xk9\r\n", "Qz7-hunter2-Xk8"];
    let mut f = frames(&texts);
    assert!(drop(&mut f, &steps(4)).is_empty());
    assert_eq!(f.iter().map(|f| f.data.as_str()).collect::<Vec<_>>(), texts);
    let mut g = frames(&[SECRET]);
    assert!(
        Secrets::default().drop_rebuilt_pieces(&mut g, Replay { columns: 40, rows: 5, steps: &steps(1) }).is_empty()
    );
    assert_eq!(g[0].data, SECRET, "no secret, nothing to look for");
}

#[test]
fn a_marker_that_itself_draws_a_secret_empties_the_chunks() {
    // The marker is the secret's own text: replacing cannot clear it.
    let s = Secrets::new([("ab-cd-ef", "ab-cd-ef".to_owned())]);
    let mut f = frames(&["ab-", "cd-ef"]);
    let dropped = s.drop_rebuilt_pieces(&mut f, Replay { columns: 40, rows: 5, steps: &steps(2) });
    assert_eq!(dropped.replaced, vec![0, 1]);
    assert!(f.iter().all(|f| f.data.is_empty()), "{f:?}");
}

#[test]
fn tags_name_every_chunk_up_to_both_planes_and_nothing_else() {
    for chunk in [0, 1, 65_533, 65_534, 65_535, 131_067] {
        assert_eq!(untag(tag(chunk).unwrap()), Some(chunk), "chunk {chunk}");
    }
    assert_eq!(tag(131_068), None);
    assert_eq!(untag('a'), None);
    assert_eq!(untag('\u{FFFFE}'), None);
}

#[test]
fn the_limitation_lists_the_chunks_and_says_what_stays() {
    let one = pieces_limitation(&DroppedPieces { replaced: vec![3], emptied_all: false }).unwrap();
    assert!(one.contains("the 1 chunk that drew it (frames with sequence 3)"), "{one}");
    assert!(one.contains("a part of a sensitive input that was never on screen with the rest of it stays"), "{one}");
    let many = pieces_limitation(&DroppedPieces { replaced: (0..25).collect(), emptied_all: false }).unwrap();
    assert!(
        many.contains("sequences 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, and 5 more")
    );
    let all = pieces_limitation(&DroppedPieces { replaced: vec![], emptied_all: true }).unwrap();
    assert!(all.contains("the record's frames hold no terminal text"), "{all}");
    assert_eq!(pieces_limitation(&DroppedPieces::default()), None);
}
