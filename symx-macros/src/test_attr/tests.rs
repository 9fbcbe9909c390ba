//! Unit tests of [`super`]: the expansion's tokens and its compile errors.

use quote::quote;

use super::*;

fn errors(args: TokenStream, item: TokenStream) -> Vec<String> {
    match try_expand(args, item) {
        Ok(expanded) => panic!("expected errors, got {expanded}"),
        Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
    }
}

fn expansion(args: TokenStream, item: TokenStream) -> String {
    try_expand(args, item).unwrap().to_string()
}

#[test]
fn plain_test_runs_the_body_with_a_default_builder() {
    let expected = quote! {
        #[::symx::__private::core::prelude::v1::test]
        fn lost_update() {
            fn __symx_body() {
                #[allow(unused_imports)]
                use ::symx::__private::compare::*;
                work();
            }
            ::symx::__private::built_with(
                ::symx::__private::core::option_env!("CARGO_MANIFEST_DIR"),
                &[],
            );
            ::symx::__private::run_test(
                ::symx::__private::core::concat!(::symx::__private::core::module_path!(), "::", ::symx::__private::core::stringify!(lost_update)),
                ::symx::Builder::new(),
                __symx_body,
            );
        }
    };
    assert_eq!(
        expansion(
            quote!(),
            quote!(
                fn lost_update() {
                    work();
                }
            )
        ),
        expected.to_string()
    );
}

#[test]
fn the_body_and_its_thread_closures_are_instrumented() {
    let out = expansion(
        quote!(),
        quote! {
            fn t() {
                let h = thread::spawn(move || assert!(x.get() == 1));
                if a > b { h.join().unwrap(); }
                fn helper() -> bool { 1 < 2 }
            }
        },
    );
    assert!(out.contains(":: symx :: __private :: assertion"), "{out}");
    assert!(out.contains("__symx_eq"), "{out}");
    assert!(
        out.contains(
            ":: symx :: branch ((& & :: symx :: __private :: Cmp (& (a) , & (b))) . __symx_gt ())"
        ),
        "{out}"
    );
    assert!(!out.contains(" assert ! (x"), "{out}");
    assert!(out.contains("fn helper () -> bool { 1 < 2 }"), "{out}");
}

#[test]
fn arguments_become_setters_in_order() {
    let out = expansion(
        quote!(
            strategy = "pct",
            iterations = 10_000,
            seed = 7,
            spurious_wakeups = true,
        ),
        quote!(
            fn t() {}
        ),
    );
    let setters = quote!(::symx::Builder::new()
        .__attr_strategy("pct")
        .__attr_iterations(10_000)
        .__attr_seed(7)
        .__attr_spurious_wakeups(true));
    assert!(out.contains(&setters.to_string()), "{out}");
}

