//! The emulator that skips redraws hidden by a full clear (when nothing
//! shows the scrollback) against the reference emulator, which parses every
//! character: the same visible cells and wrap flags of both screens, the
//! same cursor, dump (pen, modes, charsets, margins, saved cursors) and
//! cells read back, after every feed, on pseudo-random streams of
//! full-screen redraws mixed with everything a redraw may not skip.

use avt::Cell;

use super::cells::Emulator;
use crate::testing::Rng;

/// Everything visible of an emulator's state (not the scrollback).
#[derive(Debug, PartialEq)]
struct Seen {
    dump: String,
    cursor: (usize, usize, bool),
    primary: Vec<(Vec<Cell>, bool)>,
    active: Vec<(Vec<Cell>, bool)>,
    cells: Vec<Vec<(u16, String)>>,
}

fn seen(e: &Emulator) -> Seen {
    let term = e.terminal();
    let c = term.cursor();
    let lines = |s: avt::Screen<'_>| s.visible_lines().map(|l| (l.cells().to_vec(), l.is_wrapped())).collect();
    Seen {
        dump: e.dump(),
        cursor: (c.col, c.row, c.visible),
        primary: lines(term.primary_screen()),
        active: lines(term.screen()),
        cells: e.cells(),
    }
}

/// One piece of a redraw, or something a redraw may not skip.
fn token(rng: &mut Rng, columns: u64, rows: u64) -> String {
    const SKIPPABLE: &[&str] = &[
        "\r\n",
        "\r\n",
        "\n",
        "\r",
        "\x1b[0m",
        "\x1b[m",
        "\x1b[1;31m",
        "\x1b[44m",
        "\x1b[7m",
        "\x1b[22;39m",
        "\x1b[K",
        "\x1b[1K",
        "\x1b[2K",
        "\x1b[J",
        "\x1b[1J",
        "\x1b[2J",
        "\x1b[H",
        "\x1b[3A",
        "\x1b[2B",
        "\x1b[5C",
        "\x1b[D",
        "\x1b[4G",
        "\x1b[2d",
        "日本",
        "─│",
        "é",
    ];
    const OTHER: &[&str] = &[
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\x1b[?7l",
        "\x1b[?7h",
        "\x1b[4h",
        "\x1b[4l",
        "\x1b[20h",
        "\x1b[?6h",
        "\x1b[2;3r",
        "\x1b[r",
        "\x1b(0",
        "\x1b(B",
        "\x0e",
        "\x0f",
        "\x1b7",
        "\x1b8",
        "\x1b[s",
        "\x1b[u",
        "\t",
        "\x08",
        "\x1bH",
        "\x1b[3g",
        "\x1b[38;5;3m",
        "\x1b]0;t\x07",
        "e\u{301}",
        "\u{200D}",
        "\u{40001}",
        "\u{85}",
        "\x1bM",
        "\x1b[3J",
        "\x1b[",
        "\x1bc",
    ];
    match rng.below(20) {
        0..=2 => "\x1b[H\x1b[2J".to_owned(),
        3 => "\x1b[2J\x1b[H".to_owned(),
        4 => format!("\x1b[{};{}H\x1b[2J", rng.below(rows + 2), rng.below(columns + 2)),
        5..=7 => format!("\x1b[{};{}H", rng.below(rows + 2), rng.below(columns + 2)),
        8..=11 => {
            let len = if rng.below(4) == 0 { columns + rng.below(columns) } else { rng.below(columns) };
            (0..len).map(|i| char::from(b'!' + ((i * 5 + rng.below(90)) % 90) as u8)).collect()
        }
        12 => (*rng.pick(OTHER)).to_owned(),
        _ => (*rng.pick(SKIPPABLE)).to_owned(),
    }
}

/// `text` cut into feeds at random character boundaries.
fn pieces(rng: &mut Rng, text: &str) -> Vec<String> {
    let (mut out, mut rest) = (Vec::new(), text);
    while !rest.is_empty() {
        let mut end = (rng.below(400) as usize + 1).min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        out.push(rest[..end].to_owned());
        rest = &rest[end..];
    }
    out
}

#[test]
fn skipping_hidden_redraws_shows_exactly_what_parsing_everything_shows() {
    let mut feeds = 0;
    for seed in 1..=80u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let (columns, rows, scrollback) =
            [(10, 4, 5), (7, 1, 0), (12, 6, 0), (20, 3, 30), (1, 2, 3)][(seed % 5) as usize];
        let mut skipping = Emulator::new(columns, rows, scrollback).with_scrollback_unseen();
        let mut reference = Emulator::reference(columns, rows, scrollback);
        let text: String = (0..600).map(|_| token(&mut rng, columns as u64, rows as u64)).collect();
        for (i, piece) in pieces(&mut rng, &text).iter().enumerate() {
            skipping.feed(piece);
            reference.feed(piece);
            assert_eq!(seen(&skipping), seen(&reference), "seed {seed}, {columns}x{rows}+{scrollback}, feed {i}");
            feeds += 1;
        }
    }
    assert!(feeds > 1000, "{feeds} feeds compared");
}

/// A piece of many full redraws: the skip does skip (the cells of the
/// earlier redraws never reach the screen), and shows what the reference shows.
#[test]
fn a_piece_of_full_redraws_is_skipped_to_its_last_one() {
    let redraw = |n: usize| format!("\x1b[H\x1b[2J\x1b[3{}mframe {n}\r\nrow two\x1b[0m", n % 8);
    let text: String = (0..500).map(redraw).collect();
    let mut skipping = Emulator::new(20, 4, 100).with_scrollback_unseen();
    let mut reference = Emulator::reference(20, 4, 100);
    skipping.feed(&text);
    reference.feed(&text);
    assert_eq!(seen(&skipping), seen(&reference));
    let lines = |e: &Emulator| e.terminal().primary_screen().all_lines().count();
    assert!(lines(&skipping) < lines(&reference), "the earlier redraws were not executed");
}
