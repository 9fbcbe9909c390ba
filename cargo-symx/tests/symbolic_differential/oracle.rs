//! The brute force both differential tests compare an engine with: every input assignment in
//! range times every schedule (a plain DFS), every site disarmed; and the choice of programs
//! and whether this build checks overflow.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use symx::{Builder, InputValues, Strategy};

use crate::program::{self, body, FinalState, Program};

/// Brute-force executions a program may need at most (input assignments times an upper
/// bound on interleavings).
pub const MAX_RUNS: f64 = 600.0;

/// What the brute force found for one program.
pub struct BruteForce {
    /// Per input assignment in range: the sites whose condition failed in some execution,
    /// and the kind of failure its DFS stopped at, if any.
    pub per_input: BTreeMap<InputValues, (BTreeSet<usize>, Option<String>)>,
    pub sites: BTreeSet<usize>,
    pub kinds: BTreeSet<String>,
    pub finals: BTreeSet<FinalState>,
    pub executions: u64,
}

/// Every input assignment, every schedule (DFS), every site disarmed.
pub fn brute_force(p: &Arc<Program>) -> BruteForce {
    let f = body(p, &Arc::new(p.all_sites()));
    let mut out = BruteForce {
        per_input: BTreeMap::new(),
        sites: BTreeSet::new(),
        kinds: BTreeSet::new(),
        finals: BTreeSet::new(),
        executions: 0,
    };
    program::take_finals();
    program::take_soft_failures();
    for w in p.assignments() {
        let report = Builder::new()
            .strategy(Strategy::Dfs)
            .inputs(w.clone())
            .explore(&f);
        if p.family != program::Family::Awaiting {
            assert_eq!(report.discarded(), 0, "every assignment is in range");
        }
        let kind = report.failure().map(|f| f.kind().name().to_string());
        assert!(report.complete() || kind.is_some(), "{p:?}");
        let sites = program::take_soft_failures();
        out.executions += report.executions();
        out.sites.extend(sites.iter().copied());
        out.kinds.extend(kind.clone());
        out.per_input.insert(w, (sites, kind));
    }
    out.finals = program::take_finals();
    out
}

/// `SYMX_DIFF_CASES` programs (or `default`), from `SYMX_DIFF_FROM` (default 0).
pub fn cases(default: u64) -> std::ops::Range<u64> {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
    let from = var("SYMX_DIFF_FROM").unwrap_or(0);
    from..from + var("SYMX_DIFF_CASES").unwrap_or(default)
}

/// Whether `u8` overflow panics in this build: arithmetic sites fail only then (a release
/// build without `overflow-checks` draws no arithmetic sites). `overflow-checks` follows
/// `debug-assertions` unless a profile sets it apart. Not probed with a caught overflow:
/// swapping the process's panic hook for the probe, while other tests of the binary run,
/// could lose the hook symx installs to capture a model thread's panic message.
pub fn overflow_checks() -> bool {
    cfg!(debug_assertions)
}
