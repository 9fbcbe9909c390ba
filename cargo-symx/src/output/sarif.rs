//! `--format sarif`.
use crate::outcome::Outcome;
pub fn render(_outcomes: &[Outcome]) -> Result<String, String> {
    Err("todo".into())
}
