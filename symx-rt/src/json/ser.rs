//! Serialising into a [`Json`] tree: serde's data model mapped as `serde_json` maps it (unit
//! variants as strings, other variants as one-entry objects, `None` and `()` as `null`, map
//! keys as strings).

use serde::ser::{self, Serialize};

use super::{Error, Json};

/// The serializer whose output is a [`Json`] value.
pub(super) struct ToJson;

fn number(n: impl ToString) -> Result<Json, Error> {
    Ok(Json::Number(n.to_string()))
}

/// A float as `serde_json` writes one: the shortest text that reads back as the same value
/// (`1.0`, `0.1`, `1e300`); a NaN or an infinity, which JSON cannot hold, as `null`.
fn float(f: f64) -> Result<Json, Error> {
    if f.is_finite() {
        number(format!("{f:?}"))
    } else {
        Ok(Json::Null)
    }
}

fn variant(name: &str, value: Json) -> Json {
    Json::Object(vec![(name.to_string(), value)])
}

impl ser::Serializer for ToJson {
    type Ok = Json;
    type Error = Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Seq;
    type SerializeMap = Map;
    type SerializeStruct = Map;
    type SerializeStructVariant = Map;

    fn serialize_bool(self, v: bool) -> Result<Json, Error> {
        Ok(Json::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Json, Error> {
        number(v)
    }
    fn serialize_i16(self, v: i16) -> Result<Json, Error> {
        number(v)
    }
    fn serialize_i32(self, v: i32) -> Result<Json, Error> {
        number(v)
    }
    fn serialize_i64(self, v: i64) -> Result<Json, Error> {
        number(v)
    }
    fn serialize_i128(self, v: i128) -> Result<Json, Error> {
        number(v)
    }
    fn serialize_u8(self, v: u8) -> Result<Json, Error> {
        number(v)
    }
    fn serialize_u16(self, v: u16) -> Result<Json, Error> {
        number(v)
    }
    fn serialize_u32(self, v: u32) -> Result<Json, Error> {
        number(v)
    }
    fn serialize_u64(self, v: u64) -> Result<Json, Error> {
        number(v)
    }
    fn serialize_u128(self, v: u128) -> Result<Json, Error> {
        number(v)
    }
    fn serialize_f32(self, v: f32) -> Result<Json, Error> {
        if v.is_finite() {
            number(format!("{v:?}"))
        } else {
            Ok(Json::Null)
        }
    }
    fn serialize_f64(self, v: f64) -> Result<Json, Error> {
        float(v)
    }
    fn serialize_char(self, v: char) -> Result<Json, Error> {
        Ok(Json::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Json, Error> {
        Ok(Json::String(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Json, Error> {
        Ok(Json::Array(
            v.iter().map(|b| Json::Number(b.to_string())).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Json, Error> {
        Ok(Json::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Json, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Json, Error> {
        Ok(Json::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Json, Error> {
        Ok(Json::Null)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Json, Error> {
        Ok(Json::String(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Json, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant_name: &'static str,
        value: &T,
    ) -> Result<Json, Error> {
        Ok(variant(variant_name, value.serialize(self)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Error> {
        Ok(Seq {
            items: Vec::with_capacity(len.unwrap_or(0)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq, Error> {
        Ok(Seq {
            items: Vec::with_capacity(len),
            variant: Some(variant),
        })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Map, Error> {
        Ok(Map {
            entries: Vec::with_capacity(len.unwrap_or(0)),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Map, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Map, Error> {
        Ok(Map {
            entries: Vec::with_capacity(len),
            key: None,
            variant: Some(variant),
        })
    }
}

/// An array being built (of a tuple variant, when `variant` names it).
pub(super) struct Seq {
    items: Vec<Json>,
    variant: Option<&'static str>,
}

impl Seq {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(ToJson)?);
        Ok(())
    }

    fn done(self) -> Result<Json, Error> {
        let array = Json::Array(self.items);
        Ok(match self.variant {
            Some(name) => variant(name, array),
            None => array,
        })
    }
}

/// The four array-shaped serializers, alike but for the name of their method.
macro_rules! seq_impls {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Seq {
            type Ok = Json;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.push(value)
            }
            fn end(self) -> Result<Json, Error> {
                self.done()
            }
        }
    )*};
}

seq_impls!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// An object being built (of a struct variant, when `variant` names it).
pub(super) struct Map {
    entries: Vec<(String, Json)>,
    key: Option<String>,
    variant: Option<&'static str>,
}

impl Map {
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.entries
            .push((key.to_string(), value.serialize(ToJson)?));
        Ok(())
    }

    fn done(self) -> Result<Json, Error> {
        let object = Json::Object(self.entries);
        Ok(match self.variant {
            Some(name) => variant(name, object),
            None => object,
        })
    }
}

impl ser::SerializeMap for Map {
    type Ok = Json;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        // JSON keys are strings: numbers, booleans and unit variants become their text.
        self.key = Some(match key.serialize(ToJson)? {
            Json::String(s) | Json::Number(s) => s,
            Json::Bool(b) => b.to_string(),
            other => return Err(Error(format!("a map key must be a string, not {other:?}"))),
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().expect("serde gives a key before its value");
        self.field(&key, value)
    }
    fn end(self) -> Result<Json, Error> {
        self.done()
    }
}

/// The two struct-shaped serializers.
macro_rules! struct_impls {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Map {
            type Ok = Json;
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.field(key, value)
            }
            fn end(self) -> Result<Json, Error> {
                self.done()
            }
        }
    )*};
}

struct_impls!(SerializeStruct, SerializeStructVariant);

/// A [`Json`] value serialises as itself (a checkpoint's strategy state is one).
impl Serialize for Json {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::{SerializeMap, SerializeSeq};
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => serialize_number(n, s),
            Json::String(v) => s.serialize_str(v),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// A number's text as the narrowest of `u64`, `i64`, `i128`, `u128` and `f64` that holds it.
fn serialize_number<S: ser::Serializer>(n: &str, s: S) -> Result<S::Ok, S::Error> {
    use super::de::Number;
    match Number::parse(n) {
        Some(Number::U64(v)) => s.serialize_u64(v),
        Some(Number::I64(v)) => s.serialize_i64(v),
        Some(Number::I128(v)) => s.serialize_i128(v),
        Some(Number::U128(v)) => s.serialize_u128(v),
        Some(Number::F64(v)) => s.serialize_f64(v),
        None => Err(ser::Error::custom(format!("`{n}` is not a number"))),
    }
}
