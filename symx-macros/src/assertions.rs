//! The assertion macros: `assert!`, `assert_eq!`, `assert_ne!` and their
//! `debug_` forms met inside an instrumented body, and the function-like
//! `symx::assert!`, `symx::assert_eq!`, `symx::assert_ne!` usable anywhere.
//! Both produce the same code: the condition goes to the runtime's
//! `::symx::__private::assertion(cond, text)`, which records the assertion
//! and returns its concrete value, and a failure panics with the message the
//! standard macro would print.
//!
//! The assertion's values are rewritten by whichever visitor the caller
//! passes (the instrumenter, see the `instrument` module, which owns the
//! comparison traits' import and the function-like forms' block): this module
//! knows the assertions' syntax and code, not how an expression is
//! instrumented.
//!
//! A macro is recognised by the last segment of its path (`assert`,
//! `std::assert`, `symx::assert`, ...). Arguments that do not parse as
//! comma-separated expressions leave the macro untouched inside a body, so
//! the standard macro reports the mistake; the `symx::` forms report it
//! themselves.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::buffer::Cursor;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Attribute, Block, Expr, ExprBlock, Ident, LitStr, Macro, Path, Stmt, Token};

use crate::written_text;

/// Which assertion a macro is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Assert,
    AssertEq,
    AssertNe,
}

impl Kind {
    /// The number of values the assertion checks before its message.
    fn values(self) -> usize {
        match self {
            Kind::Assert => 1,
            Kind::AssertEq | Kind::AssertNe => 2,
        }
    }

    fn usage(self) -> &'static str {
        match self {
            Kind::Assert => {
                "`symx::assert!` needs a condition: `symx::assert!(cond)` or \
                 `symx::assert!(cond, \"message {}\", args..)`"
            }
            Kind::AssertEq => {
                "`symx::assert_eq!` needs two values: `symx::assert_eq!(left, right)` or \
                 `symx::assert_eq!(left, right, \"message {}\", args..)`"
            }
            Kind::AssertNe => {
                "`symx::assert_ne!` needs two values: `symx::assert_ne!(left, right)` or \
                 `symx::assert_ne!(left, right, \"message {}\", args..)`"
            }
        }
    }
}

/// An assertion's values (the condition, or left and right) and the
/// `format!`-style message arguments after them, if any. Each value is kept
/// both parsed, to be rewritten, and as the tokens the user wrote, for its
/// text (see `written_text`).
struct Arguments {
    values: Vec<Expr>,
    texts: Vec<TokenStream>,
    message: Vec<TokenStream>,
}

/// The assertion a macro path names, and whether it is a `debug_` form.
fn classify(path: &Path) -> Option<(Kind, bool)> {
    let name = path.segments.last()?.ident.to_string();
    let (debug, name) = match name.strip_prefix("debug_") {
        Some(rest) => (true, rest),
        None => (false, name.as_str()),
    };
    let kind = match name {
        "assert" => Kind::Assert,
        "assert_eq" => Kind::AssertEq,
        "assert_ne" => Kind::AssertNe,
        _ => return None,
    };
    Some((kind, debug))
}

fn parse_arguments(kind: Kind, tokens: TokenStream) -> syn::Result<Arguments> {
    let mut arguments = comma_separated.parse2(tokens)?;
    if arguments.len() < kind.values() {
        return Err(syn::Error::new(Span::call_site(), kind.usage()));
    }
    let message = arguments.split_off(kind.values());
    let (values, texts) = arguments.into_iter().unzip();
    let message = message.into_iter().map(|(_, tokens)| tokens).collect();
    Ok(Arguments {
        values,
        texts,
        message,
    })
}

