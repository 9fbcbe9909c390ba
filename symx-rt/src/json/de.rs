//! Deserialising from a [`Json`] tree: a self-describing deserializer (serde's internally
//! tagged and flattened types, which the worker protocol uses, need `deserialize_any`), with
//! enums read as `serde_json` writes them and map keys that hold numbers read as numbers.

use serde::de::value::{SeqDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;

use super::{Error, Json};

/// A number's value, in the narrowest type that holds it.
pub(super) enum Number {
    U64(u64),
    I64(i64),
    I128(i128),
    U128(u128),
    F64(f64),
}

impl Number {
    pub(super) fn parse(text: &str) -> Option<Number> {
        let integral = !text.contains(['.', 'e', 'E']);
        if integral {
            if let Ok(v) = text.parse() {
                return Some(Number::U64(v));
            }
            if let Ok(v) = text.parse() {
                return Some(Number::I64(v));
            }
            if let Ok(v) = text.parse() {
                return Some(Number::I128(v));
            }
            if let Ok(v) = text.parse() {
                return Some(Number::U128(v));
            }
        }
        text.parse().ok().map(Number::F64)
    }

    fn visit<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Number::U64(v) => visitor.visit_u64(v),
            Number::I64(v) => visitor.visit_i64(v),
            Number::I128(v) => visitor.visit_i128(v),
            Number::U128(v) => visitor.visit_u128(v),
            Number::F64(v) => visitor.visit_f64(v),
        }
    }
}

fn not_a_number(text: &str) -> Error {
    de::Error::custom(format!("`{text}` is not a number"))
}

impl<'de> de::Deserializer<'de> for Json {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Json::Null => visitor.visit_unit(),
            Json::Bool(b) => visitor.visit_bool(b),
            Json::Number(n) => Number::parse(&n)
                .ok_or_else(|| not_a_number(&n))?
                .visit(visitor),
            Json::String(s) => visitor.visit_string(s),
            Json::Array(items) => {
                let mut seq = SeqDeserializer::new(items.into_iter());
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Json::Object(entries) => visitor.visit_map(Entries {
                entries: entries.into_iter(),
                value: None,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Json::Null => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    /// A unit variant is its name; any other variant a one-entry object `{name: content}`.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            Json::String(name) => visitor.visit_enum(name.into_deserializer()),
            Json::Object(mut entries) if entries.len() == 1 => {
                let (name, content) = entries.pop().expect("one entry");
                visitor.visit_enum(Variant { name, content })
            }
            other => Err(de::Error::custom(format!(
                "expected an enum variant (a string or an object of one entry), found {other:?}"
            ))),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl IntoDeserializer<'_, Error> for Json {
    type Deserializer = Json;
    fn into_deserializer(self) -> Json {
        self
    }
}

/// An object's entries, handed out as a map.
struct Entries {
    entries: std::vec::IntoIter<(String, Json)>,
    value: Option<Json>,
}

impl<'de> de::MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.entries.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(Key(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let value = self
            .value
            .take()
            .expect("serde asks for a key before its value");
        seed.deserialize(value)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An object's key: a string, or the number or boolean it spells when one is asked for (a
/// map with integer keys, which JSON writes as strings).
struct Key(String);

macro_rules! parsed_key {
    ($($method:ident => $visit:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0.parse() {
                Ok(v) => visitor.$visit(v),
                Err(_) => visitor.visit_string(self.0),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.0)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self.0.into_deserializer())
    }

    parsed_key! {
        deserialize_bool => visit_bool,
        deserialize_i8 => visit_i8, deserialize_i16 => visit_i16,
        deserialize_i32 => visit_i32, deserialize_i64 => visit_i64,
        deserialize_i128 => visit_i128,
        deserialize_u8 => visit_u8, deserialize_u16 => visit_u16,
        deserialize_u32 => visit_u32, deserialize_u64 => visit_u64,
        deserialize_u128 => visit_u128
    }

    forward_to_deserialize_any! {
        f32 f64 char str string bytes byte_buf option unit unit_struct seq tuple tuple_struct
        map struct identifier ignored_any
    }
}

/// A variant with content: its name, and what follows it.
struct Variant {
    name: String,
    content: Json,
}

impl<'de> de::EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = Json;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Json), Error> {
        let name: StringDeserializer<Error> = self.name.into_deserializer();
        Ok((seed.deserialize(name)?, self.content))
    }
}

impl<'de> de::VariantAccess<'de> for Json {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self {
            Json::Null => Ok(()),
            other => Err(de::Error::custom(format!(
                "a unit variant has no content, found {other:?}"
            ))),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_any(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_any(self, visitor)
    }
}

/// A [`Json`] value deserialises from anything self-describing (a checkpoint's strategy state
/// is one).
impl<'de> de::Deserialize<'de> for Json {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(Build)
    }
}

/// Builds a [`Json`] from what a deserializer visits.
struct Build;

impl<'de> Visitor<'de> for Build {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(Build)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(if v.is_finite() {
            Json::Number(format!("{v:?}"))
        } else {
            Json::Null
        })
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry()? {
            entries.push((k, v));
        }
        Ok(Json::Object(entries))
    }
}
