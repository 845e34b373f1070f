//! See ci/bench-render.sh. Usage: rea-bench-render STREAM_FILE

#[path = "../../../rea-engine/src/capture/render/fixtures.rs"]
#[allow(dead_code)]
mod fixtures;
#[path = "../../../rea-engine/src/capture/render/oracle.rs"]
#[allow(dead_code)]
mod oracle;
use fixtures::{FIXTURES, Fixture, Step};
use std::time::Instant;

fn trim(v: Vec<String>, rows: usize) -> Vec<String> {
    let mut v: Vec<String> = v.into_iter().map(|l| l.trim_end_matches(' ').to_owned()).collect();
    v.resize(rows, String::new());
    v
}

fn avt_run(f: &Fixture) -> Vec<String> {
    let mut t = avt::Terminal::with_scrollback(f.columns as usize, f.rows as usize, Some(1000)).unwrap();
    let mut rows = f.rows as usize;
    for s in f.steps {
        match *s {
            Step::Feed(b) => t.feed(b),
            Step::Resize(c, r) => { t.resize(c as usize, r as usize); rows = r as usize; }
        }
    }
    trim(t.screen().visible_lines().map(|l| l.text()).collect(), rows)
}

fn vt100_run(f: &Fixture) -> Vec<String> {
    let mut p = vt100::Parser::new(nz(f.rows), nz(f.columns), 1000);
    let mut rows = f.rows as usize;
    for s in f.steps {
        match *s {
            Step::Feed(b) => p.process(b.as_bytes()),
            Step::Resize(c, r) => { p.screen_mut().set_size(nz(r), nz(c)); rows = r as usize; }
        }
    }
    let cols = p.screen().size().1;
    trim(p.screen().rows(0, cols.get()).collect(), rows)
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
    pub fn run(f: &super::Fixture) -> Vec<String> {
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
        lines(&t)
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
        budget_bytes: 10_000_000,
        frame_limit: 100_000,
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
    let mut score = [0; 3];
    println!("| fixture | avt | vt100 | alacritty_terminal |\n|---|---|---|---|");
    for f in FIXTURES {
        let mut want = oracle::tmux_screen(f, &dir);
        if f.name == "line_drawing_charset" {
            // capture-pane prints the letters sent, not the DEC special
            // graphics glyphs a terminal shows for them (as in the engine test).
            let glyph = |c: char| match c { 'l' => '┌', 'q' => '─', 'k' => '┐', 'x' => '│', 'm' => '└', 'j' => '┘', o => o };
            want = want.into_iter().map(|l| l.chars().map(glyph).collect()).collect();
        }
        let got = [avt_run(f), vt100_run(f), ala::run(f)];
        let cells: Vec<&str> = got.iter().enumerate().map(|(i, g)| if *g == want { score[i] += 1; "match" } else { "DIFF" }).collect();
        println!("| {} | {} | {} | {} |", f.name, cells[0], cells[1], cells[2]);
        if std::env::var("SHOW").is_ok() {
            println!("tmux: {want:?}");
            for (n, g) in ["avt", "vt100", "ala"].iter().zip(&got) { if *g != want { println!("{n}: {g:?}"); } }
        }
    }
    println!("| total | {} | {} | {} |", score[0], score[1], score[2]);
    std::fs::remove_dir_all(&dir).ok();
    let data = stream();
    std::fs::write(&stream_file, &data).expect("write the stream");
    let chunks = split(&data, 4096);
    let t = Instant::now();
    let mut a = avt::Terminal::with_scrollback(120, 40, Some(1000)).unwrap();
    for c in &chunks { a.feed(*c); }
    let ta = t.elapsed().as_secs_f64();
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
    println!("parse only: avt {:.1} MB/s, vt100 {:.1} MB/s, alacritty_terminal {:.1} MB/s", mbps(data.len(), ta), mbps(data.len(), tv), mbps(data.len(), tl));
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
