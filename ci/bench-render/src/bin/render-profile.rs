//! rea's renderer pipeline alone on the bench-render stream, for profilers
//! (`valgrind --tool=callgrind`, `perf record`): no fixtures, no other
//! emulators. Prints the throughput and the accounting.
use std::time::Instant;

use rea_engine::capture::normalize::{HostValues, Normalizer};
use rea_engine::capture::render::{RenderSettings, Renderer};

fn main() {
    let path = std::env::args().nth(1).expect("usage: render-profile STREAM_FILE");
    let data = std::fs::read_to_string(path).expect("read the stream");
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
    let mut chunks = Vec::new();
    let mut rest = data.as_str();
    while !rest.is_empty() {
        let mut end = 4096.min(rest.len());
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        chunks.push(&rest[..end]);
        rest = &rest[end..];
    }
    let t = Instant::now();
    let mut r = Renderer::start(settings, normalizer);
    for (i, c) in chunks.iter().enumerate() {
        r.chunk(c, Instant::now(), i as u64);
    }
    let out = r.finish();
    let secs = t.elapsed().as_secs_f64();
    let a = &out.account;
    let digest = out.frames.iter().fold(0u64, |h, (_, f)| {
        let s = serde_json::to_string(f).expect("frame json");
        s.bytes().fold(h, |h, b| h.wrapping_mul(1_099_511_628_211).wrapping_add(u64::from(b)))
    });
    println!(
        "{:.1} MB/s ({secs:.3} s); observed {} frames {} bytes, retained {} frames {} bytes, unknown {}, digest {digest:x}",
        data.len() as f64 / 1e6 / secs,
        a.observed_frames,
        a.observed_bytes,
        a.retained_frames,
        a.retained_bytes,
        a.unknown_size_frames
    );
}
