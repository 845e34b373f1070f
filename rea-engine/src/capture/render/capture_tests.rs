//! A whole capture over the fake host: rendered states in the record.

use std::sync::Arc;

use serde_json::json;

use super::EMULATOR;
use crate::BuildInfo;
use crate::capture::progress::NullProgress;
use crate::capture::{Cancellation, CaptureRequest, capture};
use crate::evidence::{CaptureRecord, JournalCollection, RendererOutcome};
use crate::host::ExitStatus;
use crate::testing::fakes::FakeWorld;

const BUILD: BuildInfo = BuildInfo { version: "0.0.0-test", revision: None, target: "test" };

fn run(world: &FakeWorld, scenario: serde_json::Value) -> CaptureRecord {
    let dir = tempfile::tempdir().unwrap();
    let resolved = crate::testing::resolve(dir.path(), scenario);
    let request = CaptureRequest::new(resolved, Vec::new(), BUILD);
    let evidence = capture(&world.host(), request, Cancellation::none(), Arc::new(NullProgress)).expect("a capture");
    serde_json::from_value(evidence.normalized_result).unwrap()
}

#[test]
fn every_retained_chunk_is_rendered_and_journaled_after_its_frame() {
    let world = FakeWorld::new();
    for chunk in ["progress  10%", "\rprogress 100%\r\n", "\x1b[?1049h\x1b[Hfull", "\x1b[?1049ldone"] {
        world.write_output(chunk.as_bytes());
    }
    world.exit(ExitStatus::Code(0));
    let r = run(&world, json!({"executable": "sh", "settle_ms": 0, "terminal": {"columns": 20, "rows": 3}}));
    assert!(!r.frames.is_empty());
    assert_eq!(r.rendered_frames.len(), r.frames.len(), "one state per retained chunk");
    let last = r.rendered_frames.last().unwrap();
    assert_eq!(last.lines, ["progress 100%", "done", ""]);
    assert_eq!((last.active_buffer.as_str(), last.cursor_x, last.cursor_y), ("normal", 4, 1));
    for (raw, rendered) in r.frames.iter().zip(&r.rendered_frames) {
        assert_eq!(raw.at_ms, rendered.at_ms);
    }
    let order = |collection: JournalCollection, index: usize| {
        r.event_journal.iter().position(|e| e.collection == collection && e.index == index as u64).unwrap()
    };
    for i in 0..r.frames.len() {
        assert!(order(JournalCollection::Frames, i) < order(JournalCollection::RenderedFrames, i));
    }
    let account = &r.truncation_details.rendered_terminal;
    assert_eq!((account.observed_frames, account.retained_frames), (r.frames.len() as u64, r.frames.len() as u64));
    assert_eq!(r.manifest.terminal_emulator.as_deref(), Some(EMULATOR));
    assert_eq!(r.cleanup.terminal_renderer, RendererOutcome::Disposed);
    assert!(!r.limitations.iter().any(|l| l.contains("render")));
}

#[test]
fn omitted_chunks_are_parsed_and_the_final_screen_is_kept() {
    let world = FakeWorld::new();
    // One chunk over the 100-byte budget; its final screen fits the rendered budget.
    world.write_output(format!("{}\x1b[2J\x1b[Hfinal", "a".repeat(120)).as_bytes());
    world.exit(ExitStatus::Code(0));
    let scenario = json!({
        "executable": "sh", "settle_ms": 0, "terminal": {"columns": 20, "rows": 2}, "limits": {"output_bytes": 100}
    });
    let r = run(&world, scenario);
    assert!(r.frames.is_empty());
    assert_eq!(r.rendered_frames.len(), 1, "the final screen");
    assert_eq!(r.rendered_frames[0].lines, ["final", ""]);
    assert_eq!(r.truncation_details.rendered_terminal.observed_frames, 1);
    assert!(!r.limitations.iter().any(|l| l.contains("render")));
}
