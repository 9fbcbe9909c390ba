//! Schedules and replay tokens: the choices of one execution, written as a short string that
//! replays it exactly, and the errors of tokens that are corrupt or no longer fit the program.
//!
//! A token carries, besides the choices, the number of steps and a fingerprint of what ran
//! (thread, operation kind, object, per step) so that replaying it into a program whose
//! operations changed is an error rather than a different execution. Source locations are
//! fingerprinted apart (a hash of them all, and a short hash of each distinct one): a program
//! in which only lines moved (a comment or an `eprintln!` added above the test) still replays,
//! and the replay says which locations are new. Choices are run-length encoded, so the token
//! of a 100,000-step spin stays short. A checksum catches truncation and typos.

use std::fmt;
use std::str::FromStr;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::context::mode::ContextMode;

const PREFIX: &str = "symx";
/// The format written: location-insensitive fingerprint, run-length encoded choices, inputs.
const VERSION: u32 = 3;
/// Formats of older symx versions (1: no inputs, 2: with inputs), whose fingerprints hashed
/// source locations in: they decode, and replaying them says to record the token again.
const OLD_VERSIONS: [u32; 2] = [1, 2];
/// The current format followed by the context mode, written for an execution in a mode other
/// than `full`: a failure found from a program context replays in the mode that found it,
/// whatever the replaying test's attribute or environment says.
const VERSION_WITH_CONTEXT: u32 = 4;

/// The choices that make up one execution, in order: at every point with more than one
/// option, the thread that ran (or the alternative taken at a value choice).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Schedule {
    /// Hash of the test the schedule belongs to, 0 when recorded without a test name.
    pub(crate) test: u32,
    pub(crate) decisions: Vec<u32>,
    pub(crate) steps: u64,
    pub(crate) fingerprint: u64,
    /// The symbolic inputs whose value was not zero, by name: replay gives every other input
    /// zero, so the token reproduces the execution whatever inputs the replaying builder has.
    pub(crate) inputs: Vec<(String, i128)>,
    /// Where the steps ran: a hash of every step's location, and a short hash of each distinct
    /// location (see [`location_tag`]).
    pub(crate) locations: Locations,
    /// Decoded from a token of an older format (its fingerprint cannot be checked).
    pub(crate) old_format: Option<u32>,
    /// The context mode the execution ran in, when not `full` (`symx::context`); replay runs
    /// in it (`full` when the token has none).
    pub(crate) context_mode: Option<ContextMode>,
}

/// The context mode a token carries for an execution in `mode`: none for `full`, so that
/// tokens of every other test keep the shorter form.
pub(crate) fn carried(mode: ContextMode) -> Option<ContextMode> {
    Some(mode).filter(|m| *m != ContextMode::Full)
}

/// Where an execution's steps ran, as a token records it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Locations {
    pub hash: u64,
    /// The distinct locations' tags, sorted.
    pub tags: Vec<u16>,
}

/// The short hash of a source location kept in tokens.
pub(crate) fn location_tag(location_hash: u64) -> u16 {
    (location_hash ^ (location_hash >> 16) ^ (location_hash >> 32) ^ (location_hash >> 48)) as u16
}

impl Schedule {
    /// The context mode the execution ran in (`full` unless the token says otherwise).
    pub fn context_mode(&self) -> ContextMode {
        self.context_mode.unwrap_or_default()
    }

    /// The values of the symbolic inputs the execution used (those not listed were zero).
    pub fn inputs(&self) -> &[(String, i128)] {
        &self.inputs
    }

    /// The recorded choices.
    pub fn decisions(&self) -> &[u32] {
        &self.decisions
    }

    /// The number of steps of the execution it replays.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The token is the schedule up to a crash or a stuck thread: the execution never ended,
    /// so it records no step count and no fingerprint to check a replay against.
    pub(crate) fn is_prefix(&self) -> bool {
        (self.steps, self.fingerprint) == (0, 0)
    }
}

