//! `rea record-scenario OUT.json [--capture FILE] [--from BASE.json]
//! [--size COLSxROWS] -- PROGRAM [ARGS...]`: a person's terminal bridged to
//! a live session (`rea_engine::live`), written out as a scenario.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::mpsc::channel;

use rea_engine::live::replies::ReplyFilter;
use rea_engine::live::{DerivePolicy, LiveEnd, LiveOptions, LiveSession, Sensitivity, StopMode};
use rea_engine::scenario::{Event, Scenario, load_scenario, parse_scenario};

use crate::cli::RecordScenarioArgs;
use crate::errors::{CliError, failure};
use crate::host::person::{self, PersonSignal, RawMode};
use crate::output::Format;

/// The deadlines the live program runs under: a person takes their time.
const RECORDING_DEADLINE_MS: u64 = 24 * 60 * 60 * 1000;

/// Runs the recording and writes what it made.
pub(crate) fn run(args: RecordScenarioArgs) -> ExitCode {
    match record(&args) {
        Ok(summary) => {
            eprintln!("{summary}");
            ExitCode::from(crate::exit::SUCCESS)
        }
        Err(outcome) => crate::emit(&outcome, Format::Json),
    }
}

fn record(args: &RecordScenarioArgs) -> Result<String, crate::Outcome> {
    check_outputs(args)?;
    let written = base_scenario(args)?;
    let mut live = written.clone();
    (live.timeout_ms, live.idle_timeout_ms) = (RECORDING_DEADLINE_MS, RECORDING_DEADLINE_MS);
    let host = crate::host::host();
    let dir = std::env::current_dir().map_err(|e| failure(&CliError::CurrentDirectory { source: e }))?;
    let request = rea_engine::capture::prepare(&host, live, &dir, std::env::vars_os().collect(), crate::BUILD)
        .map_err(|e| failure(&e))?;
    let ended = bridge(&host, request, &written, args.size.is_none())?;
    write_outputs(args, &ended)
}

/// Refuses outputs that cannot be written, before anything runs.
fn check_outputs(args: &RecordScenarioArgs) -> Result<(), crate::Outcome> {
    let unwritable = |path: &Path, why| failure(&CliError::Unwritable { path: path.to_owned(), why });
    for path in std::iter::once(&args.out).chain(args.capture.as_ref()) {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !parent.is_dir() {
            return Err(unwritable(path, "its directory does not exist"));
        }
        if path.is_dir() {
            return Err(unwritable(path, "it is a directory"));
        }
    }
    if args.capture.as_ref() == Some(&args.out) {
        return Err(unwritable(&args.out, "it is both the scenario and the capture"));
    }
    Ok(())
}

/// The scenario the recording writes before its events: `--from`'s (its
/// events dropped), or the defaults, with PROGRAM, ARGS and the size.
fn base_scenario(args: &RecordScenarioArgs) -> Result<Scenario, crate::Outcome> {
    let mut scenario = match &args.from {
        Some(path) => load_scenario(path, crate::host::open_input).map_err(|e| failure(&e))?,
        None => parse_scenario(serde_json::json!({ "executable": args.program() })).map_err(|e| failure(&e))?,
    };
    args.program().clone_into(&mut scenario.executable);
    scenario.arguments = args.arguments().to_vec();
    scenario.events.clear();
    let (columns, rows) =
        args.size.or_else(person::size).unwrap_or((scenario.terminal.columns, scenario.terminal.rows));
    (scenario.terminal.columns, scenario.terminal.rows) = (columns, rows);
    // The size and the program are checked as a scenario file's would be.
    let value =
        serde_json::to_value(&scenario).map_err(|e| failure(&CliError::Recording { message: e.to_string() }))?;
    parse_scenario(value).map_err(|e| failure(&e))
}

