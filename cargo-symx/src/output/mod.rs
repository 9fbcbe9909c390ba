//! Report formats: `human` (the default, for people), and `json`, `junit`, `sarif` for
//! machines; each is rendered from the same [`Outcome`](crate::outcome::Outcome) records.

pub mod human;
pub mod json;
pub mod junit;
mod predicted;
pub mod sarif;
mod table;
