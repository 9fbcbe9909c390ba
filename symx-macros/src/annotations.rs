//! The synchronization annotations `#[symx::acquire]`, `#[symx::try_acquire]`,
//! `#[symx::release]`, `#[symx::barrier_init(n)]` and
//! `#[symx::barrier_arrive]`: they wrap a method so that the runtime learns
//! what the method does to the object `self` points at. This module owns the
//! rewriting of the method and its compile errors; the events themselves are
//! recorded by `::symx::annotate` and `::symx::__private`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{
    parse_quote, AttrStyle, Attribute, FnArg, Ident, Item, ItemFn, Pat, ReturnType, TraitItemFn,
    Type,
};

use crate::diagnostics::{wrong_item, Errors};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Annotation {
    Acquire,
    TryAcquire,
    Release,
    BarrierInit,
    BarrierArrive,
}

impl Annotation {
    fn attribute(self) -> &'static str {
        match self {
            Annotation::Acquire => "symx::acquire",
            Annotation::TryAcquire => "symx::try_acquire",
            Annotation::Release => "symx::release",
            Annotation::BarrierInit => "symx::barrier_init",
            Annotation::BarrierArrive => "symx::barrier_arrive",
        }
    }

    /// The function form of the annotation, for code without a `self`.
    fn function_form(self) -> &'static str {
        match self {
            Annotation::Acquire | Annotation::TryAcquire => "symx::annotate::acquire(&obj)",
            Annotation::Release => "symx::annotate::release(&obj)",
            Annotation::BarrierInit => "symx::annotate::barrier_init(&obj, n)",
            Annotation::BarrierArrive => "symx::annotate::barrier_arrive(&obj)",
        }
    }
}

/// The annotated method, or the errors followed by the item unchanged: the
/// method is usually called elsewhere and may implement a trait, so dropping
/// it would bury the real error under "no method" ones.
pub(crate) fn expand(annotation: Annotation, args: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(annotation, args, item.clone()) {
        Ok(expanded) => expanded,
        Err(error) => {
            let mut out = error.into_compile_error();
            out.extend(item);
            out
        }
    }
}

pub(crate) fn try_expand(
    annotation: Annotation,
    args: TokenStream,
    item: TokenStream,
) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let count = parse_args(annotation, args, &mut errors);
    let method = match parse_method(annotation, item) {
        Ok(method) => method,
        Err(error) => return Err(errors.ending_with(error)),
    };
    check_method(annotation, &method, &mut errors);
    if let Some(count) = &count {
        check_count_names_a_parameter(count, &method, &mut errors);
    }
    errors.finish()?;
    Ok(generate(annotation, &method, count.as_ref()))
}

fn parse_method(annotation: Annotation, item: TokenStream) -> syn::Result<ItemFn> {
    let attribute = annotation.attribute();
    match syn::parse2::<Item>(item)? {
        Item::Fn(method) => Ok(method),
        // A trait method without a default body parses as verbatim.
        Item::Verbatim(tokens) => match syn::parse2::<TraitItemFn>(tokens.clone()) {
            Ok(declaration) => {
                let message = format!(
                    "`#[{attribute}]` needs the method's body; put it on the implementations instead"
                );
                Err(syn::Error::new_spanned(&declaration.sig, message))
            }
            Err(_) => {
                let message = format!("`#[{attribute}]` goes on a method that takes `self`");
                Err(syn::Error::new_spanned(tokens, message))
            }
        },
        other => Err(wrong_item(attribute, "a method that takes `self`", &other)),
    }
}

/// The parameter named by `#[symx::barrier_init(n)]`; the other annotations
/// take no arguments.
fn parse_args(annotation: Annotation, args: TokenStream, errors: &mut Errors) -> Option<Ident> {
    let attribute = annotation.attribute();
    if annotation != Annotation::BarrierInit {
        if !args.is_empty() {
            errors.spanned(args, format!("`#[{attribute}]` takes no arguments"));
        }
        return None;
    }
    let message = format!(
        "`#[{attribute}(n)]` needs the name of the parameter that holds the number of arrivals"
    );
    if args.is_empty() {
        errors.push(syn::Error::new(Span::call_site(), message));
        return None;
    }
    let count = syn::parse2::<Ident>(args.clone());
    if count.is_err() {
        errors.spanned(args, message);
    }
    count.ok()
}

