//! Projection of a capture record to trace observations (reference-notes §5.3).
//!
//! The journal is walked in order and every entry whose source is selected
//! becomes one observation. Filesystem effects are not journaled: they are
//! classified after settlement, so they follow the journal, in
//! `filesystem_effects` order, with `capture_order` continuing after the
//! journal's last entry.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::model::Source;
use crate::evidence::CaptureRecord;

/// Where an observation sits in its capture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    /// `frames`, `rendered_frames`, `interaction_events`, `lifecycle`,
    /// `process_samples` or `filesystem_effects`.
    pub collection: &'static str,
    /// Index in that collection (`lifecycle`: 0 exit, 1 settlement).
    pub index: u64,
    /// Position in the capture's global order.
    pub capture_order: u64,
}

/// One projected observation.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// `obs.<collection>.<index>`.
    pub event_id: String,
    /// Its source.
    pub source: Source,
    /// The stored record it stands for (see [`project`]).
    pub payload: Value,
    /// Where it sits.
    pub location: Location,
}

/// The source of a journal or projection collection.
pub fn collection_source(collection: &str) -> Option<Source> {
    match collection {
        "frames" => Some(Source::TerminalRaw),
        "rendered_frames" => Some(Source::TerminalRendered),
        "interaction_events" => Some(Source::Interaction),
        "lifecycle" => Some(Source::Lifecycle),
        "process_samples" => Some(Source::Process),
        "filesystem_effects" => Some(Source::Filesystem),
        _ => None,
    }
}

fn to_value<T: Serialize>(item: &T) -> Result<Value, serde_json::Error> {
    serde_json::to_value(item)
}

/// `{"event": name, ...fields of item}`.
fn tagged<T: Serialize>(name: &str, item: &T) -> Result<Value, serde_json::Error> {
    let mut map = Map::new();
    map.insert("event".into(), json!(name));
    if let Value::Object(fields) = to_value(item)? {
        map.extend(fields);
    }
    Ok(Value::Object(map))
}

/// The payload of `collection[index]`, or `None` when the record has no such
/// entry (an imported record always has one for every journal entry).
fn payload(record: &CaptureRecord, collection: &str, index: usize) -> Result<Option<Value>, serde_json::Error> {
    let value = match collection {
        "frames" => record.frames.get(index).map(|f| {
            // Comparison text only: the original `raw_data` is left out.
            Ok(json!({"sequence": f.sequence, "at_ms": f.at_ms, "data": f.data}))
        }),
        "rendered_frames" => record.rendered_frames.get(index).map(to_value),
        "interaction_events" => record.interaction_events.get(index).map(|e| {
            // `screen_before` names a frame of this record (like `sequence`,
            // not behaviour), and older trace specs match events exactly.
            let mut value = to_value(e)?;
            if let Value::Object(fields) = &mut value {
                fields.remove("screen_before");
            }
            Ok(value)
        }),
        "lifecycle" => match index {
            0 => Some(tagged("exit", &record.exit)),
            1 => Some(tagged("settlement", &record.settlement)),
            _ => None,
        },
        "process_samples" => record.process_samples.get(index).map(to_value),
        "filesystem_effects" => record.filesystem_effects.get(index).map(to_value),
        _ => None,
    };
    value.transpose()
}

fn observation(
    record: &CaptureRecord,
    collection: &'static str,
    index: u64,
    capture_order: u64,
) -> Result<Option<Observation>, serde_json::Error> {
    let (Some(source), Ok(at)) = (collection_source(collection), usize::try_from(index)) else {
        return Ok(None);
    };
    Ok(payload(record, collection, at)?.map(|payload| Observation {
        event_id: format!("obs.{collection}.{index}"),
        source,
        payload,
        location: Location { collection, index, capture_order },
    }))
}

/// Known collection names with a static lifetime.
fn static_collection(name: &str) -> Option<&'static str> {
    ["frames", "rendered_frames", "interaction_events", "lifecycle", "process_samples"].into_iter().find(|c| *c == name)
}

/// A [`Location`] as written, its `collection` not yet checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenLocation {
    collection: String,
    index: u64,
    capture_order: u64,
}

/// Read as written, its `collection` one of the names the projection gives.
impl<'de> Deserialize<'de> for Location {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Location, D::Error> {
        let w = WrittenLocation::deserialize(d)?;
        let name = w.collection.as_str();
        let collection = static_collection(name)
            .or((name == "filesystem_effects").then_some("filesystem_effects"))
            .ok_or_else(|| {
                serde::de::Error::invalid_value(serde::de::Unexpected::Str(name), &"a collection of the capture record")
            })?;
        Ok(Location { collection, index: w.index, capture_order: w.capture_order })
    }
}

/// The observations of `record` drawn from `sources`, in capture order.
///
/// Payloads are the stored records: a frame is `{sequence, at_ms, data}`
/// (normalized text, never `raw_data`), a rendered frame, interaction event,
/// process sample or filesystem effect is its stored object, and the two
/// lifecycle entries are `{"event": "exit", ...exit}` and
/// `{"event": "settlement", ...settlement}`.
///
/// An error is a stored record that could not be written as JSON.
pub fn project(record: &CaptureRecord, sources: &[Source]) -> Result<Vec<Observation>, serde_json::Error> {
    let mut out: Vec<Observation> = record
        .event_journal
        .iter()
        .filter_map(|entry| {
            let collection = static_collection(entry.collection.as_str())?;
            let source = collection_source(collection)?;
            if !sources.contains(&source) {
                return None;
            }
            observation(record, collection, entry.index, entry.capture_order).transpose()
        })
        .collect::<Result<_, _>>()?;
    if sources.contains(&Source::Filesystem) {
        let next = record.event_journal.last().map_or(0, |e| e.capture_order + 1);
        out.extend(
            (0..record.filesystem_effects.len() as u64)
                .filter_map(|i| observation(record, "filesystem_effects", i, next + i).transpose())
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    Ok(out)
}
