//! JSON for the worker protocol, traces and checkpoints, written and read without a JSON crate.
//!
//! Why not `serde_json`: every crate in a test's dependency graph adds its trait impls to
//! the test's type inference. `serde_json` implements `PartialEq<Value>` for the integer types,
//! so a user's `assert_eq!(total, (0..4000).sum())` stops compiling (E0283, the sum's type is
//! ambiguous) as soon as the test links symx. This module's [`Json`] compares only with itself.
//!
//! A value goes through [`Json`] both ways: serde serialises into it (`ser`), it is written as
//! text, compact or pretty-printed exactly as `serde_json` does (`text`), text is parsed back
//! into it (`text`), and serde deserialises from it (`de`). Numbers keep their text, so 128-bit
//! integers survive.

mod de;
mod ser;
mod text;

use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A JSON value. Objects keep their keys in the order written (a struct's field order).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as its text (`-12`, `3.5`, `1e300`, `170141183460469231731687303715884105727`).
    Number(String),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, its entries in order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value of `key`, when this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, when this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, when this is a non-negative integer that fits in a `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) => n.parse().ok(),
            _ => None,
        }
    }
}

/// What went wrong writing or reading JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl serde::ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// `value` as a [`Json`] tree.
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Json, Error> {
    value.serialize(ser::ToJson)
}

/// A `T` read from a [`Json`] tree.
pub fn from_value<T: DeserializeOwned>(json: Json) -> Result<T, Error> {
    T::deserialize(json)
}

/// `value` as compact JSON text (one line), as `serde_json::to_string` writes it.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    Ok(text::compact(&to_value(value)?))
}

/// `value` as indented JSON text, as `serde_json::to_string_pretty` writes it.
pub fn to_string_pretty<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    Ok(text::pretty(&to_value(value)?))
}

/// A `T` read from JSON text.
pub fn from_str<T: DeserializeOwned>(s: &str) -> Result<T, Error> {
    from_value(text::parse(s)?)
}

/// JSON text as a [`Json`] tree.
pub fn parse(s: &str) -> Result<Json, Error> {
    text::parse(s)
}

#[cfg(test)]
mod tests;
