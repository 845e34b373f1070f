//! The document bound: exact measurement, the shedding order, and the
//! largest capture at every limit read back through the 64 MiB input limit.

use serde_json::{Value, json};

use super::fit::{DOCUMENT_BUDGET_BYTES, fit_document};
use crate::evidence::{
    ActiveBuffer, CaptureRecord, DocumentTruncation, FileKind, FileState, Frame, JournalCollection, JournalEntry,
    ProcessSample, RenderedFrame, RootCoverage, ScreenBefore, capture_document_bytes, import_capture,
    seal_capture_typed,
};
use crate::fs::{Snapshot, effects};
use crate::scenario::ResolvedScenario;
use crate::testing;

/// How many observations of each area a synthetic record holds.
struct Shape {
    frames: usize,
    frame_bytes: usize,
    rendered: usize,
    rows: usize,
    state_bytes: usize,
    samples: usize,
    command_bytes: usize,
    paths: usize,
    path_bytes: usize,
}

/// A scenario with one observation root, under `dir`, at `limits`.
fn scenario(dir: &std::path::Path, limits: Value, environment: Value) -> ResolvedScenario {
    std::fs::create_dir_all(dir.join("state")).expect("create the observed root");
    testing::resolve(dir, scenario_json(limits, environment))
}

fn scenario_json(limits: Value, environment: Value) -> Value {
    json!({
        "executable": "sh",
        "arguments": ["-c", "true"],
        "environment": environment,
        "filesystem_observation_paths": ["./state"],
        "events": [{"type": "input", "at_ms": 5, "data": "go\r"}],
        "limits": limits,
    })
}

/// The fixture record of `r` grown to `shape`, its accounting consistent.
/// Text is made of control characters, the costliest JSON there is.
fn record(r: &ResolvedScenario, shape: &Shape) -> CaptureRecord {
    let mut rec = testing::capture_record(r);
    rec.frames = (0..shape.frames)
        .map(|i| Frame {
            sequence: i as u64,
            at_ms: i as u64,
            data: "\u{1}".repeat(shape.frame_bytes),
            raw_data: Some("\u{2}".repeat(shape.frame_bytes)),
            invalid_utf8: None,
        })
        .collect();
    rec.rendered_frames = (0..shape.rendered)
        .map(|i| RenderedFrame {
            sequence: i as u64,
            at_ms: i as u64,
            columns: 80,
            rows: shape.rows as u16,
            cursor_x: 0,
            cursor_y: 0,
            active_buffer: ActiveBuffer::Normal,
            lines: (0..shape.rows).map(|row| if row == 0 { format!("screen {i}") } else { String::new() }).collect(),
            serialized_state: "\u{1b}".repeat(shape.state_bytes),
        })
        .collect();
    // The scripted input saw the final screen.
    if let (Some(event), Some(n)) = (rec.interaction_events.first_mut(), shape.rendered.checked_sub(1)) {
        event.screen_before = ScreenBefore::Frame(n as u64);
    }
    rec.process_samples = (0..shape.samples)
        .map(|i| ProcessSample {
            at_ms: i as u64,
            pid: 1,
            parent_pid: 0,
            command: Some("\u{1}".repeat(shape.command_bytes)),
            command_unread: None,
            process_group_id: Some(1),
            session_id: Some(1),
            exit: None,
        })
        .collect();
    let file = |i: usize, size: u64| FileState {
        path: format!("root_0:{i:08}-{}", "\u{1}".repeat(shape.path_bytes)),
        mode: 0o100_644,
        size,
        kind: FileKind::File,
        sha256: Some("0".repeat(64)),
        symlink_target: None,
    };
    let root = rec.files_before[0].clone();
    rec.files_before = std::iter::once(root.clone()).chain((0..shape.paths).map(|i| file(i, 1))).collect();
    rec.files_after = std::iter::once(root).chain((0..shape.paths).map(|i| file(i, 1 + (i % 2) as u64))).collect();
    let td = &mut rec.truncation_details;
    for (files, fs) in [(&rec.files_before, &mut td.filesystem_before), (&rec.files_after, &mut td.filesystem_after)] {
        fs.entries = files.len() as u64;
        fs.roots = vec![RootCoverage { root: "root_0".into(), complete: true }];
    }
    rec.filesystem_effects = effects(
        &Snapshot { files: rec.files_before.clone(), truncation: td.filesystem_before.clone() },
        &Snapshot { files: rec.files_after.clone(), truncation: td.filesystem_after.clone() },
    );
    let text = (shape.frames * shape.frame_bytes) as u64;
    td.raw_terminal.observed_bytes = text;
    td.raw_terminal.retained_bytes = text;
    td.raw_terminal.observed_chunks = shape.frames as u64;
    td.raw_terminal.retained_chunks = shape.frames as u64;
    if let Some(n) = &mut td.normalized_terminal {
        n.retained_bytes = text;
    }
    let rendered = (shape.rendered * (shape.state_bytes + "screen ".len())) as u64
        + (0..shape.rendered).map(|i| i.to_string().len() as u64).sum::<u64>();
    td.rendered_terminal.observed_bytes = rendered;
    td.rendered_terminal.retained_bytes = rendered;
    td.rendered_terminal.observed_frames = shape.rendered as u64;
    td.rendered_terminal.retained_frames = shape.rendered as u64;
    td.process.samples = shape.samples as u64;

    use JournalCollection as J;
    let mut order: Vec<(J, usize)> = Vec::new();
    order.extend((0..shape.samples).map(|i| (J::ProcessSamples, i)));
    order.extend((0..rec.interaction_events.len()).map(|i| (J::InteractionEvents, i)));
    for i in 0..shape.frames.max(shape.rendered) {
        if i < shape.frames {
            order.push((J::Frames, i));
        }
        if i < shape.rendered {
            order.push((J::RenderedFrames, i));
        }
    }
    order.extend([(J::Lifecycle, 0), (J::Lifecycle, 1)]);
    rec.event_journal = order
        .into_iter()
        .enumerate()
        .map(|(n, (collection, index))| JournalEntry { capture_order: n as u64, collection, index: index as u64 })
        .collect();
    rec
}

