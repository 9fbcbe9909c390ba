//! Test programs that more than one crate's tests run, written once: the figures of the papers
//! symx implements, classic concurrency bugs, and the deterministic generator randomized tests
//! draw from. symx-rt's tests, cargo-symx's tests and the bench depend on this crate; a program
//! that only one test file runs stays in that file.
//!
//! - [`annotated`]: hand-written locks annotated for symx (a guard-based spin mutex, correct
//!   or check-then-set, and a reader-writer spin lock), and programs that run on them and on
//!   `symx::sync`'s locks alike;
//! - [`wang`]: the figures of Wang et al., "Symbolic Predictive Analysis for Concurrent
//!   Programs";
//! - [`guided`]: the figures of Guo et al., "Assertion Guided Symbolic Execution of
//!   Multithreaded Programs", and the soundness pitfalls of its algorithm;
//! - [`classic`]: lost updates and a bounded buffer that waits with `if`;
//! - [`rng`]: SplitMix64, the same draws on every machine;
//! - [`svcomp`]: the SV-COMP and concurrency-benchmark programs of Guo et al.'s Table 2;
//! - [`symbolic`]: bugs that need an input value and an interleaving at once;
//! - [`covering`]: the input-covering-schedules acceptance programs;
//! - [`contexts`]: the arbitrary-context paper's Table 2.1 skeletons, whole, with a checkpoint
//!   in their core loop and a bug seeded there, and a two-worker lock program
//!   (`two_phases`) whose context holds synchronization state only;
//! - [`observe`](mod@observe): the run a predictive test starts from, forced along a schedule.
//!
//! Every program is written against the modelled std (`symx::sync`, `symx::thread`): it runs
//! under a `symx::Builder`, never on its own. The source locations a program's trace records
//! are in this crate's files, so moving a program changes the traces golden tests keep.

pub mod annotated;
pub mod classic;
pub mod contexts;
pub mod covering;
pub mod guided;
pub mod observe;
pub mod rng;
pub mod svcomp;
pub mod symbolic;
pub mod wang;

pub use observe::observe;
