//! The names of the exploration strategies, in one list: `#[symx::test]` checks its
//! `strategy` argument against it, and the runtime's `symx::StrategyKind` takes its names from
//! it through the hidden `__strategy_names!()`. The list lives here because the runtime
//! depends on this crate, not the other way around.

use proc_macro2::TokenStream;
use quote::quote;

/// The strategy names, in the order of `symx::StrategyKind`'s variants.
pub(crate) const STRATEGIES: [&str; 4] = ["dpor", "dfs", "random", "pct"];

/// `["dpor", "dfs", "random", "pct"]`: the list as an array expression.
pub(crate) fn expand() -> TokenStream {
    let names = STRATEGIES;
    quote!([#(#names),*])
}
