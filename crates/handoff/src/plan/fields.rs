//! The field names a struct's `Deserialize` declares, asked of serde's derive itself: the keys a
//! table of a suite file takes, for suggestions and for which table a key belongs to.

use serde::de::{self, Deserialize, Deserializer, Visitor};
use std::fmt;

/// The keys a struct deserialized as `T` takes (aliases included), as serde's derive declares
/// them: what `deserialize_struct` is handed, asked of a deserializer that holds no data.
pub(super) fn keys_of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    /// The keys, carried out as the "error" of the deserializer below.
    #[derive(Debug)]
    struct Fields(&'static [&'static str]);
    impl fmt::Display for Fields {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("not a struct")
        }
    }
    impl std::error::Error for Fields {}
    impl de::Error for Fields {
        fn custom<M: fmt::Display>(_: M) -> Fields {
            Fields(&[])
        }
    }
    /// A deserializer that answers every request with the keys asked for, if any.
    struct Ask;
    impl<'de> Deserializer<'de> for Ask {
        type Error = Fields;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fields> {
            Err(Fields(&[]))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Fields> {
            Err(Fields(fields))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    match T::deserialize(Ask) {
        Err(Fields(fields)) => fields,
        Ok(_) => &[],
    }
}
