use super::*;
use crate::evidence::ActiveBuffer;

const SECRET: &str = "Qz7-hunter2-Xk9";

fn secrets() -> ScreenSecrets {
    crate::secrets::Secrets::of_inputs([format!("{SECRET}\r").as_str()]).screens()
}

fn marker() -> String {
    crate::secrets::redacted_input(SECRET.len() + 1)
}

fn frame(columns: u16, lines: &[&str], dump: &str) -> RenderedFrame {
    RenderedFrame {
        sequence: 0,
        at_ms: 0,
        columns,
        rows: lines.len() as u16,
        cursor_x: 0,
        cursor_y: 0,
        active_buffer: ActiveBuffer::Normal,
        lines: lines.iter().collect(),
        serialized_state: dump.to_owned(),
    }
}

fn size(f: &RenderedFrame) -> u64 {
    f.lines.text_bytes() + f.serialized_state.len() as u64
}

#[test]
fn a_secret_on_a_row_and_in_the_dump_is_replaced_and_counted_with_the_size_kept_exact() {
    let secrets = secrets();
    let mut f = frame(40, &[&format!("pw: {SECRET} ok"), "next"], &format!("pw: {SECRET} ok\r\nnext"));
    let before = size(&f);
    let after = secrets.redact(&mut f, Some(before));
    assert_eq!(f.lines.to_vec(), [format!("pw: {} ok", marker()), "next".to_owned()]);
    assert_eq!(f.serialized_state, format!("pw: {} ok\r\nnext", marker()));
    assert_eq!(after, Some(size(&f)));
    assert_eq!(secrets.redactions(), 2);
    // An unknown size stays unknown; a clone shares the count.
    let mut g = frame(40, &[SECRET], "");
    assert_eq!(secrets.clone().redact(&mut g, None), None);
    assert_eq!(secrets.redactions(), 3);
}

#[test]
fn escape_sequences_inside_the_secret_do_not_hide_it_and_are_kept() {
    let secrets = secrets();
    let dump = format!("\x1b[1m{}\x1b[31m{}\x1b]0;t\x07{}\x1b(B!\x1b[0m", &SECRET[..3], &SECRET[3..9], &SECRET[9..]);
    let mut f = frame(40, &[], &dump);
    let before = size(&f);
    assert_eq!(secrets.redact(&mut f, Some(before)), Some(size(&f)));
    assert_eq!(f.serialized_state, format!("\x1b[1m{}\x1b[31m\x1b]0;t\x07\x1b(B!\x1b[0m", marker()));
    assert_eq!(secrets.redactions(), 1);
}

#[test]
fn a_secret_wrapped_at_the_screen_edge_is_found_across_the_rows_but_not_across_a_short_row() {
    let secrets = secrets();
    // 10 columns: the first row is full, so it continues on the second.
    let mut f = frame(10, &[&format!("ab{}", &SECRET[..8]), &format!("{}.", &SECRET[8..])], "");
    secrets.redact(&mut f, None);
    assert_eq!(f.lines.to_vec(), [format!("ab{}", marker()), ".".to_owned()]);
    // A row that ends short ends there: its text and the next row's are apart.
    let mut g = frame(40, &[&SECRET[..8], &SECRET[8..]], "");
    secrets.redact(&mut g, None);
    assert_eq!(g.lines.to_vec(), [&SECRET[..8], &SECRET[8..]]);
    assert_eq!(secrets.redactions(), 1);
}

#[test]
fn no_sensitive_input_changes_nothing() {
    let none = crate::secrets::Secrets::of_inputs([]).screens();
    let mut f = frame(40, &[SECRET], SECRET);
    assert_eq!(none.redact(&mut f, Some(7)), Some(7));
    assert_eq!(f.lines.to_vec(), [SECRET]);
    assert_eq!(none.redactions(), 0);
}

/// The shape the issue names, through the real renderer: the stream never
/// holds the secret, the screen shows it, the recorded states do not.
#[test]
fn a_secret_rebuilt_with_a_carriage_return_is_not_in_any_rendered_state() {
    use crate::capture::normalize::{HostValues, Normalizer};
    use crate::capture::render::{RenderSettings, Renderer};
    let normalizer = Normalizer::new(
        &crate::scenario::Normalization { paths: false, pids: false, ports: false, ..Default::default() },
        &HostValues::default(),
    );
    let secrets = secrets();
    let settings = RenderSettings {
        columns: 40,
        rows: 4,
        scrollback: 100,
        scrollback_shown: true,
        budget_bytes: 1_000_000,
        frame_limit: 100,
        secrets: secrets.clone(),
        answer_queries: true,
    };
    let mut renderer = Renderer::inline(settings, normalizer);
    let now = std::time::Instant::now();
    renderer.chunk(&format!("X{}\r", &SECRET[1..]), now, 0);
    renderer.chunk(&format!("{}\r\n$ ", &SECRET[..1]), now, 10);
    let rendered = renderer.finish();
    let last = &rendered.frames.last().unwrap().1;
    assert_eq!(last.lines[0], marker());
    for (_, f) in &rendered.frames {
        assert!(!f.lines.iter().any(|l| l.contains(SECRET)) && !f.serialized_state.contains(SECRET), "{f:?}");
    }
    // The piece the program printed is on the first screen (it is in the
    // stream too); once rebuilt, the whole row is the marker.
    assert!(!last.serialized_state.contains(&SECRET[1..]), "{last:?}");
    let kept: u64 = rendered.frames.iter().map(|(_, f)| size(f)).sum();
    assert_eq!(rendered.account.retained_bytes, kept, "the budget counts the redacted text");
    assert!(secrets.redactions() >= 2, "{}", secrets.redactions());
}
