//! The z3-backed engines, one folder each. An engine reads what executions of a test recorded
//! (traces, `symx::trace`), asks the solver (`crate::solver`) about executions that were not
//! run, and has every answer run as a guided execution before anything is reported: it never
//! runs the program itself. Its caller (`crate::run::engines`, or a test in process) passes
//! the executor.
//!
//! - `predict`: symbolic predictive analysis of one recorded trace (Wang et al., "Symbolic
//!   Predictive Analysis for Concurrent Programs").

pub mod predict;
