//! The text of an assertion's values as the user wrote them, for the failure
//! message (`assertion failed: <text>`) and the recorded assertion.
//!
//! `stringify!` on tokens that went through a proc macro spaces some of them
//! unlike the source and unlike std's own `assert!` (`! (b)`, `x : 1`), so the
//! text is cut from the source when rustc can give it: the enclosing macro's
//! source text is searched for each token's text in order. Anything else (no
//! source text, a condition over several lines, comments in it) falls back to
//! `stringify!`.

use proc_macro2::{Span, TokenStream};
use quote::{quote_spanned, ToTokens};
use syn::LitStr;

/// An expression producing the `&'static str` text of `tokens`, which lie in
/// the source covered by `enclosing` (the macro's delimiters or call).
pub(crate) fn text(tokens: &TokenStream, enclosing: Span, span: Span) -> TokenStream {
    match source_text(tokens, enclosing) {
        Some(text) => LitStr::new(&text, span).into_token_stream(),
        None => quote_spanned!(span=> ::symx::__private::core::stringify!(#tokens)),
    }
}

fn source_text(tokens: &TokenStream, enclosing: Span) -> Option<String> {
    let source = enclosing.source_text()?;
    // From the arguments' opening delimiter on: a call's text starts with
    // the macro's path, where the first piece could be found by mistake.
    let source = &source[source.find(['(', '[', '{'])?..];
    let pieces: Vec<String> = tokens
        .clone()
        .into_iter()
        .map(|tree| tree.span().source_text())
        .collect::<Option<_>>()?;
    let text = locate(source, &pieces)?;
    let plain = |s: &str| s.split_whitespace().collect::<String>();
    // Equal up to whitespace: nothing but whitespace (no comment, no
    // unrelated text a wrong span would bring) lies between the pieces.
    let consistent = plain(text) == plain(&pieces.concat());
    (consistent && !text.contains('\n')).then(|| text.to_string())
}

/// The part of `source` from the first piece's start to the last piece's
/// end, each piece found after the one before.
fn locate<'a>(source: &'a str, pieces: &[String]) -> Option<&'a str> {
    let mut start = None;
    let mut end = 0;
    for piece in pieces {
        let at = end + source[end..].find(piece.as_str())?;
        start.get_or_insert(at);
        end = at + piece.len();
    }
    Some(&source[start?..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn locate_cuts_from_the_first_piece_to_the_last() {
        let source = "(!(b > 100) && x.len() == 1, \"msg\")";
        let found = locate(
            source,
            &pieces(&["!", "(b > 100)", "&&", "x", ".", "len", "()"]),
        );
        assert_eq!(found, Some("!(b > 100) && x.len()"));
        assert_eq!(locate(source, &pieces(&["missing"])), None);
        assert_eq!(locate(source, &[]), None);
    }

    #[test]
    fn without_source_text_the_fallback_is_stringify() {
        // Outside a compiler run, spans have no source text.
        let tokens: TokenStream = "a == b".parse().unwrap();
        let out = text(&tokens, Span::call_site(), Span::call_site()).to_string();
        assert_eq!(out, ":: symx :: __private :: core :: stringify ! (a == b)");
    }
}
