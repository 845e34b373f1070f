//! Reading JSON input documents (scenarios, captures, trace specifications).
//!
//! Every input goes through [`read_json_file`] or [`parse_json_bytes`]: a size
//! cap of 64 MiB, UTF-8 only, and strict JSON in which a repeated object key
//! is an error rather than a silent "last one wins".
//!
//! Every input file is opened through [`read_capped`], the one place that
//! refuses what is not a regular file (a directory, FIFO, device, socket, or
//! a kernel file such as `/proc/self/status` whose content is made as it is
//! read): the host's [`OpenInput`] checks the path before opening it, opens
//! it without blocking (a FIFO swapped in cannot hang the read) and checks
//! the opened file again.

use std::fmt;
use std::io::Read;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::error::{Category, UserError};

/// What an input path names when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A directory.
    Directory,
    /// A FIFO (named pipe), or a pipe such as `/dev/stdin` or `<(...)`.
    Fifo,
    /// A character device (a terminal, `/dev/null`, ...).
    CharacterDevice,
    /// A block device.
    BlockDevice,
    /// A Unix socket.
    Socket,
    /// A file of a kernel filesystem (`/proc`, `/sys`, ...): its size is not
    /// its content, which is made as it is read and may never end.
    KernelGenerated,
    /// Another kind of special file.
    Other,
}

impl InputKind {
    /// The kind's name in `details.file_type`.
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Directory => "directory",
            InputKind::Fifo => "fifo",
            InputKind::CharacterDevice => "character_device",
            InputKind::BlockDevice => "block_device",
            InputKind::Socket => "socket",
            InputKind::KernelGenerated => "kernel_generated",
            InputKind::Other => "special",
        }
    }

    /// The kind in a sentence.
    fn describe(self) -> &'static str {
        match self {
            InputKind::Directory => "a directory",
            InputKind::Fifo => "a FIFO or pipe",
            InputKind::CharacterDevice => "a character device",
            InputKind::BlockDevice => "a block device",
            InputKind::Socket => "a socket",
            InputKind::KernelGenerated => "a file the kernel generates as it is read (such as a /proc or /sys file)",
            InputKind::Other => "a special file",
        }
    }
}

/// A regular file's bytes mapped into memory by the host (a large input:
/// no copy, and pages the reader has passed can go back to the system).
pub trait MappedBytes: Send + Sync + fmt::Debug {
    /// The file's bytes.
    fn bytes(&self) -> &[u8];
    /// Lets the host take back the memory that holds the bytes before
    /// `offset`. They stay readable: a later read brings the same bytes in
    /// again (at a cost), so a reader calls this only for what it has passed.
    fn release_before(&self, offset: usize);
}

/// The host's answer for an input path: the opened regular file, or what
/// the path names instead (then nothing stays open).
#[derive(Debug)]
pub enum OpenedInput {
    /// A regular file, opened for reading.
    Regular(std::fs::File),
    /// A regular file, opened and mapped into memory by the host.
    Mapped(std::fs::File, Arc<dyn MappedBytes>),
    /// Not a regular file, as found before or after opening it.
    NotRegular(InputKind),
}

/// Opens an input document's path for reading (following symlinks), as
/// [`crate::Host::open_input`]: it checks the path's type before opening,
/// opens without blocking and without acquiring a controlling terminal, and
/// checks the opened file's type again.
pub type OpenInput = fn(&Path) -> std::io::Result<OpenedInput>;

/// [`OpenInput`] with the standard library only, for hosts without FIFOs
/// that block on open or kernel-generated files (the unsupported-host stub)
/// and for tests: the type is checked before and after opening.
pub fn open_input_portable(path: &Path) -> std::io::Result<OpenedInput> {
    let kind = |meta: &std::fs::Metadata| match () {
        () if meta.is_file() => None,
        () if meta.is_dir() => Some(InputKind::Directory),
        () => Some(InputKind::Other),
    };
    if let Some(kind) = kind(&std::fs::metadata(path)?) {
        return Ok(OpenedInput::NotRegular(kind));
    }
    let file = std::fs::File::open(path)?;
    Ok(match kind(&file.metadata()?) {
        Some(kind) => OpenedInput::NotRegular(kind),
        None => OpenedInput::Regular(file),
    })
}

