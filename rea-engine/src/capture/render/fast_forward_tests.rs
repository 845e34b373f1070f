//! The plain-text fast paths of `cells.rs` (plain runs executed without the
//! parser, and the fast-forward that skips what cannot affect the state)
//! against the reference emulator, which parses every character: the same
//! cells, wrap flags, scrollback, cursor, dump and cells read back, after
//! every feed and every resize, on many pseudo-random streams built to hit
//! the rule's edges (margins, the alternate screen, insert mode, LNM,
//! autowrap, wide and zero-width characters, colours, resets, split
//! sequences, resizes right after a skipped run).

use avt::Cell;

use super::cells::Emulator;

/// Everything of an emulator's state that can be observed later.
#[derive(Debug, PartialEq)]
struct State {
    dump: String,
    cursor: (usize, usize, bool),
    size: (usize, usize),
    primary: Vec<(Vec<Cell>, bool)>,
    active: Vec<(Vec<Cell>, bool)>,
    text: Vec<String>,
    cells: Vec<Vec<(u16, String)>>,
}

fn lines<'a>(lines: impl Iterator<Item = &'a avt::Line>) -> Vec<(Vec<Cell>, bool)> {
    lines.map(|l| (l.cells().to_vec(), l.is_wrapped())).collect()
}

fn state(e: &Emulator) -> State {
    let term = e.terminal();
    let c = term.cursor();
    State {
        dump: e.dump(),
        cursor: (c.col, c.row, c.visible),
        size: term.size(),
        primary: lines(term.primary_screen().all_lines()),
        active: lines(term.screen().all_lines()),
        text: term.primary_screen().text(),
        cells: e.cells(),
    }
}

use crate::testing::Rng;

/// Line ends of a plain run, CR LF the most common.
const LINE_ENDS: &[&str] = &["\r\n", "\r\n", "\r\n", "\n", "\r", "\n\r", "\r\r\n"];

/// A long plain run: lines of varied length (some longer than the screen),
/// mostly CR LF, some bare LF or CR, some empty.
fn plain_run(rng: &mut Rng, lines: u64) -> String {
    let mut out = String::new();
    for _ in 0..lines {
        let len = match rng.below(6) {
            0 => 0,
            1 => rng.below(60) + 20,
            _ => rng.below(12),
        };
        out.extend((0..len).map(|i| char::from(b' ' + ((i * 7 + rng.below(95)) % 95) as u8)));
        let end = rng.pick(LINE_ENDS);
        out.push_str(end);
    }
    out
}

