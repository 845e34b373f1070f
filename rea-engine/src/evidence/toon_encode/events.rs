//! Any `Serialize` value as a stream of JSON-shaped events whose children
//! can be replayed: the TOON encoder reads a subtree once to learn its shape
//! and again to write it, without ever holding it as a tree.
//!
//! The mapping from serde's data model to JSON is `serde_json::to_value`'s
//! (unit and `None` are null, a unit variant is its name, a newtype variant
//! is `{variant: value}`, bytes are an array of numbers, non-finite floats
//! are null, map keys become strings), so the events describe exactly the
//! value `to_value` would build.

use serde::Serialize;
use serde::ser;

use super::EncodeError;

/// A JSON primitive.
#[derive(Debug, Clone, Copy)]
pub(super) enum Prim<'a> {
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    /// Always finite.
    F64(f64),
    Str(&'a str),
}

/// Receives one value's events: a primitive, or `begin_seq`/`begin_map`,
/// the children, and `end`.
pub(super) trait Sink {
    fn primitive(&mut self, value: Prim<'_>) -> Result<(), EncodeError>;
    fn begin_seq(&mut self) -> Result<(), EncodeError>;
    fn element(&mut self, item: &dyn Subtree) -> Result<(), EncodeError>;
    fn begin_map(&mut self) -> Result<(), EncodeError>;
    fn entry(&mut self, key: &str, value: &dyn Subtree) -> Result<(), EncodeError>;
    fn end(&mut self) -> Result<(), EncodeError>;
}

/// A value that can be read (replayed into a sink) any number of times.
pub(super) trait Subtree {
    fn replay(&self, sink: &mut dyn Sink) -> Result<(), EncodeError>;
}

/// A borrowed `Serialize` value as a [`Subtree`].
pub(super) struct Node<'a, T: ?Sized>(pub(super) &'a T);

impl<T: Serialize + ?Sized> Subtree for Node<'_, T> {
    fn replay(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        self.0.serialize(Events { sink })
    }
}

impl ser::Error for EncodeError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        EncodeError::Serialize(msg.to_string())
    }
}

/// The serde serializer that turns one value into events on `sink`.
struct Events<'s> {
    sink: &'s mut dyn Sink,
}

/// A sequence or map in progress; `key` holds a map key until its value.
struct Compound<'s> {
    sink: &'s mut dyn Sink,
    key: Option<String>,
}

/// A tuple or struct variant in progress: its fields are gathered as a
/// JSON value (`{variant: [..]}` / `{variant: {..}}` needs the whole inner
/// value as one child). The records have none; this keeps the mapping total.
struct Variant<'s> {
    sink: &'s mut dyn Sink,
    variant: &'static str,
    inner: Result<serde_json::Value, EncodeError>,
}

fn json_error(e: serde_json::Error) -> EncodeError {
    EncodeError::Serialize(e.to_string())
}

impl<'s> Events<'s> {
    fn prim(self, value: Prim<'_>) -> Result<(), EncodeError> {
        self.sink.primitive(value)
    }

    fn float(self, value: f64) -> Result<(), EncodeError> {
        if value.is_finite() { self.prim(Prim::F64(value)) } else { self.prim(Prim::Null) }
    }

    fn seq(self) -> Result<Compound<'s>, EncodeError> {
        self.sink.begin_seq()?;
        Ok(Compound { sink: self.sink, key: None })
    }

    fn map(self) -> Result<Compound<'s>, EncodeError> {
        self.sink.begin_map()?;
        Ok(Compound { sink: self.sink, key: None })
    }

    fn variant(self, variant: &'static str, inner: serde_json::Value) -> Variant<'s> {
        Variant { sink: self.sink, variant, inner: Ok(inner) }
    }
}

