//! The strategies an exploration can take ([`Strategy`]) and their stable names
//! ([`StrategyKind`]): what `#[symx::test(strategy = "..")]` accepts and `cargo symx` reports.

/// How executions are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Strategy {
    /// Optimal dynamic partial-order reduction: one execution per Mazurkiewicz trace (the
    /// default). With a preemption bound or spurious wake-ups, bounded partial-order reduction
    /// instead (Coons, Musuvathi, McKinley 2013): every trace that has a schedule within the
    /// bound is explored at least once, by a schedule within the bound.
    Dpor,
    /// Every schedule, depth-first, without reduction.
    Dfs,
    /// Independent uniformly random choices from `seed`.
    Random {
        /// The generator's seed: the same seed explores the same executions.
        seed: u64,
    },
    /// Probabilistic Concurrency Testing with bug depth `depth`.
    Pct {
        /// The generator's seed: the same seed explores the same executions.
        seed: u64,
        /// The bug depth aimed at: `depth - 1` priority change points per execution.
        depth: u32,
    },
}

impl Strategy {
    /// Which strategy this is, without its parameters.
    pub fn kind(&self) -> StrategyKind {
        match self {
            Strategy::Dpor => StrategyKind::Dpor,
            Strategy::Dfs => StrategyKind::Dfs,
            Strategy::Random { .. } => StrategyKind::Random,
            Strategy::Pct { .. } => StrategyKind::Pct,
        }
    }
}

/// A [`Strategy`] without its parameters, by its stable name: `dpor`, `dfs`, `random`, `pct`.
/// These are the names `#[symx::test(strategy = "..")]` accepts and `cargo symx` reports.
///
/// ```
/// use symx::StrategyKind;
///
/// assert_eq!(StrategyKind::Pct.name(), "pct");
/// assert_eq!("dfs".parse::<StrategyKind>(), Ok(StrategyKind::Dfs));
/// assert!("bfs".parse::<StrategyKind>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StrategyKind {
    /// [`Strategy::Dpor`].
    Dpor,
    /// [`Strategy::Dfs`].
    Dfs,
    /// [`Strategy::Random`].
    Random,
    /// [`Strategy::Pct`].
    Pct,
}

impl StrategyKind {
    /// Every kind, in the order of the enum.
    pub const ALL: [StrategyKind; 4] = [
        StrategyKind::Dpor,
        StrategyKind::Dfs,
        StrategyKind::Random,
        StrategyKind::Pct,
    ];

    /// The names in the order of [`StrategyKind::ALL`]: the macros' list, the one
    /// `#[symx::test]` checks its argument against (the macros cannot depend on this crate).
    const NAMES: [&'static str; 4] = symx_macros::__strategy_names!();

    /// The kind's stable name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The strategy with its default parameters (seed 0; PCT with bug depth 3).
    pub(crate) fn default_strategy(self) -> Strategy {
        match self {
            StrategyKind::Dpor => Strategy::Dpor,
            StrategyKind::Dfs => Strategy::Dfs,
            StrategyKind::Random => Strategy::Random { seed: 0 },
            StrategyKind::Pct => Strategy::Pct { seed: 0, depth: 3 },
        }
    }
}

impl std::str::FromStr for StrategyKind {
    type Err = crate::names::UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::names::parse(&Self::ALL, Self::name, "strategy", s)
    }
}

impl std::fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