/// Anything that is not plain text, weighted toward what the rule depends on.
fn other(rng: &mut Rng) -> String {
    const FIXED: &[&str] = &[
        "\x1b[r",
        "\x1b[1;0r",
        "\x1b[0;0r",
        "\x1b[5;3r",
        "\x1b[2;99r",
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\x1b[?47h",
        "\x1b[?47l",
        "\x1b[4h",
        "\x1b[4l",
        "\x1b[20h",
        "\x1b[20l",
        "\x1b[?7l",
        "\x1b[?7h",
        "\x1b[?6h",
        "\x1b[?6l",
        "\x1b[41m",
        "\x1b[0m",
        "\x1b[7;33m",
        "\x1b(0",
        "\x1b(B",
        "\x1b)0",
        "\x0e",
        "\x0f",
        "\x1bc",
        "\x1b[!p",
        "\x1b7",
        "\x1b8",
        "\x1b[s",
        "\x1b[u",
        "\x1b[5b",
        "\x1b[2J",
        "\x1b[3J",
        "\x1b[H",
        "\x1bM",
        "\x1bD",
        "\x1bE",
        "\t",
        "\x08",
        "\x7f",
        "\x0b",
        "\u{85}",
        "e\u{301}",
        "\u{200D}",
        "\u{1F468}\u{200D}\u{1F469}",
        "\u{65E5}\u{672C}",
        "\u{40001}",
        "\x1b]0;title\x07",
        "\x1b[",
        "\x1b]2;unfinished",
        "\x1bP1$q",
        "\x1b\\",
        "\x18",
    ];
    match rng.below(12) {
        10 | 11 => csi(rng),
        0 => {
            let (a, b) = (rng.below(12), rng.below(14));
            format!("\x1b[{a};{b}r")
        }
        1 => {
            let (a, b) = (rng.below(12) + 1, rng.below(30) + 1);
            format!("\x1b[{a};{b}H")
        }
        _ => (*rng.pick(FIXED)).to_owned(),
    }
}

/// A control sequence of the kinds `csi.rs` reads (and some it leaves to
/// avt's parser): random parameters, some empty, some too large for 16 bits.
fn csi(rng: &mut Rng) -> String {
    const PARAMS: &[&str] =
        &["", "0", "1", "2", "3", "5", "7", "22", "31", "39", "44", "49", "91", "103", "38", "48", "65537"];
    let count = rng.below(4);
    let params: Vec<&str> = (0..count).map(|_| *rng.pick(PARAMS)).collect();
    let last = *rng.pick(&["m", "m", "H", "f", "J", "K", "A", "B", "C", "D", "G", "d", "`", "a", "r", "?5m", ":1m"]);
    format!("\x1b[{}{last}", params.join(";"))
}

enum Op {
    Feed(String),
    Resize(usize, usize),
}

/// A stream of feeds and resizes for a screen of `rows` rows: long plain
/// runs (many longer than the fast-forward's horizon) between other text,
/// cut into feeds at arbitrary character boundaries, with resizes (often
/// right after a run).
fn stream(rng: &mut Rng, rows: usize, scrollback: usize) -> Vec<Op> {
    let horizon = (2 * rows + scrollback + 1) as u64;
    let mut text = String::new();
    let mut ops = Vec::new();
    for _ in 0..40 {
        match rng.below(5) {
            0 | 1 => {
                let lines = horizon * (rng.below(3) + 1) + rng.below(8);
                text.push_str(&plain_run(rng, lines));
            }
            2 => {
                let lines = rng.below(horizon);
                text.push_str(&plain_run(rng, lines));
            }
            _ => (0..rng.below(4) + 1).for_each(|_| text.push_str(&other(rng))),
        }
        if rng.below(4) == 0 {
            cut(rng, &mut text, &mut ops);
            let (columns, rows) = (rng.below(30) as usize + 1, rng.below(10) as usize + 1);
            ops.push(Op::Resize(columns, rows));
        }
    }
    cut(rng, &mut text, &mut ops);
    ops
}

/// Moves `text` into feeds cut at random character boundaries.
fn cut(rng: &mut Rng, text: &mut String, ops: &mut Vec<Op>) {
    let mut rest = std::mem::take(text);
    while !rest.is_empty() {
        let mut end = if rng.below(3) == 0 { rest.len() } else { (rng.below(400) as usize + 1).min(rest.len()) };
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let tail = rest.split_off(end);
        ops.push(Op::Feed(rest));
        rest = tail;
    }
}

fn run(seed: u64, columns: usize, rows: usize, scrollback: usize) -> usize {
    let mut rng = Rng(seed);
    let ops = stream(&mut rng, rows, scrollback);
    let mut fast = Emulator::new(columns, rows, scrollback);
    let mut reference = Emulator::reference(columns, rows, scrollback);
    for (i, op) in ops.iter().enumerate() {
        match op {
            Op::Feed(text) => {
                fast.feed(text);
                reference.feed(text);
            }
            Op::Resize(c, r) => {
                fast.resize(*c, *r);
                reference.resize(*c, *r);
            }
        }
        assert_eq!(state(&fast), state(&reference), "seed {seed:#x}, {columns}x{rows}+{scrollback}, step {i}");
    }
    ops.len()
}

#[test]
fn the_fast_paths_give_exactly_what_parsing_everything_gives_on_random_streams() {
    let mut steps = 0;
    for seed in 1..=60u64 {
        let seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let (columns, rows, scrollback) =
            [(10, 4, 5), (7, 1, 0), (12, 6, 0), (20, 3, 30), (1, 2, 3)][(seed % 5) as usize];
        steps += run(seed, columns, rows, scrollback);
    }
    assert!(steps > 1000, "{steps} steps compared");
}

/// The rule's edge: exactly `horizon` line feeds after the last skipped CR
/// is enough; one fewer leaves everything to be parsed. Either way the
/// state equals the reference, also after a resize that reflows the
/// scrollback right after the run.
#[test]
fn a_run_just_at_and_just_below_the_horizon() {
    let (columns, rows, scrollback) = (8, 3, 4);
    let horizon = 2 * rows + scrollback + 1;
    for lfs in [horizon - 1, horizon, horizon + 1] {
        for prefix in ["", "\x1b[44m", "abc", "\x1b[2;3H\x1b[4h", "\x1b[?1049h", "\x1b[20h", "\x1b[?7l"] {
            let long = "0123456789abcdef";
            let text: String = (0..lfs).map(|i| format!("{}\r\n", &long[..i % 17])).collect();
            let text = format!("{prefix}x\u{301}\r{}", text.replace("\r\n\r\n", "\n\r\n"));
            let mut fast = Emulator::new(columns, rows, scrollback);
            let mut reference = Emulator::reference(columns, rows, scrollback);
            fast.feed(&text);
            reference.feed(&text);
            assert_eq!(state(&fast), state(&reference), "{lfs} line feeds after {prefix:?}");
            for (c, r) in [(5, 6), (20, 2), (8, 3)] {
                fast.resize(c, r);
                reference.resize(c, r);
                assert_eq!(state(&fast), state(&reference), "{lfs} line feeds after {prefix:?}, then {c}x{r}");
            }
        }
    }
}

#[test]
fn text_is_skipped_only_where_the_rule_allows() {
    use super::cells::fast_forward_len;
    let lines = |n: usize| "ab\r\n".repeat(n);
    // Horizon 3: of 5 lines, the first two are skipped (up to the CR that
    // starts the last three line feeds' part).
    assert_eq!(fast_forward_len(lines(5).as_bytes(), 3), 8 + 2);
    assert_eq!(fast_forward_len(lines(3).as_bytes(), 3), 2);
    assert_eq!(fast_forward_len(lines(2).as_bytes(), 3), 0);
    // Without a CR before the horizon nothing is skipped: the column after
    // the skipped part would be unknown.
    assert_eq!(fast_forward_len("abc\n\n\n\nx".as_bytes(), 3), 0);
    assert_eq!(fast_forward_len("a\rbc\n\n\n\nx".as_bytes(), 3), 1);
}
