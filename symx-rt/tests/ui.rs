//! Tests of the attribute macros as a user meets them. Every misuse of
//! `#[symx::test]` or of an annotation is a compile error whose span and
//! message are pinned by the `.stderr` file beside each case in `tests/ui/`;
//! the accepted shapes of annotated methods in `tests/ui/pass/` compile.

#[test]
fn misused_attributes_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

#[test]
fn annotated_methods_compile() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
}
