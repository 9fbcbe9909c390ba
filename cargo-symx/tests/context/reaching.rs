//! Reaching definitions through the call string (the paper's `main → foo(41), foo(42),
//! bar(5)` example): exploring from the checkpoint inside `bar` with `r2` generalised, the
//! analysed must-reach definition `r2 == 5` removes the false panic.

use cargo_symx::engine::context::{self, ContextResult};
use cargo_symx::engine::symbolic::Options;
use cargo_symx::engine::InProcess;
use symx::context::ContextMode;
use symx::Builder;

#[symx::reaching_definitions]
mod program {
    use symx::sync::Mutex;
    use symx::Sym;

    pub fn main_like() {
        foo(41);
        foo(42);
        bar(5.into());
    }

    fn foo(x: i64) -> i64 {
        let y = x + 1;
        y * 2
    }

    fn bar(r2: Sym<i64>) {
        let m = Mutex::new(());
        let _g = m.lock().unwrap();
        let r2 = symx::checkpoint!("ctx", r2);
        if symx::branch(r2.sym_ne(5i64)) {
            panic!("unreachable");
        }
    }
}

fn at_ctx() {
    program::main_like()
}

/// Explores `program` from the checkpoint `label` in `mode`, past every failure.
fn explore(label: &'static str, program: fn(), mode: ContextMode) -> ContextResult {
    let builder = Builder::new()
        .context(Some(label))
        .context_mode(mode)
        .keep_going(true);
    let mut exec = InProcess::new(builder, program);
    context::explore(&mut exec, &Options::default())
}

/// The paper's `eval` folding `r1 ← r2 + 5` into a relation between two captures: at the
/// checkpoint both are generalised, and the analysed fact `r1 == r2 + 5` is what keeps the
/// check on their difference from being a false positive.
#[symx::reaching_definitions]
mod relational {
    use symx::Sym;

    pub fn main_like() {
        let input: Sym<u32> = symx::any_named("input");
        symx::assume(input.sym_lt(100u32));
        worker(input);
    }

    fn worker(r2: Sym<u32>) {
        let r1 = r2 + 5;
        let doubled = r1 * 2;
        let (r1, r2, doubled) = symx::checkpoint!("rel", r1, r2, doubled);
        // Generalised, r2 may be any u32 (the prefix's `input < 100` is not a fact here):
        // the checks wrap, as the facts do.
        if symx::branch(r1.sym_ne(r2.wrapping_add(5u32))) {
            panic!("r1 is not r2 + 5");
        }
        if symx::branch(doubled.sym_ne(r2.wrapping_mul(2u32).wrapping_add(10u32))) {
            panic!("doubled is not 2 r2 + 10");
        }
    }
}

#[test]
fn a_definition_over_another_capture_is_a_relational_fact() {
    let full = explore("rel", relational::main_like, ContextMode::Full);
    assert_eq!(full.failures.len(), 0, "{full:#?}");
    let texts: Vec<String> = (full.search.findings.iter())
        .map(|f| f.failure.message.clone())
        .collect();
    assert!(texts.is_empty(), "{texts:?}");
    let no_rd = explore("rel", relational::main_like, ContextMode::NoRd);
    assert_eq!(no_rd.failures_of("panic"), 2, "{no_rd:#?}");
    let facts: Vec<&str> = (no_rd.failures.iter())
        .flat_map(|f| &f.facts)
        .map(|u| u.fact.text.as_str())
        .collect();
    assert!(facts.is_empty(), "{facts:?}");
}

#[test]
fn full_knows_r2_is_5_so_nothing_panics() {
    let out = explore("ctx", at_ctx, ContextMode::Full);
    assert_eq!(out.failures.len(), 0, "{out:#?}");
    assert_eq!(out.search.sides_feasible, 1, "{out:#?}");
}

#[test]
fn without_reaching_definitions_the_panic_is_a_false_positive() {
    for mode in [ContextMode::NoRd, ContextMode::Naive] {
        let out = explore("ctx", at_ctx, mode);
        assert_eq!(out.failures_of("panic"), 1, "{mode}: {out:#?}");
        assert_eq!(out.search.sides_feasible, 2, "{mode}: {out:#?}");
    }
}

#[test]
fn the_checkpoint_passes_values_through_when_not_explored_from() {
    let report = Builder::new().check(at_ctx);
    assert!(report.failure().is_none());
    assert_eq!(report.executions(), 1);
}

/// A checkpoint inside a core loop: what holds at every head of the loop (here `stride` and
/// `limit`, which no pass changes) reaches it, so the check on them is no false positive.
#[symx::reaching_definitions]
mod core_loop {
    use symx::Sym;

    pub fn main_like() {
        worker(3);
    }

    fn worker(rounds: u32) {
        let stride = Sym::from(4u32);
        let limit = Sym::from(8u32);
        let mut done = 0;
        while done < rounds {
            let (stride, limit) = symx::checkpoint!("core", stride, limit);
            if symx::branch(stride.sym_gt(limit)) {
                panic!("a stride past the limit");
            }
            done += 1;
        }
    }
}

#[test]
fn a_checkpoint_in_a_core_loop_gets_the_loops_invariant() {
    let full = explore("core", core_loop::main_like, ContextMode::Full);
    assert_eq!(full.failures.len(), 0, "{full:#?}");
    let no_rd = explore("core", core_loop::main_like, ContextMode::NoRd);
    assert_eq!(no_rd.failures_of("panic"), 1, "{no_rd:#?}");
}
