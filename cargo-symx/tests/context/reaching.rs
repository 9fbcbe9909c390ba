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

fn explore_from_ctx(mode: ContextMode) -> ContextResult {
    let builder = Builder::new()
        .context(Some("ctx"))
        .context_mode(mode)
        .keep_going(true);
    let mut exec = InProcess::new(builder, at_ctx);
    context::explore(&mut exec, &Options::default())
}

#[test]
fn full_knows_r2_is_5_so_nothing_panics() {
    let out = explore_from_ctx(ContextMode::Full);
    assert_eq!(out.failures.len(), 0, "{out:#?}");
    assert_eq!(out.search.sides_feasible, 1, "{out:#?}");
}

#[test]
fn without_reaching_definitions_the_panic_is_a_false_positive() {
    for mode in [ContextMode::NoRd, ContextMode::Naive] {
        let out = explore_from_ctx(mode);
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