/// The capture as `rea capture-process --json` prints it.
fn written(record: CaptureRecord, parameters: &Value) -> String {
    let sealed = seal_capture_typed(record, parameters.clone()).expect("seal");
    let mut bytes = Vec::new();
    sealed.write_json(&mut bytes).expect("write");
    String::from_utf8(bytes).expect("JSON is UTF-8")
}

fn small_shape() -> Shape {
    Shape {
        frames: 40,
        frame_bytes: 50,
        rendered: 12,
        rows: 6,
        state_bytes: 30,
        samples: 25,
        command_bytes: 20,
        paths: 30,
        path_bytes: 10,
    }
}

#[test]
fn the_measured_size_is_the_size_written() {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let r = scenario(dir.path(), json!({}), json!({"LANG": "C", "NAME": "\u{7}bell"}));
    for rec in [testing::capture_record(&r), record(&r, &small_shape())] {
        let parameters = testing::capture_parameters(&r);
        let measured = capture_document_bytes(&rec, &parameters).expect("measure");
        assert_eq!(measured, written(rec, &parameters).len() as u64);
    }
}

#[test]
fn a_capture_within_the_bound_is_left_as_it_is() {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let r = scenario(dir.path(), json!({}), json!({}));
    let original = record(&r, &small_shape());
    let parameters = testing::capture_parameters(&r);
    let size = capture_document_bytes(&original, &parameters).expect("measure");
    let mut fitted = original.clone();
    fit_document(&mut fitted, &parameters, size).expect("fit");
    assert_eq!(fitted, original, "a document exactly at the bound keeps everything");
}