/// Hash of a test name, as stored in tokens.
pub(crate) fn test_hash(name: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h = (h ^ b as u32).wrapping_mul(0x0100_0193);
    }
    h.max(1)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn checksum(bytes: &[u8]) -> [u8; 4] {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h = (h ^ b as u32).wrapping_mul(0x0100_0193);
    }
    h.to_le_bytes()
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut bytes = Vec::with_capacity(64 + 2 * self.locations.tags.len());
        put_varint(&mut bytes, self.test as u64);
        put_varint(&mut bytes, self.steps);
        bytes.extend_from_slice(&self.fingerprint.to_le_bytes());
        bytes.extend_from_slice(&self.locations.hash.to_le_bytes());
        put_varint(&mut bytes, self.locations.tags.len() as u64);
        for tag in &self.locations.tags {
            bytes.extend_from_slice(&tag.to_le_bytes());
        }
        let runs = runs(&self.decisions);
        put_varint(&mut bytes, runs.len() as u64);
        for (value, count) in runs {
            put_varint(&mut bytes, value as u64);
            put_varint(&mut bytes, count);
        }
        put_varint(&mut bytes, self.inputs.len() as u64);
        for (name, value) in &self.inputs {
            put_varint(&mut bytes, name.len() as u64);
            bytes.extend_from_slice(name.as_bytes());
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        let version = match self.context_mode.and_then(carried) {
            Some(mode) => {
                put_varint(&mut bytes, mode as u64);
                VERSION_WITH_CONTEXT
            }
            None => VERSION,
        };
        let sum = checksum(&bytes);
        bytes.extend_from_slice(&sum);
        write!(f, "{PREFIX}{version}-{}", URL_SAFE_NO_PAD.encode(bytes))
    }
}

/// The choices as (value, how many times in a row).
fn runs(decisions: &[u32]) -> Vec<(u32, u64)> {
    let mut runs: Vec<(u32, u64)> = Vec::new();
    for &d in decisions {
        match runs.last_mut() {
            Some((value, count)) if *value == d => *count += 1,
            _ => runs.push((d, 1)),
        }
    }
    runs
}

