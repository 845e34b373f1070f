//! The view of a comparison: verdict, dimensions, differences, the first
//! divergence, limitations.
//!
//! Differences are read from the agreed shape
//! (`dimensions[].differences: [{path, left, right, location?}]`,
//! `differences_omitted`, `timing_deltas`), and whatever of it a record
//! lacks is simply not shown.

use rea_engine::evidence::Evidence;
use rea_engine::report::escape_excerpt;
use serde_json::Value;

use super::fields::{at, list, str_at, u64_at};
use super::{Page, Tone, limitations};

/// Characters of each side of an excerpt.
const EXCERPT_CHARS: usize = 72;

pub(super) fn render(page: &mut Page, envelope: &Evidence, result: &Value) {
    let style = page.style();
    let parameters = &envelope.parameters;
    page.field("left", str_at(parameters, &["left_evidence_id"]).unwrap_or("(absent)"));
    page.field("right", str_at(parameters, &["right_evidence_id"]).unwrap_or("(absent)"));
    if let Some(tolerance) = u64_at(parameters, &["timing_tolerance_ms"]) {
        page.field("tolerance", &format!("{tolerance} ms"));
    }
    page.field("verdict", &style.status(str_at(result, &["status"]).unwrap_or("unknown")));
    page.heading("Dimensions");
    let rows: Vec<Vec<String>> = list(result, &["dimensions"])
        .iter()
        .map(|d| {
            let reasons: Vec<&str> = list(d, &["reasons"]).iter().filter_map(Value::as_str).collect();
            vec![
                str_at(d, &["dimension"]).unwrap_or("?").to_owned(),
                style.status(str_at(d, &["status"]).unwrap_or("unknown")),
                count_differences(d),
                reasons.join("; "),
            ]
        })
        .collect();
    page.table(&["dimension", "status", "differences", "reasons"], &rows);
    differences(page, result);
    first_divergence(page, &result["first_divergence"]);
    if let Some(trace) = at(result, &["trace"]).filter(|t| !t.is_null()) {
        page.heading("Trace");
        page.field("  verdict", &style.status(str_at(trace, &["verdict"]).unwrap_or("unknown")));
    }
    limitations(page, &envelope.limitations);
}

fn count_differences(dimension: &Value) -> String {
    match at(dimension, &["differences"]).and_then(Value::as_array) {
        Some(list) => {
            let omitted = u64_at(dimension, &["differences_omitted"]).unwrap_or(0);
            if omitted > 0 { format!("{} (+{omitted} omitted)", list.len()) } else { list.len().to_string() }
        }
        None => "-".to_owned(),
    }
}

fn differences(page: &mut Page, result: &Value) {
    let style = page.style();
    for dimension in list(result, &["dimensions"]) {
        let name = str_at(dimension, &["dimension"]).unwrap_or("?");
        let items = list(dimension, &["differences"]);
        let deltas = list(dimension, &["timing_deltas"]);
        if items.is_empty() && deltas.is_empty() {
            continue;
        }
        page.heading(&format!("Differences in {name}"));
        for item in items {
            let path = str_at(item, &["path"]).unwrap_or("?");
            let location = at(item, &["location"]).map(location_text).unwrap_or_default();
            page.line(&format!("  {}{location}", style.paint(Tone::Strong, path)));
            let (left, right) = excerpts(&item["left"], &item["right"]);
            page.line(&style.paint(Tone::Bad, &format!("    - left:  {left}")));
            page.line(&style.paint(Tone::Good, &format!("    + right: {right}")));
        }
        if let Some(omitted) = u64_at(dimension, &["differences_omitted"]).filter(|n| *n > 0) {
            page.line(&format!("  … {omitted} more differences not listed"));
        }
        for delta in deltas {
            let within = match delta["within_tolerance"].as_bool() {
                Some(true) => style.paint(Tone::Good, "within tolerance"),
                Some(false) => style.paint(Tone::Bad, "beyond tolerance"),
                None => "tolerance unknown".to_owned(),
            };
            let ms = |key: &str| delta.get(key).map_or("?".to_owned(), Value::to_string);
            page.line(&format!(
                "  timing {}: left {} ms, right {} ms, delta {} ms, {within}",
                str_at(delta, &["path"]).unwrap_or("?"),
                ms("left_ms"),
                ms("right_ms"),
                ms("delta_ms"),
            ));
        }
    }
}

