//! Parsing the stable machine-readable names back: [`StrategyKind`](crate::StrategyKind),
//! [`StopReason`](crate::StopReason) and [`FailureKind`](crate::FailureKind) each list their
//! values (`ALL`) and name them (`name()`) where they are defined; `FromStr` finds a name in
//! that list, and [`UnknownName`] says what was expected when it is not there.

use std::fmt;

/// A name that is not one of an enum's stable names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    what: &'static str,
    name: String,
    expected: Vec<&'static str>,
}

impl UnknownName {
    /// The name that was not recognised.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The names that would have been.
    pub fn expected(&self) -> &[&'static str] {
        &self.expected
    }
}

impl fmt::Display for UnknownName {
    /// For example: unknown strategy `bfs` (expected dpor, dfs, random or pct).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}` (expected ", self.what, self.name)?;
        for (i, name) in self.expected.iter().enumerate() {
            match i {
                0 => {}
                _ if i + 1 == self.expected.len() => f.write_str(" or ")?,
                _ => f.write_str(", ")?,
            }
            f.write_str(name)?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownName {}

/// The value of `all` whose name is `s`; `what` names the enum in the error ("strategy").
pub(crate) fn parse<T: Copy>(
    all: &[T],
    name: impl Fn(T) -> &'static str,
    what: &'static str,
    s: &str,
) -> Result<T, UnknownName> {
    all.iter()
        .copied()
        .find(|&v| name(v) == s)
        .ok_or_else(|| UnknownName {
            what,
            name: s.to_string(),
            expected: all.iter().map(|&v| name(v)).collect(),
        })
}

#[cfg(test)]
mod tests {
    use crate::{FailureKind, StopReason, StrategyKind};

    #[test]
    fn the_names_on_the_wire_stay_as_they_are_and_parse_back() {
        let strategies = StrategyKind::ALL.map(StrategyKind::name);
        assert_eq!(strategies, ["dpor", "dfs", "random", "pct"]);
        let stops = StopReason::ALL.map(StopReason::name);
        assert_eq!(
            stops,
            [
                "exhausted",
                "failure",
                "max_executions",
                "time_budget",
                "interrupted"
            ]
        );
        for k in StrategyKind::ALL {
            assert_eq!(k.name().parse(), Ok(k));
        }
        for r in StopReason::ALL {
            assert_eq!(r.name().parse(), Ok(r));
        }
        for k in FailureKind::ALL {
            assert_eq!(k.name().parse(), Ok(k));
        }
        assert_eq!(
            crate::Strategy::Pct { seed: 1, depth: 2 }.kind(),
            StrategyKind::Pct
        );
    }

    #[test]
    fn an_unknown_name_says_what_was_expected() {
        let err = "bfs".parse::<StrategyKind>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown strategy `bfs` (expected dpor, dfs, random or pct)"
        );
        assert_eq!(err.name(), "bfs");
        let err = "Exhausted".parse::<StopReason>().unwrap_err();
        assert_eq!(err.expected().len(), StopReason::ALL.len());
    }
}
