//! Command-line interface definition.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

const ABOUT: &str = "Run one command under a pseudo-terminal exactly as a scenario file says, record bounded evidence of what happened, and compare two such records.";

const AFTER_HELP: &str = "\
Documents go to stdout (TOON by default, pretty JSON with --json); progress
lines go to stderr. Exit status: 0 success, 1 the document is an error,
2 the arguments are wrong (message on stderr), 3 compare-process-captures
--exit-code found a difference (run-suite: a case changed), 4 stdout could
not be written.

Examples:
  rea capture-process examples/hello.json --json > capture.json
  rea show capture.json
  rea compare-process-captures authority.json reconstruction.json --json > comparison.json
  rea show comparison.json
  rea export-asciicast capture.json > capture.cast
  rea run-suite examples/suite/suite.json --out results
  rea help capture-process";

/// `rea`: process capture and comparison.
#[derive(Debug, Parser)]
#[command(name = "rea", version = crate::VERSION_TEXT, about = ABOUT, after_help = AFTER_HELP)]
#[command(propagate_version = true, arg_required_else_help = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run a scenario's command under a PTY and print its capture Evidence.
    #[command(after_help = "\
The scenario is a JSON file; only `executable` is required:

  {\"executable\": \"sh\", \"arguments\": [\"-c\", \"echo ready\"], \"timeout_ms\": 5000}

Save the capture for comparison with --json, to a file other than the scenario
(the shell empties a redirect target before rea starts):

  rea capture-process scenario.json --json > capture.json

While the command runs, one `{\"rea_progress\": ...}` JSON line per update goes
to stderr. The schema of the scenario is docs/scenario.schema.json.")]
    CaptureProcess(CaptureProcessArgs),

    /// Compare two saved captures and print comparison Evidence.
    #[command(after_help = "\
Both captures must share a comparison contract (working directory, explicit
environment, observation paths, terminal, events, timeouts, limits and
normalization); the executable and its arguments may differ. Finding
differences is a successful comparison (exit 0); with --exit-code the exit
status is 0 when no difference was observed and 3 when one was (an error still
exits 1), as with `git diff --exit-code`.

Behaviour is compared, not transport: terminal text is compared per segment
between dispatched events (chunk boundaries and chunk times never matter),
with the rendered screen at each segment's end; timing values differ only
beyond --timing-tolerance-ms. Each dimension lists its differences with field
paths, both values and locations, and every timing delta.

  rea compare-process-captures authority.json reconstruction.json --json
  rea compare-process-captures a.json b.json --exit-code --timing-tolerance-ms 0

An optional third file is a trace specification stating the exact events and
ordering constraints to accept (see docs/formats.md, \"Trace specifications\");
its verdict is in normalized_result.trace:

  rea compare-process-captures left.json right.json trace.json --json")]
    CompareProcessCaptures(CompareArgs),

    /// Run a suite: many scenarios, each against two sides, one verdict table.
    #[command(after_help = "\
The suite file names two sides (an executable and leading arguments each) and
the cases: globs of scenario files (relative to the suite file; a case is
named by its file's stem, and the directory STEM.in/ beside it is its
fixture) or inline {\"name\", \"scenario\"} objects. A case's scenario leaves
out `executable` (or writes \"{side}\"): each side runs its own command;
\"{side}\" inside a longer argument becomes the side's words quoted for sh.
Everything is validated before anything runs. Each case runs in its own
directory under the work root, refilled from its fixture before each capture;
cases run in parallel (--jobs, default: the CPUs rea may use).

--out receives suite.json (the suite record) and cases/NAME/ with the captures
and the comparison, the same documents `rea capture-process` and
`rea compare-process-captures` write. stdout carries the suite record (TOON,
or JSON with --json); stderr the progress: a live line on a terminal, one
line per finished case otherwise. Exit status: 0 no case changed or failed,
3 a case changed (none failed), 1 a case failed or the suite could not run,
2 the arguments are wrong.

Examples:
  rea run-suite examples/suite/suite.json --out results
  rea show results/suite.json
  rea run-suite suite.json --record-goldens goldens     # record the authority once
  rea run-suite suite.json --goldens goldens            # then check without running it
  rea run-suite suite.json --partition 2/3 --out part-2 --junit part-2.xml")]
    RunSuite(RunSuiteArgs),

    /// Run a program with your terminal bridged to it and write the session as a scenario.
    #[command(after_help = "\
Everything you type goes to PROGRAM as you type it; its output is shown as it
comes; resizing your terminal resizes its terminal (unless --size fixes it).
When PROGRAM exits, OUT.json is written: a scenario whose events are your keys,
each run of keys typed before the program answered one input event, waiting
for what the program showed before you typed (the text before the cursor, on
the output since the previous event; a quiet time when there was none). Keys
typed while the terminal's echo was off and never shown (a password at a
`read -s` prompt) are `sensitive: true`, and OUT.json is then created 0600.
Deadlines and waits' timeouts are written generously (see docs/formats.md).

  rea record-scenario session.json --capture live.json -- python3 -q
  rea capture-process session.json --json > replay.json
  rea compare-process-captures live.json replay.json")]
    RecordScenario(RecordScenarioArgs),

    /// Merge the outputs of a suite's partitions into one suite record.
    #[command(after_help = "\
Each DIR is the --out directory of `rea run-suite SUITE --partition K/N`; every
partition 1/N..N/N of one run must be given once. The merged suite.json (and
the cases' documents) go to --out, and the record is printed (TOON, or JSON
with --json). The exit status is that of run-suite for the merged verdicts.

Examples:
  rea merge-suite-results part-1 part-2 part-3 --out results")]
    MergeSuiteResults(MergeSuiteResultsArgs),

    /// Report what this host can do and what to fix.
    #[command(after_help = "\
Examples:
  rea doctor          # TOON summary
  rea doctor --json   # the same report as JSON

Exit status 1 when a check needs attention.")]
    Doctor(DoctorArgs),

    /// Show a capture, a comparison or a suite record for a person to read.
    #[command(after_help = "\
A capture shows its header (command, exit, settlement, cleanup, what is
truncated or unknown), the final screen, a timeline, filesystem effects and
limitations; with --screens also the screen each interaction event saw. A
comparison shows its verdict, each dimension's status and each difference
with its location. A suite record (suite.json) shows its verdict table, its
totals and where each changed case first diverges. Reads JSON and TOON; the
file is not changed. Colour only
when stdout is a terminal and NO_COLOR is unset.

Examples:
  rea show capture.json
  rea show --screens capture.json
  rea show comparison.json | less -R")]
    Show(ShowArgs),

    /// Export a capture's terminal recording as an asciicast v2 file.
    #[command(after_help = "\
Writes asciicast v2 to stdout: output (`o`) at its recorded time, inputs (`i`,
redacted inputs stay redacted; replies to terminal queries too), resizes (`r`),
and markers (`m`) for signals, truncation and the exit. Play it with asciinema:

Examples:
  rea export-asciicast capture.json > capture.cast
  asciinema play capture.cast")]
    ExportAsciicast(ExportAsciicastArgs),

    /// Print a shell completion script.
    #[command(after_help = "\
Examples:
  rea completions bash > ~/.local/share/bash-completion/completions/rea
  rea completions zsh > ~/.zfunc/_rea
  rea completions fish > ~/.config/fish/completions/rea.fish")]
    Completions(CompletionsArgs),
    /// Serve the capture and compare tools over MCP on stdin/stdout.
    #[command(after_help = "\
Register it with an MCP client as a stdio server, e.g. {\"command\": \"rea\", \"args\": [\"mcp\"]}.
Tools: capture_process_scenario (input: the scenario object),
compare_process_captures, export_asciicast and run_suite; Evidence is readable
as rea://evidence/<id> resources.")]
    Mcp,
}

/// Output format flag shared by every command.
#[derive(Debug, Args, Clone, Copy)]
pub(crate) struct FormatArgs {
    /// Print pretty JSON (2-space indent) instead of TOON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CaptureProcessArgs {
    /// Path of the scenario JSON file.
    pub(crate) scenario: PathBuf,
    #[command(flatten)]
    pub(crate) format: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct RecordScenarioArgs {
    /// Where to write the scenario (JSON).
    pub(crate) out: PathBuf,
    /// Also write the live session's capture (JSON) here, committed as a
    /// capture of the written scenario.
    #[arg(long, value_name = "FILE")]
    pub(crate) capture: Option<PathBuf>,
    /// A scenario whose working directory, environment, observation paths,
    /// terminal settings, limits and deadlines the written one starts from
    /// (its executable, arguments and events are replaced).
    #[arg(long, value_name = "BASE.json")]
    pub(crate) from: Option<PathBuf>,
    /// The program's terminal size instead of your terminal's.
    #[arg(long, value_name = "COLSxROWS", value_parser = parse_size)]
    pub(crate) size: Option<(u16, u16)>,
    /// The program to run.
    #[arg(last = true, required = true, num_args = 1.., value_name = "PROGRAM [ARGS]...")]
    pub(crate) command: Vec<String>,
}

impl RecordScenarioArgs {
    /// The program.
    pub(crate) fn program(&self) -> &str {
        self.command.first().map_or("", String::as_str)
    }

    /// Its arguments.
    pub(crate) fn arguments(&self) -> &[String] {
        self.command.get(1..).unwrap_or_default()
    }
}

/// `COLSxROWS`.
fn parse_size(text: &str) -> Result<(u16, u16), String> {
    let bad = || format!("{text:?} is not COLSxROWS (for example 80x24)");
    let (c, r) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (c, r) = (c.parse::<u16>().map_err(|_| bad())?, r.parse::<u16>().map_err(|_| bad())?);
    if c == 0 || r == 0 {
        return Err(bad());
    }
    Ok((c, r))
}

#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Capture Evidence of the authority (left) side.
    pub(crate) left: PathBuf,
    /// Capture Evidence of the reconstruction (right) side.
    pub(crate) right: PathBuf,
    /// Optional trace specification JSON file.
    pub(crate) trace: Option<PathBuf>,
    /// Exit 3 when a difference was observed, 0 when none was.
    #[arg(long)]
    pub(crate) exit_code: bool,
    /// A timing value differs only when the two sides differ by more than
    /// this many milliseconds (0 is strict).
    #[arg(long, value_name = "N", default_value_t = rea_engine::compare::DEFAULT_TIMING_TOLERANCE_MS)]
    pub(crate) timing_tolerance_ms: u64,
    /// What decides the terminal dimension: `stream` (the normalized byte
    /// stream) or `screen` (the screens at each segment boundary and at the
    /// end, cell by cell: text, colours, attributes, cursor, active buffer;
    /// stream differences are still listed but do not decide).
    #[arg(long, value_name = "LENS", default_value = "stream", value_parser = terminal_lens())]
    pub(crate) terminal_lens: rea_engine::compare::TerminalLens,
    #[command(flatten)]
    pub(crate) format: FormatArgs,
}

/// The lens values as clap lists them, read into the engine's vocabulary.
fn terminal_lens() -> impl clap::builder::TypedValueParser<Value = rea_engine::compare::TerminalLens> {
    use clap::builder::TypedValueParser;
    let names = rea_engine::compare::TerminalLens::ALL.iter().map(|l| l.as_str());
    clap::builder::PossibleValuesParser::new(names).try_map(|name| name.parse::<rea_engine::compare::TerminalLens>())
}

#[derive(Debug, Args)]
pub(crate) struct RunSuiteArgs {
    /// Path of the suite JSON file.
    pub(crate) suite: PathBuf,
    /// Directory for suite.json and cases/NAME/ (new, empty, or an earlier
    /// suite output, whose suite.json and cases/ are replaced).
    #[arg(long, value_name = "DIR", default_value = rea_engine::suite::DEFAULT_OUT_DIR)]
    pub(crate) out: PathBuf,
    /// Directory under which each case runs in its own directory (default:
    /// rea-suite-<digest of the suite file's path> in the temporary directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) work_root: Option<PathBuf>,
    /// Cases run at a time (default: the CPUs rea may use).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=rea_engine::suite::MAX_JOBS as u64))]
    pub(crate) jobs: Option<u64>,
    /// Capture the authority twice; a case whose two authority captures
    /// differ is `unstable`, never `changed`.
    #[arg(long, conflicts_with = "goldens")]
    pub(crate) self_check: bool,
    /// Compare against the goldens DIR/NAME.json instead of running the
    /// authority.
    #[arg(long, value_name = "DIR", conflicts_with = "record_goldens")]
    pub(crate) goldens: Option<PathBuf>,
    /// Capture only the authority and store it as DIR/NAME.json.
    #[arg(long, value_name = "DIR")]
    pub(crate) record_goldens: Option<PathBuf>,
    /// Run only the cases whose name hashes to partition K of N.
    #[arg(long, value_name = "K/N", value_parser = clap::value_parser!(rea_engine::suite::Partition))]
    pub(crate) partition: Option<rea_engine::suite::Partition>,
    /// Run only the cases whose name matches GLOB (repeatable).
    #[arg(long = "case", value_name = "GLOB", value_parser = case_glob)]
    pub(crate) cases: Vec<String>,
    /// What decides the terminal dimension of each comparison (as in
    /// compare-process-captures).
    #[arg(long, value_name = "LENS", default_value = "stream", value_parser = terminal_lens())]
    pub(crate) terminal_lens: rea_engine::compare::TerminalLens,
    /// Also write the verdicts as JUnit XML to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) format: FormatArgs,
}

/// A `--case` value: a glob.
fn case_glob(text: &str) -> Result<String, String> {
    rea_engine::suite::check_case_glob(text).map(|()| text.to_owned())
}

#[derive(Debug, Args)]
pub(crate) struct MergeSuiteResultsArgs {
    /// The --out directories of the partitions.
    #[arg(required = true, value_name = "DIR")]
    pub(crate) dirs: Vec<PathBuf>,
    /// Directory for the merged suite.json and the cases' documents.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,
    #[command(flatten)]
    pub(crate) format: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    #[command(flatten)]
    pub(crate) format: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// Capture, comparison or suite Evidence (JSON or TOON).
    pub(crate) file: PathBuf,
    /// For a capture, also show the screen each interaction event saw.
    #[arg(long)]
    pub(crate) screens: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ExportAsciicastArgs {
    /// Capture Evidence (JSON or TOON).
    pub(crate) capture: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    pub(crate) shell: clap_complete::Shell,
}
