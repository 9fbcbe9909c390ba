//! Unit tests of [`super`]: the expansion's tokens and its compile errors.

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
        fn __symx_call_once<R, F: ::symx::__private::core::ops::FnOnce() -> R>(body: F) -> R {
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
            let __symx_call = ::symx::__private::AcquireCall::begin(&*self, false);
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
            let __symx_call = ::symx::__private::AcquireCall::begin_try(&*self, false);
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
        errors(
            Annotation::Release,
            quote!(),
            quote!(
                fn unlock(lock: &Lock) {}
            )
        ),
        [
            "`#[symx::release]` without an argument is about `self`, and `unlock` has no `self` \
          parameter; name the object: `#[symx::release(lock)]`"
        ]
    );
    assert_eq!(
        errors(
            Annotation::Release,
            quote!(),
            quote!(
                fn drop(&mut self) {}
            )
        ),
        [
            "`#[symx::release]` on `drop` would release the guard itself; name the lock the \
          guard releases: `#[symx::release(self.lock)]` (or `#[symx::release(self)]` if \
          `Self` really is the lock)"
        ]
    );
    let messages = errors(
        Annotation::BarrierArrive,
        quote!(),
        quote!(
            fn wait(self) {}
        ),
    );
    assert!(messages[0].starts_with("`#[symx::barrier_arrive]` needs `self` behind a reference"));
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
        Annotation::AcquireShared,
        Annotation::TryAcquireShared,
        Annotation::ReleaseShared,
        Annotation::BarrierArrive,
    ] {
        let attribute = annotation.attribute();
        assert_eq!(
            errors(
                annotation,
                quote!(a, b),
                quote!(
                    fn f(&self) {}
                )
            ),
            [format!(
                "`#[{attribute}]` takes one expression naming the object it is about \
                 (`#[{attribute}(self.lock)]`), or nothing for `self`"
            )]
        );
    }
    let needs = "`#[symx::barrier_init(n)]` needs the name of the parameter that holds the \
                 number of arrivals (after the object, if one is named: \
                 `#[symx::barrier_init(self.barrier, n)]`)";
    assert_eq!(
        errors(
            Annotation::BarrierInit,
            quote!(),
            quote!(
                fn f(&self, n: usize) {}
            )
        ),
        [needs]
    );
    assert_eq!(
        errors(
            Annotation::BarrierInit,
            quote!(4),
            quote!(
                fn f(&self, n: usize) {}
            )
        ),
        [needs]
    );
    assert_eq!(
        errors(
            Annotation::BarrierInit,
            quote!(a, b, n),
            quote!(
                fn f(&self, n: usize) {}
            )
        ),
        [needs]
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
fn a_named_object_is_found_through_pointers_and_needs_no_self() {
    let out = expansion(
        Annotation::Release,
        quote!(self.lock),
        quote!(
            fn drop(&mut self) {}
        ),
    );
    let object = squash(quote!(::symx::annotate::release(
        (&::symx::__private::Named(&(self.lock))).object()
    );));
    assert!(out.contains(&object), "{out}");
    let imports = squash(quote!(
        use ::symx::__private::{ThePlace as _, ThroughPointer as _};
    ));
    assert!(out.contains(&imports), "{out}");
    let out = expansion(
        Annotation::AcquireShared,
        quote!(lock),
        quote!(
            fn read(lock: &RwSpin) {}
        ),
    );
    assert!(
        out.contains("begin((&::symx::__private::Named(&(lock))).object(),true)"),
        "{out}"
    );
    let out = expansion(
        Annotation::BarrierInit,
        quote!(self.barrier, n),
        quote!(
            fn start(&self, n: usize) {}
        ),
    );
    assert!(
        out.contains(
            "barrier_init((&::symx::__private::Named(&(self.barrier))).object(),(n)asusize)"
        ),
        "{out}"
    );
}

#[test]
fn several_errors_are_reported_together() {
    let messages = errors(
        Annotation::TryAcquire,
        quote!(now,),
        quote!(
            async fn f() -> bool {
                true
            }
        ),
    );
    assert_eq!(messages.len(), 3, "{messages:?}");
}
