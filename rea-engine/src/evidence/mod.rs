//! Evidence v2: the envelope, its identity, and the records inside it.
//!
//! `evidence_id = "ev_" + hex(SHA-256(RFC 8785 JSON of the projection))`,
//! where the projection is the whole envelope without `evidence_id` and with
//! `subject` reduced to `{digest, format, architecture}`.

mod behind;
mod canonical;
mod import;
mod jcs;
mod lines;
mod load;
mod record;
mod toon;
mod toon_encode;
pub(crate) mod vocabulary;
mod wait;

#[cfg(test)]
mod identity_tests;
#[cfg(test)]
mod import_tests;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

pub use canonical::{CanonicalWrite, Part, canonical_json, digest, digest_members, digest_parts, hex, same};
#[cfg(test)]
pub(crate) use import::projection_id;
pub(crate) use import::typed;
pub use import::{ImportError, import_capture, import_capture_record, parse_evidence_value};
pub(crate) use load::typed_capture;
pub use load::{LoadError, load_capture};
pub use record::*;
pub use toon::{Encoding, decode_evidence};
pub use toon_encode::{EncodeError as ToonEncodeError, to_toon_string, write_toon, write_toon_document};

/// Envelope `schema_version`.
pub const EVIDENCE_SCHEMA_VERSION: u32 = 2;
/// Predicate of capture Evidence.
pub const CAPTURE_PREDICATE: &str = "rea.process-capture/v5";
/// Predicate of comparison Evidence.
pub const COMPARISON_PREDICATE: &str = "rea.process-comparison/v5";
/// Operation of capture Evidence.
pub const CAPTURE_OPERATION: &str = "capture_process_scenario";
/// Operation of comparison Evidence.
pub const COMPARISON_OPERATION: &str = "compare_process_captures";
/// Provider id.
pub const PROVIDER_ID: &str = "rea-process";
/// Provider name.
pub const PROVIDER_NAME: &str = "REA process capture";
/// Provider version.
pub const PROVIDER_VERSION: &str = "5";
/// First limitation of every record without an artifact subject.
pub const NO_SUBJECT_LIMITATION: &str = "Artifact identity is unavailable for this observation.";

/// The Evidence v2 envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// Always 2.
    pub schema_version: u32,
    /// `ev_` + 64 lowercase hex digits.
    pub evidence_id: String,
    /// The artifact observed, or null.
    pub subject: Value,
    /// Who produced the record.
    pub provider: Provider,
    /// Used by other providers only. A present key is `Some`, even when its
    /// value is null, so the identity projection keeps every key present.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub analysis_profile: Option<Value>,
    /// What kind of statement this is.
    pub predicate_type: String,
    /// The operation that produced it.
    pub operation: String,
    /// Summary of the operation's inputs.
    pub parameters: Value,
    /// Unprocessed output, if any.
    pub raw_result: Value,
    /// The record.
    pub normalized_result: Value,
    /// `observed`, `derived` or `inferred`.
    pub confidence: String,
    /// Where the authority of the statement comes from.
    pub authority: String,
    /// Host description, or null.
    pub environment: Value,
    /// What the record cannot show.
    pub limitations: Vec<String>,
    /// Source locations.
    pub locations: Vec<Value>,
    /// Records this one derives from.
    pub evidence_links: Vec<String>,
}

/// Reads a key that is present as `Some`, whatever its value (with
/// `#[serde(default)]`, an absent key stays `None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The provider block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provider {
    /// Stable id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Version, or null.
    pub version: Option<String>,
}

/// The provider as compact JSON, as error messages quote it. A failure to
/// serialize is a formatting error, never an empty quote.
impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| std::fmt::Error)?)
    }
}

impl Provider {
    /// This build's provider.
    pub fn current() -> Provider {
        Provider { id: PROVIDER_ID.into(), name: PROVIDER_NAME.into(), version: Some(PROVIDER_VERSION.into()) }
    }
}

/// Computes the `evidence_id` an envelope should carry. The projection is
/// hashed as it is written, from the envelope's own fields: the record is
/// neither copied nor held as canonical text.
pub fn compute_evidence_id(envelope: &Evidence) -> Result<String, serde_json::Error> {
    evidence_id_with(envelope, Part::Value(&envelope.normalized_result))
}

