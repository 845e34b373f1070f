//! The keys a struct's `Deserialize` derive accepts, so validators and
//! schemas ask the struct instead of keeping lists of their own.

use serde::Deserialize;

/// The keys an object of `T` accepts, in declaration order, read from its
/// `Deserialize` derive: the struct is where the keys are stated, and the
/// validator asks it instead of keeping lists of its own.
pub fn keys<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut fields: &'static [&'static str] = &[];
    // The deserializer stops with an error as soon as the derive has named
    // its fields; that error is the expected end, not a failure.
    let _stopped = T::deserialize(FieldNames(&mut fields));
    fields
}

/// A deserializer that records the field list a struct derive hands it.
struct FieldNames<'a>(&'a mut &'static [&'static str]);

impl<'de> serde::Deserializer<'de> for FieldNames<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(serde::de::Error::custom("fields recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}
