//! The fixture table against tmux (and the screens tmux showed, checked in),
//! the renderer's frames and its budget.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use super::cells::Emulator;
use super::fixtures::{FIXTURES, Fixture, Step};
use super::oracle::{TmuxScreen, tmux_available, tmux_screen};
use super::{EMULATOR, RenderSettings, Renderer, RendererState};
use crate::capture::normalize::{HostValues, Normalizer};
use crate::evidence::RenderedFrame;
use crate::scenario::Normalization;

fn plain() -> Normalizer {
    Normalizer::new(
        &Normalization { paths: false, pids: false, ports: false, ..Normalization::default() },
        &HostValues::default(),
    )
}

fn settings(columns: u16, rows: u16, budget_bytes: u64, frame_limit: u64) -> RenderSettings {
    RenderSettings {
        columns,
        rows,
        scrollback: 1000,
        scrollback_shown: true,
        budget_bytes,
        frame_limit,
        answer_queries: true,
        secrets: Default::default(),
    }
}

/// Every frame of a fixture rendered on the renderer thread.
fn render(fixture: &Fixture) -> Vec<RenderedFrame> {
    let mut r = Renderer::start(settings(fixture.columns, fixture.rows, 10_000_000, 100_000), plain());
    for (i, step) in fixture.steps.iter().enumerate() {
        match *step {
            Step::Feed(text) => r.chunk(text, Instant::now(), i as u64),
            Step::Resize(c, rows) => r.resize(c, rows, Instant::now(), i as u64),
        }
    }
    let rendered = r.finish();
    assert_eq!(rendered.state, RendererState::Cleaned);
    assert_eq!(rendered.frames.len(), fixture.steps.len(), "{}: one frame per chunk and per resize", fixture.name);
    rendered.frames.into_iter().map(|(_, f)| f).collect()
}

fn expected_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/capture/render/expected_screens.json")
}

/// tmux's `capture-pane` prints the code points a program sent, not the DEC
/// special-graphics glyphs the terminal shows for them; map the ones used.
fn as_displayed(name: &str, mut screen: TmuxScreen) -> TmuxScreen {
    if name != "line_drawing_charset" {
        return screen;
    }
    let glyph = |c: char| match c {
        'l' => '┌',
        'q' => '─',
        'k' => '┐',
        'x' => '│',
        'm' => '└',
        'j' => '┘',
        other => other,
    };
    // The fixture's text after `ESC ( B` uses none of these letters.
    let map = |text: &mut String| *text = text.chars().map(glyph).collect();
    screen.lines.iter_mut().for_each(map);
    screen.cells.iter_mut().flatten().for_each(|(_, text)| map(text));
    screen
}

/// A fixture's final screen as checked in (`expected_screens.json`): rows,
/// cursor `[x, y]`, per row its non-blank cells as `column:text` separated
/// by spaces (a cell's text never holds U+0020), and per row the runs of
/// cells whose pen is not the default, as `first-last:pen`
/// (`oracle_pens.rs`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Expected {
    lines: Vec<String>,
    cursor: (u16, u16),
    cells: Vec<String>,
    pens: Vec<String>,
}

impl Expected {
    fn new(lines: Vec<String>, cursor: (u16, u16), cells: &[Vec<(u16, String)>], pens: Vec<String>) -> Expected {
        let row =
            |cells: &Vec<(u16, String)>| cells.iter().map(|(x, t)| format!("{x}:{t}")).collect::<Vec<_>>().join(" ");
        Expected { lines, cursor, cells: cells.iter().map(row).collect(), pens }
    }
}

impl From<TmuxScreen> for Expected {
    fn from(s: TmuxScreen) -> Expected {
        Expected::new(s.lines, s.cursor, &s.cells, s.pens)
    }
}