/// ` (segment 1, line 2, column 5)` from any location object.
fn location_text(location: &Value) -> String {
    let Some(map) = location.as_object() else {
        return format!(" ({location})");
    };
    let parts: Vec<String> = map.iter().map(|(k, v)| format!("{} {}", k.replace('_', " "), plain(v))).collect();
    format!(" ({})", parts.join(", "))
}

fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Short excerpts of two values: two strings (or frames) are cut around
/// their first differing character; two objects show only the fields that
/// differ.
fn excerpts(left: &Value, right: &Value) -> (String, String) {
    if let (Some(l), Some(r)) = (text_of(left), text_of(right)) {
        return text_excerpts(l, r);
    }
    if let (Some(l), Some(r)) = (left.as_object(), right.as_object()) {
        let keys = l.keys().chain(r.keys().filter(|k| !l.contains_key(*k)));
        let differing: Vec<&String> = keys.filter(|k| l.get(*k) != r.get(*k)).collect();
        let field = |k: &String| {
            let (a, b) = excerpts(l.get(k).unwrap_or(&Value::Null), r.get(k).unwrap_or(&Value::Null));
            (format!("{k}: {a}"), format!("{k}: {b}"))
        };
        let (a, b): (Vec<String>, Vec<String>) = differing.into_iter().map(field).unzip();
        return (a.join(", "), b.join(", "));
    }
    (value_excerpt(left), value_excerpt(right))
}

fn text_excerpts(l: &str, r: &str) -> (String, String) {
    let start = l.chars().zip(r.chars()).take_while(|(a, b)| a == b).count().saturating_sub(EXCERPT_CHARS / 3);
    let cut = |s: &str| {
        let body: String = s.chars().skip(start).collect();
        let lead = if start > 0 { "…" } else { "" };
        format!("{lead}\"{}\"", escape_excerpt(&body, EXCERPT_CHARS))
    };
    (cut(l), cut(r))
}

/// The text a value stands for: a string, or a frame's `data`.
fn text_of(value: &Value) -> Option<&str> {
    value.as_str().or_else(|| str_at(value, &["data"]))
}

fn value_excerpt(value: &Value) -> String {
    match value {
        Value::Null => "(absent)".to_owned(),
        other => escape_excerpt(&other.to_string(), EXCERPT_CHARS),
    }
}

fn first_divergence(page: &mut Page, divergence: &Value) {
    if divergence.is_null() {
        return;
    }
    let style = page.style();
    page.heading("First divergence");
    page.field("  status", &style.status(str_at(divergence, &["status"]).unwrap_or("unknown")));
    if let Some(reason) = str_at(divergence, &["reason"]) {
        page.field("  reason", reason);
    }
    // The located divergence, or the earliest one observed when it cannot be located.
    let located =
        divergence.get("dimension").map(|_| divergence).or_else(|| divergence.get("earliest_observed_difference"));
    let Some(diff) = located else { return };
    let dimension = str_at(diff, &["dimension"]).unwrap_or("?");
    let path = str_at(diff, &["path"]).unwrap_or("?");
    let location = at(diff, &["location"]).map(location_text).unwrap_or_default();
    page.field("  in", dimension);
    page.field("  where", &format!("{}{location}", style.paint(Tone::Strong, path)));
    let (left, right) = excerpts(&diff["left"], &diff["right"]);
    page.line(&style.paint(Tone::Bad, &format!("    - left:  {left}")));
    page.line(&style.paint(Tone::Good, &format!("    + right: {right}")));
}