/// The `evidence_id` of `envelope` with `normalized` as its result.
pub(crate) fn evidence_id_with(envelope: &Evidence, normalized: Part<'_>) -> Result<String, serde_json::Error> {
    let e = envelope;
    let subject = match &e.subject {
        Value::Object(s) => Value::Object(
            ["digest", "format", "architecture"]
                .iter()
                .filter_map(|k| s.get(*k).map(|v| ((*k).to_owned(), v.clone())))
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    };
    let small = [
        Value::from(e.schema_version),
        serde_json::to_value(&e.provider)?,
        Value::from(e.predicate_type.as_str()),
        Value::from(e.operation.as_str()),
        Value::from(e.confidence.as_str()),
        Value::from(e.authority.as_str()),
        serde_json::to_value(&e.limitations)?,
        Value::from(e.locations.clone()),
        serde_json::to_value(&e.evidence_links)?,
    ];
    let [schema_version, provider, predicate_type, operation, confidence, authority, limitations, locations, links] =
        &small;
    let mut members: Vec<(&str, Part<'_>)> = vec![
        ("schema_version", Part::Value(schema_version)),
        ("subject", Part::Value(&subject)),
        ("provider", Part::Value(provider)),
        ("predicate_type", Part::Value(predicate_type)),
        ("operation", Part::Value(operation)),
        ("parameters", Part::Value(&e.parameters)),
        ("raw_result", Part::Value(&e.raw_result)),
        ("normalized_result", normalized),
        ("confidence", Part::Value(confidence)),
        ("authority", Part::Value(authority)),
        ("environment", Part::Value(&e.environment)),
        ("limitations", Part::Value(limitations)),
        ("locations", Part::Value(locations)),
        ("evidence_links", Part::Value(links)),
    ];
    if let Some(profile) = &e.analysis_profile {
        members.push(("analysis_profile", Part::Value(profile)));
    }
    Ok(format!("ev_{}", digest_parts(&members)?))
}

impl Evidence {
    /// The envelope as a JSON value, moving its parts (the record is not
    /// copied).
    pub fn into_value(self) -> Value {
        let mut map = Map::new();
        map.insert("schema_version".into(), self.schema_version.into());
        map.insert("evidence_id".into(), self.evidence_id.into());
        map.insert("subject".into(), self.subject);
        map.insert("provider".into(), json!(self.provider));
        if let Some(profile) = self.analysis_profile {
            map.insert("analysis_profile".into(), profile);
        }
        map.insert("predicate_type".into(), self.predicate_type.into());
        map.insert("operation".into(), self.operation.into());
        map.insert("parameters".into(), self.parameters);
        map.insert("raw_result".into(), self.raw_result);
        map.insert("normalized_result".into(), self.normalized_result);
        map.insert("confidence".into(), self.confidence.into());
        map.insert("authority".into(), self.authority.into());
        map.insert("environment".into(), self.environment);
        map.insert("limitations".into(), self.limitations.into());
        map.insert("locations".into(), self.locations.into());
        map.insert("evidence_links".into(), self.evidence_links.into());
        Value::Object(map)
    }
}

/// Fills in `evidence_id`.
pub fn seal(mut envelope: Evidence) -> Result<Evidence, serde_json::Error> {
    envelope.evidence_id = String::new();
    envelope.evidence_id = compute_evidence_id(&envelope)?;
    Ok(envelope)
}

/// The REA name of the host architecture (`x64`, `arm64`).
pub fn architecture_name() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    }
}

/// The `environment` block of capture Evidence, from the platform and
/// architecture its manifest records (the platform as the [`crate::Host`]
/// named it). Isolation is `none`: the command runs with the caller's
/// permissions and host environment.
pub fn host_environment_block(manifest: &Manifest) -> Value {
    json!({
        "id": format!("{}-{}", manifest.platform, manifest.architecture),
        "platform": manifest.platform,
        "architecture": manifest.architecture,
        "isolation": "none",
    })
}

/// Wraps a capture record in sealed Evidence.
pub fn capture_evidence(record: &CaptureRecord, parameters: Value) -> Result<Evidence, serde_json::Error> {
    seal_capture(record.clone(), parameters)
}

