//! The synchronization annotations `#[symx::acquire]`, `#[symx::try_acquire]`,
//! `#[symx::release]`, their `_shared` forms, `#[symx::barrier_init(n)]` and
//! `#[symx::barrier_arrive]`: they wrap a function so that the runtime learns
//! what it does to an object: the one the attribute's argument names
//! (`#[symx::release(self.lock)]`), or `self` by default. This module owns the
//! rewriting of the function and its compile errors; the events themselves are
//! recorded by `::symx::annotate` and `::symx::__private`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{
    parse_quote, AttrStyle, Attribute, Expr, FnArg, Ident, Item, ItemFn, Pat, ReturnType, Token,
    TraitItemFn, Type,
};

use crate::diagnostics::{wrong_item, Errors};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Annotation {
    Acquire,
    TryAcquire,
    Release,
    AcquireShared,
    TryAcquireShared,
    ReleaseShared,
    BarrierInit,
    BarrierArrive,
}

impl Annotation {
    fn attribute(self) -> &'static str {
        match self {
            Annotation::Acquire => "symx::acquire",
            Annotation::TryAcquire => "symx::try_acquire",
            Annotation::Release => "symx::release",
            Annotation::AcquireShared => "symx::acquire_shared",
            Annotation::TryAcquireShared => "symx::try_acquire_shared",
            Annotation::ReleaseShared => "symx::release_shared",
            Annotation::BarrierInit => "symx::barrier_init",
            Annotation::BarrierArrive => "symx::barrier_arrive",
        }
    }

    fn is_release(self) -> bool {
        matches!(self, Annotation::Release | Annotation::ReleaseShared)
    }
}

