//! `symx::checkpoint!("label", captures…)`: a resume point of a program context. It
//! evaluates to its captures (one capture: its value; several: a tuple of them). What the
//! runtime does with them (nothing, or generalise the symbolic ones when a test explores
//! from `label`) is the runtime's business; this module owns the syntax and the hidden
//! trailing `; name = value, …` that `#[symx::reaching_definitions]` adds (the analysed
//! must-reach definition of a capture: a constant, or a term over other captures such as
//! `r1 = r2 + 5`, stated over their generalised values).

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, ExprLit, Ident, Lit, LitStr, Token, UnOp};

/// The parsed invocation.
struct Checkpoint {
    label: LitStr,
    captures: Vec<Expr>,
    analysed: Vec<(Ident, Expr)>,
}

impl Parse for Checkpoint {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let label: LitStr = input.parse()?;
        let mut captures = Vec::new();
        while input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            if input.is_empty() || input.peek(Token![;]) {
                break;
            }
            captures.push(input.parse()?);
        }
        let mut analysed = Vec::new();
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
            let pairs = Punctuated::<Fact, Token![,]>::parse_terminated(input)?;
            analysed = pairs.into_iter().map(|f| (f.name, f.value)).collect();
        }
        if !input.is_empty() {
            return Err(input.error("expected `,` and a capture"));
        }
        Ok(Checkpoint {
            label,
            captures,
            analysed,
        })
    }
}

struct Fact {
    name: Ident,
    value: Expr,
}

impl Parse for Fact {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        input.parse::<Token![=]>()?;
        let value = input.parse()?;
        Ok(Fact { name, value })
    }
}

/// The constant a fact's value is (`5`, `-3`), if it is one.
fn constant(e: &Expr) -> Option<i128> {
    match e {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse().ok(),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => constant(&u.expr)?.checked_neg(),
        Expr::Paren(p) => constant(&p.expr),
        _ => None,
    }
}

/// The captures a relational fact's value reads, in order of first use.
fn locals(e: &Expr) -> Vec<Ident> {
    struct Locals(Vec<Ident>);
    impl VisitMut for Locals {
        fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                if !self.0.contains(i) {
                    self.0.push(i.clone());
                }
            }
        }
    }
    let mut l = Locals(Vec::new());
    l.visit_expr_mut(&mut e.clone());
    l.0
}

/// A relational fact's value with wrapping arithmetic and its literals in the captures'
/// type (`like(&x, 5)`): the user's own `r2 + 5` did not overflow where it ran, but the
/// same sum over generalised values must not add an overflow check of its own.
fn wrapping(e: &Expr, typed_as: &Ident) -> Option<TokenStream> {
    Some(match e {
        Expr::Lit(_) | Expr::Unary(_) => {
            let v = proc_macro2::Literal::i128_unsuffixed(constant(e)?);
            quote!(::symx::__private::checkpoint::like(&#typed_as, #v))
        }
        Expr::Path(p) => p.path.get_ident()?.to_token_stream(),
        Expr::Paren(p) => wrapping(&p.expr, typed_as)?,
        Expr::Binary(b) => {
            let method = match b.op {
                BinOp::Add(_) => quote!(wrapping_add),
                BinOp::Sub(_) => quote!(wrapping_sub),
                BinOp::Mul(_) => quote!(wrapping_mul),
                _ => return None,
            };
            let (l, r) = (wrapping(&b.left, typed_as)?, wrapping(&b.right, typed_as)?);
            quote!((#l).#method(#r))
        }
        _ => return None,
    })
}

/// The statement that states capture `name`'s relational fact, given the bindings of the
/// captures (`__symx_c<k>`), or nothing when the value reads something that is not one.
fn relate(name: &str, value: &Expr, bound: &[(String, Ident)], label: &LitStr) -> TokenStream {
    let binding = |x: &str| bound.iter().find(|(n, _)| n == x).map(|(_, b)| b.clone());
    let reads = locals(value);
    let (Some(me), Some(first)) = (binding(name), reads.first()) else {
        return quote!();
    };
    let Some(lets) = (reads.iter())
        .map(|x| binding(&x.to_string()).map(|b| quote!(let #x = #b;)))
        .collect::<Option<Vec<_>>>()
    else {
        return quote!();
    };
    let Some(rhs) = wrapping(value, first) else {
        return quote!();
    };
    let text = format!("{name} == {}", value.to_token_stream()).replace(" (", "(");
    quote!((&&::symx::__private::checkpoint::Rel(&#me, { #(#lets)* #rhs })).relate(#label, #text);)
}

/// A capture's name: the local it names, or its text.
fn name_of(e: &Expr) -> String {
    match e {
        Expr::Path(p) if p.path.get_ident().is_some() => {
            p.path.get_ident().expect("an ident").to_string()
        }
        other => other.to_token_stream().to_string(),
    }
}

/// The names of the captures of an invocation's tokens (empty when they do not parse).
pub(crate) fn capture_names(tokens: &TokenStream) -> Vec<String> {
    syn::parse2::<Checkpoint>(tokens.clone())
        .map(|c| c.captures.iter().map(name_of).collect())
        .unwrap_or_default()
}

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let cp = match syn::parse2::<Checkpoint>(input) {
        Ok(cp) => cp,
        Err(e) => return e.into_compile_error(),
    };
    if cp.label.value().is_empty() {
        return syn::Error::new_spanned(&cp.label, "a checkpoint's label cannot be empty")
            .into_compile_error();
    }
    let label = &cp.label;
    let bound: Vec<(String, Ident)> = (cp.captures.iter().enumerate())
        .map(|(k, e)| (name_of(e), quote::format_ident!("__symx_c{k}")))
        .collect();
    let lets: Vec<TokenStream> = (cp.captures.iter().zip(&bound))
        .map(|(e, (name, b))| {
            let analysed = match cp.analysed.iter().find(|(n, _)| *n == name) {
                Some((_, v)) => match constant(v) {
                    Some(c) => {
                        let lit = proc_macro2::Literal::i128_unsuffixed(c);
                        quote!(::core::option::Option::Some(#lit))
                    }
                    None => quote!(::core::option::Option::None),
                },
                None => quote!(::core::option::Option::None),
            };
            quote!(let #b = (&&::symx::__private::checkpoint::Wrap::new(#e)).capture(__symx_at, #label, #name, #analysed);)
        })
        .collect();
    let relations: Vec<TokenStream> = (cp.analysed.iter())
        .filter(|(_, v)| constant(v).is_none())
        .map(|(n, v)| relate(&n.to_string(), v, &bound, label))
        .collect();
    let names: Vec<&Ident> = bound.iter().map(|(_, b)| b).collect();
    let value = match names.as_slice() {
        [] => return quote!({ ::symx::__private::checkpoint::reach(#label); }),
        [one] => quote!(#one),
        many => quote!((#(#many),*)),
    };
    quote!({
        #[allow(unused_imports)]
        use ::symx::__private::checkpoint::{RelAny as _, RelSym as _, ViaAny as _, ViaSym as _};
        let __symx_at = ::symx::__private::checkpoint::reach(#label);
        #(#lets)*
        if __symx_at {
            #(#relations)*
        }
        #value
    })
}