/// Runs the program with the person's terminal bridged to it, until it ends.
fn bridge(
    host: &rea_engine::Host,
    request: rea_engine::capture::CaptureRequest,
    written: &Scenario,
    follow_size: bool,
) -> Result<LiveEnd, crate::Outcome> {
    let (output, shown) = channel::<Vec<u8>>();
    let policy = DerivePolicy::Generous { timeout_ms: written.timeout_ms, idle_timeout_ms: written.idle_timeout_ms };
    let options = LiveOptions { output: Some(output), policy, ..LiveOptions::default() };
    let raw =
        RawMode::enter().map_err(|e| recording_error(format!("the terminal could not be put in raw mode: {e}")))?;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        person::restore();
        hook(info);
    }));
    let session = match LiveSession::start(host, request, options) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            drop(raw);
            return Err(live_failure(e));
        }
    };
    let filter = ReplyFilter::default();
    let queries = filter.queries();
    // Ends when the capture drops the output's sender, after the last byte.
    let shower = std::thread::spawn(move || show(&shown, &queries));
    let keys = Arc::clone(&session);
    std::thread::spawn(move || pass_keys(&keys, filter));
    let signalled = Arc::clone(&session);
    let watched = person::watch_signals(move |signal| match signal {
        PersonSignal::Resized if follow_size => {
            if let Some((columns, rows)) = person::size() {
                let _ = signalled.resize(columns, rows);
            }
        }
        PersonSignal::Resized => {}
        PersonSignal::End => {
            person::restore();
            signalled.request_stop(StopMode::End);
        }
    });
    if let Err(e) = watched {
        session.request_stop(StopMode::End);
        let _ = session.stop(StopMode::End);
        drop(raw);
        return Err(recording_error(format!("the signal handlers could not be installed: {e}")));
    }
    let ended = session.stop(StopMode::AwaitExit);
    let _ = shower.join();
    drop(raw);
    ended.map_err(live_failure)
}

/// Shows the program's output on the person's terminal as it comes.
fn show(shown: &std::sync::mpsc::Receiver<Vec<u8>>, queries: &rea_engine::live::replies::QueryCounter) {
    let mut out = std::io::stdout();
    while let Ok(bytes) = shown.recv() {
        queries.saw(&bytes);
        let _ = out.write_all(&bytes);
        let _ = out.flush();
    }
}

/// Passes the person's keys to the program (replies of their terminal to
/// queries dropped) until the program ends.
fn pass_keys(session: &LiveSession, mut filter: ReplyFilter) {
    let mut stdin = std::io::stdin();
    let mut buf = [0u8; 4096];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let keys = filter.keys(&buf[..n]);
        if keys.is_empty() {
            continue;
        }
        let text = String::from_utf8_lossy(&keys).into_owned();
        if session.send_input(&text, Sensitivity::IfUnshown).is_err() && !session.running() {
            return;
        }
    }
}

/// Writes the scenario (0600 when it holds a sensitive input) and the capture.
fn write_outputs(args: &RecordScenarioArgs, ended: &LiveEnd) -> Result<String, crate::Outcome> {
    let scenario = &ended.scenario;
    let sensitive = scenario.events.iter().filter(|e| matches!(e, Event::Input { sensitive: true, .. })).count();
    let mut json = serde_json::to_vec_pretty(scenario).map_err(|e| recording_error(e.to_string()))?;
    json.push(b'\n');
    // What rea writes, rea reads back: the scenario must load as written.
    let value = serde_json::from_slice(&json).map_err(|e| recording_error(e.to_string()))?;
    parse_scenario(value).map_err(|e| failure(&e))?;
    write_file(&args.out, sensitive > 0, |f| f.write_all(&json))?;
    if let Some(path) = &args.capture {
        write_file(path, sensitive > 0, |f| ended.capture.write_json(f))?;
    }
    let capture = args.capture.as_ref().map_or(String::new(), |p| format!("; its capture {}", p.display()));
    Ok(format!(
        "rea: recorded {} event(s), {sensitive} sensitive, into {}{capture}",
        scenario.events.len(),
        args.out.display()
    ))
}

/// Writes `path` (private to the user when `private`), removed again if writing fails.
fn write_file(
    path: &PathBuf,
    private: bool,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), crate::Outcome> {
    let fail = |source| failure(&CliError::Write { path: path.clone(), source });
    let mut file = person::create(path, private).map_err(fail)?;
    if let Err(e) = write(&mut file).and_then(|()| file.flush()) {
        drop(file);
        let _ = std::fs::remove_file(path);
        return Err(fail(e));
    }
    Ok(())
}

fn recording_error(message: String) -> crate::Outcome {
    failure(&CliError::Recording { message })
}

fn live_failure(e: rea_engine::live::LiveError) -> crate::Outcome {
    match e {
        rea_engine::live::LiveError::Capture(capture) => failure(&*capture),
        other => recording_error(other.to_string()),
    }
}
