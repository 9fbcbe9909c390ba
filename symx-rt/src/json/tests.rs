//! The module against `serde_json` (a dev-dependency only): the same text for the same values,
//! and each reads what the other writes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::*;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Message {
    Hello {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bound: Option<u32>,
    },
    Numbers(Box<Numbers>),
    #[serde(other)]
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Numbers {
    small: i8,
    big: u64,
    #[serde(with = "crate::sym::expr::wide")]
    wide: i128,
    float: f64,
    list: Vec<u32>,
    empty: Vec<u32>,
    map: BTreeMap<String, String>,
    nothing: Option<bool>,
    unit: Shape,
    tuple: Shape,
    fields: Shape,
    newtype: Shape,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Shape {
    Unit,
    Newtype(u8),
    Tuple(u8, String),
    Fields { x: i32 },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Line {
    v: u32,
    #[serde(flatten)]
    message: Message,
}

fn numbers() -> Numbers {
    Numbers {
        small: -5,
        big: u64::MAX,
        wide: i128::MIN,
        float: 0.1,
        list: vec![1, 2, 3],
        empty: Vec::new(),
        map: [
            ("3".into(), "three".into()),
            ("k".into(), "ten \"quoted\"\n".into()),
        ]
        .into(),
        nothing: None,
        unit: Shape::Unit,
        tuple: Shape::Tuple(7, "é\u{1}\t".into()),
        fields: Shape::Fields { x: -1 },
        newtype: Shape::Newtype(255),
    }
}

fn lines() -> Vec<Line> {
    vec![
        Line {
            v: 1,
            message: Message::Hello {
                name: "t".into(),
                bound: Some(2),
            },
        },
        Line {
            v: 1,
            message: Message::Hello {
                name: "u".into(),
                bound: None,
            },
        },
        Line {
            v: 2,
            message: Message::Numbers(Box::new(numbers())),
        },
    ]
}

#[test]
fn text_is_byte_for_byte_serde_jsons_compact_and_pretty() {
    for line in lines() {
        assert_eq!(
            to_string(&line).unwrap(),
            serde_json::to_string(&line).unwrap()
        );
        assert_eq!(
            to_string_pretty(&line).unwrap(),
            serde_json::to_string_pretty(&line).unwrap()
        );
    }
}

#[test]
fn each_reads_what_the_other_writes() {
    for line in lines() {
        let ours = to_string(&line).unwrap();
        assert_eq!(serde_json::from_str::<Line>(&ours).unwrap(), line);
        let theirs = serde_json::to_string_pretty(&line).unwrap();
        assert_eq!(from_str::<Line>(&theirs).unwrap(), line);
        let value = to_value(&line).unwrap();
        assert_eq!(from_value::<Line>(value.clone()).unwrap(), line);
        // A tree survives being a field of something serialised (a checkpoint's state).
        assert_eq!(
            from_str::<Json>(&to_string(&value).unwrap()).unwrap(),
            value
        );
    }
}

#[test]
fn integer_map_keys_are_written_as_strings_and_read_back() {
    let map: BTreeMap<u32, bool> = [(3, true), (10, false)].into();
    let text = to_string(&map).unwrap();
    assert_eq!(text, serde_json::to_string(&map).unwrap());
    assert_eq!(from_str::<BTreeMap<u32, bool>>(&text).unwrap(), map);
}

#[test]
fn an_unknown_kind_is_read_as_the_other_variant() {
    let line: Line = from_str(r#"{"v":1,"kind":"newer","extra":[1,{"a":null}]}"#).unwrap();
    assert_eq!(line.message, Message::Unknown);
}

#[test]
fn numbers_keep_their_precision() {
    let v: u128 = from_str("340282366920938463463374607431768211455").unwrap();
    assert_eq!(v, u128::MAX);
    let f: f64 = from_str("1e300").unwrap();
    assert_eq!(f, 1e300);
    assert_eq!(to_string(&1.0f64).unwrap(), "1.0");
    assert_eq!(to_string(&f64::NAN).unwrap(), "null");
    let x: u8 = from_str("  7 ").unwrap();
    assert_eq!(x, 7);
    assert!(from_str::<u8>("300").is_err());
}

#[test]
fn strings_decode_every_escape() {
    let s: String = from_str(r#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#).unwrap();
    assert_eq!(s, "a\"b\\c/d\né😀");
    assert_eq!(to_string("\u{7f}\u{1f}").unwrap(), "\"\u{7f}\\u001f\"");
}

#[test]
fn malformed_text_is_an_error_that_says_where() {
    for (text, says) in [
        ("{\"a\":1,}", "key must be a string at line 1 column 8"),
        ("[1 2]", "expected `,` or `]` at line 1 column 4"),
        ("01", "trailing characters at line 1 column 2"),
        ("\"abc", "EOF while parsing a string"),
        ("[1]\n x", "trailing characters at line 2 column 2"),
        ("\"\\u12g4\"", "invalid \\u escape"),
        ("-", "invalid number"),
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains(says), "`{text}`: {e}");
    }
    let deep = "[".repeat(300) + &"]".repeat(300);
    assert!(parse(&deep)
        .unwrap_err()
        .to_string()
        .contains("recursion limit"));
}
