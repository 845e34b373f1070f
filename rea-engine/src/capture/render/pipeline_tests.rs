//! The pipeline: text that is not admitted is still parsed, pins name the
//! screen an event saw, and queries are answered in stream order.

use std::time::Instant;

use super::{PinRef, RenderSettings, Renderer, TerminalReply};
use crate::capture::normalize::{HostValues, Normalizer};
use crate::evidence::{RenderedFrame, ScreenBefore, TerminalQuery};
use crate::scenario::Normalization;

fn plain() -> Normalizer {
    Normalizer::new(
        &Normalization { paths: false, pids: false, ports: false, ..Normalization::default() },
        &HostValues::default(),
    )
}

fn settings(columns: u16, rows: u16, answer_queries: bool) -> RenderSettings {
    RenderSettings {
        columns,
        rows,
        scrollback: 100,
        scrollback_shown: true,
        budget_bytes: 1_000_000,
        frame_limit: 1000,
        answer_queries,
        secrets: Default::default(),
    }
}

fn both(columns: u16, rows: u16, answer_queries: bool) -> [Renderer; 2] {
    [
        Renderer::inline(settings(columns, rows, answer_queries), plain()),
        Renderer::start(settings(columns, rows, answer_queries), plain()),
    ]
}

fn lines(f: &RenderedFrame) -> Vec<String> {
    f.lines.iter().map(str::to_owned).collect()
}

#[test]
fn text_that_was_not_admitted_is_parsed_and_the_final_screen_is_true() {
    for mut r in both(12, 2, true) {
        let now = Instant::now();
        r.chunk("\x1b[1;1Hfirst", now, 0);
        // An escape sequence split across omitted chunks: its parts never show.
        r.text("\x1b[2;1H\x1b[3", now, 10);
        r.text("2;1mgreen\x1b[0m", now, 20);
        let rendered = r.finish();
        let frames: Vec<&RenderedFrame> = rendered.frames.iter().map(|(_, f)| f).collect();
        assert_eq!(frames.len(), 2, "the admitted chunk's state and the final one");
        assert_eq!(lines(frames[0]), ["first", ""]);
        assert_eq!(lines(frames[1]), ["first", "green"]);
        assert_eq!(frames[1].at_ms, 20);
        assert!(!frames.iter().any(|f| f.lines.iter().any(|l| l.contains('\u{1b}') || l.contains("2;1m"))));
    }
}

#[test]
fn pins_name_the_screen_each_event_saw() {
    for mut r in both(10, 1, false) {
        let now = Instant::now();
        let blank = r.pin(now, 0);
        r.chunk("a", now, 1);
        let after_chunk = r.pin(now, 2);
        let again = r.pin(now, 3);
        r.text("b", now, 4);
        let after_text = r.pin(now, 5);
        r.resize(5, 1, now, 6);
        r.text("c", now, 7);
        let rendered = r.finish();
        let frames: Vec<Vec<String>> = rendered.frames.iter().map(|(_, f)| lines(f)).collect();
        assert_eq!(frames, [vec!["a"], vec!["ab"], vec!["ab"], vec!["abc"]]);
        let screens = &rendered.screens;
        assert_eq!(screens.get(blank), ScreenBefore::Blank);
        assert_eq!(screens.get(after_chunk), ScreenBefore::Frame(0));
        assert_eq!(screens.get(again), ScreenBefore::Frame(0));
        assert_eq!(screens.get(after_text), ScreenBefore::Frame(1), "a state is taken for the pin");
        assert_eq!(screens.get(PinRef::Event(99)), ScreenBefore::NotRecorded);
    }
}

/// Feeds `chunks` (not admitted) and returns the replies and the final rendering.
fn replies(chunks: &[&str], answer: bool) -> (Vec<TerminalReply>, super::Rendered) {
    let mut r = Renderer::start(settings(30, 5, answer), plain());
    for c in chunks {
        r.text(c, Instant::now(), 0);
    }
    let replies = r.settle();
    (replies, r.finish())
}

#[test]
fn queries_are_answered_with_the_cursor_after_what_preceded_them() {
    let (got, rendered) = replies(&["ab\x1b[2;", "7Hxyz\x1b[6", "n\x1b[c more"], true);
    let kinds: Vec<(TerminalQuery, &str)> = got.iter().map(|r| (r.query, r.data.as_str())).collect();
    assert_eq!(
        kinds,
        [
            (TerminalQuery::CursorPosition, "\x1b[2;10R"),
            (TerminalQuery::PrimaryDeviceAttributes, "\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c"),
        ]
    );
    // Each reply pinned the screen at its query; the final screen follows.
    let screens: Vec<ScreenBefore> = got.iter().map(|r| rendered.screens.get(r.pin)).collect();
    assert_eq!(screens, [ScreenBefore::Frame(0), ScreenBefore::Frame(1)]);
    let last = &rendered.frames.last().expect("final").1;
    assert_eq!(lines(last)[..2], ["ab", "      xyz more"]);
    let (none, _) = replies(&["\x1b[6n\x1b[c"], false);
    assert!(none.is_empty(), "answer_queries false sends nothing");
}