fn check_method(annotation: Annotation, method: &ItemFn, errors: &mut Errors) {
    let attribute = annotation.attribute();
    let sig = &method.sig;
    if let Some(token) = &sig.asyncness {
        errors.spanned(
            token,
            format!(
                "`#[{attribute}]` can't be put on an `async fn`: the runtime records the event \
                 when the call happens, and an `async fn` only runs when its future is polled"
            ),
        );
    }
    if let Some(token) = &sig.constness {
        errors.spanned(
            token,
            format!("`#[{attribute}]` can't be put on a `const fn`"),
        );
    }
    match sig.receiver() {
        None => errors.push(syn::Error::new(
            sig.paren_token.span.join(),
            format!(
                "`#[{attribute}]` needs a `self` parameter: annotations name the object by `self`; \
                 for free functions use `{}`",
                annotation.function_form()
            ),
        )),
        Some(receiver) => {
            // `self` and `mut self` are parsed with the type `Self`.
            let is_self = |ty: &Type| matches!(ty, Type::Path(p) if p.path.is_ident("Self"));
            if receiver.reference.is_none() && is_self(&receiver.ty) {
                errors.spanned(
                    receiver,
                    format!(
                        "`#[{attribute}]` needs `self` behind a reference (`&self`, `&mut self`, \
                         `self: Arc<Self>`, ...): the runtime knows objects by address, \
                         and a moved `self` has none that outlives the call"
                    ),
                );
            }
        }
    }
}