/// From the whole document down to its fixed part, every bound is met, the
/// areas give way in the documented order, the accounting matches what is
/// kept, and the capture imports.
#[test]
fn areas_give_way_in_order_and_every_fitted_capture_imports() {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let r = scenario(dir.path(), json!({}), json!({}));
    let shape = small_shape();
    let original = record(&r, &shape);
    let parameters = testing::capture_parameters(&r);
    let full = capture_document_bytes(&original, &parameters).expect("measure");
    let mut bare = original.clone();
    (bare.frames, bare.rendered_frames, bare.process_samples) = (Vec::new(), Vec::new(), Vec::new());
    (bare.files_before, bare.files_after, bare.filesystem_effects) = (Vec::new(), Vec::new(), Vec::new());
    bare.event_journal
        .retain(|e| matches!(e.collection, JournalCollection::InteractionEvents | JournalCollection::Lifecycle));
    for (i, e) in bare.event_journal.iter_mut().enumerate() {
        e.capture_order = i as u64;
    }
    // The bare record with the most the bound can add: every area omitted.
    let all = DocumentTruncation {
        truncated: true,
        budget_bytes: full,
        observed_bytes: full,
        omitted_rendered_frames: shape.rendered as u64,
        omitted_process_samples: shape.samples as u64,
        omitted_paths: (shape.paths + 1) as u64,
        omitted_frames: shape.frames as u64,
    };
    bare.limitations.push(super::fit::document_limitation(&all));
    bare.truncation_details.document = Some(all);
    let floor = capture_document_bytes(&bare, &parameters).expect("measure");
    let steps = 60;
    let mut seen_final_dropped = false;
    for step in 1..=steps {
        let budget = full - (full - floor) * step / steps;
        let mut fitted = original.clone();
        fit_document(&mut fitted, &parameters, budget).expect("fit");
        let size = capture_document_bytes(&fitted, &parameters).expect("measure");
        assert!(size <= budget, "step {step}: {size} bytes over the {budget}-byte bound");
        let d = fitted.truncation_details.document.clone().expect("the bound was applied and says so");
        assert_eq!((d.observed_bytes, d.budget_bytes), (full, budget));
        let td = &fitted.truncation_details;

        // The order: an area gives way only after the ones before it are gone.
        let intermediate = (shape.rendered - 1) as u64;
        let rendered_gone = d.omitted_rendered_frames.min(intermediate);
        if d.omitted_process_samples > 0 {
            assert_eq!(rendered_gone, intermediate, "step {step}: samples before intermediate screens");
        }
        if d.omitted_paths > 0 {
            assert!(fitted.process_samples.is_empty(), "step {step}: paths before samples");
        }
        if d.omitted_frames > 0 {
            assert!(fitted.filesystem_effects.is_empty(), "step {step}: chunks before paths");
        }
        if d.omitted_rendered_frames > intermediate {
            assert!(fitted.frames.is_empty(), "step {step}: the final screen before chunks");
            seen_final_dropped = true;
        } else {
            let last = fitted.rendered_frames.last().expect("the final screen is kept");
            assert_eq!(last.lines[0], format!("screen {}", shape.rendered - 1), "step {step}");
        }
        // The event still names the final screen while it is kept, and nothing once it is not.
        let want = match fitted.rendered_frames.last() {
            Some(last) => ScreenBefore::Frame(last.sequence),
            None => ScreenBefore::NotRecorded,
        };
        assert_eq!(fitted.interaction_events[0].screen_before, want, "step {step}");

        // The accounting says what is kept.
        assert_eq!(d.omitted_rendered_frames, (shape.rendered - fitted.rendered_frames.len()) as u64);
        assert_eq!(d.omitted_process_samples, (shape.samples - fitted.process_samples.len()) as u64);
        assert_eq!(d.omitted_frames, (shape.frames - fitted.frames.len()) as u64);
        assert_eq!(td.raw_terminal.retained_chunks, fitted.frames.len() as u64);
        assert_eq!(td.raw_terminal.retained_bytes, (fitted.frames.len() * shape.frame_bytes) as u64);
        assert_eq!(td.raw_terminal.truncated, d.omitted_frames > 0);
        assert_eq!(td.rendered_terminal.retained_frames, fitted.rendered_frames.len() as u64);
        assert_eq!(td.rendered_terminal.truncated, d.omitted_rendered_frames > 0);
        assert_eq!(td.process.samples, fitted.process_samples.len() as u64);
        assert_eq!(td.process.truncated, d.omitted_process_samples > 0);
        for (files, fs) in [(&fitted.files_before, &td.filesystem_before), (&fitted.files_after, &td.filesystem_after)]
        {
            assert_eq!(fs.entries, files.len() as u64);
            assert_eq!(fs.roots[0].complete, d.omitted_paths == 0, "step {step}: a cut root is incomplete");
        }
        for e in &fitted.filesystem_effects {
            if d.omitted_paths > 0 && e.before.is_none() != e.after.is_none() {
                assert_eq!(e.status, crate::evidence::EffectStatus::Unknown, "{}: absence is unproven", e.path);
            }
        }
        assert!(fitted.truncated);
        assert_eq!(fitted.limitations.iter().filter(|l| l.contains("document bound")).count(), 1);

        let text = written(fitted, &parameters);
        assert_eq!(text.len() as u64, size);
        let value = crate::input::parse_json_str(&text).expect("parse");
        import_capture("capture.json", value).unwrap_or_else(|e| panic!("step {step}: {e}"));
    }
    assert!(seen_final_dropped, "the smallest bounds reach the final screen");
}

