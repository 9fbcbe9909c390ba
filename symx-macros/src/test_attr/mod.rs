//! `#[symx::test]`: turns a plain `fn name()` into a libtest `#[test]` whose
//! body, instrumented by the `instrument` module, is handed to the runtime's
//! explorer, with the attribute's arguments applied to a `symx::Builder`.
//! This module owns the syntax of the attribute and its compile errors; what
//! each option means is the runtime's business, reached only through
//! `::symx::Builder::__attr_<key>` and `::symx::__private::run_test`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{
    AttrStyle, Attribute, Expr, ExprLit, ExprPath, Ident, Item, ItemFn, Lit, Meta, ReturnType,
    Token, Type,
};

use crate::diagnostics::{closest, wrong_item, Errors};
use crate::instrument::instrument_function;
use crate::strategy_names::STRATEGIES;

/// The arguments `#[symx::test(..)]` accepts. Each becomes a call of the
/// runtime's `Builder::__attr_<key>(value)`, so adding one here needs the
/// matching setter in the runtime.
const KEYS: &[&str] = &[
    "preemption_bound",
    "max_executions",
    "max_steps",
    "strategy",
    "iterations",
    "seed",
    "depth",
    "spurious_wakeups",
    "leak_check",
    "stack_size",
    "time_budget_ms",
    "max_branch_depth",
    "context_mode",
    "assertion_guided",
    "context",
];

/// One accepted `key = value` argument.
struct Setting {
    key: Ident,
    value: Expr,
}

/// The attribute's expansion, or its errors followed by what [`fallback`]
/// keeps of the item.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(args, item.clone()) {
        Ok(expanded) => expanded,
        Err(error) => {
            let mut out = error.into_compile_error();
            out.extend(fallback(item));
            out
        }
    }
}

pub(crate) fn try_expand(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let settings = parse_settings(args, &mut errors);
    let function = match syn::parse2::<Item>(item)? {
        Item::Fn(function) => function,
        other => return Err(errors.ending_with(wrong_item("symx::test", "a function", &other))),
    };
    check_function(&function, &mut errors);
    errors.finish()?;
    Ok(generate(&function, &settings))
}

fn parse_settings(args: TokenStream, errors: &mut Errors) -> Vec<Setting> {
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args) {
        Ok(metas) => metas,
        Err(error) => {
            errors.push(error);
            return Vec::new();
        }
    };
    let mut settings: Vec<Setting> = Vec::new();
    for meta in metas {
        let Some(key) = meta.path().get_ident().cloned() else {
            errors.spanned(meta.path(), "expected an argument name such as `seed`");
            continue;
        };
        let name = key.to_string();
        if !KEYS.contains(&name.as_str()) {
            errors.spanned(&key, unknown_key_message(&name));
            continue;
        }
        let value = match meta {
            Meta::NameValue(pair) => pair.value,
            Meta::Path(_) => {
                errors.spanned(&key, format!("`{name}` needs a value: `{name} = ...`"));
                continue;
            }
            Meta::List(list) => {
                errors.spanned(
                    &list,
                    format!("`{name}` takes its value after `=`: `{name} = ...`"),
                );
                continue;
            }
        };
        if settings.iter().any(|s| s.key == key) {
            errors.spanned(&key, format!("`{name}` is given more than once"));
            continue;
        }
        if name == "strategy" {
            check_strategy(&value, errors);
        }
        if name == "context_mode" {
            check_context_mode(&value, errors);
        }
        settings.push(Setting { key, value });
    }
    settings
}

fn unknown_key_message(name: &str) -> String {
    let suggestion = closest(name, KEYS)
        .map(|key| format!("; did you mean `{key}`?"))
        .unwrap_or_default();
    format!(
        "unknown argument `{name}` of `#[symx::test]`{suggestion}\nthe arguments are: {}",
        KEYS.join(", ")
    )
}

/// The modes `context_mode` accepts (the runtime's `symx::context::ContextMode` names).
const CONTEXT_MODES: &[&str] = &["full", "no-rd", "no-si", "naive"];

/// Rejects a `context_mode` that is a string literal naming no mode.
fn check_context_mode(value: &Expr, errors: &mut Errors) {
    if let Expr::Lit(ExprLit {
        lit: Lit::Str(s), ..
    }) = value
    {
        if !CONTEXT_MODES.contains(&s.value().as_str()) {
            errors.spanned(
                s,
                format!(
                    "unknown context mode `{}`; the modes are {}",
                    s.value(),
                    CONTEXT_MODES.join(", ")
                ),
            );
        }
    }
}

