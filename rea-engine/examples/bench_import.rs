//! Capture import benchmark (run by `ci/bench-import.sh`): loads each capture
//! file given as an argument the way `rea compare-process-captures` does
//! (read, parse, import), keeps both imported records alive, then prints the
//! wall time of the loads and the process's peak RSS (`VmHWM`).

use std::path::Path;
use std::time::Instant;

use rea_engine::evidence::{CaptureRecord, Evidence};
use rea_engine::input::{parse_json_bytes, read_capped};

// BEGIN load (ci/bench-import.sh swaps this body for the baseline's)
fn load(path: &Path) -> (Evidence, CaptureRecord) {
    let bytes = read_capped("capture", path, rea_engine::input::open_input_portable).expect("read the capture");
    let value = parse_json_bytes("capture", path, &bytes).expect("parse the capture");
    drop(bytes);
    rea_engine::evidence::import_capture_record(&path.display().to_string(), value).expect("import the capture")
}
// END load

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let start = Instant::now();
    let loaded: Vec<(Evidence, CaptureRecord)> = paths.iter().map(|p| load(Path::new(p))).collect();
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let frames: usize = loaded.iter().map(|(_, r)| r.frames.len()).sum();
    println!("{ms:.1} {} {frames}", peak_rss_kib());
}
