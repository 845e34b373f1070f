//! `run_suite`: the arguments checked, then the engine's suite plan and run
//! (the same entry points as `rea run-suite`) on a blocking thread, a
//! progress notification per finished case, the suite record kept in the
//! session; cancelling the request stops the run through the same
//! cancellation and cleanup as Ctrl-C.

use std::path::PathBuf;
use std::sync::Arc;

use rea_engine::capture::{CancelCause, Cancellation};
use rea_engine::compare::TerminalLens;
use rea_engine::path::Issue;
use rea_engine::suite::{CaseResult, Goldens, Partition, Progress, SuiteObserver, SuiteOptions, SuiteSource};
use rmcp::model::{CallToolResult, ProgressNotificationParam};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::capture::{Internal, ProgressTarget};
use crate::errors::{ArgumentsError, CleanupPendingError};
use crate::reply;
use crate::session::Session;

/// The tool's name.
pub(crate) const TOOL: &str = "run_suite";

const FIELDS: &[&str] = &[
    "suite",
    "suite_path",
    "out",
    "jobs",
    "self_check",
    "goldens",
    "record_goldens",
    "partition",
    "cases",
    "terminal_lens",
];

/// The tool's input schema.
pub(crate) fn input_schema() -> Value {
    let text = |description: &str| json!({ "type": "string", "minLength": 1, "description": description });
    json!({
        "type": "object",
        "title": "run_suite arguments",
        "description": "A suite (docs/formats.md, \"Suite file\"), inline or by path, and the options of `rea run-suite`.",
        "additionalProperties": false,
        "properties": {
            "suite": { "type": "object", "description": "The suite document; its globs and fixtures are relative to the server's working directory." },
            "suite_path": text("Path of a suite file (relative to the server's working directory); its globs and fixtures are relative to its directory."),
            "out": text("Directory for suite.json and cases/NAME/ (default rea-suite-out, relative to the server's working directory)."),
            "jobs": { "type": "integer", "minimum": 1, "maximum": rea_engine::suite::MAX_JOBS, "description": "Cases at a time (default: the CPUs rea may use)." },
            "self_check": { "type": "boolean", "default": false, "description": "Capture the authority twice; a case whose two authority captures differ is unstable." },
            "goldens": text("Directory of goldens NAME.json that stand in for the authority."),
            "record_goldens": text("Directory to record the authority's captures in as goldens."),
            "partition": { "type": "string", "pattern": "^[0-9]+/[0-9]+$", "description": "K/N: run the cases whose name hashes to partition K of N." },
            "cases": { "type": "array", "items": { "type": "string", "minLength": 1 }, "description": "Globs of case names to run (default: every case)." },
            "terminal_lens": { "type": "string", "enum": ["stream", "screen"], "default": "stream", "description": "What decides the terminal dimension of each comparison." }
        },
        "oneOf": [
            { "required": ["suite"], "not": { "required": ["suite_path"] } },
            { "required": ["suite_path"], "not": { "required": ["suite"] } }
        ]
    })
}

fn rule(path: &str, rule: impl Into<String>) -> Issue {
    Issue { path: path.to_owned(), rule: rule.into() }
}

/// The arguments as the engine takes them.
fn parse(arguments: Value, base: PathBuf) -> Result<(SuiteSource, SuiteOptions), ArgumentsError> {
    let fail = |issues| ArgumentsError { tool: TOOL, issues };
    let Value::Object(args) = arguments else { return Err(fail(vec![rule("", "must be an object")])) };
    let mut issues: Vec<Issue> = args
        .keys()
        .filter(|k| !FIELDS.contains(&k.as_str()))
        .map(|k| {
            rule(&rea_engine::path::join_key("", k), format!("is not an argument; allowed: {}", FIELDS.join(", ")))
        })
        .collect();
    let source = match (args.get("suite"), text(&args, "suite_path", &mut issues)) {
        (Some(Value::Object(document)), None) => {
            Some(SuiteSource::Inline { document: Value::Object(document.clone()), base })
        }
        (None, Some(path)) => Some(SuiteSource::File(PathBuf::from(path))),
        (Some(Value::Object(_)), Some(_)) | (None, None) => {
            issues.push(rule("", "give exactly one of suite (the suite object) and suite_path"));
            None
        }
        (Some(_), _) => {
            issues.push(rule("suite", "must be an object (the suite document)"));
            None
        }
    };
    let mut options = SuiteOptions::new(
        text(&args, "out", &mut issues).map_or_else(|| rea_engine::suite::DEFAULT_OUT_DIR.into(), PathBuf::from),
    );
    options.jobs = match args.get("jobs") {
        None => None,
        Some(v) => match v.as_u64().filter(|j| (1..=rea_engine::suite::MAX_JOBS as u64).contains(j)) {
            Some(j) => Some(j as usize),
            None => {
                issues.push(rule("jobs", format!("must be a whole number from 1 to {}", rea_engine::suite::MAX_JOBS)));
                None
            }
        },
    };
    options.self_check = match args.get("self_check") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            issues.push(rule("self_check", "must be a boolean"));
            false
        }
    };
    options.goldens = goldens(&args, &mut issues);
    options.partition = text(&args, "partition", &mut issues).and_then(|p| match p.parse::<Partition>() {
        Ok(partition) => Some(partition),
        Err(e) => {
            issues.push(rule("partition", e.to_string()));
            None
        }
    });
    options.case_globs = globs(&args, &mut issues);
    options.terminal_lens = match args.get("terminal_lens").map(|v| v.as_str().map(str::parse::<TerminalLens>)) {
        None => TerminalLens::Stream,
        Some(Some(Ok(lens))) => lens,
        Some(_) => {
            issues.push(rule("terminal_lens", "must be one of stream, screen"));
            TerminalLens::Stream
        }
    };
    match source {
        Some(source) if issues.is_empty() => Ok((source, options)),
        _ => Err(fail(issues)),
    }
}