/// What the attribute's arguments say: the object it is about (`None`: `self`) and, for
/// `barrier_init`, the parameter holding the number of arrivals.
#[derive(Default)]
struct Args {
    object: Option<Expr>,
    count: Option<Ident>,
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
    let args = parse_args(annotation, args, &mut errors);
    let method = match parse_method(annotation, item) {
        Ok(method) => method,
        Err(error) => return Err(errors.ending_with(error)),
    };
    check_method(annotation, &method, args.object.is_some(), &mut errors);
    if let Some(count) = &args.count {
        check_count_names_a_parameter(count, &method, &mut errors);
    }
    errors.finish()?;
    Ok(generate(annotation, &method, &args))
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

/// The object expression every annotation may take, and the parameter named by
/// `#[symx::barrier_init(n)]` / `#[symx::barrier_init(object, n)]`.
fn parse_args(annotation: Annotation, args: TokenStream, errors: &mut Errors) -> Args {
    let attribute = annotation.attribute();
    if annotation != Annotation::BarrierInit {
        if args.is_empty() {
            return Args::default();
        }
        return match syn::parse2::<Expr>(args.clone()) {
            Ok(object) => Args {
                object: Some(object),
                count: None,
            },
            Err(_) => {
                errors.spanned(
                    args,
                    format!(
                        "`#[{attribute}]` takes one expression naming the object it is about \
                         (`#[{attribute}(self.lock)]`), or nothing for `self`"
                    ),
                );
                Args::default()
            }
        };
    }
    let message = format!(
        "`#[{attribute}(n)]` needs the name of the parameter that holds the number of arrivals \
         (after the object, if one is named: `#[{attribute}(self.barrier, n)]`)"
    );
    if args.is_empty() {
        errors.push(syn::Error::new(Span::call_site(), message));
        return Args::default();
    }
    let parts = match syn::parse::Parser::parse2(
        Punctuated::<Expr, Token![,]>::parse_separated_nonempty,
        args.clone(),
    ) {
        Ok(parts) if parts.len() <= 2 => parts,
        _ => {
            errors.spanned(args, message);
            return Args::default();
        }
    };
    let mut parts: Vec<Expr> = parts.into_iter().collect();
    let count = match parts.pop() {
        Some(Expr::Path(p)) if p.path.get_ident().is_some() => p.path.get_ident().cloned(),
        _ => None,
    };
    if count.is_none() {
        errors.spanned(args, message);
    }
    Args {
        object: parts.pop(),
        count,
    }
}

fn check_method(annotation: Annotation, method: &ItemFn, named: bool, errors: &mut Errors) {
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
    if named {
        // The argument names the object; `self` may be anything, or absent.
        return;
    }
    match sig.receiver() {
        None => errors.push(syn::Error::new(
            sig.paren_token.span.join(),
            format!(
                "`#[{attribute}]` without an argument is about `self`, and `{}` has no `self` \
                 parameter; name the object: `#[{attribute}(lock)]`",
                sig.ident
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
            if annotation.is_release() && is_drop(sig) {
                errors.push(syn::Error::new(
                    Span::call_site(),
                    format!(
                        "`#[{attribute}]` on `drop` would release the guard itself; name the \
                         lock the guard releases: `#[{attribute}(self.lock)]` (or \
                         `#[{attribute}(self)]` if `Self` really is the lock)"
                    ),
                ));
            }
        }
    }
}

/// `fn drop(&mut self)`: `Drop::drop`, where `self` is a guard rather than the lock.
fn is_drop(sig: &syn::Signature) -> bool {
    sig.ident == "drop"
        && sig.inputs.len() == 1
        && sig.receiver().is_some_and(|r| r.mutability.is_some())
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

fn generate(annotation: Annotation, method: &ItemFn, args: &Args) -> TokenStream {
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
    let (object, imports) = object_ref(args.object.as_ref());
    let body = match annotation {
        Annotation::Release | Annotation::ReleaseShared => {
            let release = match annotation {
                Annotation::Release => quote!(release),
                _ => quote!(release_shared),
            };
            quote! {
                ::symx::annotate::#release(#object);
                #(#statements)*
            }
        }
        Annotation::BarrierInit => {
            let count = &args.count;
            quote! {
                ::symx::annotate::barrier_init(#object, (#count) as usize);
                #(#statements)*
            }
        }
        Annotation::Acquire
        | Annotation::TryAcquire
        | Annotation::AcquireShared
        | Annotation::TryAcquireShared => {
            let (begin, shared) = match annotation {
                Annotation::Acquire => (quote!(begin), false),
                Annotation::TryAcquire => (quote!(begin_try), false),
                Annotation::AcquireShared => (quote!(begin), true),
                _ => (quote!(begin_try), true),
            };
            let acquired = if matches!(annotation, Annotation::Acquire | Annotation::AcquireShared)
            {
                quote!(true)
            } else {
                quote!(::symx::__private::Acquired::acquired(&__symx_result))
            };
            let run = run_original_body(method);
            quote! {
                let __symx_call = ::symx::__private::AcquireCall::#begin(#object, #shared);
                let __symx_result = #run;
                __symx_call.finish(#acquired);
                __symx_result
            }
        }
        Annotation::BarrierArrive => {
            let run = run_original_body(method);
            quote! {
                let __symx_arrival = ::symx::__private::BarrierArrival::begin(#object);
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
            #imports
            #body
        }
    }
}

/// A reference to the object an annotation is about: `&*self` by default; for a named
/// object, the object itself when the expression is a place (`self.raw`), or what it points
/// at when it is a reference or a smart pointer (`self.lock`, `&self.inner`, an `Arc`), so
/// that a guard's `self.lock` and the lock's own `self` name the same object.
///
/// The two traits that choose between those are imported into the function's body (without
/// names, so no name of the user's is shadowed), because the choice needs method syntax.
fn object_ref(object: Option<&Expr>) -> (TokenStream, TokenStream) {
    match object {
        None => (quote!(&*self), TokenStream::new()),
        Some(object) => (
            quote!((&::symx::__private::Named(&(#object))).object()),
            quote! {
                #[allow(unused_imports)]
                use ::symx::__private::{ThePlace as _, ThroughPointer as _};
            },
        ),
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
        fn __symx_call_once<R, F: ::symx::__private::core::ops::FnOnce() -> R>(body: F) -> R {
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
mod tests;
