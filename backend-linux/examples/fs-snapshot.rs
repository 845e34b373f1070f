//! Takes one filesystem snapshot through `LinuxFs` and the engine, and prints
//! what it recorded and how long it took. `ci/bench-fs.sh` drives it.
//!
//! Usage: `fs-snapshot [--files N] [--file-bytes N] [--depth N] [--threads N] ROOT...`
//!
//! Output is one line of `key=value` pairs: `entries`, `bytes_hashed`,
//! `hash_omissions`, `enumeration_omissions`, `truncated`, `threads` and
//! `elapsed_s` (the snapshot call alone, wall clock).

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    use std::path::PathBuf;
    use std::time::Instant;

    use rea_backend_linux::fs::LinuxFs;
    use rea_engine::fs::snapshot_with_threads;
    use rea_engine::scenario::Limits;

    let mut limits = Limits::default();
    let mut threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut roots = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> u64 {
            let value = args.next().unwrap_or_else(|| panic!("{name} needs a value"));
            value.parse().unwrap_or_else(|_| panic!("{name}: {value} is not a number"))
        };
        match arg.as_str() {
            "--files" => limits.files = number("--files"),
            "--file-bytes" => limits.file_bytes = number("--file-bytes"),
            "--depth" => limits.filesystem_depth = number("--depth"),
            "--threads" => threads = usize::try_from(number("--threads")).expect("a thread count"),
            _ => roots.push(PathBuf::from(arg)),
        }
    }
    if roots.is_empty() {
        eprintln!("usage: fs-snapshot [--files N] [--file-bytes N] [--depth N] [--threads N] ROOT...");
        return std::process::ExitCode::from(2);
    }
    let start = Instant::now();
    let result = snapshot_with_threads(&LinuxFs, &roots, &limits, &|| false, threads);
    let elapsed = start.elapsed().as_secs_f64();
    match result {
        Ok(taken) => {
            let t = &taken.truncation;
            println!(
                "entries={} bytes_hashed={} hash_omissions={} enumeration_omissions={} truncated={} threads={threads} elapsed_s={elapsed:.6}",
                t.entries,
                t.bytes_hashed,
                t.hash_omissions.len(),
                t.enumeration_omissions.len(),
                t.truncated,
            );
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("fs-snapshot: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("fs-snapshot measures the Linux probe and runs only on Linux");
}
