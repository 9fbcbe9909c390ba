//! The Table 2.1 skeletons (`symx_test_programs::contexts`) explored from their recorded
//! context (the checkpoint `core` in the workers' core loop) and from the program's start, at
//! bench scale: more items per worker than CI's 2, to a branch-depth bound (the paper's `br`)
//! and an execution budget. Each program has a bug seeded at one worker's last item.

use std::time::Instant;

use cargo_symx::engine::context::{self, ContextResult};
use cargo_symx::engine::symbolic::Options;
use cargo_symx::engine::InProcess;
use symx_test_programs::contexts::Program;

/// One exploration.
pub struct Row {
    pub paths: u64,
    pub executions: u64,
    pub seconds: f64,
    pub solver_share: f64,
    /// The seeded bug was found and confirmed (a run of the program).
    pub found: bool,
    /// The execution budget stopped it before the depth bound did.
    pub stopped: bool,
}

/// Explores `program` with `items` per worker to `depth` conditions and `budget` executions.
pub fn measure(program: Program, items: u32, depth: u32, budget: u64, from_context: bool) -> Row {
    let builder = symx::Builder::new()
        .context(from_context.then_some("core"))
        .keep_going(true);
    let mut exec = InProcess::new(builder, move || program(items));
    let opts = Options {
        max_branch_depth: Some(depth),
        max_executions: Some(budget),
        ..Options::default()
    };
    let start = Instant::now();
    let out: ContextResult = context::explore(&mut exec, &opts);
    Row {
        paths: out.paths,
        executions: out.search.executions,
        seconds: start.elapsed().as_secs_f64(),
        solver_share: out.solver_share(),
        found: (out.failures.iter()).any(|f| f.message.contains("seeded bug") && f.confirmed()),
        stopped: (out.search.incomplete.iter()).any(|w| w.contains("max_executions")),
    }
}