/// Rejects strategy names the runtime cannot know. Values other than string
/// literals (a `const`, say) are left to the runtime, except a bare strategy
/// name, which is a forgotten pair of quotes rather than a constant.
fn check_strategy(value: &Expr, errors: &mut Errors) {
    let expected = STRATEGIES
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let message = match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(name),
            ..
        }) if STRATEGIES.contains(&name.value().as_str()) => return,
        Expr::Lit(ExprLit {
            lit: Lit::Str(name),
            ..
        }) => {
            let name = name.value();
            let lower = name.to_lowercase();
            if STRATEGIES.contains(&lower.as_str()) {
                format!("unknown strategy {name:?}; did you mean {lower:?}?")
            } else {
                format!("unknown strategy {name:?}; expected one of {expected}")
            }
        }
        Expr::Lit(_) => format!("the strategy is a string: one of {expected}"),
        Expr::Path(ExprPath {
            path, qself: None, ..
        }) if path
            .get_ident()
            .is_some_and(|i| STRATEGIES.contains(&i.to_string().as_str())) =>
        {
            format!(
                "the strategy is a string: write `strategy = \"{}\"`",
                path.to_token_stream()
            )
        }
        _ => return,
    };
    errors.spanned(value, message);
}

fn check_function(function: &ItemFn, errors: &mut Errors) {
    let sig = &function.sig;
    if let Some(token) = &sig.constness {
        errors.spanned(token, "a `#[symx::test]` function can't be `const`");
    }
    if let Some(token) = &sig.asyncness {
        errors.spanned(
            token,
            "a `#[symx::test]` function can't be `async`; \
             write a plain `fn` and start model threads with `symx::thread::spawn`",
        );
    }
    if let Some(token) = &sig.unsafety {
        errors.spanned(
            token,
            "a `#[symx::test]` function can't be `unsafe`; use an `unsafe` block inside it",
        );
    }
    if let Some(abi) = &sig.abi {
        errors.spanned(abi, "a `#[symx::test]` function can't have an ABI");
    }
    if !sig.generics.params.is_empty() {
        errors.spanned(&sig.generics, "a `#[symx::test]` function can't be generic");
    }
    if let Some(clause) = &sig.generics.where_clause {
        errors.spanned(
            clause,
            "a `#[symx::test]` function can't have a `where` clause",
        );
    }
    if !sig.inputs.is_empty() || sig.variadic.is_some() {
        // The span is the whole parameter list, parentheses included, so that
        // one error covers every parameter.
        errors.push(syn::Error::new(
            sig.paren_token.span.join(),
            "a `#[symx::test]` function takes no parameters",
        ));
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        if !matches!(&**ty, Type::Tuple(unit) if unit.elems.is_empty()) {
            errors.spanned(
                ty,
                "a `#[symx::test]` function returns `()`; \
                 fail the test by panicking (`assert!`, `unwrap`)",
            );
        }
    }
    for attr in &function.attrs {
        if attr.path().is_ident("test") {
            errors.spanned(
                attr,
                "`#[symx::test]` already makes this a `#[test]`; remove this attribute",
            );
        }
    }
}

fn generate(function: &ItemFn, settings: &[Setting]) -> TokenStream {
    let (inner, outer): (Vec<&Attribute>, Vec<&Attribute>) = function
        .attrs
        .iter()
        .partition(|a| matches!(a.style, AttrStyle::Inner(_)));
    let vis = &function.vis;
    let name = &function.sig.ident;
    let mut block = function.block.clone();
    instrument_function(&mut block, &function.sig);
    let setters = settings.iter().map(|Setting { key, value }| {
        // The setter carries the key's span: should the runtime lack it, the
        // error points at the argument rather than at the attribute.
        let setter = format_ident!("__attr_{}", key, span = key.span());
        quote!(.#setter(#value))
    });
    let features = crate::features::declared().into_iter().map(|f| {
        let (name, in_default) = (f.name, f.in_default);
        quote!((#name, ::symx::__private::core::cfg!(feature = #name), #in_default))
    });
    quote! {
        #(#outer)*
        #[::symx::__private::core::prelude::v1::test]
        #vis fn #name() {
            #(#inner)*
            fn __symx_body() #block
            ::symx::__private::built_with(
                ::symx::__private::core::option_env!("CARGO_MANIFEST_DIR"),
                &[#(#features),*],
            );
            ::symx::__private::run_test(
                ::symx::__private::core::concat!(::symx::__private::core::module_path!(), "::", ::symx::__private::core::stringify!(#name)),
                ::symx::Builder::new() #(#setters)*,
                __symx_body,
            );
        }
    }
}

/// What to emit besides the errors. A function comes back without any
/// `#[test]` and with dead code allowed, so the errors stay the only
/// diagnostics; another item comes back as it was, since other code may use it.
fn fallback(item: TokenStream) -> TokenStream {
    match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(mut function)) => {
            function.attrs.retain(|a| !a.path().is_ident("test"));
            quote!(#[allow(dead_code)] #function)
        }
        _ => item,
    }
}

#[cfg(test)]
mod tests;