/// Largest accepted input document: 64 MiB.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Why an input document could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read.
    #[error("{what} file {path} could not be read: {source}")]
    Unreadable {
        /// What the file was meant to hold.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The path is not a regular file; nothing was read.
    #[error("{what} file {path} is not a regular file: it is {}", .kind.describe())]
    NotRegular {
        /// What the file was meant to hold.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// What it is instead.
        kind: InputKind,
    },
    /// The file is larger than [`MAX_INPUT_BYTES`].
    #[error("{what} file {path} is larger than 64 MiB ({size} bytes or more)")]
    TooLarge {
        /// What the file was meant to hold.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// Bytes seen before giving up.
        size: u64,
    },
    /// The file is empty.
    #[error("{what} file {path} is empty")]
    Empty {
        /// What the file was meant to hold.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
    },
    /// The bytes are not UTF-8.
    #[error("{what} file {path} is not UTF-8 text: invalid byte at offset {offset}")]
    NotUtf8 {
        /// What the file was meant to hold.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// The text is not valid JSON (or repeats a key).
    #[error("{what} file {path} is not valid JSON: {detail}")]
    InvalidJson {
        /// What the file was meant to hold.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// The parser's description, with line and column.
        detail: String,
    },
    /// The text is TOON Evidence that breaks a rule of strict TOON (a key
    /// repeated in an object, a length that does not match).
    #[error("{what} file {path} is TOON that rea reads only in strict form: {detail}")]
    InvalidToon {
        /// What the file was meant to hold.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// The decoder's description, with line and column.
        detail: String,
    },
}

impl UserError for InputError {
    fn category(&self) -> Category {
        match self {
            InputError::TooLarge { .. } => Category::Truncated,
            _ => Category::InvalidInput,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            InputError::Unreadable { .. } => "input_unreadable",
            InputError::NotRegular { .. } => "input_not_regular_file",
            InputError::TooLarge { .. } => "input_too_large",
            InputError::Empty { .. } => "input_empty",
            InputError::NotUtf8 { .. } => "input_not_utf8",
            InputError::InvalidJson { .. } => "input_invalid_json",
            InputError::InvalidToon { .. } => "input_invalid_toon",
        }
    }

    fn remediation(&self) -> String {
        match self {
            InputError::Unreadable { .. } => "Check that the path exists and is readable, then try again.".into(),
            InputError::NotRegular { kind: InputKind::Directory, .. } => {
                "Give the path of the JSON document itself, not of a directory.".into()
            }
            InputError::NotRegular { .. } => {
                "Save the document into a regular file (for example `cat SOURCE > capture.json`) and give that file's path: rea reads inputs only from regular files, so that a pipe, a device or a kernel file can neither block it nor hand it a document that changes as it is read.".into()
            }
            InputError::TooLarge { .. } => "Reduce the file below 64 MiB, then try again.".into(),
            InputError::Empty { .. } => {
                "Write the JSON document into the file. If you redirected rea's output into this same file, the shell emptied it before rea started: choose a different output file.".into()
            }
            InputError::NotUtf8 { .. } => "Save the file as UTF-8 JSON, then try again.".into(),
            InputError::InvalidJson { .. } => "Repair the JSON at the reported line and column, then try again.".into(),
            InputError::InvalidToon { .. } => {
                "Repair the TOON at the reported line (each key may appear once in an object), or give the JSON of the same Evidence (`--json`).".into()
            }
        }
    }

    fn details(&self) -> Option<Value> {
        match self {
            InputError::NotRegular { path, kind, .. } => {
                Some(serde_json::json!({ "file": path.display().to_string(), "file_type": kind.name() }))
            }
            _ => None,
        }
    }
}

/// Reads and parses the JSON file at `path`, opened with `open`; `what`
/// names its role in errors (e.g. "scenario").
pub fn read_json_file(what: &'static str, path: &Path, open: OpenInput) -> Result<Value, InputError> {
    let bytes = read_capped(what, path, open)?;
    parse_json_bytes(what, path, &bytes)
}

/// An input file's bytes: read into memory, or mapped by the host.
#[derive(Debug)]
pub enum InputBytes {
    /// Read into memory.
    Read(Vec<u8>),
    /// Mapped by the host.
    Mapped(Arc<dyn MappedBytes>),
}

impl Deref for InputBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            InputBytes::Read(bytes) => bytes,
            InputBytes::Mapped(mapped) => mapped.bytes(),
        }
    }
}

/// Reads at most [`MAX_INPUT_BYTES`] from the regular file at `path`,
/// opened with `open`; anything else is refused before a byte is read.
pub fn read_capped(what: &'static str, path: &Path, open: OpenInput) -> Result<InputBytes, InputError> {
    let unreadable = |source| InputError::Unreadable { what, path: path.to_owned(), source };
    let too_large = |size| InputError::TooLarge { what, path: path.to_owned(), size };
    let file = match open(path).map_err(unreadable)? {
        OpenedInput::Regular(file) => file,
        OpenedInput::Mapped(_, mapped) if mapped.bytes().len() as u64 > MAX_INPUT_BYTES => {
            return Err(too_large(mapped.bytes().len() as u64));
        }
        OpenedInput::Mapped(_, mapped) => return Ok(InputBytes::Mapped(mapped)),
        OpenedInput::NotRegular(kind) => return Err(InputError::NotRegular { what, path: path.to_owned(), kind }),
    };
    // The file's size, when known, sizes the buffer once (no regrowth and
    // copies of a large capture); reading still stops at the cap.
    let mut bytes = match file.metadata() {
        Ok(meta) => Vec::with_capacity(usize::try_from(meta.len().min(MAX_INPUT_BYTES) + 1).unwrap_or(0)),
        Err(_) => Vec::new(),
    };
    file.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes).map_err(unreadable)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(InputBytes::Read(bytes))
}