#[test]
fn attributes_visibility_and_inner_attributes_are_kept() {
    let out = expansion(
        quote!(max_steps = 100),
        quote! {
            /// Documented.
            #[ignore = "slow"]
            #[should_panic(expected = "boom")]
            pub(crate) fn t() { #![allow(unused)] panic!("boom") }
        },
    );
    let head = quote! {
        #[doc = r" Documented."]
        #[ignore = "slow"]
        #[should_panic(expected = "boom")]
        #[::symx::__private::core::prelude::v1::test]
        pub(crate) fn t()
    };
    let body_start = quote! {
        #![allow(unused)]
        fn __symx_body() {
            #[allow(unused_imports)]
            use ::symx::__private::compare::*;
            panic!("boom")
        }
    };
    assert!(out.starts_with(&head.to_string()), "{out}");
    assert!(out.contains(&body_start.to_string()), "{out}");
}

#[test]
fn explicit_unit_return_is_accepted() {
    assert!(try_expand(
        quote!(),
        quote!(
            fn t() -> () {}
        )
    )
    .is_ok());
}

#[test]
fn every_key_is_accepted() {
    for key in KEYS {
        let key = format_ident!("{}", key);
        let value = if key == "strategy" {
            quote!("dfs")
        } else {
            quote!(1)
        };
        assert!(
            try_expand(
                quote!(#key = #value),
                quote!(
                    fn t() {}
                )
            )
            .is_ok(),
            "{key}"
        );
    }
}

#[test]
fn unknown_key_is_named_with_a_suggestion_and_the_valid_keys() {
    let messages = errors(
        quote!(preemption = 2),
        quote!(
            fn t() {}
        ),
    );
    assert_eq!(messages.len(), 1);
    assert!(messages[0].starts_with(
        "unknown argument `preemption` of `#[symx::test]`; did you mean `preemption_bound`?"
    ));
    assert!(messages[0].contains("time_budget_ms"));
}

#[test]
fn duplicate_and_valueless_keys_are_errors() {
    assert_eq!(
        errors(
            quote!(seed = 1, seed = 2),
            quote!(
                fn t() {}
            )
        ),
        ["`seed` is given more than once"]
    );
    assert_eq!(
        errors(
            quote!(seed),
            quote!(
                fn t() {}
            )
        ),
        ["`seed` needs a value: `seed = ...`"]
    );
    assert_eq!(
        errors(
            quote!(seed(1)),
            quote!(
                fn t() {}
            )
        ),
        ["`seed` takes its value after `=`: `seed = ...`"]
    );
    assert_eq!(
        errors(
            quote!(a::b = 1),
            quote!(
                fn t() {}
            )
        ),
        ["expected an argument name such as `seed`"]
    );
}

#[test]
fn strategies_are_checked() {
    assert_eq!(
        errors(
            quote!(strategy = "bfs"),
            quote!(
                fn t() {}
            )
        ),
        [r#"unknown strategy "bfs"; expected one of "dpor", "dfs", "random", "pct""#]
    );
    assert_eq!(
        errors(
            quote!(strategy = pct),
            quote!(
                fn t() {}
            )
        ),
        [r#"the strategy is a string: write `strategy = "pct"`"#]
    );
    assert_eq!(
        errors(
            quote!(strategy = 1),
            quote!(
                fn t() {}
            )
        ),
        [r#"the strategy is a string: one of "dpor", "dfs", "random", "pct""#]
    );
    assert!(try_expand(
        quote!(strategy = STRATEGY),
        quote!(
            fn t() {}
        )
    )
    .is_ok());
}

#[test]
fn non_functions_are_rejected() {
    assert_eq!(
        errors(
            quote!(),
            quote!(
                struct S;
            )
        ),
        ["`#[symx::test]` goes on a function, not on a struct"]
    );
    assert_eq!(
        errors(
            quote!(),
            quote!(
                const C: u32 = 1;
            )
        ),
        ["`#[symx::test]` goes on a function, not on a const"]
    );
}

#[test]
fn signature_errors_are_all_reported_together() {
    let messages = errors(
        quote!(sed = 1),
        quote!(
            async unsafe fn t<T>(x: T) -> u32
            where
                T: Copy,
            {
                1
            }
        ),
    );
    assert_eq!(messages.len(), 7, "{messages:?}");
    assert!(messages[0].starts_with("unknown argument `sed`"));
    assert!(messages[1].contains("can't be `async`"));
    assert!(messages[2].contains("can't be `unsafe`"));
    assert!(messages[3].contains("can't be generic"));
    assert!(messages[4].contains("`where` clause"));
    assert!(messages[5].contains("takes no parameters"));
    assert!(messages[6].contains("returns `()`"));
}

#[test]
fn return_types_and_duplicate_test_attributes_are_errors() {
    assert_eq!(
        errors(quote!(), quote!(fn t() -> Result<(), String> { Ok(()) })),
        ["a `#[symx::test]` function returns `()`; fail the test by panicking (`assert!`, `unwrap`)"]
    );
    assert_eq!(
        errors(
            quote!(),
            quote!(
                #[test]
                fn t() {}
            )
        ),
        ["`#[symx::test]` already makes this a `#[test]`; remove this attribute"]
    );
}

#[test]
fn fallback_keeps_functions_out_of_the_test_harness() {
    let out = expand(
        quote!(bogus = 1),
        quote!(
            #[test]
            fn t(x: u32) {}
        ),
    )
    .to_string();
    assert!(out.contains("compile_error"));
    assert!(out.contains(
        &quote!(
            #[allow(dead_code)]
            fn t(x: u32) {}
        )
        .to_string()
    ));
    assert!(!out.contains(&quote!(#[test]).to_string()));
    let out = expand(
        quote!(),
        quote!(
            struct S;
        ),
    )
    .to_string();
    assert!(out.ends_with(
        &quote!(
            struct S;
        )
        .to_string()
    ));
}
