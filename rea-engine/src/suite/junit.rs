//! The suite record as JUnit XML (`--junit FILE`): one `testsuite` named
//! after the suite, one `testcase` per case; `changed` is a `failure` with
//! the first divergence, `error` an `error` with its code and message,
//! `unknown` and `unstable` are `skipped` with the reason.

use std::fmt::Write as _;
use std::io::Write;

use super::record::{CaseResult, SuiteRecord, Verdict};
use crate::compare::{Divergence, FirstDivergence};

/// Writes `record` as JUnit XML to `out`.
pub fn write_junit(record: &SuiteRecord, out: impl Write) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    let t = &record.totals;
    let seconds: u64 = record.cases.iter().map(|c| c.elapsed_ms).sum();
    let name = escape(&record.suite.name);
    let (failures, errors, skipped) = (t.changed, t.error, t.unknown + t.unstable);
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    let counts = format!(r#"tests="{}" failures="{failures}" errors="{errors}" skipped="{skipped}""#, t.cases);
    let time = format!("{:.3}", seconds as f64 / 1000.0);
    writeln!(out, r#"<testsuites name="{name}" {counts} time="{time}">"#)?;
    writeln!(out, r#"  <testsuite name="{name}" {counts} time="{time}">"#)?;
    for case in &record.cases {
        write_case(&mut out, &name, case)?;
    }
    writeln!(out, "  </testsuite>")?;
    writeln!(out, "</testsuites>")?;
    out.flush()
}

fn write_case(out: &mut impl Write, suite: &str, case: &CaseResult) -> std::io::Result<()> {
    let time = format!("{:.3}", case.elapsed_ms as f64 / 1000.0);
    write!(out, r#"    <testcase name="{}" classname="{suite}" time="{time}""#, escape(&case.name))?;
    let child = match case.verdict {
        Verdict::Unchanged | Verdict::Recorded => None,
        Verdict::Changed => {
            let (message, text) = divergence_text(case.first_divergence.as_ref());
            Some(format!(r#"<failure message="{}" type="changed">{}</failure>"#, escape(&message), escape(&text)))
        }
        Verdict::Error => {
            let (code, message) = case.error.as_ref().map_or(("error", ""), |e| (e.code.as_str(), e.message.as_str()));
            Some(format!(r#"<error message="{}" type="{}">{}</error>"#, escape(message), escape(code), escape(message)))
        }
        Verdict::Unknown => {
            Some(skipped("unknown: a dimension is truncated or unknown, so no difference is proven either way", case))
        }
        Verdict::Unstable => Some(skipped("unstable: the authority disagreed with itself (--self-check)", case)),
    };
    match child {
        None => writeln!(out, "/>"),
        Some(child) => writeln!(out, ">\n      {child}\n    </testcase>"),
    }
}

fn skipped(reason: &str, case: &CaseResult) -> String {
    let (_, text) = divergence_text(case.first_divergence.as_ref());
    let message = if text.is_empty() { reason.to_owned() } else { format!("{reason}; {text}") };
    format!(r#"<skipped message="{}"/>"#, escape(&message))
}

/// A one-line summary of the first divergence, and its detail.
fn divergence_text(first: Option<&FirstDivergence>) -> (String, String) {
    let describe = |d: &Divergence| {
        let summary = format!("{} differs at {}", d.dimension, d.path);
        let detail = format!("{summary}\n- authority: {}\n+ reconstruction: {}", d.left, d.right);
        (summary, detail)
    };
    match first {
        Some(FirstDivergence::Found(d)) => describe(d),
        Some(FirstDivergence::Unknown { reason, earliest_observed_difference: Some(d) }) => {
            let (summary, detail) = describe(d);
            (summary, format!("{}\n{detail}", reason.as_str()))
        }
        Some(FirstDivergence::Unknown { reason, .. }) => (reason.as_str().to_owned(), reason.as_str().to_owned()),
        Some(FirstDivergence::None) | None => ("a difference was observed".into(), String::new()),
    }
}

/// `text` for an XML attribute or element: markup characters escaped, and
/// characters XML 1.0 cannot carry written as `\u{..}`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || matches!(c as u32, 0xFFFE | 0xFFFF) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(escape("x\u{1b}[0m\r\n"), "x\\u{1b}[0m\\r&#10;");
    }
}
