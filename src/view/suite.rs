//! The view of a suite record: what was run, the verdict table (a row per
//! case: verdict, each dimension's status, elapsed time, where it first
//! diverged or why it failed), the totals, then each changed or unstable
//! case's first divergence and each failed case's error.

use rea_engine::compare::FirstDivergence;
use rea_engine::evidence::Encoding;
use rea_engine::suite::{CaseResult, SuiteDocument, SuiteRecord, Verdict};

use super::{Page, Style, Tone, limitations};

/// The whole view of a suite record read from `source_name`.
pub(crate) fn render(document: &SuiteDocument, source_name: &str, style: Style) -> String {
    let record = &document.record;
    let mut page = Page::new(style);
    page.line(&style.paint(Tone::Strong, &format!("rea suite {}", document.envelope.evidence_id)));
    page.field("file", source_name);
    page.field("read as", if document.encoding == Encoding::Json { "JSON" } else { "TOON" });
    let identity = match &document.identity_failure {
        None => style.paint(Tone::Good, "verified (evidence_id recomputed)"),
        Some(why) => style.paint(Tone::Bad, &format!("NOT verified: {why}")),
    };
    page.field("identity", &identity);
    page.field(
        "suite",
        &format!(
            "{} (commitment {})",
            record.suite.name,
            &record.suite.commitment[..12.min(record.suite.commitment.len())]
        ),
    );
    page.field("run", &run_summary(record, &document.envelope.operation));
    verdicts(&mut page, record);
    let out = std::path::Path::new(source_name).parent().filter(|p| !p.as_os_str().is_empty());
    details(&mut page, record, out);
    limitations(&mut page, &document.envelope.limitations);
    page.text
}

/// The verdict table and the totals, as `rea run-suite` prints them at the end.
pub(crate) fn table_text(record: &SuiteRecord, style: Style) -> String {
    let mut page = Page::new(style);
    verdicts(&mut page, record);
    page.text
}

pub(super) fn run_summary(record: &SuiteRecord, operation: &str) -> String {
    let p = &record.parameters;
    let mut parts = vec![format!("{} of {} selected case(s)", record.cases.len(), record.suite.case_names.len())];
    if let Some(partition) = p.partition {
        parts.push(format!("partition {partition}"));
    }
    if operation == rea_engine::suite::MERGE_OPERATION {
        parts.push("merged from partitions".into());
    }
    parts.push(format!("{} job(s)", p.jobs));
    if p.self_check {
        parts.push("self-check".into());
    }
    if let Some(g) = &p.goldens {
        parts.push(format!("goldens ({}) in {}", g.mode, g.directory));
    }
    parts.push(format!("terminal lens {}", p.terminal_lens));
    if !p.case_globs.is_empty() {
        parts.push(format!("--case {}", p.case_globs.join(" ")));
    }
    parts.join(", ")
}

fn verdicts(page: &mut Page, record: &SuiteRecord) {
    let style = page.style();
    page.heading("Verdicts");
    let rows: Vec<Vec<String>> = record.cases.iter().map(|case| row(style, case)).collect();
    let header =
        ["case", "verdict", "terminal", "interaction", "exit", "filesystem", "process", "elapsed", "first divergence"];
    page.table(&header, &rows);
    let t = &record.totals;
    let counts: Vec<String> = Verdict::ALL
        .iter()
        .filter(|v| t.count(**v) > 0)
        .map(|v| format!("{} {}", style.status(v.as_str()), t.count(*v)))
        .collect();
    page.heading("Totals");
    page.line(&format!("  {} case(s): {}", t.cases, if counts.is_empty() { "none".into() } else { counts.join(", ") }));
}

pub(super) fn row(style: Style, case: &CaseResult) -> Vec<String> {
    let mut cells = vec![case.name.clone(), style.status(case.verdict.as_str())];
    match &case.dimensions {
        Some(d) => cells.extend(d.each().iter().map(|(_, status)| style.status(status.as_str()))),
        None => cells.extend(std::iter::repeat_n("-".to_owned(), 5)),
    }
    cells.push(format!("{} ms", case.elapsed_ms));
    cells.push(match (&case.error, &case.first_divergence) {
        (Some(error), _) => error.code.clone(),
        (None, Some(FirstDivergence::Found(d))) => format!("{} {}", d.dimension, d.path),
        (None, Some(FirstDivergence::Unknown { earliest_observed_difference: Some(d), .. })) => {
            format!("unknown, earliest seen: {} {}", d.dimension, d.path)
        }
        (None, Some(FirstDivergence::Unknown { .. })) => "unknown (see below)".into(),
        (None, Some(FirstDivergence::None) | None) => String::new(),
    });
    cells
}

/// Each case that is not `unchanged` (or `recorded`): why, with its first
/// divergence or its error, and the command that shows its comparison.
fn details(page: &mut Page, record: &SuiteRecord, out: Option<&std::path::Path>) {
    let style = page.style();
    for case in record.cases.iter().filter(|c| !matches!(c.verdict, Verdict::Unchanged | Verdict::Recorded)) {
        page.heading(&format!("Case {}: {}", case.name, style.status(case.verdict.as_str())));
        if let Some(error) = &case.error {
            page.field("  code", &error.code);
            page.field("  message", &error.message);
        }
        match &case.first_divergence {
            Some(FirstDivergence::Found(d)) => super::comparison::divergence_lines(page, d),
            Some(FirstDivergence::Unknown { reason, earliest_observed_difference }) => {
                page.field("  reason", reason.as_str());
                if let Some(d) = earliest_observed_difference {
                    super::comparison::divergence_lines(page, d);
                }
            }
            Some(FirstDivergence::None) | None => {}
        }
        let shown = if case.verdict == Verdict::Unstable {
            &case.documents.self_comparison
        } else {
            &case.documents.comparison
        };
        if let Some(comparison) = shown {
            let path = out.map_or_else(|| comparison.path.clone(), |o| o.join(&comparison.path).display().to_string());
            page.field("  see", &format!("rea show {path}"));
        }
    }
}
