//! Error reporting shared by all the attributes: collecting several
//! `syn::Error`s so that one compile reports every misuse at once, naming the
//! kind of item an attribute was wrongly put on, and suggesting the intended
//! spelling of a misspelt name. It knows nothing about what the attributes
//! mean.

use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::Item;

/// All errors found so far; empty means the input was accepted.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub(crate) fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// All the errors, when `last` makes going on pointless.
    pub(crate) fn ending_with(self, last: syn::Error) -> syn::Error {
        match self.0 {
            Some(mut all) => {
                all.combine(last);
                all
            }
            None => last,
        }
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// The error for an attribute on an item it does not apply to. The span
/// covers the item's keyword and name rather than the whole item, so that
/// rustc underlines one line instead of drawing a box around a struct body.
pub(crate) fn wrong_item(attribute: &str, expected: &str, item: &Item) -> syn::Error {
    let (what, head) = describe(item);
    syn::Error::new_spanned(
        head,
        format!("`#[{attribute}]` goes on {expected}, not on {what}"),
    )
}

fn pair(first: &impl ToTokens, second: &impl ToTokens) -> TokenStream {
    let mut tokens = first.to_token_stream();
    second.to_tokens(&mut tokens);
    tokens
}

fn describe(item: &Item) -> (&'static str, TokenStream) {
    match item {
        Item::Const(i) => ("a const", pair(&i.const_token, &i.ident)),
        Item::Enum(i) => ("an enum", pair(&i.enum_token, &i.ident)),
        Item::ExternCrate(i) => ("an `extern crate`", pair(&i.extern_token, &i.crate_token)),
        Item::Fn(i) => ("a function", pair(&i.sig.fn_token, &i.sig.ident)),
        Item::ForeignMod(i) => ("an extern block", i.abi.to_token_stream()),
        Item::Impl(i) => ("an impl block", i.impl_token.to_token_stream()),
        Item::Macro(i) => ("a macro invocation", i.mac.path.to_token_stream()),
        Item::Mod(i) => ("a module", pair(&i.mod_token, &i.ident)),
        Item::Static(i) => ("a static", pair(&i.static_token, &i.ident)),
        Item::Struct(i) => ("a struct", pair(&i.struct_token, &i.ident)),
        Item::Trait(i) => ("a trait", pair(&i.trait_token, &i.ident)),
        Item::TraitAlias(i) => ("a trait alias", pair(&i.trait_token, &i.ident)),
        Item::Type(i) => ("a type alias", pair(&i.type_token, &i.ident)),
        Item::Union(i) => ("a union", pair(&i.union_token, &i.ident)),
        Item::Use(i) => ("a `use` declaration", i.use_token.to_token_stream()),
        _ => ("this item", item.to_token_stream()),
    }
}

/// The candidate the user most likely meant by `word`, if any is close.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    // A word that is a prefix of a candidate ("preemption" for
    // "preemption_bound") is a likely truncation even though its edit
    // distance is large.
    let prefix = candidates
        .iter()
        .find(|c| word.len() >= 3 && (c.starts_with(word) || word.starts_with(**c)));
    if let Some(c) = prefix {
        return Some(c);
    }
    let limit = (word.len() / 3).max(1);
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    const KEYS: &[&str] = &["preemption_bound", "max_steps", "max_executions", "seed"];

    #[test]
    fn suggests_close_spellings_and_truncations() {
        assert_eq!(closest("sed", KEYS), Some("seed"));
        assert_eq!(closest("max_step", KEYS), Some("max_steps"));
        assert_eq!(closest("max_execution", KEYS), Some("max_executions"));
        assert_eq!(closest("preemption", KEYS), Some("preemption_bound"));
        assert_eq!(closest("bound", KEYS), None);
        assert_eq!(closest("x", KEYS), None);
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("seed", "seed"), 0);
    }

    #[test]
    fn errors_combine_in_order() {
        let mut errors = Errors::default();
        assert!(Errors::default().finish().is_ok());
        errors.spanned(quote!(a), "first");
        errors.spanned(quote!(b), "second");
        let messages: Vec<String> = errors
            .finish()
            .unwrap_err()
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(messages, ["first", "second"]);
    }
}
