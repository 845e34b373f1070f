//! See ci/bench-render.sh. Usage: rea-bench-render STREAM_FILE

#[path = "../../../rea-engine/src/capture/render/fixtures.rs"]
#[allow(dead_code)]
mod fixtures;
#[path = "../../../rea-engine/src/capture/render/oracle.rs"]
#[allow(dead_code)]
mod oracle;
#[path = "../../../rea-engine/src/capture/render/oracle_pens.rs"]
#[allow(dead_code)]
mod oracle_pens;
/// Where `oracle_pens.rs` finds the wrapper, as in the engine.
mod emulator {
    pub(crate) use super::cells;
}
#[path = "../../../rea-engine/src/emulator/cells.rs"]
#[allow(dead_code)]
mod cells;
#[path = "../../../rea-engine/src/emulator/csi.rs"]
#[allow(dead_code)]
mod csi;
#[path = "../../../rea-engine/src/emulator/redraw.rs"]
#[allow(dead_code)]
mod redraw;
use fixtures::{FIXTURES, Fixture, Step};
use oracle::TmuxScreen;
use std::time::Instant;

type Cells = Vec<Vec<(u16, String)>>;

fn trim(v: Vec<String>, rows: usize) -> Vec<String> {
    let mut v: Vec<String> = v.into_iter().map(|l| l.trim_end_matches(' ').to_owned()).collect();
    v.resize(rows, String::new());
    v
}

/// Adds the text a cell at column `x` shows (U+0020 left out) to `row`.
fn push_cell(row: &mut Vec<(u16, String)>, x: usize, mut text: String) {
    text.retain(|c| c != ' ');
    if !text.is_empty() {
        row.push((x as u16, text));
    }
}

/// A final screen in the oracle's terms (cursor on the last column while a wrap is pending).
fn screen(lines: Vec<String>, rows: usize, (x, y): (usize, usize), columns: usize, cells: Cells) -> TmuxScreen {
    // Pens are compared by the engine's test only (render/tests.rs).
    TmuxScreen { lines: trim(lines, rows), cursor: (x.min(columns - 1) as u16, y as u16), cells, pens: Vec::new() }
}

fn avt_cells(t: &avt_published::Terminal) -> Cells {
    let row = |l: &avt_published::Line| {
        let mut out = Vec::new();
        for (x, c) in l.cells().iter().enumerate().filter(|(_, c)| c.width() != 0) {
            push_cell(&mut out, x, c.char().to_string());
        }
        out
    };
    t.screen().visible_lines().map(row).collect()
}

fn avt_run(f: &Fixture) -> TmuxScreen {
    let mut t = avt_published::Terminal::with_scrollback(f.columns as usize, f.rows as usize, Some(1000)).unwrap();
    for s in f.steps {
        match *s {
            Step::Feed(b) => t.feed(b),
            Step::Resize(c, r) => t.resize(c as usize, r as usize),
        }
    }
    let ((columns, rows), c) = (t.size(), t.cursor());
    screen(t.screen().visible_lines().map(|l| l.text()).collect(), rows, (c.col, c.row), columns, avt_cells(&t))
}

/// avt behind rea's zero-width wrapper (rea-engine/src/capture/render/cells.rs).
fn rea_run(f: &Fixture) -> TmuxScreen {
    let mut e = cells::Emulator::new(f.columns as usize, f.rows as usize, 1000);
    for s in f.steps {
        match *s {
            Step::Feed(b) => e.feed(b),
            Step::Resize(c, r) => e.resize(c as usize, r as usize),
        }
    }
    let t = e.terminal();
    let ((columns, rows), c) = (t.size(), t.cursor());
    let mut lines = Vec::new();
    for l in t.screen().visible_lines() {
        let mut text = String::new();
        e.row_text(l, &mut text);
        lines.push(text);
    }
    screen(lines, rows, (c.col, c.row), columns, e.cells())
}

