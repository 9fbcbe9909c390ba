//! Exploring the Table 2.1 skeletons from a recorded context against exploring them from the
//! program's start, to the same branch depth: the alternative a user has without contexts is
//! the symbolic search with DPOR from `main`. Each program has a bug seeded at the last item of
//! a worker's core loop; the context (the checkpoint at the top of that item) runs everything
//! before it once.

use cargo_symx::engine::context::{self, ContextResult};
use cargo_symx::engine::symbolic::Options;
use cargo_symx::engine::InProcess;
use symx_test_programs::contexts;

/// Explores `program` at `items` per worker to `depth` symbolic conditions and at most
/// `executions` executions, from the checkpoint `core` or from the start.
pub fn explore(
    program: fn(u32),
    items: u32,
    depth: u32,
    executions: u64,
    from_context: bool,
) -> ContextResult {
    let builder = symx::Builder::new()
        .context(from_context.then_some("core"))
        .keep_going(true);
    let mut exec = InProcess::new(builder, move || program(items));
    let opts = Options {
        max_branch_depth: Some(depth),
        max_executions: Some(executions),
        ..Options::default()
    };
    context::explore(&mut exec, &opts)
}

/// Whether the seeded bug was among the confirmed failures.
pub fn found(out: &ContextResult) -> bool {
    (out.failures.iter()).any(|f| f.message.contains("seeded bug") && f.confirmed())
}

#[test]
fn from_the_context_the_seeded_bug_is_found_within_a_depth_the_start_does_not_reach() {
    for (name, program) in contexts::all() {
        // The task queue and the pipeline have thousands of schedules from the start: CI
        // stops them at 300 executions (the table runs them further).
        let ctx = explore(program, 2, 2, 300, true);
        let start = explore(program, 2, 2, 300, false);
        assert!(found(&ctx), "{name}: from the context {ctx:#?}");
        assert!(!found(&start), "{name}: from the start {start:#?}");
        assert!(ctx.recorded.is_some(), "{name}");
        assert!(
            ctx.paths < start.paths,
            "{name}: {} {}",
            ctx.paths,
            start.paths
        );
    }
}

/// The comparison `BENCHMARKS.md` gives (`cargo test -p cargo-symx --test context
/// from_start_table -- --ignored --nocapture`; one run, debug build).
#[test]
#[ignore = "prints the comparison for BENCHMARKS.md"]
fn from_start_table() {
    println!(
        "| program | items | depth | from | paths | executions | seconds | seeded bug | complete |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (name, program) in contexts::all() {
        for (items, depth) in [(2, 2), (3, 2)] {
            for from_context in [true, false] {
                let out = explore(program, items, depth, 2000, from_context);
                let stopped = (out.search.incomplete.iter()).any(|w| w.contains("max_executions"));
                println!(
                    "| {name} | {items} | {depth} | {} | {} | {} | {:.2} | {} | {} |",
                    if from_context { "context" } else { "start" },
                    out.paths,
                    out.search.executions,
                    out.search.seconds,
                    if found(&out) { "found" } else { "not found" },
                    if stopped {
                        "stopped at 2000 executions"
                    } else {
                        "to the depth"
                    }
                );
            }
        }
    }
}
