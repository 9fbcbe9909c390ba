//! `#[symx::instrument]`: applies the body rewriter of the `instrument`
//! module to one function, or to every method of an `impl` block (trait
//! impls included). This module owns where the attribute may go and its
//! compile errors; what is rewritten inside a body is `instrument`'s.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, ImplItem, Item, ItemFn, ItemImpl, TraitItemFn};

use crate::diagnostics::{wrong_item, Errors};
use crate::instrument::instrument_function;

const ATTRIBUTE: &str = "symx::instrument";

/// The instrumented item, or the errors followed by the item unchanged: code
/// elsewhere calls it, and losing it would bury the real error.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(args, item.clone()) {
        Ok(expanded) => expanded,
        Err(error) => {
            let mut out = error.into_compile_error();
            out.extend(item);
            out
        }
    }
}

pub(crate) fn try_expand(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    if !args.is_empty() {
        errors.spanned(args, format!("`#[{ATTRIBUTE}]` takes no arguments"));
    }
    match syn::parse2::<Item>(item)? {
        Item::Fn(mut function) => {
            check_not_const(&function, &mut errors);
            errors.finish()?;
            instrument_function(&mut function.block, &function.sig);
            Ok(function.into_token_stream())
        }
        Item::Impl(mut block) => {
            errors.finish()?;
            instrument_impl(&mut block);
            Ok(block.into_token_stream())
        }
        // A trait method without a default body parses as verbatim.
        Item::Verbatim(tokens) => Err(errors.ending_with(bodiless(tokens))),
        other => Err(errors.ending_with(wrong_item(
            ATTRIBUTE,
            "a function or an `impl` block",
            &other,
        ))),
    }
}

fn bodiless(tokens: TokenStream) -> syn::Error {
    match syn::parse2::<TraitItemFn>(tokens.clone()) {
        Ok(declaration) => syn::Error::new_spanned(
            &declaration.sig,
            format!("`#[{ATTRIBUTE}]` needs a body to rewrite; put it on the implementations"),
        ),
        Err(_) => syn::Error::new_spanned(
            tokens,
            format!("`#[{ATTRIBUTE}]` goes on a function or an `impl` block"),
        ),
    }
}

/// A `const fn` body must stay evaluable at compile time, which calls into
/// the runtime are not.
fn check_not_const(function: &ItemFn, errors: &mut Errors) {
    if let Some(token) = &function.sig.constness {
        errors.spanned(
            token,
            format!(
                "`#[{ATTRIBUTE}]` can't be put on a `const fn`: \
                 its body must stay evaluable at compile time"
            ),
        );
    }
}

/// Every method body of the block, except `const fn`s (see
/// [`check_not_const`]) and methods that carry `#[symx::instrument]`
/// themselves, which their own attribute rewrites.
fn instrument_impl(block: &mut ItemImpl) {
    for item in &mut block.items {
        if let ImplItem::Fn(method) = item {
            if method.sig.constness.is_none() && !method.attrs.iter().any(is_instrument) {
                instrument_function(&mut method.block, &method.sig);
            }
        }
    }
}