/// What rea's renderer shows after the fixture: the final frame's rows and
/// cursor, and the cells of its `serialized_state` replayed into a fresh
/// emulator, with what that replay shows differently from the frame.
fn rendered(fixture: &Fixture) -> (Expected, Vec<String>) {
    let frames = render(fixture);
    let last = frames.last().expect("a final frame");
    let mut replay = Emulator::new(usize::from(last.columns), usize::from(last.rows), 0);
    replay.feed(last.serialized_state.as_str());
    let mut text = String::new();
    let replayed: Vec<String> = replay
        .terminal()
        .screen()
        .visible_lines()
        .map(|l| {
            replay.row_text(l, &mut text);
            text.clone()
        })
        .collect();
    let c = replay.terminal().cursor();
    let cursor = (c.col.min(usize::from(last.columns) - 1), c.row);
    let mut problems = Vec::new();
    if last.lines != replayed {
        problems.push(format!("  serialized_state rebuilds other rows: {replayed:?}"));
    }
    if cursor != (usize::from(last.cursor_x), usize::from(last.cursor_y)) {
        problems.push(format!("  serialized_state puts the cursor at {cursor:?}"));
    }
    let pens = replay.terminal().screen().visible_lines().map(super::oracle_pens::rea_runs).collect();
    let screen = Expected::new(last.lines.to_vec(), (last.cursor_x, last.cursor_y), &replay.cells(), pens);
    (screen, problems)
}

/// The parts of `got` that differ from `want`, named.
fn differences(want: &Expected, got: &Expected) -> Vec<String> {
    let mut out = Vec::new();
    if want.lines != got.lines {
        out.push(format!("  rows: oracle {:?}\n        rendered {:?}", want.lines, got.lines));
    }
    if want.cursor != got.cursor {
        out.push(format!("  cursor: oracle {:?}, rendered {:?}", want.cursor, got.cursor));
    }
    if want.cells != got.cells {
        out.push(format!("  cells: oracle {:?}\n         rendered {:?}", want.cells, got.cells));
    }
    if want.pens != got.pens {
        out.push(format!("  pens: oracle {:?}\n        rendered {:?}", want.pens, got.pens));
    }
    out
}

