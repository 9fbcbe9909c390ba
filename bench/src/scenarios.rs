//! The catalogue: which scenarios exist, which tools (tool + exploration mode) run them, and
//! the names both go by on the command line and in the tables.
//!
//! The programs themselves are in `programs.rs`; each `scenarios_<tool>.rs` runs them.

use std::fmt;

/// One benchmark program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// `threads` threads each do `ops` `fetch_add(1, SeqCst)` on one counter. Correct.
    Counters { threads: usize, ops: usize },
    /// 3 threads each lock a `Mutex<usize>` and increment it, twice. Correct.
    MutexCounter,
    /// `n` dining philosophers, each taking the left fork then the right. Deadlocks.
    Philosophers(usize),
    /// Store buffering with `SeqCst`: both loads reading 0 is forbidden. Correct.
    StoreBuffering,
    /// Two threads do `load` then `store(v + 1)`; an increment can be lost. Bug.
    LostUpdate,
    /// 1 producer, 2 consumers, capacity-1 buffer, `if` instead of `while` around
    /// `Condvar::wait`: a woken consumer can find the buffer empty. Bug.
    BoundedBuffer,
    /// Producer → doubler → main over two channels, two messages. Correct.
    ChannelPipeline,
    /// Two threads each push a node onto a Treiber stack and pop one. Correct.
    TreiberStack,
    /// Single-producer single-consumer ring buffer of `capacity` slots, 3 values, spinning
    /// with a yield on full and empty. Correct.
    Spsc { capacity: usize },
}

/// The N×K shapes of the counter scenario (BENCHMARKS.md reports each).
const COUNTER_SHAPES: [(usize, usize); 8] = [
    (2, 1),
    (2, 2),
    (2, 3),
    (3, 1),
    (3, 2),
    (3, 3),
    (4, 1),
    (4, 2),
];

impl Scenario {
    /// Every scenario, in table order.
    pub fn all() -> Vec<Scenario> {
        let mut all: Vec<Scenario> = COUNTER_SHAPES
            .iter()
            .map(|&(threads, ops)| Scenario::Counters { threads, ops })
            .collect();
        all.extend([
            Scenario::MutexCounter,
            Scenario::StoreBuffering,
            Scenario::LostUpdate,
            Scenario::BoundedBuffer,
            Scenario::Philosophers(3),
            Scenario::Philosophers(5),
            Scenario::ChannelPipeline,
            Scenario::TreiberStack,
            Scenario::Spsc { capacity: 1 },
            Scenario::Spsc { capacity: 2 },
        ]);
        all
    }

    pub fn parse(name: &str) -> Option<Scenario> {
        Scenario::all().into_iter().find(|s| s.to_string() == name)
    }

    /// Whether the program has a bug every tool should report.
    pub fn has_bug(self) -> bool {
        matches!(
            self,
            Scenario::Philosophers(_) | Scenario::LostUpdate | Scenario::BoundedBuffer
        )
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scenario::Counters { threads, ops } => write!(f, "counters-{threads}x{ops}"),
            Scenario::MutexCounter => f.write_str("mutex-counter"),
            Scenario::Philosophers(n) => write!(f, "philosophers-{n}"),
            Scenario::StoreBuffering => f.write_str("store-buffering"),
            Scenario::LostUpdate => f.write_str("lost-update"),
            Scenario::BoundedBuffer => f.write_str("bounded-buffer"),
            Scenario::ChannelPipeline => f.write_str("channel-pipeline"),
            Scenario::TreiberStack => f.write_str("treiber-stack"),
            Scenario::Spsc { capacity } => write!(f, "spsc-{capacity}"),
        }
    }
}

/// A tool together with the way it explores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// symx with `Builder::new()` as it comes: whatever the default strategy is.
    Symx,
    /// symx as `Symx`, recording the full trace of every execution (the cost of recording).
    SymxRecord,
    /// symx with `Strategy::Dfs` (every schedule, no reduction).
    SymxDfs,
    /// symx with `Strategy::Random { seed }`.
    SymxRandom,
    /// symx with `Strategy::Pct { seed, depth: 3 }`.
    SymxPct,
    /// loom's `model::Builder` (DPOR, optional preemption bound).
    Loom,
    /// shuttle's `DfsScheduler` (the same as `check_dfs`).
    ShuttleDfs,
    /// shuttle's `RandomScheduler::new_from_seed` (the same as `check_random_with_seed`).
    ShuttleRandom,
    /// shuttle's `PctScheduler::new_from_seed` with depth 3.
    ShuttlePct,
}

/// Which crate a tool belongs to; decides which `scenarios_*` module runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Symx,
    Loom,
    Shuttle,
}

/// Priority-change depth of every PCT run (the usual choice, and shuttle's default).
pub const PCT_DEPTH: u32 = 3;

impl Tool {
    pub const ALL: [Tool; 9] = [
        Tool::Symx,
        Tool::SymxRecord,
        Tool::SymxDfs,
        Tool::SymxRandom,
        Tool::SymxPct,
        Tool::Loom,
        Tool::ShuttleDfs,
        Tool::ShuttleRandom,
        Tool::ShuttlePct,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Tool::Symx => "symx",
            Tool::SymxRecord => "symx-record",
            Tool::SymxDfs => "symx-dfs",
            Tool::SymxRandom => "symx-random",
            Tool::SymxPct => "symx-pct",
            Tool::Loom => "loom",
            Tool::ShuttleDfs => "shuttle-dfs",
            Tool::ShuttleRandom => "shuttle-random",
            Tool::ShuttlePct => "shuttle-pct",
        }
    }

    pub fn family(self) -> Family {
        match self {
            Tool::Symx | Tool::SymxRecord | Tool::SymxDfs | Tool::SymxRandom | Tool::SymxPct => {
                Family::Symx
            }
            Tool::Loom => Family::Loom,
            Tool::ShuttleDfs | Tool::ShuttleRandom | Tool::ShuttlePct => Family::Shuttle,
        }
    }

    /// Random and PCT sample schedules from a seed instead of enumerating them.
    pub fn is_sampling(self) -> bool {
        matches!(
            self,
            Tool::SymxRandom | Tool::SymxPct | Tool::ShuttleRandom | Tool::ShuttlePct
        )
    }

    pub fn parse(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Resolves a `--tools` list: a family name (`symx`, `loom`, `shuttle`) stands for all of
    /// its tools, anything else must be a tool name (`symx-dfs`, `shuttle-pct`, ...).
    pub fn parse_list(list: &str) -> Result<Vec<Tool>, String> {
        let mut tools = Vec::new();
        for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let family = match word {
                "symx" => Some(Family::Symx),
                "loom" => Some(Family::Loom),
                "shuttle" => Some(Family::Shuttle),
                _ => None,
            };
            let chosen: Vec<Tool> = match family {
                Some(fam) => Tool::ALL
                    .into_iter()
                    .filter(|t| t.family() == fam)
                    .collect(),
                None => vec![Tool::parse(word).ok_or_else(|| format!("unknown tool `{word}`"))?],
            };
            for t in chosen {
                if !tools.contains(&t) {
                    tools.push(t);
                }
            }
        }
        // Keep table order whatever order the user listed them in.
        tools.sort_by_key(|t| Tool::ALL.iter().position(|a| a == t));
        Ok(tools)
    }
}

/// Iterations a sampling tool runs: enough to find the bugs, and for correct programs the
/// fixed 1,000 of the baselines (a throughput measure, not a proof).
pub fn sampling_iterations(scenario: Scenario) -> u64 {
    if scenario.has_bug() {
        100_000
    } else {
        1_000
    }
}