/// A non-empty string argument.
fn text(args: &Map<String, Value>, key: &str, issues: &mut Vec<Issue>) -> Option<String> {
    match args.get(key) {
        None => None,
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(_) => {
            issues.push(rule(key, "must be a non-empty string"));
            None
        }
    }
}

fn goldens(args: &Map<String, Value>, issues: &mut Vec<Issue>) -> Option<Goldens> {
    match (text(args, "goldens", issues), text(args, "record_goldens", issues)) {
        (Some(_), Some(_)) => {
            issues.push(rule("record_goldens", "give at most one of goldens and record_goldens"));
            None
        }
        (Some(dir), None) => Some(Goldens::Check(dir.into())),
        (None, Some(dir)) => Some(Goldens::Record(dir.into())),
        (None, None) => None,
    }
}

fn globs(args: &Map<String, Value>, issues: &mut Vec<Issue>) -> Vec<String> {
    let Some(value) = args.get("cases") else { return Vec::new() };
    let Some(items) = value.as_array() else {
        issues.push(rule("cases", "must be an array of globs"));
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = rea_engine::path::join_index("cases", i);
        match item.as_str().map(|g| rea_engine::suite::check_case_glob(g).map(|()| g)) {
            Some(Ok(glob)) => out.push(glob.to_owned()),
            Some(Err(why)) => issues.push(rule(&path, why)),
            None => issues.push(rule(&path, "must be a string (a glob of case names)")),
        }
    }
    out
}

/// A progress notification per finished case: `progress` = cases done,
/// `total` = cases of the run, `message` = `"<case>: <verdict>"`. They go
/// through a channel to one forwarding task, in order.
struct Notifier {
    target: Option<(rmcp::model::ProgressToken, tokio::sync::mpsc::UnboundedSender<ProgressNotificationParam>)>,
}

impl Notifier {
    fn start(target: Option<ProgressTarget>) -> Notifier {
        Notifier { target: target.map(|t| (t.token, crate::capture::forward(t.peer))) }
    }
}

impl SuiteObserver for Notifier {
    fn case_finished(&mut self, result: &CaseResult, progress: Progress) {
        let Some((token, lines)) = &self.target else { return };
        let message = format!("{}: {}", result.name, result.verdict);
        let param = ProgressNotificationParam::new(token.clone(), progress.done as f64)
            .with_total(progress.total as f64)
            .with_message(message);
        let _ = lines.send(param);
    }
}

/// Runs the tool. `cancel` is the request's cancellation token.
pub(crate) async fn run(
    session: Arc<Session>,
    arguments: Value,
    progress: Option<ProgressTarget>,
    cancel: CancellationToken,
) -> CallToolResult {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return reply::error(&Internal(format!("the server's current directory cannot be read: {e}"))),
    };
    let (source, options) = match parse(arguments, cwd.clone()) {
        Ok(parsed) => parsed,
        Err(e) => return reply::error(&e),
    };
    let mut notifier = Notifier::start(progress);
    let task = tokio::task::spawn_blocking(move || {
        let plan = match rea_engine::suite::plan(&session.host, source, options, &cwd, std::env::vars_os().collect()) {
            Ok(plan) => plan,
            Err(e) => return reply::error(&e),
        };
        let pending = session.admit();
        if !pending.is_empty() {
            return reply::error(&CleanupPendingError { pending });
        }
        let ended = session.ended().clone();
        let cancellation = Cancellation::on_host_signals()
            .or_when(CancelCause::Client, async move { cancel.cancelled().await })
            .or_when(CancelCause::SessionEnd, async move { ended.cancelled().await });
        let sealed = match rea_engine::suite::run(&session.host, &plan, session.build, cancellation, &mut notifier) {
            Ok(sealed) => sealed,
            Err(e) => return reply::error(&e),
        };
        let evidence = match sealed.into_evidence() {
            Ok(evidence) => evidence,
            Err(e) => return reply::error(&Internal(format!("the suite record could not be serialized: {e}"))),
        };
        match serde_json::to_value(&evidence) {
            Ok(document) => session.record_and_reply(evidence, document, None, Value::Null),
            Err(e) => reply::error(&Internal(format!("the suite record could not be serialized: {e}"))),
        }
    });
    match task.await {
        Ok(result) => result,
        Err(e) => reply::error(&Internal(format!("the suite thread ended abnormally: {e}"))),
    }
}
