//! `symx::checkpoint!("label", captures…)`: a resume point of a program context. It
//! evaluates to its captures (one capture: its value; several: a tuple of them). What the
//! runtime does with them (nothing, or generalise the symbolic ones when a test explores
//! from `label`) is the runtime's business; this module owns the syntax and the hidden
//! trailing `; name = value, …` that `#[symx::reaching_definitions]` adds (the analysed
//! must-reach definition of a capture).

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, LitInt, LitStr, Token};

/// The parsed invocation.
struct Checkpoint {
    label: LitStr,
    captures: Vec<Expr>,
    analysed: Vec<(Ident, LitInt)>,
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
    value: LitInt,
}

impl Parse for Fact {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        input.parse::<Token![=]>()?;
        let negative = input.parse::<Option<Token![-]>>()?.is_some();
        let mut value: LitInt = input.parse()?;
        if negative {
            value = LitInt::new(&format!("-{}", value.base10_digits()), value.span());
        }
        Ok(Fact { name, value })
    }
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
    let values: Vec<TokenStream> = cp
        .captures
        .iter()
        .map(|e| {
            let name = name_of(e);
            let analysed = match cp.analysed.iter().find(|(n, _)| *n == name) {
                Some((_, v)) => quote!(::core::option::Option::Some(#v)),
                None => quote!(::core::option::Option::None),
            };
            quote!((&&::symx::__private::checkpoint::Wrap::new(#e)).capture(__symx_at, #label, #name, #analysed))
        })
        .collect();
    let value = match values.as_slice() {
        [] => return quote!({ ::symx::__private::checkpoint::reach(#label); }),
        [one] => one.clone(),
        many => quote!((#(#many),*)),
    };
    quote!({
        #[allow(unused_imports)]
        use ::symx::__private::checkpoint::{ViaAny as _, ViaSym as _};
        let __symx_at = ::symx::__private::checkpoint::reach(#label);
        #value
    })
}