fn check_count_names_a_parameter(count: &Ident, method: &ItemFn, errors: &mut Errors) {
    let parameters: Vec<&Ident> = method
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(typed) => match &*typed.pat {
                Pat::Ident(binding) => Some(&binding.ident),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect();
    if parameters.contains(&count) {
        return;
    }
    let candidates = if parameters.is_empty() {
        format!("`{}` has no parameter besides `self`", method.sig.ident)
    } else {
        let names: Vec<String> = parameters.iter().map(|p| format!("`{p}`")).collect();
        format!("its parameters are {}", names.join(", "))
    };
    errors.spanned(
        count,
        format!(
            "`{count}` is not a parameter of `{}`; {candidates}",
            method.sig.ident
        ),
    );
}

fn generate(annotation: Annotation, method: &ItemFn, count: Option<&Ident>) -> TokenStream {
    let (inner, outer): (Vec<&Attribute>, Vec<&Attribute>) = method
        .attrs
        .iter()
        .partition(|a| matches!(a.style, AttrStyle::Inner(_)));
    // The runtime's entry points are `#[track_caller]`; so is the method, so
    // that the recorded event points at the caller, not at the annotation.
    let track_caller =
        (!outer.iter().any(|a| a.path().is_ident("track_caller"))).then(|| quote!(#[track_caller]));
    let vis = &method.vis;
    let sig = &method.sig;
    let statements = &method.block.stmts;
    let body = match annotation {
        Annotation::Release => quote! {
            ::symx::annotate::release(&*self);
            #(#statements)*
        },
        Annotation::BarrierInit => quote! {
            ::symx::annotate::barrier_init(&*self, (#count) as usize);
            #(#statements)*
        },
        Annotation::Acquire => {
            let run = run_original_body(method);
            quote! {
                let __symx_call = ::symx::__private::AcquireCall::begin(&*self);
                let __symx_result = #run;
                __symx_call.finish(true);
                __symx_result
            }
        }
        Annotation::TryAcquire => {
            let run = run_original_body(method);
            quote! {
                let __symx_call = ::symx::__private::AcquireCall::begin_try(&*self);
                let __symx_result = #run;
                __symx_call.finish(::symx::__private::Acquired::acquired(&__symx_result));
                __symx_result
            }
        }
        Annotation::BarrierArrive => {
            let run = run_original_body(method);
            quote! {
                let __symx_arrival = ::symx::__private::BarrierArrival::begin(&*self);
                let __symx_result = #run;
                __symx_arrival.depart();
                __symx_result
            }
        }
    };
    quote! {
        #(#outer)*
        #track_caller
        #vis #sig {
            #(#inner)*
            #body
        }
    }
}

/// An expression that runs the method's original body and yields its result,
/// so that code can follow it: `return` and `?` inside the body end only the
/// body, as they ended the method before.
///
/// The body becomes a `move` closure: it owns the parameters, as the body did,
/// so moving out of them still works. The closure goes through a helper that
/// takes `FnOnce`, because a closure called in place is inferred `FnMut` when
/// it only reborrows, and then `&mut self.field` can't be returned from it.
/// The helper is told the method's return type so that every `return` in the
/// body is coerced to it as before (`&String` to `&str`, `Box<T>` to
/// `Box<dyn Trait>`) and `?` knows its error type.
fn run_original_body(method: &ItemFn) -> TokenStream {
    let output = match &method.sig.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, ty) => {
            let mut ty = (**ty).clone();
            InferOpaqueTypes.visit_type_mut(&mut ty);
            ty.into_token_stream()
        }
    };
    let block = &method.block;
    quote! {{
        #[inline(always)]
        fn __symx_call_once<R, F: ::core::ops::FnOnce() -> R>(body: F) -> R {
            body()
        }
        __symx_call_once::<#output, _>(move || #block)
    }}
}

/// Replaces the types that can't be written in a turbofish, `impl Trait` and
/// `!`, with `_`; inference finds them from the body.
struct InferOpaqueTypes;

impl VisitMut for InferOpaqueTypes {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if matches!(ty, Type::ImplTrait(_) | Type::Never(_)) {
            *ty = parse_quote!(_);
        } else {
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn errors(annotation: Annotation, args: TokenStream, item: TokenStream) -> Vec<String> {
        match try_expand(annotation, args, item) {
            Ok(expanded) => panic!("expected errors, got {expanded}"),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    /// The expansion with whitespace removed, since printing parsed tokens
    /// spaces joint punctuation such as `>>` differently from `quote!`.
    fn expansion(annotation: Annotation, args: TokenStream, item: TokenStream) -> String {
        squash(try_expand(annotation, args, item).unwrap())
    }

    fn squash(tokens: impl ToTokens) -> String {
        tokens
            .to_token_stream()
            .to_string()
            .split_whitespace()
            .collect()
    }

    fn call_once(output: TokenStream, block: TokenStream) -> TokenStream {
        quote! {{
            #[inline(always)]
            fn __symx_call_once<R, F: ::core::ops::FnOnce() -> R>(body: F) -> R {
                body()
            }
            __symx_call_once::<#output, _>(move || #block)
        }}
    }

    #[test]
    fn acquire_wraps_the_body_between_begin_and_finish() {
        let run = call_once(
            quote!(()),
            quote!({
                spin(self);
            }),
        );
        let expected = quote! {
            /// Locks.
            #[track_caller]
            pub fn lock(&self) {
                let __symx_call = ::symx::__private::AcquireCall::begin(&*self);
                let __symx_result = #run;
                __symx_call.finish(true);
                __symx_result
            }
        };
        let out = expansion(
            Annotation::Acquire,
            quote!(),
            quote!(
                /// Locks.
                pub fn lock(&self) {
                    spin(self);
                }
            ),
        );
        assert_eq!(out, squash(expected));
    }

    #[test]
    fn try_acquire_asks_the_result_whether_it_acquired() {
        let run = call_once(
            quote!(Option<Guard<'_>>),
            quote!({
                self.try_take()?;
                Some(Guard)
            }),
        );
        let expected = quote! {
            #[track_caller]
            fn try_lock(&self) -> Option<Guard<'_>> {
                let __symx_call = ::symx::__private::AcquireCall::begin_try(&*self);
                let __symx_result = #run;
                __symx_call.finish(::symx::__private::Acquired::acquired(&__symx_result));
                __symx_result
            }
        };
        let out = expansion(
            Annotation::TryAcquire,
            quote!(),
            quote!(
                fn try_lock(&self) -> Option<Guard<'_>> {
                    self.try_take()?;
                    Some(Guard)
                }
            ),
        );
        assert_eq!(out, squash(expected));
    }

    #[test]
    fn release_and_barrier_init_announce_before_the_body() {
        let expected = quote! {
            #[track_caller]
            fn unlock(&mut self) {
                #![allow(unused)]
                ::symx::annotate::release(&*self);
                self.held = false;
                ()
            }
        };
        let out = expansion(
            Annotation::Release,
            quote!(),
            quote!(
                fn unlock(&mut self) {
                    #![allow(unused)]
                    self.held = false;
                    ()
                }
            ),
        );
        assert_eq!(out, squash(expected));

        let expected = quote! {
            #[track_caller]
            fn init(self: &Self, mut n: u32) {
                ::symx::annotate::barrier_init(&*self, (n) as usize);
                self.left.store(n);
            }
        };
        let out = expansion(
            Annotation::BarrierInit,
            quote!(n),
            quote!(
                fn init(self: &Self, mut n: u32) {
                    self.left.store(n);
                }
            ),
        );
        assert_eq!(out, squash(expected));
    }

    #[test]
    fn barrier_arrive_departs_after_the_body() {
        let run = call_once(quote!(bool), quote!({ self.arrive() }));
        let expected = quote! {
            #[track_caller]
            fn wait(self: ::std::sync::Arc<Self>) -> bool {
                let __symx_arrival = ::symx::__private::BarrierArrival::begin(&*self);
                let __symx_result = #run;
                __symx_arrival.depart();
                __symx_result
            }
        };
        let out = expansion(
            Annotation::BarrierArrive,
            quote!(),
            quote!(
                fn wait(self: ::std::sync::Arc<Self>) -> bool {
                    self.arrive()
                }
            ),
        );
        assert_eq!(out, squash(expected));
    }

    #[test]
    fn opaque_return_types_are_inferred() {
        let out = expansion(
            Annotation::Acquire,
            quote!(),
            quote!(
                fn lock(&self) -> Option<(impl Sized, u8)> {
                    None
                }
            ),
        );
        assert!(
            out.contains(&squash(quote!(__symx_call_once::<Option<(_, u8)>, _>))),
            "{out}"
        );
        let out = expansion(
            Annotation::Acquire,
            quote!(),
            quote!(
                fn lock(&self) -> ! {
                    loop {}
                }
            ),
        );
        assert!(
            out.contains(&squash(quote!(__symx_call_once::<_, _>))),
            "{out}"
        );
    }

    #[test]
    fn an_existing_track_caller_is_not_repeated() {
        let out = expansion(
            Annotation::Release,
            quote!(),
            quote!(
                #[track_caller]
                fn unlock(&self) {}
            ),
        );
        assert_eq!(out.matches("track_caller").count(), 1, "{out}");
    }

    #[test]
    fn misplaced_annotations_are_rejected() {
        assert_eq!(
            errors(
                Annotation::Acquire,
                quote!(),
                quote!(
                    struct Lock;
                )
            ),
            ["`#[symx::acquire]` goes on a method that takes `self`, not on a struct"]
        );
        assert_eq!(
            errors(
                Annotation::Acquire,
                quote!(),
                quote!(
                    fn lock(&self);
                )
            ),
            ["`#[symx::acquire]` needs the method's body; put it on the implementations instead"]
        );
        assert_eq!(
            errors(Annotation::Release, quote!(), quote!(fn unlock(lock: &Lock) {})),
            ["`#[symx::release]` needs a `self` parameter: annotations name the object by `self`; \
              for free functions use `symx::annotate::release(&obj)`"]
        );
        let messages = errors(
            Annotation::BarrierArrive,
            quote!(),
            quote!(
                fn wait(self) {}
            ),
        );
        assert!(
            messages[0].starts_with("`#[symx::barrier_arrive]` needs `self` behind a reference")
        );
        let messages = errors(
            Annotation::Acquire,
            quote!(),
            quote!(
                async fn lock(&self) {}
            ),
        );
        assert!(messages[0].starts_with("`#[symx::acquire]` can't be put on an `async fn`"));
    }

    #[test]
    fn arguments_are_checked() {
        for annotation in [
            Annotation::Acquire,
            Annotation::TryAcquire,
            Annotation::Release,
            Annotation::BarrierArrive,
        ] {
            assert_eq!(
                errors(
                    annotation,
                    quote!(x),
                    quote!(
                        fn f(&self) {}
                    )
                ),
                [format!(
                    "`#[{}]` takes no arguments",
                    annotation.attribute()
                )]
            );
        }
        assert_eq!(
            errors(Annotation::BarrierInit, quote!(), quote!(fn f(&self, n: usize) {})),
            ["`#[symx::barrier_init(n)]` needs the name of the parameter that holds the number of arrivals"]
        );
        assert_eq!(
            errors(Annotation::BarrierInit, quote!(4), quote!(fn f(&self, n: usize) {})),
            ["`#[symx::barrier_init(n)]` needs the name of the parameter that holds the number of arrivals"]
        );
        assert_eq!(
            errors(
                Annotation::BarrierInit,
                quote!(m),
                quote!(
                    fn f(&self, n: usize, k: u8) {}
                )
            ),
            ["`m` is not a parameter of `f`; its parameters are `n`, `k`"]
        );
        assert_eq!(
            errors(
                Annotation::BarrierInit,
                quote!(m),
                quote!(
                    fn f(&self) {}
                )
            ),
            ["`m` is not a parameter of `f`; `f` has no parameter besides `self`"]
        );
    }

    #[test]
    fn several_errors_are_reported_together() {
        let messages = errors(
            Annotation::TryAcquire,
            quote!(now),
            quote!(
                async fn f() -> bool {
                    true
                }
            ),
        );
        assert_eq!(messages.len(), 3, "{messages:?}");
    }
}
