//! How a trace verdict changes the dimension statuses (reference-notes §4.6,
//! narrowed by the specification for `different`).
//!
//! For each dimension that a selected source belongs to, starting from the
//! dimension's own status:
//! - `nonconforming`: keep it;
//! - `different`: `changed` when the diagnostic identifies the dimension,
//!   otherwise keep it (unrelated dimensions retain their own comparison);
//! - `unknown` while the dimension shows a change (`changed`, `added`,
//!   `removed`): keep it, a seen change is never hidden;
//! - otherwise, when the trace covers every observed source of the dimension,
//!   `unchanged` for `equivalent` and `unknown` for `unknown`; else keep it;
//!   except that under the screen lens a `truncated` or `unknown` terminal
//!   stays as it is (a screen that is not known prevents an `unchanged`).
//!
//! Coverage: terminal needs `terminal_raw` when either side has raw chunks
//! (retained or omitted) and `terminal_rendered` when either side has
//! rendered states (retained or omitted); filesystem is never covered,
//! because its effects summarise snapshots rather than observe events;
//! interaction, exit and process are covered by their one source.

use super::evaluate::{TraceComparison, Verdict};
use super::model::{Source, TraceSpec};
use crate::compare::{Dimension, DimensionResult, DimensionStatus, TerminalLens};
use crate::evidence::CaptureRecord;

fn raw_present(r: &CaptureRecord) -> bool {
    let td = &r.truncation_details;
    !r.frames.is_empty() || td.raw_terminal.observed_chunks > 0 || td.raw_terminal.truncated
}

fn rendered_present(r: &CaptureRecord) -> bool {
    let td = &r.truncation_details;
    !r.rendered_frames.is_empty() || td.rendered_terminal.observed_frames > 0 || td.rendered_terminal.truncated
}

/// Whether `selected` covers every observed source of `dimension` on both sides.
fn covers(dimension: Dimension, selected: &[Source], l: &CaptureRecord, r: &CaptureRecord) -> bool {
    match dimension {
        Dimension::Filesystem => false,
        Dimension::Terminal => {
            (!(raw_present(l) || raw_present(r)) || selected.contains(&Source::TerminalRaw))
                && (!(rendered_present(l) || rendered_present(r)) || selected.contains(&Source::TerminalRendered))
        }
        Dimension::Interaction | Dimension::Exit | Dimension::Process => true,
    }
}

fn side_reasons(trace: &TraceComparison) -> Vec<String> {
    let mut out = Vec::new();
    for (name, side) in [("Left", &trace.left), ("Right", &trace.right)] {
        out.extend(side.reasons.iter().map(|r| format!("Trace comparison is unknown: {name} side: {r}")));
    }
    out
}

/// Applies `trace` to `dimensions`, recording the replaced status in `exact_status`.
pub(in crate::compare) fn apply(
    trace: &TraceComparison,
    spec: &TraceSpec,
    l: &CaptureRecord,
    r: &CaptureRecord,
    dimensions: &mut [DimensionResult],
    lens: TerminalLens,
) {
    let sources = spec.sources();
    for d in dimensions {
        let selected: Vec<Source> = sources.iter().copied().filter(|s| s.dimension() == d.dimension).collect();
        if selected.is_empty() {
            continue;
        }
        let shows_change = d.status.shows_change();
        let (status, reasons) = match trace.verdict {
            Verdict::Nonconforming => continue,
            Verdict::Different => match &trace.diagnostic {
                Some(diag) if diag.dimensions.contains(&d.dimension) => (
                    DimensionStatus::Changed,
                    vec![format!(
                        "Trace comparison found a difference ({:?}, {} side): {}",
                        diag.kind, diag.side, diag.message
                    )],
                ),
                _ => continue,
            },
            Verdict::Unknown if shows_change => continue,
            _ if !covers(d.dimension, &selected, l, r) => continue,
            // Under the screen lens a truncated or unknown screen prevents an `unchanged` claim.
            Verdict::Equivalent
                if lens == TerminalLens::Screen && d.dimension == Dimension::Terminal && !d.status.complete() =>
            {
                continue;
            }
            Verdict::Equivalent => (DimensionStatus::Unchanged, Vec::new()),
            Verdict::Unknown => (DimensionStatus::Unknown, side_reasons(trace)),
        };
        if status != d.status {
            d.exact_status = Some(d.status);
            d.status = status;
            d.reasons = reasons;
        }
    }
}
