//! Giving back, while a mapped capture is parsed, the memory of the bytes
//! the parser has passed.
//!
//! The two sides of a comparison are parsed at once, each into a typed
//! record about as large as its file; holding both files whole until both
//! records are complete put the peak at about twice the files' size. When
//! the host mapped a file ([`InputBytes::Mapped`]), the long arrays of a
//! capture (`frames`, `rendered_frames`) are read element by element
//! through [`releasing`], which learns from each element's first key (a
//! string serde_json lends straight out of the file) how far the parser
//! has come, and lets the host take back the pages before it, a megabyte
//! at a time. The pages stay readable: the strict path, which reads the
//! file again when the typed one fails, brings them back.
//!
//! The parse in progress is known to the array readers only through this
//! thread's [`WINDOW`], set for the length of [`parse`] and cleared after it
//! (even on a panic): serde gives a field's deserializer no other way to
//! reach its caller. A key that lies outside the window (a tree being
//! deserialized, another file) releases nothing.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use crate::input::{InputBytes, MappedBytes};

/// Bytes passed between two releases.
const STEP: usize = 1 << 20;

/// The mapped file being parsed on this thread, and how much of it was
/// given back.
struct Window {
    mapped: Arc<dyn MappedBytes>,
    start: usize,
    released: usize,
}

thread_local! {
    static WINDOW: RefCell<Option<Window>> = const { RefCell::new(None) };
}

/// Clears this thread's window when the parse ends, however it ends.
struct Clear;

impl Drop for Clear {
    fn drop(&mut self) {
        WINDOW.with(|w| w.borrow_mut().take());
    }
}

/// Runs `read` over `input`'s bytes. A mapped input's passed pages are given
/// back during the read and all of them after it.
pub(crate) fn parse<R>(input: &InputBytes, read: impl FnOnce(&[u8]) -> R) -> R {
    let InputBytes::Mapped(mapped) = input else { return read(input) };
    let bytes = mapped.bytes();
    let start = bytes.as_ptr() as usize;
    WINDOW.with(|w| *w.borrow_mut() = Some(Window { mapped: Arc::clone(mapped), start, released: 0 }));
    let result = {
        let _clear = Clear;
        read(bytes)
    };
    mapped.release_before(bytes.len());
    result
}

/// The parser has reached `text`, a string lent out of the input.
fn reached(text: &str) {
    let at = text.as_ptr() as usize;
    WINDOW.with(|w| {
        let mut w = w.borrow_mut();
        let Some(w) = w.as_mut() else { return };
        let Some(offset) = at.checked_sub(w.start).filter(|o| *o < w.mapped.bytes().len()) else { return };
        if offset >= w.released + STEP {
            w.mapped.release_before(offset);
            w.released = offset;
        }
    });
}

/// Deserializes a sequence of `T` (structs whose serde name `expecting`
/// names, e.g. "struct Frame"), reporting progress after each element's
/// first key. Every element is deserialized by `T`'s own implementation, so
/// what is accepted and every error message are `Vec<T>`'s.
pub(crate) fn releasing<'de, D, T>(deserializer: D, expecting: &'static str) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    deserializer.deserialize_seq(Elements { expecting, element: PhantomData })
}

struct Elements<T> {
    expecting: &'static str,
    element: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Elements<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(Element { expecting: self.expecting, element: PhantomData })? {
            items.push(item);
        }
        Ok(items)
    }
}

struct Element<T> {
    expecting: &'static str,
    element: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for Element<T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        deserializer.deserialize_struct("", &[], self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Element<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let first = map.next_key_seed(Key)?;
        if let Some(Cow::Borrowed(key)) = &first {
            reached(key);
        }
        T::deserialize(MapAccessDeserializer::new(Replay { first, map }))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::deserialize(SeqAccessDeserializer::new(seq))
    }
}

/// A map key, borrowed from the input when the input lends it.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_owned()))
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key))
    }
}

