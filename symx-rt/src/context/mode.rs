//! The four initial states of a context, as the paper's evaluation names them: `full` (every
//! fact), `no-rd` (no value facts: "-RD"), `no-si` (no synchronization invariants: "-SI") and
//! `naive` (neither: "N").

use std::fmt;
use std::str::FromStr;

/// Which facts of a context hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ContextMode {
    /// Value facts and synchronization invariants.
    #[default]
    Full,
    /// Synchronization invariants only.
    NoRd,
    /// Value facts only.
    NoSi,
    /// No facts: every unknown value and all synchronization state unconstrained.
    Naive,
}

impl ContextMode {
    /// Every mode, in the order reports list them.
    pub const ALL: [ContextMode; 4] = [
        ContextMode::Full,
        ContextMode::NoRd,
        ContextMode::NoSi,
        ContextMode::Naive,
    ];

    /// The name used by the attribute, the configuration and the flag.
    pub fn name(self) -> &'static str {
        match self {
            ContextMode::Full => "full",
            ContextMode::NoRd => "no-rd",
            ContextMode::NoSi => "no-si",
            ContextMode::Naive => "naive",
        }
    }

    /// Whether facts of `family` hold in this mode.
    pub fn keeps(self, family: FactFamily) -> bool {
        match family {
            FactFamily::Value => matches!(self, ContextMode::Full | ContextMode::NoSi),
            FactFamily::Sync => matches!(self, ContextMode::Full | ContextMode::NoRd),
        }
    }
}

impl fmt::Display for ContextMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ContextMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        ContextMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                format!("unknown context mode `{s}`; the modes are full, no-rd, no-si, naive")
            })
    }
}

/// What a fact constrains, which is what the context modes drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FactFamily {
    /// What a value must be at the context (the paper's reaching definitions, "RD").
    Value,
    /// Who holds a lock, how many wait, what a barrier expects, which iterations match (the
    /// paper's synchronization invariants, "SI").
    Sync,
}

impl FactFamily {
    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            FactFamily::Value => "value",
            FactFamily::Sync => "sync",
        }
    }
}
