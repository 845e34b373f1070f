//! The memoized snapshot (`Screen::snapshot`) against the straightforward
//! one (`Screen::snapshot_reference`): byte-identical frames and sizes after
//! every step, on the fixture streams and on a pseudo-random stream of
//! escape sequences, text and resizes, with several normalizers and bounds.

use std::time::Instant;

use super::fixtures::{FIXTURES, Step};
use super::retain::RenderedLog;
use super::screen::{Screen, Snapshot};
use super::{RenderSettings, Renderer};
use crate::capture::normalize::{HostValues, Normalizer};
use crate::scenario::{Normalization, Pattern};

fn normalizers() -> Vec<(&'static str, Normalizer)> {
    let plain = Normalization { paths: false, pids: false, ports: false, ..Normalization::default() };
    let patterns = Normalization {
        patterns: vec![
            Pattern { pattern: "o".into(), replacement: "0".into() },
            Pattern { pattern: "ab".into(), replacement: "a much longer replacement".into() },
            Pattern { pattern: "x ".into(), replacement: String::new() },
            Pattern { pattern: "\u{1b}[".into(), replacement: "<CSI>".into() },
        ],
        ..Normalization::default()
    };
    let host = HostValues { pid: Some(4242), working_directory: Some("/w".into()), ..HostValues::default() };
    vec![
        ("plain", Normalizer::new(&plain, &HostValues::default())),
        ("default", Normalizer::new(&Normalization::default(), &host)),
        ("patterns", Normalizer::new(&patterns, &host)),
    ]
}

/// Small bounds make rows and dumps over budget (known and unknown sizes).
const BOUNDS: [u64; 4] = [10_000_000, 400, 24, 3];

fn assert_same(what: &str, step: usize, fast: &Snapshot, reference: &Snapshot) {
    assert_eq!(fast.frame, reference.frame, "{what}, step {step}: frame");
    assert_eq!(fast.bytes, reference.bytes, "{what}, step {step}: size");
}

/// Runs `steps` through one screen, comparing both snapshots after each;
/// returns how many snapshots were compared.
/// A step with owned text (the random stream builds its chunks).
enum Op {
    Feed(String),
    Resize(u16, u16),
}

fn ops(steps: &[Step]) -> Vec<Op> {
    let op = |s: &Step| match *s {
        Step::Feed(t) => Op::Feed(t.to_owned()),
        Step::Resize(c, r) => Op::Resize(c, r),
    };
    steps.iter().map(op).collect()
}

fn compare(what: &str, columns: u16, rows: u16, steps: &[Op]) -> usize {
    let mut compared = 0;
    for (name, normalizer) in normalizers() {
        for bound in BOUNDS {
            let what = format!("{what} ({name}, bound {bound})");
            let settings = RenderSettings {
                columns,
                rows,
                scrollback: 50,
                scrollback_shown: true,
                budget_bytes: bound,
                frame_limit: 100_000,
                secrets: Default::default(),
                answer_queries: false,
            };
            let mut screen = Screen::new(&settings, normalizer.clone());
            for (i, step) in steps.iter().enumerate() {
                match step {
                    Op::Feed(text) => screen.feed(text),
                    Op::Resize(c, r) => screen.resize(*c, *r),
                }
                let reference = screen.snapshot_reference(i as u64);
                let fast = screen.snapshot(i as u64);
                assert_same(&what, i, &fast, &reference);
                // Twice in a row: the second is served from the memos.
                assert_same(&what, i, &screen.snapshot(i as u64), &reference);
                compared += 1;
            }
        }
    }
    compared
}

#[test]
fn memoized_snapshots_equal_the_straightforward_ones_on_every_fixture() {
    let mut compared = 0;
    for f in FIXTURES {
        compared += compare(f.name, f.columns, f.rows, &ops(f.steps));
    }
    assert!(compared >= FIXTURES.len() * normalizers().len() * BOUNDS.len());
}

use crate::testing::Rng;

