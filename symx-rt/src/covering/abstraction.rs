//! Input abstraction (Bergan, dissertation §3.4.2) at run time: what `#[symx::r#abstract]`
//! functions call. In a run cut into bounded epochs (input-covering enumeration and
//! constrained execution), the function's body runs *quietly* (none of its conditions is
//! recorded, so the enumeration does not explore its paths) and its result becomes a fresh
//! input `<name>@<line>#<k>.t<thread>` whose value is the one the body computed unless the
//! input assignment gives another: an uninterpreted function of its arguments, which may
//! over-approximate what the function can return (such schedules are flagged when they
//! deadlock, as havocked state is). At any other time the body simply runs.

use std::panic::Location;

use crate::rt;
use crate::sym::{Sym, SymValue};

/// Runs the body `f` of the abstracted function `name`.
#[track_caller]
pub fn call<T: SymValue>(name: &str, f: impl FnOnce() -> Sym<T>) -> Sym<T> {
    let location = Location::caller();
    let on = rt::with(|e| e.epochs.is_some()).unwrap_or(false);
    if !on {
        return f();
    }
    rt::with(|e| e.me().abstracting += 1);
    let result = f();
    let input = rt::with(|e| {
        e.me().abstracting -= 1;
        let base = format!("{name}@{}", location.line());
        let thread = e.current;
        let taken = |k: u32| {
            e.sym
                .recorded_value(&format!("{base}#{k}.t{thread}"))
                .is_some()
        };
        let k = (0..).find(|&k| !taken(k)).unwrap_or(0);
        format!("{base}#{k}.t{thread}")
    });
    match input {
        Some(input) => crate::sym::record::input_defaulting(&input, result.peek(), None, location),
        None => result,
    }
}