/// Wraps a capture record in sealed Evidence, consuming it: its terminal
/// text moves into the envelope instead of being copied.
pub fn seal_capture(record: CaptureRecord, parameters: Value) -> Result<Evidence, serde_json::Error> {
    seal_capture_typed(record, parameters)?.into_evidence()
}

/// Seals a capture record without turning it into a JSON value tree: the
/// identity is hashed from the typed record (one item at a time), and
/// [`SealedCapture::write_json`] writes it the same way.
pub fn seal_capture_typed(record: CaptureRecord, parameters: Value) -> Result<SealedCapture, serde_json::Error> {
    let mut envelope = capture_envelope(&record, parameters, Value::Null);
    envelope.evidence_id = evidence_id_with(&envelope, Part::Typed(&record))?;
    Ok(SealedCapture { envelope, record })
}

/// Sealed capture Evidence whose record stays typed.
#[derive(Debug, Clone)]
pub struct SealedCapture {
    /// The envelope, `normalized_result` null.
    envelope: Evidence,
    /// The record that is its `normalized_result`.
    record: CaptureRecord,
}

impl SealedCapture {
    /// The sealed identity.
    pub fn evidence_id(&self) -> &str {
        &self.envelope.evidence_id
    }

    /// The record.
    pub fn record(&self) -> &CaptureRecord {
        &self.record
    }

    /// The Evidence with its record as a JSON value (moved, not copied).
    pub fn into_evidence(self) -> Result<Evidence, serde_json::Error> {
        Ok(Evidence { normalized_result: self.record.into_value()?, ..self.envelope })
    }

    /// Writes the Evidence as pretty JSON (2-space indent, what `--json`
    /// prints) and a final newline, serializing the record as it goes: the
    /// same document as [`Self::into_evidence`] printed, its members in the
    /// record's own order.
    pub fn write_json(&self, out: impl std::io::Write) -> std::io::Result<()> {
        write_inline(&self.envelope, &self.record, out)
    }

    /// Writes the Evidence as TOON (what rea prints without `--json`) and a
    /// final newline, serializing the record as it goes: the same bytes as
    /// `toon_format::encode_default` of [`Self::into_evidence`]'s value.
    pub fn write_toon(&self, out: impl std::io::Write) -> Result<(), ToonEncodeError> {
        write_inline_toon(&self.envelope, &self.record, out)
    }
}

/// Writes `envelope` with `record` as its `normalized_result` as TOON and a
/// final newline, serializing the record as it goes.
pub(crate) fn write_inline_toon<R: Serialize>(
    envelope: &Evidence,
    record: &R,
    out: impl std::io::Write,
) -> Result<(), ToonEncodeError> {
    let Value::Object(envelope) = envelope.clone().into_value() else { unreachable!("an envelope is an object") };
    write_toon_document(&Inline { envelope: &envelope, record }, out)
}

/// Writes `envelope` with `record` as its `normalized_result` as pretty JSON
/// (2-space indent) and a final newline, serializing the record as it goes:
/// the same bytes as the envelope holding the record's JSON value, printed.
pub(crate) fn write_inline<R: Serialize>(
    envelope: &Evidence,
    record: &R,
    out: impl std::io::Write,
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    let Value::Object(envelope) = envelope.clone().into_value() else { unreachable!("an envelope is an object") };
    serde_json::to_writer_pretty(&mut out, &Inline { envelope: &envelope, record })?;
    std::io::Write::write_all(&mut out, b"\n")?;
    std::io::Write::flush(&mut out)
}

/// An envelope whose `normalized_result` is the typed record.
struct Inline<'a, R> {
    envelope: &'a Map<String, Value>,
    record: &'a R,
}

