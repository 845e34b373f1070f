//! Document-bound benchmark (run by `ci/bench-fit.sh`): for the capture file
//! given as the argument, the median wall time of measuring its `--json`
//! size (what every capture pays), of fitting it into half that size (what
//! an over-bound capture pays), and of sealing and writing it as pretty JSON
//! to a sink (what every capture pays anyway), as ratios to the last.

use std::path::Path;
use std::time::Instant;

use rea_engine::capture::fit::fit_document;
use rea_engine::evidence::{CaptureRecord, capture_document_bytes, seal_capture};
use rea_engine::input::read_json_file;

fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: bench_fit CAPTURE.json [RUNS]");
    let runs: usize = std::env::args().nth(2).map_or(5, |r| r.parse().expect("RUNS is a number"));
    let value =
        read_json_file("capture", Path::new(&path), rea_engine::input::open_input_portable).expect("read the capture");
    let (evidence, record): (_, CaptureRecord) =
        rea_engine::evidence::import_capture_record(&path, value).expect("import the capture");
    let parameters = evidence.parameters;
    let size = capture_document_bytes(&record, &parameters).expect("measure");
    let write = median_ms(runs, || {
        let sealed = seal_capture(record.clone(), parameters.clone()).expect("seal");
        let mut out = std::io::BufWriter::new(std::io::sink());
        serde_json::to_writer_pretty(&mut out, &sealed.into_value()).expect("write");
    });
    let clone = median_ms(runs, || drop(std::hint::black_box(record.clone())));
    let measure = median_ms(runs, || {
        std::hint::black_box(capture_document_bytes(&record, &parameters).expect("measure"));
    });
    let fit = median_ms(runs, || {
        let mut copy = record.clone();
        fit_document(&mut copy, &parameters, size / 2).expect("fit");
    }) - clone;
    println!("document: {size} bytes, {} frames; {runs} runs, median", record.frames.len());
    println!("seal and write (peer): {write:.1} ms");
    println!("measure: {measure:.1} ms, {:.2}x the write", measure / write);
    println!("fit into half the size: {fit:.1} ms, {:.2}x the write", fit / write);
}
