//! loom 0.7's API over symx: a crate whose loom tests say `loom::model`, `loom::sync::Arc`,
//! `loom::thread::spawn`, ... runs them under symx when its `loom` dependency is this package
//! (named `loom`, version 0.7.2, the loom API it covers):
//!
//! ```toml
//! [target.'cfg(loom)'.dev-dependencies]
//! loom = { path = "../symx/symx-loom" }
//!
//! # Or, to replace loom in dependencies that use it too:
//! [patch.crates-io]
//! loom = { path = "../symx/symx-loom" }
//! ```
//!
//! Everything here is `symx::loom` (see its documentation for how each loom item maps onto
//! symx); this crate only gives it the crate name `loom`.

pub use symx::loom::*;