/// Parses `bytes` as strict JSON (UTF-8, no repeated keys).
pub fn parse_json_bytes(what: &'static str, path: &Path, bytes: &[u8]) -> Result<Value, InputError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(InputError::Empty { what, path: path.to_owned() });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| InputError::NotUtf8 {
        what,
        path: path.to_owned(),
        offset: e.valid_up_to(),
    })?;
    parse_json_str(text).map_err(|detail| InputError::InvalidJson { what, path: path.to_owned(), detail })
}

/// Parses strict JSON text; the error is a human description with position.
pub fn parse_json_str(text: &str) -> Result<Value, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = StrictValue { place: Place::Root }.deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(value)
}

/// A free-form JSON value of a typed document (`#[serde(deserialize_with)]`),
/// read as strictly as [`parse_json_str`] reads a whole one: a repeated key
/// is an error (its path relative to the field), never "last one wins".
pub fn strict_value<'de, D: de::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    StrictValue { place: Place::Root }.deserialize(deserializer)
}

/// [`strict_value`] for an array of free-form values.
pub fn strict_values<'de, D: de::Deserializer<'de>>(deserializer: D) -> Result<Vec<Value>, D::Error> {
    match strict_value(deserializer)? {
        Value::Array(items) => Ok(items),
        other => Err(de::Error::custom(format!("expected an array, found {other}"))),
    }
}

/// [`strict_value`] for an optional free-form value (`null` is none).
pub fn strict_optional_value<'de, D: de::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Ok(Some(strict_value(deserializer)?).filter(|v| !v.is_null()))
}

/// Where a value lies in the document, as borrowed links to its parent: the
/// path text is built only for an error, never for every value.
#[derive(Clone, Copy)]
enum Place<'a> {
    Root,
    Key(&'a Place<'a>, &'a str),
    Index(&'a Place<'a>, usize),
}

impl Place<'_> {
    /// The path as `crate::path` writes it.
    fn path(&self) -> String {
        match self {
            Place::Root => String::new(),
            Place::Key(parent, key) => crate::path::join_key(&parent.path(), key),
            Place::Index(parent, index) => crate::path::join_index(&parent.path(), *index),
        }
    }
}

/// A `serde_json::Value` seed that rejects repeated keys, naming the object path.
struct StrictValue<'a> {
    place: Place<'a>,
}

impl<'de> DeserializeSeed<'de> for StrictValue<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("number is not finite"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let place = Place::Index(&self.place, items.len());
            match seq.next_element_seed(StrictValue { place })? {
                Some(v) => items.push(v),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let place = Place::Key(&self.place, &key);
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "key {} is repeated; each key may appear once in an object",
                    crate::path::display(&place.path())
                )));
            }
            let value = map.next_value_seed(StrictValue { place })?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path of a repeated key is built from its chain of places, in
    /// arrays, under keys that need quoting and at the root.
    #[test]
    fn repeated_keys_are_named_through_arrays_and_quoted_keys() {
        let cases = [
            (r#"{"a": [{"b": 1}, {"b": 1, "b": 2}]}"#, "key a[1].b is repeated"),
            (r#"{"a b": [[{"c": 1, "c": 1}]]}"#, r#"key ["a b"][0][0].c is repeated"#),
            (r#"{"x": 1, "x": 2}"#, "key x is repeated"),
        ];
        for (text, expected) in cases {
            let err = parse_json_str(text).unwrap_err();
            assert!(err.contains(expected), "{text}: {err}");
        }
        assert_eq!(parse_json_str(r#"[{"a": 1}, {"a": 2}]"#).unwrap(), serde_json::json!([{"a": 1}, {"a": 2}]));
    }

    #[test]
    fn repeated_keys_are_rejected_with_their_path() {
        let err = parse_json_str(r#"{"terminal": {"rows": 1, "rows": 2}}"#).unwrap_err();
        assert!(err.contains("key terminal.rows is repeated"), "{err}");
        assert!(err.contains("line 1"), "{err}");
    }

    #[test]
    fn trailing_garbage_is_rejected() {
        assert!(parse_json_str("{} x").is_err());
    }

    #[test]
    fn numbers_keep_their_kind() {
        let v = parse_json_str(r#"[1, -2, 1.5, 1e20]"#).unwrap();
        assert_eq!(v[0].as_u64(), Some(1));
        assert_eq!(v[1].as_i64(), Some(-2));
        assert_eq!(v[2].as_f64(), Some(1.5));
        assert_eq!(v[3].as_f64(), Some(1e20));
    }
}
