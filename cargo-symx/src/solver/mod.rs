//! What every engine shares, below all of them: the concurrent trace program of a recorded
//! trace (`ctp`), the trace's expression DAG as z3 bit-vectors (`dag`), the path condition of
//! one execution (`path`), the incremental solver with its statistics and counterexample
//! cache (`smt`), models read back as input values (`model`), and what a guided execution
//! showed when it was run (`replayed`). Nothing here knows a particular engine or property.

pub mod ctp;
pub mod dag;
pub mod model;
pub mod path;
pub mod replayed;
pub mod smt;
