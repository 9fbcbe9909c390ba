//! loom's `explore`, `stop_exploring` and `skip_branch`: where loom lets a test narrow its
//! exploration by hand. symx explores every execution anyway (partial-order reduction keeps
//! the count down, and narrowing by hand would make a PASS claim less than it says), so
//! `explore`/`stop_exploring` are accepted and named once; `skip_branch` abandons the current
//! execution, as loom's does, without a failure.

use super::model::name_once;

/// loom: start exploring from here. symx explores from the start, so this changes nothing.
pub fn explore() {
    name_once(
        8,
        "loom::explore() is accepted: symx explores every execution from the start",
    );
}

/// loom: stop exploring new interleavings from here. symx keeps exploring them all (a superset
/// of loom's executions), so a test passes or fails as it would with the whole space.
pub fn stop_exploring() {
    name_once(
        9,
        "loom::stop_exploring() is accepted: symx keeps exploring every interleaving",
    );
}

/// Abandons the current execution without a failure: what follows in it does not count (the
/// calling thread stops; see `symx::assume`).
#[track_caller]
pub fn skip_branch() {
    crate::rt::switch::discard("loom::skip_branch", false);
}
