//! Issue 19's renderer rate: rea's renderer fed a stream as a capture at the
//! default limits feeds it (64 KiB reads; the first 1,000,000 bytes admitted,
//! each with a state; the rest parsed only), timed from start to the joined
//! thread; then avt alone parsing the same reads on this thread, the floor
//! of any pipeline built on it. Prints `bytes seconds states avt_seconds`
//! for ci/bench_screens.py.

use std::time::Instant;

use rea_engine::capture::normalize::{HostValues, Normalizer};
use rea_engine::capture::render::{RenderSettings, Renderer};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(columns), Some(rows)) = (args.next(), args.next(), args.next()) else {
        panic!("usage: screens-render STREAM COLUMNS ROWS");
    };
    let data = std::fs::read_to_string(&path).expect("read the stream");
    let normalizer = Normalizer::new(&rea_engine::scenario::Normalization::default(), &HostValues::default());
    let (settings_columns, settings_rows): (u16, u16) = (columns.parse().expect("columns"), rows.parse().expect("rows"));
    let settings = RenderSettings {
        columns: settings_columns,
        rows: settings_rows,
        scrollback: 1000,
        scrollback_shown: false,
        budget_bytes: 1_000_000,
        frame_limit: 10_000,
        secrets: Default::default(),
        answer_queries: true,
    };
    let start = Instant::now();
    let mut r = Renderer::start(settings, normalizer);
    let (mut rest, mut admitted) = (data.as_str(), 0usize);
    while !rest.is_empty() {
        let mut end = (64 * 1024).min(rest.len());
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (chunk, tail) = rest.split_at(end);
        let at_ms = start.elapsed().as_millis() as u64;
        if admitted + chunk.len() <= 1_000_000 {
            admitted += chunk.len();
            r.chunk(chunk, Instant::now(), at_ms);
        } else {
            r.text(chunk, Instant::now(), at_ms);
        }
        rest = tail;
    }
    let out = r.finish();
    let pipeline = start.elapsed().as_secs_f64();
    let mut term = avt::Terminal::with_scrollback(usize::from(settings_columns), usize::from(settings_rows), Some(1000))
        .expect("a terminal size");
    let start = Instant::now();
    for chunk in data.as_bytes().chunks(64 * 1024) {
        // Whole characters only: the stream is ASCII apart from what the generator wrote.
        term.feed(String::from_utf8_lossy(chunk).as_ref());
    }
    let avt_only = start.elapsed().as_secs_f64();
    println!("{} {pipeline:.6} {} {avt_only:.6}", data.len(), out.account.observed_frames);
}