/// A map whose first key was read ahead: gives it again, then the rest.
struct Replay<'de, A> {
    first: Option<Cow<'de, str>>,
    map: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Replay<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        match self.first.take() {
            Some(Cow::Borrowed(key)) => seed.deserialize(de::value::BorrowedStrDeserializer::new(key)).map(Some),
            Some(Cow::Owned(key)) => seed.deserialize(key.into_deserializer()).map(Some),
            None => self.map.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint().map(|n| n + usize::from(self.first.is_some()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{CaptureRecord, Frame};
    use serde_json::{Value, json};
    use std::sync::Mutex;

    /// A mapped file that records what it was told to give back.
    #[derive(Debug)]
    struct FakeMapped {
        bytes: Vec<u8>,
        released: Mutex<Vec<usize>>,
    }

    impl MappedBytes for FakeMapped {
        fn bytes(&self) -> &[u8] {
            &self.bytes
        }
        fn release_before(&self, offset: usize) {
            self.released.lock().unwrap().push(offset);
        }
    }

    /// The authority fixture's record with `n` copies of its frames, as JSON.
    fn large_record(n: usize) -> (Value, Vec<u8>) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/captures/authority.json");
        let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let mut record = doc["normalized_result"].clone();
        let frame = record["frames"][0].clone();
        let filler = "x\\r\\n".repeat(2000);
        let frames: Vec<Value> = (0..n)
            .map(|i| {
                let mut f = frame.clone();
                f["sequence"] = json!(i);
                f["data"] = json!(filler);
                f
            })
            .collect();
        record["frames"] = Value::Array(frames);
        let bytes = serde_json::to_vec(&record).unwrap();
        (record, bytes)
    }

    #[test]
    fn a_mapped_record_gives_back_what_the_parser_passed_and_reads_the_same() {
        let (_, bytes) = large_record(1000);
        let len = bytes.len();
        assert!(len > 4 * STEP, "{len}");
        let expected: CaptureRecord = serde_json::from_slice(&bytes).unwrap();
        let mapped = Arc::new(FakeMapped { bytes, released: Mutex::new(Vec::new()) });
        let input = InputBytes::Mapped(mapped.clone());
        let record: CaptureRecord = parse(&input, |b| serde_json::from_slice(b).unwrap());
        assert_eq!(record, expected);
        let released = mapped.released.lock().unwrap().clone();
        let (last, during) = released.split_last().unwrap();
        assert_eq!(*last, len, "everything is given back after the parse");
        assert!(during.len() >= 3, "{during:?}");
        assert!(during.windows(2).all(|w| w[1] >= w[0] + STEP), "a megabyte at a time, forward: {during:?}");
        let frames_start = mapped.bytes.windows(9).position(|w| w == b"\"frames\":").unwrap();
        assert!(during.iter().all(|o| *o > frames_start && *o < len), "{during:?}");
        for offset in during {
            assert!(mapped.bytes[*offset..].starts_with(b"sequence\""), "released up to a frame's first key: {offset}");
        }
        WINDOW.with(|w| assert!(w.borrow().is_none(), "the window is cleared"));
    }

    #[test]
    fn read_input_and_trees_release_nothing() {
        let (record, bytes) = large_record(600);
        let read: CaptureRecord = parse(&InputBytes::Read(bytes), |b| serde_json::from_slice(b).unwrap());
        let tree: CaptureRecord = serde_json::from_value(record).unwrap();
        assert_eq!(read, tree);
    }

    /// Every malformed element is refused with `Vec<Frame>`'s own message
    /// and path.
    #[test]
    fn errors_are_those_of_the_plain_sequence() {
        #[derive(serde::Deserialize)]
        struct Plain {
            #[allow(dead_code, reason = "only the error matters")]
            frames: Vec<Frame>,
        }
        #[derive(serde::Deserialize)]
        struct Releasing {
            #[allow(dead_code, reason = "only the error matters")]
            #[serde(deserialize_with = "frames")]
            frames: Vec<Frame>,
        }
        fn frames<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Frame>, D::Error> {
            releasing(d, "struct Frame")
        }
        let good = json!({"sequence": 0, "at_ms": 0, "data": "a"});
        let cases = [
            json!({"frames": "no"}),
            json!({"frames": ["no"]}),
            json!({"frames": [good, 7]}),
            json!({"frames": [{"sequence": 0, "at_ms": 0}]}),
            json!({"frames": [{"sequence": 0, "at_ms": 0, "data": "a", "extra": 1}]}),
            json!({"frames": [{"at_ms": "x", "sequence": 0, "data": "a"}]}),
            json!({"frames": [{}]}),
            json!({"frames": [[0, 0, "a", null, null]]}),
            json!({"frames": [good, {"sequence": 1, "sequence": 2}]}),
        ];
        for case in cases {
            let text = case.to_string();
            let plain = serde_json::from_str::<Plain>(&text).map(drop).map_err(|e| e.to_string());
            let ours = serde_json::from_str::<Releasing>(&text).map(drop).map_err(|e| e.to_string());
            assert_eq!(ours, plain, "from text: {text}");
            let plain = serde_path_to_error::deserialize::<_, Plain>(case.clone())
                .map(drop)
                .map_err(|e| (e.path().to_string(), e.inner().to_string()));
            let ours = serde_path_to_error::deserialize::<_, Releasing>(case)
                .map(drop)
                .map_err(|e| (e.path().to_string(), e.inner().to_string()));
            assert_eq!(ours, plain, "from a tree: {text}");
        }
    }
}
