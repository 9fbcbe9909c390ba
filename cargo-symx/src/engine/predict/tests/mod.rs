//! The engine's tests that need its internals: the brute-force oracle, the differential test
//! that compares the engine with it on random programs, and the scale test that times the
//! encoding's parts. The tests through the public API are `tests/engine/` (an integration
//! test of the library).

mod differential;
mod oracle;
mod scale;
