//! `#[symx::r#abstract]` (the name `abstract` is a reserved keyword of Rust: attribute paths
//! spell it raw): input abstraction (Bergan, dissertation §3.4.2). A synchronization-free
//! function whose result decides synchronization, and whose own paths do not run out (a
//! search of a structure an input shapes), is treated during input-covering enumeration as
//! an uninterpreted function: its result becomes a fresh symbolic input, and the paths inside
//! it are not enumerated. At any other time the function simply runs.
//!
//! The attribute checks what it can see: a function (not a `const` or `async` one) that
//! returns a `Sym<..>` (the value that becomes the fresh input) and whose body calls no
//! synchronizing operation by name (the epoch-marker placement's list). Its body is
//! instrumented as `#[symx::instrument]` does.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Item, ReturnType, Type};

use crate::diagnostics::{wrong_item, Errors};

const ATTRIBUTE: &str = "symx::r#abstract";

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(args, item.clone()) {
        Ok(t) => t,
        Err(e) => {
            // The item stays (instrumented, so that its body type-checks as written): only
            // the misuse is reported.
            let mut out = e.into_compile_error();
            match syn::parse2::<Item>(item.clone()) {
                Ok(Item::Fn(mut f)) => {
                    crate::instrument::instrument_function(&mut f.block, &f.sig);
                    out.extend(f.into_token_stream());
                }
                _ => out.extend(item),
            }
            out
        }
    }
}

fn try_expand(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    if !args.is_empty() {
        errors.spanned(&args, format!("`#[{ATTRIBUTE}]` takes no arguments"));
    }
    let mut function = match syn::parse2::<Item>(item)? {
        Item::Fn(f) => f,
        other => return Err(errors.ending_with(wrong_item(ATTRIBUTE, "a function", &other))),
    };
    if let Some(c) = &function.sig.constness {
        errors.spanned(c, "an abstracted function cannot be `const`");
    }
    if let Some(a) = &function.sig.asyncness {
        errors.spanned(a, "an abstracted function cannot be `async`");
    }
    match &function.sig.output {
        ReturnType::Type(_, ty) if returns_sym(ty) => {}
        ReturnType::Type(_, ty) => errors.spanned(
            ty,
            "an abstracted function returns a `symx::Sym<..>`: its result is what becomes a \
             fresh input",
        ),
        ReturnType::Default => errors.spanned(
            &function.sig,
            "an abstracted function returns a `symx::Sym<..>`: its result is what becomes a \
             fresh input",
        ),
    }
    if let Some((call, name)) = crate::epochs::first_sync_call(&function.block) {
        errors.spanned(
            call,
            format!(
                "an abstracted function must be synchronization-free: `{name}` synchronizes \
                 (a loop that synchronizes is bounded by an epoch marker instead)"
            ),
        );
    }
    errors.finish()?;
    crate::instrument::instrument_function(&mut function.block, &function.sig);
    let name = function.sig.ident.to_string();
    let body = &function.block;
    let call: syn::Block = syn::parse2(quote!({
        ::symx::__private::abstraction::call(#name, move || #body)
    }))?;
    function.block = Box::new(call);
    Ok(function.into_token_stream())
}

/// `Sym<..>` under any path.
fn returns_sym(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Sym"),
        Type::Paren(p) => returns_sym(&p.elem),
        _ => false,
    }
}
