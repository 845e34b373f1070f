//! The capture header's `truncated` lines: one per truncated area of
//! `truncation_details`, naming what it left out (counts that are not zero,
//! limits that were reached, omission lists that are not empty), in the
//! record's field order.

use rea_engine::evidence::{CaptureRecord, FilesystemTruncation, TruncationDetails};

use super::{Page, Tone};

/// A truncated area: its name, whether it is truncated, and what it left out.
struct Area {
    name: &'static str,
    truncated: bool,
    why: Vec<String>,
}

/// `key=n` for each count that is not zero.
fn counts(items: &[(&str, u64)]) -> Vec<String> {
    items.iter().filter(|(_, n)| *n != 0).map(|(key, n)| format!("{key}={n}")).collect()
}

fn filesystem(name: &'static str, f: &FilesystemTruncation) -> Area {
    let mut why = Vec::new();
    let flags = [("entry_limit_reached", f.entry_limit_reached), ("depth_limit_reached", f.depth_limit_reached)];
    why.extend(flags.iter().filter(|(_, on)| *on).map(|(key, _)| (*key).to_owned()));
    let lists = [("enumeration_omissions", f.enumeration_omissions.len()), ("hash_omissions", f.hash_omissions.len())];
    why.extend(lists.iter().filter(|(_, n)| *n > 0).map(|(key, n)| format!("{key}: {n} entries")));
    Area { name, truncated: f.truncated, why }
}

fn areas(d: &TruncationDetails) -> Vec<Area> {
    let raw = &d.raw_terminal;
    let mut areas = vec![Area {
        name: "raw_terminal",
        truncated: raw.truncated,
        why: counts(&[
            ("omitted_for_budget", raw.omitted_for_budget),
            ("omitted_for_normalized_budget", raw.omitted_for_normalized_budget),
            ("omitted_for_frame_limit", raw.omitted_for_frame_limit),
        ]),
    }];
    if let Some(n) = &d.normalized_terminal {
        let why = counts(&[("omitted_frames", n.omitted_frames), ("unknown_size_frames", n.unknown_size_frames)]);
        areas.push(Area { name: "normalized_terminal", truncated: n.truncated, why });
    }
    let rendered = &d.rendered_terminal;
    let why = counts(&[("unknown_size_frames", rendered.unknown_size_frames)]);
    areas.push(Area { name: "rendered_terminal", truncated: rendered.truncated, why });
    areas.push(filesystem("filesystem_before", &d.filesystem_before));
    areas.push(filesystem("filesystem_after", &d.filesystem_after));
    let why = if d.process.limit_reached { vec!["limit_reached".to_owned()] } else { Vec::new() };
    areas.push(Area { name: "process", truncated: d.process.truncated, why });
    if let Some(doc) = &d.document {
        let why = counts(&[
            ("omitted_rendered_frames", doc.omitted_rendered_frames),
            ("omitted_process_samples", doc.omitted_process_samples),
            ("omitted_paths", doc.omitted_paths),
            ("omitted_frames", doc.omitted_frames),
        ]);
        let why = vec![format!(
            "{} bytes as JSON, over the {}-byte bound; {}",
            doc.observed_bytes,
            doc.budget_bytes,
            why.join(", ")
        )];
        areas.push(Area { name: "document", truncated: doc.truncated, why });
    }
    areas
}

/// One line per truncated observation, naming what was omitted.
pub(super) fn truncation(page: &mut Page, record: &CaptureRecord) {
    let style = page.style();
    let details = &record.truncation_details;
    let mut any = false;
    for area in areas(details).into_iter().filter(|a| a.truncated) {
        any = true;
        let why = if area.why.is_empty() && details.document.is_some() {
            "its latest observations left out for the document bound".to_owned()
        } else {
            area.why.join(", ")
        };
        page.field("truncated", &style.paint(Tone::Doubt, &format!("{}: {why}", area.name)));
    }
    if !any {
        let word = if record.truncated { "yes (no details)" } else { "nothing" };
        page.field("truncated", word);
    }
}
