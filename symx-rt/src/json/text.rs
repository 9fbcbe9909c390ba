//! JSON text: writing a [`Json`] tree compact or pretty-printed (byte for byte as `serde_json`
//! writes them, so that traces and reports read the same), and parsing text (RFC 8259) into one.

use std::fmt::Write as _;

use super::{Error, Json};

/// One line, no spaces: `{"a":1,"b":[true,null]}`.
pub(super) fn compact(json: &Json) -> String {
    let mut out = String::new();
    write(&mut out, json, None);
    out
}

/// Two spaces per level, `"key": value`, empty arrays and objects as `[]` and `{}`.
pub(super) fn pretty(json: &Json) -> String {
    let mut out = String::new();
    write(&mut out, json, Some(0));
    out
}

/// Writes `json`; `indent` is the current depth when pretty-printing.
fn write(out: &mut String, json: &Json, indent: Option<usize>) {
    match json {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::String(s) => string(out, s),
        Json::Array(items) => {
            block(out, '[', ']', items, indent, |out, item, depth| {
                write(out, item, depth)
            });
        }
        Json::Object(entries) => {
            block(out, '{', '}', entries, indent, |out, (k, v), depth| {
                string(out, k);
                out.push_str(if depth.is_some() { ": " } else { ":" });
                write(out, v, depth);
            });
        }
    }
}

/// An array or object: its items between `open` and `close`, each on its own line when
/// pretty-printing.
fn block<T>(
    out: &mut String,
    open: char,
    close: char,
    items: &[T],
    indent: Option<usize>,
    item: impl Fn(&mut String, &T, Option<usize>),
) {
    out.push(open);
    if items.is_empty() {
        out.push(close);
        return;
    }
    let inner = indent.map(|d| d + 1);
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        newline(out, inner);
        item(out, x, inner);
    }
    newline(out, indent);
    out.push(close);
}

fn newline(out: &mut String, indent: Option<usize>) {
    if let Some(depth) = indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    }
}

/// A string with `"`, `\` and control characters escaped (the short escapes where JSON has
/// them); everything else, non-ASCII included, as it is.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// How deep arrays and objects may nest: deeper text is refused rather than overflowing the
/// stack (nothing symx writes nests more than a few levels).
const MAX_DEPTH: usize = 256;

/// Parses one JSON value that fills `text` (whitespace around it aside).
pub(super) fn parse(text: &str) -> Result<Json, Error> {
    let mut p = Parser {
        text: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    let value = p.value()?;
    p.space();
    if p.at < p.text.len() {
        return Err(p.error("trailing characters"));
    }
    Ok(value)
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    /// `what` at the current line and column, as `serde_json` words its errors.
    fn error(&self, what: &str) -> Error {
        let before = &self.text[..self.at.min(self.text.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        Error(format!("{what} at line {line} column {column}"))
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), Error> {
        self.space();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", byte as char)))
        }
    }

    fn value(&mut self) -> Result<Json, Error> {
        self.space();
        match self.peek() {
            None => Err(self.error("EOF while parsing a value")),
            Some(b'n') => self.word("null", Json::Null),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b'[') => self.nested(|p| p.array()),
            Some(b'{') => self.nested(|p| p.object()),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected value")),
        }
    }

    fn word(&mut self, word: &str, value: Json) -> Result<Json, Error> {
        if self.text[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error("expected value"))
        }
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Result<Json, Error>) -> Result<Json, Error> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("recursion limit exceeded"));
        }
        let value = f(self);
        self.depth -= 1;
        value
    }

    fn array(&mut self) -> Result<Json, Error> {
        self.at += 1;
        let mut items = Vec::new();
        self.space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self) -> Result<Json, Error> {
        self.at += 1;
        let mut entries = Vec::new();
        self.space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Json::Object(entries));
        }
        loop {
            self.space();
            if self.peek() != Some(b'"') {
                return Err(self.error("key must be a string"));
            }
            let key = self.string()?;
            self.expect(b':')?;
            entries.push((key, self.value()?));
            self.space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Json::Object(entries));
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as text.
    fn number(&mut self) -> Result<Json, Error> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let from = p.at;
            while matches!(p.peek(), Some(b'0'..=b'9')) {
                p.at += 1;
            }
            p.at > from
        };
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        // No leading zeros: a `0` stands alone (`01` then fails as trailing text).
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.error("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !digits(self) {
                return Err(self.error("invalid number"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                return Err(self.error("invalid number"));
            }
        }
        let text = std::str::from_utf8(&self.text[start..self.at]).expect("ASCII digits");
        Ok(Json::Number(text.to_string()))
    }

    /// A string, its escapes decoded (`\uXXXX` surrogate pairs included).
    fn string(&mut self) -> Result<String, Error> {
        self.at += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'"') => {
                    self.at += 1;
                    return String::from_utf8(out).map_err(|_| self.error("invalid UTF-8"));
                }
                Some(b'\\') => {
                    self.at += 1;
                    let c = self.escape()?;
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Some(b) if b < 0x20 => {
                    return Err(self.error("control character in a string"));
                }
                Some(b) => {
                    out.push(b);
                    self.at += 1;
                }
            }
        }
    }

    fn escape(&mut self) -> Result<char, Error> {
        let b = self.peek().ok_or_else(|| self.error("EOF in an escape"))?;
        self.at += 1;
        Ok(match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let high = self.hex4()?;
                if (0xD800..0xDC00).contains(&high) {
                    if !self.text[self.at..].starts_with(b"\\u") {
                        return Err(self.error("lone leading surrogate"));
                    }
                    self.at += 2;
                    let low = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return Err(self.error("invalid surrogate pair"));
                    }
                    let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                    char::from_u32(c).ok_or_else(|| self.error("invalid escape"))?
                } else {
                    char::from_u32(high).ok_or_else(|| self.error("lone trailing surrogate"))?
                }
            }
            _ => return Err(self.error("invalid escape")),
        })
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let digits = self
            .text
            .get(self.at..self.at + 4)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.error("invalid \\u escape"))?;
        self.at += 4;
        Ok(digits)
    }
}