fn vt100_run(f: &Fixture) -> TmuxScreen {
    let mut p = vt100::Parser::new(nz(f.rows), nz(f.columns), 1000);
    for s in f.steps {
        match *s {
            Step::Feed(b) => p.process(b.as_bytes()),
            Step::Resize(c, r) => p.screen_mut().set_size(nz(r), nz(c)),
        }
    }
    let sc = p.screen();
    let (rows, cols) = sc.size();
    let mut cells = Vec::new();
    for y in 0..rows.get() {
        let mut row = Vec::new();
        for x in 0..cols.get() {
            match sc.cell(y, x) {
                Some(c) if !c.is_wide_continuation() => push_cell(&mut row, x as usize, c.contents().to_owned()),
                _ => {}
            }
        }
        cells.push(row);
    }
    let (cy, cx) = sc.cursor_position();
    screen(sc.rows(0, cols.get()).collect(), rows.get() as usize, (cx as usize, cy as usize), cols.get() as usize, cells)
}

mod ala {
    use alacritty_terminal::event::VoidListener;
    use alacritty_terminal::grid::Dimensions;
    use alacritty_terminal::index::{Column, Line};
    use alacritty_terminal::term::{Config, Term, cell::Flags};
    use alacritty_terminal::vte::ansi::Processor;
    pub struct Size(pub usize, pub usize);
    impl Dimensions for Size {
        fn total_lines(&self) -> usize { self.1 }
        fn screen_lines(&self) -> usize { self.1 }
        fn columns(&self) -> usize { self.0 }
    }
    pub fn run(f: &super::Fixture) -> super::TmuxScreen {
        let mut cfg = Config::default();
        cfg.scrolling_history = 1000;
        let mut t = Term::new(cfg, &Size(f.columns as usize, f.rows as usize), VoidListener);
        let mut p: Processor = Processor::new();
        for s in f.steps {
            match *s {
                super::Step::Feed(b) => p.advance(&mut t, b.as_bytes()),
                super::Step::Resize(c, r) => t.resize(Size(c as usize, r as usize)),
            }
        }
        let g = t.grid();
        let cells = (0..g.screen_lines()).map(|i| {
            let row = &g[Line(i as i32)];
            let mut out = Vec::new();
            for c in 0..g.columns() {
                let cell = &row[Column(c)];
                if cell.flags.intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER) { continue; }
                let mut text = cell.c.to_string();
                if let Some(z) = cell.zerowidth() { text.extend(z); }
                super::push_cell(&mut out, c, text);
            }
            out
        }).collect();
        let p = g.cursor.point;
        super::screen(lines(&t), g.screen_lines(), (p.column.0, p.line.0 as usize), g.columns(), cells)
    }
    pub fn lines(t: &Term<VoidListener>) -> Vec<String> {
        let g = t.grid();
        (0..g.screen_lines()).map(|i| {
            let row = &g[Line(i as i32)];
            let mut s = String::new();
            for c in 0..g.columns() {
                let cell = &row[Column(c)];
                if cell.flags.contains(Flags::WIDE_CHAR_SPACER) || cell.flags.contains(Flags::LEADING_WIDE_CHAR_SPACER) { continue; }
                s.push(cell.c);
                if let Some(z) = cell.zerowidth() { s.extend(z); }
            }
            s.trim_end_matches(' ').to_owned()
        }).collect()
    }
    pub fn bench(data: &[u8]) -> usize {
        let mut t = Term::new(Config::default(), &Size(120, 40), VoidListener);
        let mut p: Processor = Processor::new();
        for c in data.chunks(4096) { p.advance(&mut t, c); }
        lines(&t).len()
    }
}

fn stream() -> String {
    // TUI-like: cursor moves, SGR colours, erase, wide chars, progress lines.
    let mut s = String::new();
    let mut i = 0u64;
    while s.len() < 9_980_000 {
        let row = i % 38 + 2;
        s.push_str(&format!("\x1b[{row};1H\x1b[2K\x1b[1;3{}m{:>6}\x1b[0m │ item {i} \x1b[38;5;{}mstatus ok 日本 \x1b[m", i % 8, i, i % 256));
        if i % 40 == 0 { s.push_str(&format!("\x1b[1;1H\x1b[7m top {i} \x1b[m\x1b[K\rprogress {}%\r\n", i % 100)); }
        if i % 500 == 0 { s.push_str("\x1b[H\x1b[2J"); }
        if i % 97 == 0 { s.push_str("plain log line that scrolls the screen with some text in it\r\n"); }
        i += 1;
    }
    s
}