#[test]
fn final_screens_equal_the_oracle() {
    let checked_in: BTreeMap<String, Expected> =
        serde_json::from_str(&std::fs::read_to_string(expected_path()).expect("read expected_screens.json"))
            .expect("expected_screens.json maps each fixture name to its lines, cursor and cells");
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let oracle = tmux_available();
    assert!(oracle || !in_ci, "tmux is not installed; CI installs it with ci/setup-tmux.sh");
    if !oracle {
        eprintln!("skipped: no oracle (tmux not installed); comparing with the checked-in screens tmux showed");
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut from_tmux = BTreeMap::new();
    let mut failures = Vec::new();
    for fixture in FIXTURES {
        let want = if oracle {
            let screen = Expected::from(as_displayed(fixture.name, tmux_screen(fixture, dir.path())));
            from_tmux.insert(fixture.name.to_owned(), screen.clone());
            screen
        } else {
            checked_in.get(fixture.name).unwrap_or_else(|| panic!("no checked-in screen for {}", fixture.name)).clone()
        };
        let (got, mut diff) = rendered(fixture);
        diff.extend(differences(&want, &got));
        if !diff.is_empty() {
            failures.push(format!("{}:\n{}", fixture.name, diff.join("\n")));
        }
    }
    if oracle && std::env::var("REA_UPDATE_SCREENS").is_ok_and(|v| v == "1") {
        let text = serde_json::to_string_pretty(&from_tmux).expect("serialize") + "\n";
        std::fs::write(expected_path(), text).expect("write expected_screens.json");
    }
    assert!(failures.is_empty(), "screens differ from the oracle:\n{}", failures.join("\n"));
    if oracle {
        assert_eq!(checked_in, from_tmux, "expected_screens.json is stale: rerun with REA_UPDATE_SCREENS=1 and tmux");
    }
}

#[test]
fn the_emulator_version_is_the_locked_one() {
    let lock = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"))
        .expect("read Cargo.lock");
    let version = lock
        .split("[[package]]")
        .find(|p| p.contains("\nname = \"avt\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"'))
        .expect("avt in Cargo.lock");
    assert_eq!(EMULATOR, format!("avt {version}"));
    assert_eq!(EMULATOR, format!("{} {}", super::EMULATOR_NAME, super::EMULATOR_VERSION));
    // The zero-width wrapper (cells.rs) picks stand-ins by the width table
    // avt uses: one unicode-width in the lock, so both read the same one.
    let widths = lock.split("[[package]]").filter(|p| p.contains("\nname = \"unicode-width\"\n")).count();
    assert_eq!(widths, 1, "avt and rea-engine must resolve to one unicode-width");
}

#[test]
fn frames_carry_cursor_buffer_and_a_dump_that_rebuilds_the_screen() {
    let mut r = Renderer::inline(settings(20, 4, 1_000_000, 100), plain());
    r.chunk("shell\r\n$ ", Instant::now(), 10);
    r.chunk("\x1b[?1049h\x1b[H\x1b[2J\x1b[2;3Hmenu  ", Instant::now(), 20);
    r.resize(24, 5, Instant::now(), 30);
    let rendered = r.finish();
    let frames: Vec<RenderedFrame> = rendered.frames.into_iter().map(|(_, f)| f).collect();
    assert_eq!(frames.len(), 3);
    assert_eq!(frames[0].lines, ["shell", "$", "", ""]);
    assert_eq!((frames[0].cursor_x, frames[0].cursor_y, frames[0].active_buffer.as_str()), (2, 1, "normal"));
    assert_eq!(frames[1].lines, ["", "  menu", "", ""]);
    assert_eq!((frames[1].cursor_x, frames[1].cursor_y, frames[1].active_buffer.as_str()), (8, 1, "alternate"));
    assert_eq!((frames[2].columns, frames[2].rows, frames[2].at_ms), (24, 5, 30));
    assert_eq!(frames.iter().map(|f| f.sequence).collect::<Vec<_>>(), [0, 1, 2]);
    // The dump replayed into a fresh emulator of the same size shows the same screen.
    let mut replay = avt::Terminal::new(24, 5).expect("size");
    replay.feed(frames[2].serialized_state.as_str());
    let lines: Vec<String> =
        replay.screen().visible_lines().map(|l| l.text().trim_end_matches(' ').to_owned()).collect();
    assert_eq!(frames[2].lines, lines);
    let bytes: u64 = frames.iter().map(size).sum();
    assert_eq!((rendered.account.observed_bytes, rendered.account.retained_bytes), (bytes, bytes));
    assert!(!rendered.account.truncated);
}

#[test]
fn lines_and_state_are_normalized() {
    let normalizer = Normalizer::new(
        &Normalization { paths: true, pids: false, ports: false, ..Normalization::default() },
        &HostValues { temporary_root: Some("/tmp/rea-process-abc".into()), ..HostValues::default() },
    );
    let mut r = Renderer::inline(settings(40, 2, 1_000_000, 100), normalizer);
    r.chunk("wrote /tmp/rea-process-abc/x   ", Instant::now(), 0);
    let frame = r.finish().frames.pop().expect("a frame").1;
    assert_eq!(frame.lines, ["wrote <temporary-root>/x", ""]);
    assert!(frame.serialized_state.contains("<temporary-root>/x"));
    assert!(!frame.serialized_state.contains("rea-process-abc"));
}

/// Feeds `\rstep i` for i in 0..20 into a 10x2 renderer.
fn steps(budget_bytes: u64) -> super::Rendered {
    let mut r = Renderer::inline(settings(10, 2, budget_bytes, 100), plain());
    for i in 0..20u64 {
        r.chunk(&format!("\rstep {i}"), Instant::now(), i * 10);
    }
    r.finish()
}

fn size(f: &RenderedFrame) -> u64 {
    f.serialized_state.len() as u64 + f.lines.iter().map(|l| l.len() as u64).sum::<u64>()
}

#[test]
fn an_exhausted_budget_keeps_the_final_screen_with_exact_accounting() {
    let unbounded = steps(1_000_000);
    assert!(!unbounded.account.truncated);
    let sizes: Vec<u64> = unbounded.frames.iter().map(|(_, f)| size(f)).collect();
    // Room for the first three states and half of another.
    let budget = sizes[..3].iter().sum::<u64>() + sizes[3] / 2;
    let rendered = steps(budget);
    let a = &rendered.account;
    let frames: Vec<&RenderedFrame> = rendered.frames.iter().map(|(_, f)| f).collect();
    assert_eq!(frames.last().map(|f| f.lines.to_vec()), Some(vec!["step 19".to_owned(), String::new()]));
    assert_eq!(frames.iter().map(|f| f.at_ms).collect::<Vec<_>>(), [0, 10, 190]);
    assert_eq!(frames.iter().map(|f| f.sequence).collect::<Vec<_>>(), [0, 1, 2]);
    assert!(a.truncated);
    assert_eq!((a.observed_frames, a.retained_frames, a.unknown_size_frames), (20, 3, 0));
    assert_eq!(a.observed_bytes, sizes.iter().sum::<u64>());
    assert_eq!(a.retained_bytes, sizes[0] + sizes[1] + sizes[19]);
    assert_eq!(a.retained_bytes, frames.iter().map(|f| size(f)).sum::<u64>());
    assert!(a.retained_bytes <= a.budget_bytes);
}