/// Why a replay token cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplayError {
    /// The text is not a symx token, or was damaged (truncated, edited, mis-pasted).
    Corrupt(String),
    /// The token was written by a newer symx.
    UnsupportedVersion(u32),
    /// The token was written by an older symx, whose fingerprints this one cannot check.
    OldVersion(u32),
    /// The token belongs to another test.
    OtherTest,
    /// The program no longer makes the choices the token records: it changed since.
    Diverged(String),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Corrupt(why) => write!(f, "the replay token is corrupted: {why}"),
            ReplayError::UnsupportedVersion(v) => write!(
                f,
                "the replay token has format version {v}, but this symx reads versions {VERSION} \
                 and {VERSION_WITH_CONTEXT}; replay it with the symx that produced it"
            ),
            ReplayError::OldVersion(v) => write!(
                f,
                "the replay token has format version {v}, written by an older symx whose \
                 fingerprints this one cannot check; run the test again for a new token"
            ),
            ReplayError::OtherTest => write!(
                f,
                "the replay token was recorded by a different test; pass it to the test named in \
                 the report that printed it"
            ),
            ReplayError::Diverged(why) => write!(
                f,
                "the replay token does not match this program (it changed since the token was \
                 recorded, or the token comes from another program): {why}"
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn varint(&mut self) -> Result<u64, ReplayError> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self
                .0
                .split_first()
                .ok_or_else(|| ReplayError::Corrupt("it ends too early".into()))?;
            self.0 = rest;
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(ReplayError::Corrupt("a number in it is too long".into()))
    }

    fn bytes(&mut self, n: usize) -> Result<&[u8], ReplayError> {
        if self.0.len() < n {
            return Err(ReplayError::Corrupt("it ends too early".into()));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn inputs(&mut self) -> Result<Vec<(String, i128)>, ReplayError> {
        let n = self.varint()? as usize;
        let mut inputs = Vec::with_capacity(n.min(self.0.len()));
        for _ in 0..n {
            let len = self.varint()? as usize;
            let name = String::from_utf8(self.bytes(len)?.to_vec())
                .map_err(|_| ReplayError::Corrupt("an input name is not UTF-8".into()))?;
            let value = i128::from_le_bytes(self.bytes(16)?.try_into().expect("16 bytes"));
            inputs.push((name, value));
        }
        Ok(inputs)
    }

    fn u64(&mut self) -> Result<u64, ReplayError> {
        if self.0.len() < 8 {
            return Err(ReplayError::Corrupt("it ends too early".into()));
        }
        let (head, rest) = self.0.split_at(8);
        self.0 = rest;
        Ok(u64::from_le_bytes(head.try_into().expect("8 bytes")))
    }
}

impl FromStr for Schedule {
    type Err = ReplayError;

    fn from_str(s: &str) -> Result<Self, ReplayError> {
        let s = s.trim();
        let rest = s.strip_prefix(PREFIX).ok_or_else(|| {
            ReplayError::Corrupt(format!("a token starts with `{PREFIX}{VERSION}-`"))
        })?;
        let (version, body) = rest
            .split_once('-')
            .ok_or_else(|| ReplayError::Corrupt("the version marker is missing".into()))?;
        let version: u32 = version
            .parse()
            .map_err(|_| ReplayError::Corrupt(format!("`{version}` is not a version number")))?;
        let current = version == VERSION || version == VERSION_WITH_CONTEXT;
        if !current && !OLD_VERSIONS.contains(&version) {
            return Err(ReplayError::UnsupportedVersion(version));
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|e| ReplayError::Corrupt(format!("it is not valid base64 ({e})")))?;
        if bytes.len() < 4 {
            return Err(ReplayError::Corrupt("it is too short".into()));
        }
        let (payload, sum) = bytes.split_at(bytes.len() - 4);
        if checksum(payload) != sum {
            return Err(ReplayError::Corrupt(
                "its checksum does not match (was it truncated or edited?)".into(),
            ));
        }
        let mut r = Reader(payload);
        let mut schedule = if current {
            r.current()?
        } else {
            r.old(version)?
        };
        if version == VERSION_WITH_CONTEXT {
            let m = r.varint()? as usize;
            let mode = ContextMode::ALL.get(m).copied();
            schedule.context_mode =
                Some(mode.ok_or_else(|| ReplayError::Corrupt(format!("no context mode {m}")))?);
        }
        if !r.0.is_empty() {
            return Err(ReplayError::Corrupt("it has trailing data".into()));
        }
        Ok(schedule)
    }
}

impl Reader<'_> {
    /// The body of a token of the current format.
    fn current(&mut self) -> Result<Schedule, ReplayError> {
        let test = self.varint()? as u32;
        let steps = self.varint()?;
        let fingerprint = self.u64()?;
        let hash = self.u64()?;
        let n = self.varint()? as usize;
        let mut tags = Vec::with_capacity(n.min(self.0.len()));
        for _ in 0..n {
            tags.push(u16::from_le_bytes(
                self.bytes(2)?.try_into().expect("2 bytes"),
            ));
        }
        let n = self.varint()? as usize;
        let mut decisions = Vec::new();
        for _ in 0..n {
            let value = self.varint()? as u32;
            let count = self.varint()?;
            if count > steps.max(1 << 24) {
                return Err(ReplayError::Corrupt("a run of choices is too long".into()));
            }
            decisions.extend(std::iter::repeat_n(value, count as usize));
        }
        Ok(Schedule {
            test,
            decisions,
            steps,
            fingerprint,
            inputs: self.inputs()?,
            locations: Locations { hash, tags },
            old_format: None,
            context_mode: None,
        })
    }

    /// The body of a token of an older format: its choices and inputs, for the error.
    fn old(&mut self, version: u32) -> Result<Schedule, ReplayError> {
        let test = self.varint()? as u32;
        let steps = self.varint()?;
        let fingerprint = self.u64()?;
        let n = self.varint()? as usize;
        let mut decisions = Vec::with_capacity(n.min(self.0.len()));
        for _ in 0..n {
            decisions.push(self.varint()? as u32);
        }
        let inputs = if version == 2 {
            self.inputs()?
        } else {
            Vec::new()
        };
        Ok(Schedule {
            test,
            decisions,
            steps,
            fingerprint,
            inputs,
            locations: Locations::default(),
            old_format: Some(version),
            context_mode: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Schedule {
        Schedule {
            test: test_hash("tests::lost_update"),
            decisions: vec![1, 0, 2, 300, 0],
            steps: 17,
            fingerprint: 0xdead_beef_1234_5678,
            inputs: Vec::new(),
            locations: Locations {
                hash: 0x0123_4567_89ab_cdef,
                tags: vec![3, 700, 65_000],
            },
            old_format: None,
            context_mode: None,
        }
    }

    #[test]
    fn tokens_round_trip_with_inputs_and_locations() {
        let s = sample();
        let token = s.to_string();
        assert!(token.starts_with("symx3-"), "{token}");
        assert_eq!(token.parse::<Schedule>().unwrap(), s);
        let s = Schedule {
            inputs: vec![("amount".into(), 60), ("t1#0".into(), i128::MIN)],
            ..sample()
        };
        assert_eq!(s.to_string().parse::<Schedule>().unwrap(), s);
    }

    #[test]
    fn tokens_of_a_context_mode_carry_it_as_version_4() {
        let naive = Schedule {
            inputs: vec![("i".into(), 1)],
            context_mode: Some(ContextMode::Naive),
            ..sample()
        };
        let token = naive.to_string();
        assert!(token.starts_with("symx4-"), "{token}");
        let back = token.parse::<Schedule>().unwrap();
        assert_eq!(back, naive);
        assert_eq!(back.context_mode(), ContextMode::Naive);
        // `full` is every token's default: it writes the shorter version 3.
        let full = Schedule {
            context_mode: Some(ContextMode::Full),
            ..sample()
        };
        assert!(full.to_string().starts_with("symx3-"));
        let back = full.to_string().parse::<Schedule>().unwrap();
        assert_eq!(back.context_mode(), ContextMode::Full);
    }

    #[test]
    fn long_runs_of_one_choice_make_a_short_token() {
        let mut decisions = vec![0, 1];
        decisions.extend(std::iter::repeat_n(0, 99_990));
        decisions.extend([1, 1, 0]);
        let s = Schedule {
            decisions,
            steps: 100_000,
            ..sample()
        };
        let token = s.to_string();
        assert!(token.len() < 80, "{} characters: {token}", token.len());
        assert_eq!(token.parse::<Schedule>().unwrap(), s);
    }

    #[test]
    fn tokens_of_older_formats_decode_and_say_they_are_old() {
        // Written by symx before fingerprints left out source locations.
        let old: Schedule = "symx1-z6qt1AgCQOU8f5qlyQECAAEzcWEr".parse().unwrap();
        assert_eq!(old.old_format, Some(1));
        let message = ReplayError::OldVersion(1).to_string();
        assert!(message.contains("older symx"), "{message}");
        assert!(message.contains("run the test again"), "{message}");
    }

    #[test]
    fn damaged_tokens_are_rejected_with_the_reason() {
        let token = sample().to_string();
        let mut chars: Vec<char> = token.chars().collect();
        let last = chars.len() - 3;
        chars[last] = if chars[last] == 'A' { 'B' } else { 'A' };
        let edited: String = chars.into_iter().collect();
        assert!(
            matches!(edited.parse::<Schedule>(), Err(ReplayError::Corrupt(m)) if m.contains("checksum"))
        );
        let truncated = &token[..token.len() - 6];
        assert!(matches!(
            truncated.parse::<Schedule>(),
            Err(ReplayError::Corrupt(_))
        ));
        assert!(matches!(
            "hello".parse::<Schedule>(),
            Err(ReplayError::Corrupt(_))
        ));
        assert!(
            matches!("symx1-***".parse::<Schedule>(), Err(ReplayError::Corrupt(m)) if m.contains("base64"))
        );
        assert_eq!(
            token.replacen("symx3-", "symx9-", 1).parse::<Schedule>(),
            Err(ReplayError::UnsupportedVersion(9))
        );
    }
}
