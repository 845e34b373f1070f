//! The page of a suite record: the verdict table (a row per case, its
//! dimension statuses, where it first diverged, a link to its detail) and,
//! on the same page, each case's detail: its documents and, read from the
//! comparison written beside the record, that comparison's dimensions,
//! differences, screens and timings (else the record's first divergence).

use std::path::Path;

use rea_engine::report::{Contents, load_document};
use rea_engine::suite::{CaseResult, SuiteDocument, Verdict};

use super::{Html, Td, comparison};
use crate::view::Style;

/// The page of `document`, read from `source_name` (case documents are read beside it).
pub(crate) fn render(document: &SuiteDocument, source_name: &str) -> String {
    let record = &document.record;
    let mut html = Html::new(&format!("rea suite {}", document.envelope.evidence_id));
    let identity = match &document.identity_failure {
        None => Td::toned("verified (evidence_id recomputed)", "good"),
        Some(why) => Td::toned(format!("NOT verified: {why}"), "bad"),
    };
    let commitment = &record.suite.commitment[..12.min(record.suite.commitment.len())];
    html.fields(&[
        ("file".into(), Td::plain(source_name)),
        ("read as".into(), Td::plain(super::encoding(document.encoding))),
        ("identity".into(), identity),
        ("suite".into(), Td::plain(format!("{} (commitment {commitment})", record.suite.name))),
        ("run".into(), Td::plain(crate::view::suite::run_summary(record, &document.envelope.operation))),
    ]);
    html.heading(2, Some("verdicts"), "Verdicts");
    let rows: Vec<Vec<Td>> = record.cases.iter().enumerate().map(|(i, case)| row(i, case)).collect();
    let header =
        ["case", "verdict", "terminal", "interaction", "exit", "filesystem", "process", "elapsed", "first divergence"];
    html.table(&header, &rows);
    let t = &record.totals;
    let counts: Vec<String> =
        Verdict::ALL.iter().filter(|v| t.count(**v) > 0).map(|v| format!("{} {}", v.as_str(), t.count(*v))).collect();
    let counts = if counts.is_empty() { "none".to_owned() } else { counts.join(", ") };
    html.paragraph(None, &format!("{} case(s): {counts}", t.cases));
    let out = Path::new(source_name).parent().unwrap_or(Path::new(""));
    for (i, case) in record.cases.iter().enumerate() {
        detail(&mut html, i, case, out);
    }
    super::limitations(&mut html, &document.envelope.limitations);
    html.finish()
}

fn row(index: usize, case: &CaseResult) -> Vec<Td> {
    let cells = crate::view::suite::row(Style::new(false), case);
    cells
        .into_iter()
        .enumerate()
        .map(|(column, text)| match column {
            0 => Td::link(text, &format!("case-{index}")),
            1..=6 if text != "-" => Td::status(&text),
            _ => Td::plain(text),
        })
        .collect()
}

/// A case's section: verdict, error, documents, and its comparison.
fn detail(html: &mut Html, index: usize, case: &CaseResult, out: &Path) {
    html.heading(2, Some(&format!("case-{index}")), &format!("Case {}", case.name));
    let mut fields = vec![
        ("verdict".to_owned(), Td::status(case.verdict.as_str())),
        ("elapsed".into(), Td::plain(format!("{} ms", case.elapsed_ms))),
    ];
    if let Some(error) = &case.error {
        fields.push(("code".into(), Td::toned(&error.code, "bad")));
        fields.push(("message".into(), Td::plain(&error.message)));
    }
    html.fields(&fields);
    let documents = &case.documents;
    let named = [
        ("authority", &documents.authority),
        ("authority repeat", &documents.authority_repeat),
        ("self-comparison", &documents.self_comparison),
        ("reconstruction", &documents.reconstruction),
        ("comparison", &documents.comparison),
    ];
    let rows: Vec<Vec<Td>> = named
        .iter()
        .filter_map(|(role, d)| {
            d.as_ref().map(|d| vec![Td::plain(*role), Td::plain(&d.path), Td::plain(&d.evidence_id)])
        })
        .collect();
    if !rows.is_empty() {
        html.table(&["document", "path (beside the suite record)", "evidence_id"], &rows);
    }
    let shown = if case.verdict == Verdict::Unstable { &documents.self_comparison } else { &documents.comparison };
    let loaded = shown.as_ref().map(|d| (d, load_document(&out.join(&d.path), crate::host::open_input)));
    match loaded {
        Some((d, Ok(document))) => match &document.contents {
            Contents::Comparison(record) if document.envelope.evidence_id == d.evidence_id => {
                comparison::body(html, record, 3);
            }
            _ => html.paragraph(Some("doubt"), &format!("{} is not the comparison the record names.", d.path)),
        },
        Some((d, Err(e))) => {
            html.paragraph(
                Some("doubt"),
                &format!("{} could not be read ({e}); the record's first divergence follows.", d.path),
            );
            record_divergence(html, case);
        }
        None => record_divergence(html, case),
    }
    timelines(html, case, out);
}

/// The two captures' timelines side by side (inputs, waits and when they
/// were met, resizes, terminal replies, output), read from beside the record.
fn timelines(html: &mut Html, case: &CaseResult, out: &Path) {
    let sides = [("authority", &case.documents.authority), ("reconstruction", &case.documents.reconstruction)];
    let loaded: Vec<(&str, String, rea_engine::report::Document)> = sides
        .iter()
        .filter_map(|(side, d)| {
            let d = d.as_ref()?;
            let document = load_document(&out.join(&d.path), crate::host::open_input).ok()?;
            (document.envelope.evidence_id == d.evidence_id).then(|| (*side, d.path.clone(), document))
        })
        .collect();
    if loaded.is_empty() {
        return;
    }
    html.heading(3, None, "Timelines");
    html.raw("<div class=\"pair\">\n");
    for (side, path, document) in &loaded {
        if let Contents::Capture(record) = &document.contents {
            html.raw("<section>\n");
            html.heading(4, None, &format!("{side} ({path})"));
            super::capture::timeline_table(html, record);
            html.raw("</section>\n");
        }
    }
    html.raw("</div>\n");
}

fn record_divergence(html: &mut Html, case: &CaseResult) {
    if let Some(divergence) = &case.first_divergence {
        comparison::first_divergence(html, divergence, 3);
    }
}