/// Decomposed Vietnamese text (a combining mark every few characters) with
/// `less`-like redraws: avt alone beside avt behind rea's wrapper, one run.
fn vietnamese() {
    let words = ["Tie\u{302}\u{301}ng", "Vie\u{302}\u{323}t", "co\u{301}", "nhie\u{302}\u{300}u", "da\u{302}\u{301}u", "thanh", "\u{1B0}\u{300}", "chu\u{31B}\u{301}"];
    let mut s = String::new();
    let mut i = 0usize;
    while s.len() < 4_000_000 {
        if i % 400 == 0 { s.push_str("\x1b[H\x1b[2J"); }
        s.push_str(words[i % words.len()]);
        s.push(if i % 13 == 12 { '\n' } else { ' ' });
        i += 1;
    }
    let s = s.replace('\n', "\r\n");
    let chunks = split(&s, 4096);
    let marks = s.chars().filter(|&c| cells::is_zero_width(c)).count();
    let t = Instant::now();
    let mut a = avt::Terminal::with_scrollback(120, 40, Some(1000)).unwrap();
    for c in &chunks { a.feed(*c); }
    let ta = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut e = cells::Emulator::new(120, 40, 1000);
    for c in &chunks { e.feed(c); }
    let tw = t.elapsed().as_secs_f64();
    println!("decomposed Vietnamese, {} bytes, {marks} combining marks: avt {:.1} MB/s, avt + rea's wrapper {:.1} MB/s ({:.2}x)", s.len(), mbps(s.len(), ta), mbps(s.len(), tw), ta / tw);
}

fn mbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / 1e6 / secs
}

/// rea's renderer as a capture at the largest limits runs it: every 4 KiB
/// chunk (a PTY read) rendered on the renderer thread, a state produced and
/// accounted after each.
fn pipeline(data: &str) -> (f64, u64, u64) {
    use rea_engine::capture::normalize::{HostValues, Normalizer};
    use rea_engine::capture::render::{RenderSettings, Renderer};
    let normalizer = Normalizer::new(&rea_engine::scenario::Normalization::default(), &HostValues::default());
    let settings = RenderSettings {
        columns: 120,
        rows: 40,
        scrollback: 1000,
        scrollback_shown: false,
        budget_bytes: 10_000_000,
        frame_limit: 100_000,
        secrets: Default::default(),
        answer_queries: true,
    };
    let chunks = split(data, 4096);
    let t = Instant::now();
    let mut r = Renderer::start(settings, normalizer);
    let launch = Instant::now();
    for c in &chunks {
        r.chunk(c, Instant::now(), launch.elapsed().as_millis() as u64);
    }
    let out = r.finish();
    (mbps(data.len(), t.elapsed().as_secs_f64()), out.account.observed_frames, out.account.retained_frames)
}

