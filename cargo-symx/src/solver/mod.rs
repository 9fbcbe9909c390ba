//! What every engine shares, below all of them: the concurrent trace program of a recorded
//! trace (`ctp`), the trace's expression DAG as z3 bit-vectors (`dag`), and what a guided
//! execution showed when it was run (`replayed`). Nothing here knows a particular engine or
//! property.

pub mod ctp;
pub mod dag;
pub mod replayed;