impl<R: Serialize> Serialize for Inline<'_, R> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.envelope.len()))?;
        for (key, value) in self.envelope {
            if key == "normalized_result" {
                map.serialize_entry(key, self.record)?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// The unsealed capture envelope around `normalized_result`.
fn capture_envelope(record: &CaptureRecord, parameters: Value, normalized_result: Value) -> Evidence {
    let mut limitations = vec![NO_SUBJECT_LIMITATION.to_owned()];
    limitations.extend(record.limitations.iter().cloned());
    Evidence {
        schema_version: EVIDENCE_SCHEMA_VERSION,
        evidence_id: String::new(),
        subject: Value::Null,
        provider: Provider::current(),
        analysis_profile: None,
        predicate_type: CAPTURE_PREDICATE.into(),
        operation: CAPTURE_OPERATION.into(),
        parameters,
        raw_result: Value::Null,
        normalized_result,
        confidence: "observed".into(),
        authority: "controlled-replay".into(),
        environment: host_environment_block(&record.manifest),
        limitations,
        locations: Vec::new(),
        evidence_links: Vec::new(),
    }
}

/// Bytes `rea capture-process --json` writes for this record sealed with
/// `parameters`: the envelope as pretty JSON and its final newline. Counted
/// as the document is serialized, without building it.
pub fn capture_document_bytes(record: &CaptureRecord, parameters: &Value) -> Result<u64, serde_json::Error> {
    let mut envelope = capture_envelope(record, parameters.clone(), Value::Null);
    // The id's length is fixed: "ev_" and 64 hex digits.
    envelope.evidence_id = format!("ev_{}", "0".repeat(64));
    let outer = pretty_bytes(&envelope.into_value(), 0)?;
    let inner = pretty_bytes(record, 1)?;
    Ok(outer - "null".len() as u64 + inner + 1)
}

/// Bytes of `value` as pretty JSON (2-space indent) written where its
/// opening bracket sits `depth` levels deep: every line after the first is
/// indented by two more spaces per level.
pub fn pretty_bytes<T: Serialize + ?Sized>(value: &T, depth: u64) -> Result<u64, serde_json::Error> {
    let mut counter = ByteCounter::default();
    serde_json::to_writer_pretty(&mut counter, value)?;
    Ok(counter.bytes + counter.newlines * 2 * depth)
}

/// A writer that counts bytes and newlines.
#[derive(Default)]
struct ByteCounter {
    bytes: u64,
    newlines: u64,
}

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes += buf.len() as u64;
        self.newlines += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Milliseconds since the Unix epoch as ISO-8601 UTC with milliseconds
/// (`2026-01-01T00:00:00.000Z`).
pub fn iso8601_millis(unix_ms: u64) -> String {
    let days = unix_ms / 86_400_000;
    let ms_of_day = unix_ms % 86_400_000;
    let (h, m, s, ms) = (ms_of_day / 3_600_000, ms_of_day / 60_000 % 60, ms_of_day / 1000 % 60, ms_of_day % 1000);
    // Civil-from-days (Howard Hinnant's algorithm), for days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

/// Now, as [`iso8601_millis`].
pub fn now_iso8601() -> String {
    let ms =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    iso8601_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates() {
        assert_eq!(iso8601_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601_millis(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso8601_millis(1_798_761_599_999), "2026-12-31T23:59:59.999Z");
    }

    #[test]
    fn identity_ignores_the_id_field_and_subject_extras() {
        let mut e = Evidence {
            schema_version: 2,
            evidence_id: "x".into(),
            subject: json!({"digest": "d", "format": "f", "architecture": "a", "name": "n", "local_path": "/p"}),
            provider: Provider::current(),
            analysis_profile: None,
            predicate_type: CAPTURE_PREDICATE.into(),
            operation: CAPTURE_OPERATION.into(),
            parameters: json!({}),
            raw_result: Value::Null,
            normalized_result: json!({}),
            confidence: "observed".into(),
            authority: "controlled-replay".into(),
            environment: Value::Null,
            limitations: vec![],
            locations: vec![],
            evidence_links: vec![],
        };
        let a = compute_evidence_id(&e).unwrap();
        e.evidence_id = "y".into();
        e.subject = json!({"digest": "d", "format": "f", "architecture": "a"});
        assert_eq!(compute_evidence_id(&e).unwrap(), a);
        assert!(a.starts_with("ev_") && a.len() == 67);
        // The projection is the serialized envelope without the id, subject reduced.
        let mut value = serde_json::to_value(&e).unwrap();
        value.as_object_mut().unwrap().remove("evidence_id");
        assert_eq!(a, format!("ev_{}", digest(&value).unwrap()));
        e.analysis_profile = Some(Value::Null);
        assert_ne!(compute_evidence_id(&e).unwrap(), a, "a present null is part of the identity");
        assert_eq!(e.clone().into_value(), serde_json::to_value(&e).unwrap());
    }
}