/// The largest capture `rea` can write: every limit at its maximum, the
/// scenario at its 4 MiB bound made of the entries that grow most when
/// pretty-printed, and every text made of control characters. Unbounded it
/// is far over 64 MiB; fitted, it is written, read back through the 64 MiB
/// input limit, and imported.
#[test]
fn the_largest_capture_at_every_limit_is_importable() {
    use super::sampler::MAX_SAMPLED_COMMAND_BYTES;
    use crate::scenario::MAX_SCENARIO_BYTES;
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let limits = json!({
        "output_bytes": 10_000_000, "frames": 100_000, "files": 100_000,
        "file_bytes": 9_007_199_254_740_991u64, "processes": 10_000, "filesystem_depth": 64,
    });
    // Distinct short names: each entry is `"xyz":"",`, 2.3 times larger pretty-printed, and stored twice.
    let names = (0u32..).map(|n| {
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";
        let (mut n, mut name) = (n as usize, String::new());
        loop {
            name.push(alphabet[n % alphabet.len()] as char);
            n /= alphabet.len();
            if n == 0 {
                break name;
            }
        }
    });
    let mut environment = serde_json::Map::new();
    let mut size = 0;
    for name in names {
        size += name.len() + 6;
        if size > MAX_SCENARIO_BYTES - 4096 {
            break;
        }
        environment.insert(name, json!(""));
    }
    let environment = Value::Object(environment);
    let compact = serde_json::to_vec(&scenario_json(limits.clone(), environment.clone())).expect("serialize").len();
    assert!(compact <= MAX_SCENARIO_BYTES && compact > MAX_SCENARIO_BYTES - 8192, "{compact}");
    let r = scenario(dir.path(), limits, environment);
    let shape = Shape {
        frames: 100_000,
        frame_bytes: 100,
        rendered: 1000,
        rows: 1000,
        state_bytes: 10_000,
        samples: 10_000,
        command_bytes: MAX_SAMPLED_COMMAND_BYTES,
        paths: 99_999,
        path_bytes: 100,
    };
    let mut rec = record(&r, &shape);
    let parameters = testing::capture_parameters(&r);
    let unbounded = capture_document_bytes(&rec, &parameters).expect("measure");
    assert!(unbounded > 8 * crate::input::MAX_INPUT_BYTES, "the worst case is {unbounded} bytes");
    fit_document(&mut rec, &parameters, DOCUMENT_BUDGET_BYTES).expect("fit");
    let path = dir.path().join("capture.json");
    std::fs::write(&path, written(rec, &parameters)).expect("write the capture");
    let value = crate::input::read_json_file("capture", &path, crate::input::open_input_portable)
        .expect("the capture is within the input limit");
    let (_, record) = crate::evidence::import_capture_record("capture.json", value).expect("the capture imports");
    let d = record.truncation_details.document.expect("the bound says what it left out");
    assert_eq!(d.observed_bytes, unbounded);
    assert_eq!(record.rendered_frames.len(), 1, "the final screen is kept");
    // The fixed part (a 4 MiB scenario stored twice, pretty-printed) leaves
    // room: terminal chunks, the last area to give way, are still there.
    assert!(!record.frames.is_empty(), "{d:?}");
    assert_eq!(d.omitted_frames + record.frames.len() as u64, shape.frames as u64);
}

/// The typed path (identity hashed item by item, JSON written as the record
/// is serialized) gives the same document and identity as the value tree.
#[test]
fn the_typed_document_is_the_value_document() {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let r = scenario(dir.path(), json!({}), json!({"LANG": "C"}));
    let parameters = testing::capture_parameters(&r);
    let mut shaped = record(&r, &small_shape());
    shaped.frames[3].invalid_utf8 = Some("ff".into());
    shaped.frames[4].raw_data = None;
    for rec in [testing::capture_record(&r), shaped] {
        let sealed = seal_capture_typed(rec.clone(), parameters.clone()).expect("seal");
        let mut bytes = Vec::new();
        sealed.write_json(&mut bytes).expect("write");
        assert_eq!(bytes.len() as u64, capture_document_bytes(&rec, &parameters).expect("measure"));
        let written: Value = serde_json::from_slice(&bytes).expect("parse");
        let evidence = sealed.clone().into_evidence().expect("into evidence");
        assert_eq!(
            crate::evidence::compute_evidence_id(&evidence).expect("id"),
            sealed.evidence_id(),
            "the typed identity is the identity of the value tree"
        );
        let value = evidence.into_value();
        assert_eq!(written, value);
        let mut toon = Vec::new();
        sealed.write_toon(&mut toon).expect("write TOON");
        let expected = toon_format::encode_default(&value).expect("reference TOON") + "\n";
        assert_eq!(String::from_utf8(toon).expect("UTF-8"), expected, "streamed TOON is the reference TOON");
        import_capture("capture.json", written).expect("imports");
    }
}