/// `#[symx::instrument]` or `#[::symx::instrument]`. A bare `#[instrument]`
/// may be another crate's (tracing's), so it does not count; if it is ours,
/// rewriting twice only wraps plain `bool`s in `branch` again, which is the
/// identity.
fn is_instrument(attr: &Attribute) -> bool {
    let segments: Vec<String> = attr
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    segments == ["symx", "instrument"]
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn expansion(args: TokenStream, item: TokenStream) -> String {
        try_expand(args, item).unwrap().to_string()
    }

    fn errors(args: TokenStream, item: TokenStream) -> Vec<String> {
        match try_expand(args, item) {
            Ok(expanded) => panic!("expected errors, got {expanded}"),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn a_function_body_is_rewritten_after_the_import() {
        let out = expansion(
            quote!(),
            quote! {
                /// Doc.
                pub fn f(x: u32) -> bool { #![allow(unused)] x > 1 }
            },
        );
        let expected = quote! {
            #[doc = r" Doc."]
            pub fn f(x: u32) -> bool {
                #![allow(unused)]
                #[allow(unused_imports)]
                use ::symx::__private::compare::*;
                (&&::symx::__private::Cmp(&(x), &(1))).__symx_gt()
            }
        };
        let expected: ItemFn = syn::parse2(expected).unwrap();
        assert_eq!(out, expected.into_token_stream().to_string());
    }

    #[test]
    fn every_method_of_an_impl_is_rewritten_except_const_ones() {
        let out = expansion(
            quote!(),
            quote! {
                impl PartialEq for S {
                    fn eq(&self, o: &Self) -> bool { self.0 == o.0 }
                    fn ne(&self, o: &Self) -> bool { self.0 != o.0 }
                }
            },
        );
        assert!(out.contains("__symx_eq"), "{out}");
        assert!(out.contains("__symx_ne"), "{out}");
        assert_eq!(
            out.matches("use :: symx :: __private :: compare").count(),
            2
        );

        let out = expansion(
            quote!(),
            quote! {
                impl S {
                    const LIMIT: bool = 1 < 2;
                    const fn small(&self) -> bool { self.0 < 3 }
                    fn big(&self) -> bool { self.0 > 3 }
                }
            },
        );
        assert!(out.contains("const LIMIT : bool = 1 < 2"), "{out}");
        assert!(out.contains("self . 0 < 3"), "{out}");
        assert!(out.contains("__symx_gt"), "{out}");
    }

    #[test]
    fn methods_with_their_own_attribute_are_left_to_it() {
        let out = expansion(
            quote!(),
            quote! {
                impl S {
                    #[symx::instrument]
                    fn a(&self) -> bool { self.0 == 1 }
                    #[symx::acquire]
                    fn b(&self) -> bool { self.0 == 2 }
                }
            },
        );
        assert!(out.contains("self . 0 == 1"), "{out}");
        assert!(out.contains("# [symx :: instrument]"), "{out}");
        assert!(out.contains("# [symx :: acquire]"), "{out}");
        assert!(!out.contains("self . 0 == 2"), "{out}");
    }

    #[test]
    fn a_method_alone_is_accepted() {
        let out = expansion(
            quote!(),
            quote!(
                fn m(&self) -> bool {
                    self.ok && self.ready
                }
            ),
        );
        assert!(out.contains(":: symx :: branch (self . ok)"), "{out}");
    }

    #[test]
    fn misuse_is_reported() {
        assert_eq!(
            errors(
                quote!(),
                quote!(
                    struct S;
                )
            ),
            ["`#[symx::instrument]` goes on a function or an `impl` block, not on a struct"]
        );
        assert_eq!(
            errors(
                quote!(),
                quote!(
                    const C: bool = true;
                )
            ),
            ["`#[symx::instrument]` goes on a function or an `impl` block, not on a const"]
        );
        assert_eq!(
            errors(
                quote!(),
                quote!(
                    trait T {}
                )
            ),
            ["`#[symx::instrument]` goes on a function or an `impl` block, not on a trait"]
        );
        assert_eq!(
            errors(
                quote!(verbose),
                quote!(
                    fn f() {}
                )
            ),
            ["`#[symx::instrument]` takes no arguments"]
        );
        assert_eq!(
            errors(
                quote!(),
                quote!(
                    const fn f() -> bool {
                        true
                    }
                )
            ),
            ["`#[symx::instrument]` can't be put on a `const fn`: \
              its body must stay evaluable at compile time"]
        );
        assert_eq!(
            errors(
                quote!(),
                quote!(
                    fn f(&self) -> bool;
                )
            ),
            ["`#[symx::instrument]` needs a body to rewrite; put it on the implementations"]
        );
    }

    #[test]
    fn arguments_and_a_wrong_item_are_reported_together() {
        assert_eq!(
            errors(
                quote!(x = 1),
                quote!(
                    struct S;
                )
            )
            .len(),
            2,
        );
    }

    #[test]
    fn errors_keep_the_item() {
        let out = expand(
            quote!(x),
            quote!(
                fn f() -> bool {
                    1 == 2
                }
            ),
        )
        .to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(
            out.ends_with(
                &quote!(
                    fn f() -> bool {
                        1 == 2
                    }
                )
                .to_string()
            ),
            "{out}"
        );
    }
}