/// Chunks of about `n` bytes on character boundaries.
fn split(data: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let mut end = n.min(rest.len());
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

fn main() {
    let stream_file = std::env::args().nth(1).expect("usage: rea-bench-render STREAM_FILE");
    let dir = std::env::temp_dir().join(format!("emu-measure-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // rows, cursor, cells matched per candidate
    let names = ["avt 0.19", "avt + rea's zero-width wrapper", "vt100", "alacritty_terminal"];
    let mut score = [[0usize; 3]; 4];
    println!("| fixture | {} |\n|---|---|---|---|---|", names.join(" | "));
    for f in FIXTURES {
        let mut want = oracle::tmux_screen(f, &dir);
        if f.name == "line_drawing_charset" {
            // capture-pane prints the letters sent, not the DEC special
            // graphics glyphs a terminal shows for them (as in the engine test).
            let glyph = |c: char| match c { 'l' => '┌', 'q' => '─', 'k' => '┐', 'x' => '│', 'm' => '└', 'j' => '┘', o => o };
            let map = |t: &mut String| *t = t.chars().map(glyph).collect();
            want.lines.iter_mut().for_each(map);
            want.cells.iter_mut().flatten().for_each(|(_, t)| map(t));
        }
        let got = [avt_run(f), rea_run(f), vt100_run(f), ala::run(f)];
        let marks: Vec<String> = got.iter().enumerate().map(|(i, g)| {
            let m = [g.lines == want.lines, g.cursor == want.cursor, g.cells == want.cells];
            m.iter().enumerate().for_each(|(k, ok)| score[i][k] += usize::from(*ok));
            if m.iter().all(|ok| *ok) { "match".to_owned() } else {
                let parts: Vec<&str> = ["rows", "cursor", "cells"].iter().zip(m).filter(|(_, ok)| !ok).map(|(n, _)| *n).collect();
                format!("**{}** differ", parts.join(", "))
            }
        }).collect();
        println!("| {} | {} |", f.name, marks.join(" | "));
        if std::env::var("SHOW").is_ok() {
            println!("tmux: {want:?}");
            for (n, g) in names.iter().zip(&got) { if *g != want { println!("{n}: {g:?}"); } }
        }
    }
    let n = FIXTURES.len();
    let totals: Vec<String> = score.iter().map(|[r, c, x]| format!("rows {r}/{n}, cursor {c}/{n}, cells {x}/{n}")).collect();
    println!("| **total** | {} |", totals.join(" | "));
    std::fs::remove_dir_all(&dir).ok();
    let data = stream();
    std::fs::write(&stream_file, &data).expect("write the stream");
    let chunks = split(&data, 4096);
    let t = Instant::now();
    let mut a = avt::Terminal::with_scrollback(120, 40, Some(1000)).unwrap();
    for c in &chunks { a.feed(*c); }
    let ta = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut e = cells::Emulator::new(120, 40, 1000);
    for c in &chunks { e.feed(c); }
    let tw = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut v = vt100::Parser::new(nz(40), nz(120), 1000);
    for c in &chunks { v.process(c.as_bytes()); }
    let tv = t.elapsed().as_secs_f64();
    let t = Instant::now();
    ala::bench(data.as_bytes());
    let tl = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut n = 0; for _ in 0..1000 { n += a.dump().len(); }
    let da = t.elapsed().as_secs_f64() / 1000.0;
    let t = Instant::now();
    for _ in 0..1000 { n += v.screen().contents_formatted().len(); }
    let dv = t.elapsed().as_secs_f64() / 1000.0;
    println!();
    println!("stream: {} bytes, {} chunks of <= 4096 bytes, 120x40", data.len(), chunks.len());
    println!("parse only: avt {:.1} MB/s, avt + rea's zero-width wrapper {:.1} MB/s, vt100 {:.1} MB/s, alacritty_terminal {:.1} MB/s", mbps(data.len(), ta), mbps(data.len(), tw), mbps(data.len(), tv), mbps(data.len(), tl));
    vietnamese();
    println!("state dump of a 120x40 screen: avt {:.1} us, vt100 {:.1} us (alacritty_terminal has none) [{n}]", da * 1e6, dv * 1e6);
    let t = Instant::now();
    let mut a = avt::Terminal::with_scrollback(120, 40, Some(1000)).unwrap();
    let mut n = 0;
    for c in &chunks {
        a.feed(*c);
        n += a.dump().len();
        n += a.screen().visible_lines().map(|l| l.text().trim_end_matches(' ').len()).sum::<usize>();
    }
    println!("avt, its lines and dump after every chunk (no normalization): {:.1} MB/s [{n}]", mbps(data.len(), t.elapsed().as_secs_f64()));
    let (p, observed, retained) = pipeline(&data);
    println!("rea renderer pipeline (avt, a state after every chunk, limits 10 MB / 100000 frames): {p:.1} MB/s, {observed} states produced, {retained} kept");
}
fn nz(v: u16) -> std::num::NonZeroU16 { std::num::NonZeroU16::new(v).unwrap() }