/// One random piece: text (ASCII, CJK, emoji, combining marks, words the
/// patterns replace), controls, or an escape sequence moving, erasing,
/// scrolling, styling, switching buffers or saving the cursor.
fn piece(rng: &mut Rng) -> String {
    const TEXT: &[&str] = &[
        "hello",
        "foo bar",
        "ab ab",
        "x x x",
        "日本語",
        "🙂👍",
        "e\u{301}",
        "   ",
        "\t",
        "port 8080",
        "pid 4242",
        "/w/file",
        "      trailing   ",
        "z",
    ];
    const CONTROLS: &[&str] = &["\r", "\n", "\r\n", "\x08", "\x1b7", "\x1b8", "\x1bD", "\x1bM", "\x1bc"];
    match rng.below(10) {
        0..=3 => TEXT[rng.below(TEXT.len() as u64) as usize].to_owned(),
        4 => CONTROLS[rng.below(CONTROLS.len() as u64) as usize].to_owned(),
        _ => {
            let (a, b) = (rng.below(30) + 1, rng.below(90) + 1);
            let sgr = [0, 1, 2, 3, 4, 5, 7, 22, 27, 31, 42, 38, 48, 90, 107][rng.below(15) as usize];
            match rng.below(16) {
                0 => format!("\x1b[{a};{b}H"),
                1 => format!("\x1b[{}J", a % 4),
                2 => format!("\x1b[{}K", a % 3),
                3 => format!("\x1b[{a}L"),
                4 => format!("\x1b[{a}M"),
                5 => format!("\x1b[{a}@"),
                6 => format!("\x1b[{a}P"),
                7 if sgr == 38 || sgr == 48 => format!("\x1b[{sgr};5;{b}m"),
                7 => format!("\x1b[{sgr}m"),
                8 => format!("\x1b[{a};{}r", a + b % 20),
                9 => "\x1b[?1049h".to_owned(),
                10 => "\x1b[?1049l".to_owned(),
                11 => format!("\x1b[?6{}", if a % 2 == 0 { 'h' } else { 'l' }),
                12 => format!("\x1b[{a}S"),
                13 => format!("\x1b[{a}T"),
                14 => format!("\x1b[{a}X"),
                _ => format!("\x1b[{a}G\x1b[{b}d"),
            }
        }
    }
}

/// 302 steps of random chunks (some empty or repeated) and resizes, ending
/// with an escape sequence split across two chunks.
fn random_steps() -> Vec<Op> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut steps = Vec::new();
    let mut last_feed = String::from("again");
    for _ in 0..300 {
        let step = match rng.below(20) {
            0 => Op::Resize(rng.below(40) as u16 + 1, rng.below(12) as u16 + 1),
            // A chunk that changes nothing visible, or repeats: memo hits.
            1 => Op::Feed(String::new()),
            2 => Op::Feed(last_feed.clone()),
            _ => {
                last_feed = (0..rng.below(12) + 1).map(|_| piece(&mut rng)).collect();
                Op::Feed(last_feed.clone())
            }
        };
        steps.push(step);
    }
    steps.push(Op::Feed("\x1b[3".into()));
    steps.push(Op::Feed("1mred\x1b[0m".into()));
    steps
}

#[test]
fn memoized_snapshots_equal_the_straightforward_ones_on_a_random_stream() {
    assert_eq!(compare("random stream", 24, 8, &random_steps()), 302 * normalizers().len() * BOUNDS.len());
}

/// The renderer (on its thread) against the straightforward pipeline in
/// line: the same kept frames and the same accounting, under budgets and
/// frame limits that omit, displace and pin states.
#[test]
fn the_renderer_keeps_what_the_straightforward_pipeline_keeps() {
    let mut streams: Vec<(String, u16, u16, Vec<Op>)> =
        FIXTURES.iter().map(|f| (f.name.to_owned(), f.columns, f.rows, ops(f.steps))).collect();
    streams.push(("random stream".into(), 24, 8, random_steps()));
    for (name, columns, rows, steps) in &streams {
        for (budget, frames) in [(10_000_000, 100_000), (2_000, 1_000), (700, 5), (300, 2)] {
            let (_, normalizer) = normalizers().remove(1);
            let settings = RenderSettings {
                columns: *columns,
                rows: *rows,
                scrollback: 1000,
                // Both sides skip hidden redraws alike.
                scrollback_shown: false,
                budget_bytes: budget,
                frame_limit: frames,
                secrets: Default::default(),
                // Replies pin extra states; this test is about retention.
                answer_queries: false,
            };
            let now = Instant::now();
            let mut renderer = Renderer::start(settings.clone(), normalizer.clone());
            let mut screen = Screen::new(&settings, normalizer);
            let mut log = RenderedLog::new(budget, frames);
            for (i, step) in steps.iter().enumerate() {
                let at = i as u64;
                match step {
                    Op::Feed(text) => {
                        renderer.chunk(text, now, at);
                        screen.feed(text);
                        log.offer(now, screen.snapshot_reference(at), false);
                    }
                    Op::Resize(c, r) => {
                        renderer.resize(*c, *r, now, at);
                        screen.resize(*c, *r);
                        log.offer(now, screen.snapshot_reference(at), true);
                    }
                }
                if i % 7 == 6 {
                    renderer.pin(now, i as u64);
                    log.pin_latest();
                }
            }
            let rendered = renderer.finish();
            let (want, account, _) = log.finish();
            let what = format!("{name}, budget {budget}, {frames} frames");
            assert_eq!(rendered.account, account, "{what}: accounting");
            if name == "random stream" && budget < 10_000_000 {
                // The long stream overflows every small budget: states are omitted and displaced.
                assert!(account.truncated && account.retained_frames > 1, "{what}: {account:?}");
            }
            let got: Vec<_> = rendered.frames.into_iter().map(|(_, f)| f).collect();
            let want: Vec<_> = want.into_iter().map(|(_, f)| f).collect();
            assert_eq!(got, want, "{what}: kept frames");
        }
    }
}
