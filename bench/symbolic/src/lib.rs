//! The symbolic engine measured against the other ways of looking for a bug that needs an
//! input value and an interleaving at once (`BENCHMARKS.md`, "Symbolic exploration"):
//!
//! - [`programs`]: which input values of the measured programs fail (the programs are
//!   `symx_test_programs::symbolic`);
//! - [`measure`]: the engine in process, random and PCT over seeded inputs, exhaustive DPOR
//!   over enumerated inputs;
//! - [`rate`]: guided executions per second: one worker process each, one worker session, in
//!   process;
//! - [`e2e`]: `cargo symx test` on the same programs as `#[symx::test]`s (`tests/fixture.rs`);
//! - [`context`]: the arbitrary-context paper's Table 2.1 skeletons from a recorded context
//!   against from the program's start (only when asked for: `context`).
//!
//! The binary (`src/main.rs`) prints the tables; `run.sh` builds everything and runs it.

pub mod context;
pub mod e2e;
pub mod measure;
pub mod programs;
pub mod rate;