/// `expr, expr, ..` with an optional trailing comma, each expression with
/// the original tokens it was parsed from.
fn comma_separated(input: ParseStream) -> syn::Result<Vec<(Expr, TokenStream)>> {
    let mut arguments = Vec::new();
    while !input.is_empty() {
        let start = input.cursor();
        let expr: Expr = input.parse()?;
        arguments.push((expr, tokens_between(start, input.cursor())));
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(arguments)
}

fn tokens_between(mut cursor: Cursor, end: Cursor) -> TokenStream {
    let mut tokens = TokenStream::new();
    while cursor < end {
        let Some((tree, next)) = cursor.token_tree() else {
            break;
        };
        tokens.extend([tree]);
        cursor = next;
    }
    tokens
}

/// The rewritten form of an assertion macro met in an instrumented body, or
/// `None` when `mac` is another macro or its arguments do not parse.
/// `attrs` are the macro's own attributes, kept on the replacement.
pub(crate) fn rewrite(
    mac: &Macro,
    attrs: &[Attribute],
    instrumenter: &mut dyn VisitMut,
) -> Option<Expr> {
    let (kind, debug) = classify(&mac.path)?;
    let arguments = parse_arguments(kind, mac.tokens.clone()).ok()?;
    // The span of the macro's path, as for the standard macros: a failure
    // is located at the `assert!` itself.
    let span = mac.path.span();
    let enclosing = mac.delimiter.span().join();
    let mut tokens = generate(kind, &arguments, span, enclosing, instrumenter);
    if debug {
        tokens =
            quote_spanned!(span=> if ::symx::__private::core::cfg!(debug_assertions) { #tokens });
    }
    let expr: Expr = syn::parse2(tokens).expect("a generated assertion is an expression");
    Some(with_attributes(attrs, expr))
}

/// `#[attrs] { expr }`: a block is the one expression that takes outer
/// attributes like the statement it replaces (`#[cfg(..)] assert!(..);`).
fn with_attributes(attrs: &[Attribute], expr: Expr) -> Expr {
    if attrs.is_empty() {
        return expr;
    }
    Expr::Block(ExprBlock {
        attrs: attrs.to_vec(),
        label: None,
        block: Block {
            brace_token: Default::default(),
            stmts: vec![Stmt::Expr(expr, None)],
        },
    })
}

/// The checking code of `symx::assert!` and friends, spanned at the call
/// site, its values rewritten by `instrumenter`; or why the arguments do not
/// fit the macro.
pub(crate) fn expand(
    kind: Kind,
    input: TokenStream,
    instrumenter: &mut dyn VisitMut,
) -> syn::Result<TokenStream> {
    let arguments = parse_arguments(kind, input)?;
    let span = Span::call_site();
    Ok(generate(kind, &arguments, span, span, instrumenter))
}

/// The checking code, its tokens spanned at `span`; `enclosing` covers the
/// macro's arguments in the source.
fn generate(
    kind: Kind,
    arguments: &Arguments,
    span: Span,
    enclosing: Span,
    instrumenter: &mut dyn VisitMut,
) -> TokenStream {
    let mut rewritten = arguments.values.clone();
    for value in &mut rewritten {
        instrumenter.visit_expr_mut(value);
    }
    let texts: Vec<TokenStream> = (arguments.texts.iter())
        .map(|tokens| written_text::text(tokens, enclosing, span))
        .collect();
    let message = &arguments.message;
    match kind {
        Kind::Assert => condition(&texts[0], &rewritten[0], message, span),
        Kind::AssertEq | Kind::AssertNe => {
            let texts = [&texts[0], &texts[1]];
            let rewritten = [&rewritten[0], &rewritten[1]];
            equality(kind, texts, rewritten, message, span)
        }
    }
}

/// `assert!(cond, message..)`. `text` is the condition's text, for the
/// record and the default message.
///
/// The check itself is std's `assert!` on the recorded outcome: an `if` of ours in the user's
/// span would make clippy's `collapsible_if` fire on `if a { assert!(b) }` in user code.
fn condition(text: &TokenStream, cond: &Expr, message: &[TokenStream], span: Span) -> TokenStream {
    let holds = quote_spanned!(span=> ::symx::__private::assertion(#cond, #text));
    if message.is_empty() {
        // Through "{}", because the condition's text may contain braces.
        quote_spanned! {span=>
            ::symx::__private::core::assert!(#holds, "{}", ::symx::__private::core::concat!("assertion failed: ", #text))
        }
    } else {
        quote_spanned!(span=> ::symx::__private::core::assert!(#holds, #(#message),*))
    }
}

/// `assert_eq!` / `assert_ne!`, shaped like the standard expansion: both
/// values are evaluated once, borrowed, compared through the runtime, and
/// printed with `{:?}` on failure.
fn equality(
    kind: Kind,
    texts: [&TokenStream; 2],
    values: [&Expr; 2],
    message: &[TokenStream],
    span: Span,
) -> TokenStream {
    let (op, method) = match kind {
        Kind::AssertNe => ("!=", "__symx_ne"),
        _ => ("==", "__symx_eq"),
    };
    let method = Ident::new(method, span);
    // Hygienic names: the user's message arguments may mention variables
    // called `left_val`.
    let left = Ident::new("left_val", Span::mixed_site().located_at(span));
    let right = Ident::new("right_val", Span::mixed_site().located_at(span));
    let [left_text, right_text] = texts;
    let [left_value, right_value] = values;
    let separator = LitStr::new(&format!(" {op} "), span);
    let text = quote_spanned! {span=>
        ::symx::__private::core::concat!(#left_text, #separator, #right_text)
    };
    let panic = equality_panic(op, message, &left, &right, span);
    quote_spanned! {span=>
        match (&(#left_value), &(#right_value)) {
            (#left, #right) => {
                if !::symx::__private::assertion(
                    (&&::symx::__private::Cmp(#left, #right)).#method(),
                    #text,
                ) {
                    #panic
                }
            }
        }
    }
}

/// The standard library's failure message for `assert_eq!` / `assert_ne!`
/// (`core::panicking::assert_failed`), with the user's message after a colon.
fn equality_panic(
    op: &str,
    message: &[TokenStream],
    left: &Ident,
    right: &Ident,
    span: Span,
) -> TokenStream {
    let values = "\n  left: {:?}\n right: {:?}";
    if message.is_empty() {
        let format = LitStr::new(&format!("assertion `left {op} right` failed{values}"), span);
        quote_spanned!(span=> ::symx::__private::core::panic!(#format, #left, #right))
    } else {
        let format = LitStr::new(
            &format!("assertion `left {op} right` failed: {{}}{values}"),
            span,
        );
        quote_spanned! {span=>
            ::symx::__private::core::panic!(#format, ::symx::__private::core::format_args!(#(#message),*), #left, #right)
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::{quote, ToTokens};

    use super::*;
    // The assertions are checked as the instrumenter rewrites them.
    use crate::instrument::Instrumenter;

    fn rewritten(mac: TokenStream) -> Option<String> {
        let mac: Macro = syn::parse2(mac).unwrap();
        rewrite(&mac, &[], &mut Instrumenter).map(|e| e.to_token_stream().to_string())
    }

    fn expr(tokens: TokenStream) -> String {
        syn::parse2::<Expr>(tokens)
            .unwrap()
            .to_token_stream()
            .to_string()
    }

    #[test]
    fn macros_are_recognised_by_their_last_segment() {
        let name = |path: TokenStream| classify(&syn::parse2(path).unwrap());
        assert_eq!(name(quote!(assert)), Some((Kind::Assert, false)));
        assert_eq!(name(quote!(::std::assert)), Some((Kind::Assert, false)));
        assert_eq!(name(quote!(core::assert_eq)), Some((Kind::AssertEq, false)));
        assert_eq!(name(quote!(symx::assert_ne)), Some((Kind::AssertNe, false)));
        assert_eq!(name(quote!(debug_assert)), Some((Kind::Assert, true)));
        assert_eq!(name(quote!(debug_assert_eq)), Some((Kind::AssertEq, true)));
        assert_eq!(
            name(quote!(std::debug_assert_ne)),
            Some((Kind::AssertNe, true))
        );
        assert_eq!(name(quote!(assert_matches)), None);
        assert_eq!(name(quote!(debug_print)), None);
        assert_eq!(name(quote!(println)), None);
    }

    #[test]
    fn assert_records_the_rewritten_condition_and_panics_like_std() {
        let expected = expr(quote! {
            ::symx::__private::core::assert!(
                ::symx::__private::assertion(
                    // Inside a macro call the tokens stay as generated: `& &`, not `&&`.
                    ::symx::branch(a) && ::symx::branch((& &::symx::__private::Cmp(&(x), &(1))).__symx_lt()),
                    ::symx::__private::core::stringify!(a && x < 1)
                ),
                "{}",
                ::symx::__private::core::concat!("assertion failed: ", ::symx::__private::core::stringify!(a && x < 1))
            )
        });
        assert_eq!(rewritten(quote!(assert!(a && x < 1))), Some(expected));
    }

    #[test]
    fn assert_with_a_message_passes_it_to_panic() {
        let out = rewritten(quote!(std::assert!(ok, "bad {} {}", x, y = 2,))).unwrap();
        let message = quote!(, "bad {} {}", x, y = 2).to_string();
        assert!(out.contains(&message), "{out}");
        assert!(out.starts_with(
            ":: symx :: __private :: core :: assert ! (:: symx :: __private :: assertion (ok ,"
        ));
    }

    #[test]
    fn assert_eq_matches_std_shape_and_message() {
        let out = rewritten(quote!(assert_eq!(a.len(), 2))).unwrap();
        let scrutinee = quote!(match (&(a.len()), &(2))).to_string();
        let compare = expr(quote!(
            (&&::symx::__private::Cmp(left_val, right_val)).__symx_eq()
        ));
        let text = quote!(::symx::__private::core::concat!(
            ::symx::__private::core::stringify!(a.len()),
            " == ",
            ::symx::__private::core::stringify!(2)
        ))
        .to_string();
        let panic = quote!(::symx::__private::core::panic!(
            "assertion `left == right` failed\n  left: {:?}\n right: {:?}",
            left_val,
            right_val
        ))
        .to_string();
        for part in [scrutinee, compare, text, panic] {
            assert!(out.contains(&part), "{part}\nnot in\n{out}");
        }
    }

    #[test]
    fn assert_ne_with_a_message_formats_it_after_a_colon() {
        let out = rewritten(quote!(assert_ne!(a, b, "for {}", n))).unwrap();
        assert!(out.contains("__symx_ne ()"), "{out}");
        let panic = quote!(::symx::__private::core::panic!(
            "assertion `left != right` failed: {}\n  left: {:?}\n right: {:?}",
            ::symx::__private::core::format_args!("for {}", n),
            left_val,
            right_val
        ))
        .to_string();
        assert!(out.contains(&panic), "{out}");
    }

    #[test]
    fn debug_forms_are_guarded_by_debug_assertions() {
        for mac in [
            quote!(debug_assert!(x)),
            quote!(debug_assert_eq!(x, y)),
            quote!(debug_assert_ne!(x, y)),
        ] {
            let out = rewritten(mac).unwrap();
            let guard = quote!(if ::symx::__private::core::cfg!(debug_assertions)).to_string();
            assert!(out.starts_with(&guard), "{out}");
            assert!(out.contains("assertion"), "{out}");
        }
    }

    #[test]
    fn unparsable_or_short_arguments_leave_the_macro_alone() {
        assert_eq!(rewritten(quote!(assert!())), None);
        assert_eq!(rewritten(quote!(assert_eq!(x))), None);
        assert_eq!(rewritten(quote!(assert!(x y))), None);
        assert_eq!(rewritten(quote!(println!("{}", x == y))), None);
    }
}