impl<'s> ser::Serializer for Events<'s> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Compound<'s>;
    type SerializeTuple = Compound<'s>;
    type SerializeTupleStruct = Compound<'s>;
    type SerializeTupleVariant = Variant<'s>;
    type SerializeMap = Compound<'s>;
    type SerializeStruct = Compound<'s>;
    type SerializeStructVariant = Variant<'s>;

    fn serialize_bool(self, v: bool) -> Result<(), EncodeError> {
        self.prim(Prim::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<(), EncodeError> {
        self.prim(Prim::I64(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<(), EncodeError> {
        self.prim(Prim::I64(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<(), EncodeError> {
        self.prim(Prim::I64(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<(), EncodeError> {
        self.prim(Prim::I64(v))
    }
    fn serialize_i128(self, v: i128) -> Result<(), EncodeError> {
        if let Ok(v) = i64::try_from(v) {
            self.prim(Prim::I64(v))
        } else if let Ok(v) = u64::try_from(v) {
            self.prim(Prim::U64(v))
        } else {
            Err(EncodeError::Serialize(format!("the number {v} is out of the range of a JSON number")))
        }
    }
    fn serialize_u8(self, v: u8) -> Result<(), EncodeError> {
        self.prim(Prim::U64(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<(), EncodeError> {
        self.prim(Prim::U64(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<(), EncodeError> {
        self.prim(Prim::U64(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<(), EncodeError> {
        self.prim(Prim::U64(v))
    }
    fn serialize_u128(self, v: u128) -> Result<(), EncodeError> {
        match u64::try_from(v) {
            Ok(v) => self.prim(Prim::U64(v)),
            Err(_) => Err(EncodeError::Serialize(format!("the number {v} is out of the range of a JSON number"))),
        }
    }
    fn serialize_f32(self, v: f32) -> Result<(), EncodeError> {
        self.float(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), EncodeError> {
        self.float(v)
    }
    fn serialize_char(self, v: char) -> Result<(), EncodeError> {
        self.prim(Prim::Str(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<(), EncodeError> {
        self.prim(Prim::Str(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), EncodeError> {
        use ser::SerializeSeq;
        let mut seq = self.seq()?;
        for byte in v {
            seq.serialize_element(byte)?;
        }
        SerializeSeq::end(seq)
    }
    fn serialize_none(self) -> Result<(), EncodeError> {
        self.prim(Prim::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), EncodeError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        self.prim(Prim::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), EncodeError> {
        self.prim(Prim::Null)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), EncodeError> {
        self.prim(Prim::Str(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        self.sink.begin_map()?;
        self.sink.entry(variant, &Node(value))?;
        self.sink.end()
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'s>, EncodeError> {
        self.seq()
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'s>, EncodeError> {
        self.seq()
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'s>, EncodeError> {
        self.seq()
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Variant<'s>, EncodeError> {
        Ok(self.variant(variant, serde_json::Value::Array(Vec::new())))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'s>, EncodeError> {
        self.map()
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'s>, EncodeError> {
        self.map()
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Variant<'s>, EncodeError> {
        Ok(self.variant(variant, serde_json::Value::Object(serde_json::Map::new())))
    }
}

/// A sequence, tuple or tuple struct: each item is an array element.
macro_rules! elements {
    ($($trait:ident :: $method:ident),+) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = EncodeError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
                self.sink.element(&Node(value))
            }
            fn end(self) -> Result<(), EncodeError> {
                self.sink.end()
            }
        }
    )+};
}

elements!(SerializeSeq::serialize_element, SerializeTuple::serialize_element, SerializeTupleStruct::serialize_field);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), EncodeError> {
        self.key = Some(key_string(key)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        let key = self.key.take().ok_or_else(|| EncodeError::Serialize("a map value came without its key".into()))?;
        self.sink.entry(&key, &Node(value))
    }
    fn serialize_entry<K: Serialize + ?Sized, V: Serialize + ?Sized>(
        &mut self,
        key: &K,
        value: &V,
    ) -> Result<(), EncodeError> {
        let key = key_string(key)?;
        self.sink.entry(&key, &Node(value))
    }
    fn end(self) -> Result<(), EncodeError> {
        self.sink.end()
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), EncodeError> {
        self.sink.entry(key, &Node(value))
    }
    fn end(self) -> Result<(), EncodeError> {
        self.sink.end()
    }
}

impl Variant<'_> {
    fn push<T: Serialize + ?Sized>(&mut self, key: Option<&'static str>, value: &T) {
        let Ok(inner) = &mut self.inner else { return };
        match serde_json::to_value(value) {
            Ok(value) => match (inner, key) {
                (serde_json::Value::Array(items), None) => items.push(value),
                (serde_json::Value::Object(map), Some(key)) => {
                    map.insert(key.to_owned(), value);
                }
                _ => unreachable!("a tuple variant gathers an array, a struct variant an object"),
            },
            Err(e) => self.inner = Err(json_error(e)),
        }
    }

    fn finish(self) -> Result<(), EncodeError> {
        let inner = self.inner?;
        self.sink.begin_map()?;
        self.sink.entry(self.variant, &Node(&inner))?;
        self.sink.end()
    }
}

impl ser::SerializeTupleVariant for Variant<'_> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        self.push(None, value);
        Ok(())
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Variant<'_> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), EncodeError> {
        self.push(Some(key), value);
        Ok(())
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

/// A map key as the string `serde_json::to_value` would make of it.
fn key_string<T: Serialize + ?Sized>(key: &T) -> Result<String, EncodeError> {
    match serde_json::to_value(key).map_err(json_error)? {
        serde_json::Value::String(s) => Ok(s),
        serde_json::Value::Number(n) => Ok(n.to_string()),
        serde_json::Value::Bool(b) => Ok(b.to_string()),
        other => Err(EncodeError::Serialize(format!("a map key must be a string, not {other}"))),
    }
}
