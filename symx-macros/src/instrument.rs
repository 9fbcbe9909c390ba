//! The body rewriter behind `#[symx::test]` and `#[symx::instrument]`: it
//! routes comparisons, short-circuit operators, branch conditions and
//! assertion macros through the runtime, so that those on symbolic values are
//! recorded while plain `bool` code keeps its meaning.
//!
//! What it rewrites, inside one function body:
//!
//! - `A op B` for `== != < <= > >=` becomes
//!   `(&&::symx::__private::Cmp(&(A), &(B))).__symx_<op>()`: the runtime's
//!   autoref specialization picks the symbolic comparison when an operand is a
//!   `Sym` and the plain one otherwise;
//! - each operand of `&&` and `||`, the condition of `if` and `while`, and
//!   each match-arm guard becomes `::symx::branch(..)`;
//! - the assertion macros (see the `assertions` module), whose values this
//!   visitor rewrites in turn; the function-like `symx::assert!` forms are
//!   expanded here ([`assertion_macro`]) for the same reason;
//! - atomic operations whose result is dropped, which are marked blind (see
//!   the `blind` module).
//!
//! What it leaves alone: nested items (they are compiled on their own and may
//! carry their own `#[symx::instrument]`), other macros (their tokens are not
//! expressions yet), `let` scrutinees of `if let` / `while let` / let chains
//! (only the expression inside is rewritten), and const contexts (array
//! lengths, types, generic arguments, patterns, `const` blocks), where a call
//! into the runtime could not be evaluated.
//!
//! Generated tokens carry the span of the expression they replace, so the
//! runtime's `#[track_caller]` functions report the user's source location.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{
    parse_quote, parse_quote_spanned, Arm, BinOp, Block, Expr, ExprBinary, ExprConst, ExprLit,
    ExprRepeat, GenericArgument, Ident, Item, Lit, Pat, Signature, Stmt, Type,
};

use crate::assertions::{self, Kind};

/// Rewrites a function body and brings the runtime's comparison traits into
/// scope for it: the rewritten comparisons are method calls of those traits.
pub(crate) fn instrument_body(block: &mut Block) {
    Instrumenter.visit_block_mut(block);
    block.stmts.insert(0, compare_import());
}

/// [`instrument_body`] for the body of the function `sig`, with its loops' epoch markers
/// (see the `epochs` module).
pub(crate) fn instrument_function(block: &mut Block, sig: &Signature) {
    instrument_body(block);
    crate::epochs::place(block, sig);
}

/// `use ::symx::__private::compare::*;`, allowed to go unused because a body
/// without comparisons needs nothing from it.
pub(crate) fn compare_import() -> Stmt {
    parse_quote! {
        #[allow(unused_imports)]
        use ::symx::__private::compare::*;
    }
}

/// The expansion of `symx::assert!` and friends: the assertion with its
/// values instrumented, in a block that brings the comparison traits into
/// scope, since the macro may be used outside any instrumented body.
pub(crate) fn assertion_macro(kind: Kind, input: TokenStream) -> TokenStream {
    match assertions::expand(kind, input, &mut Instrumenter) {
        Ok(body) => {
            let import = compare_import();
            quote_spanned!(Span::call_site()=> { #import #body })
        }
        Err(error) => error.into_compile_error(),
    }
}

/// The visitor. It rewrites children before their parent, so an operand that
/// is itself rewritten is already in its final form when it is wrapped.
pub(crate) struct Instrumenter;

impl VisitMut for Instrumenter {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Macro(call) = expr {
            // Other macros' tokens are opaque; only assertions are rewritten.
            if let Some(rewritten) = assertions::rewrite(&call.mac, &call.attrs, self) {
                *expr = rewritten;
            }
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
        rewrite_node(expr);
        crate::blind::expression(expr);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        // `assert!(..);` at statement level is a statement macro, not an
        // expression, in syn's tree.
        if let Stmt::Macro(call) = stmt {
            if let Some(rewritten) = assertions::rewrite(&call.mac, &call.attrs, self) {
                *stmt = Stmt::Expr(rewritten, call.semi_token);
            }
            return;
        }
        visit_mut::visit_stmt_mut(self, stmt);
        crate::blind::statement(stmt);
    }

    fn visit_arm_mut(&mut self, arm: &mut Arm) {
        visit_mut::visit_arm_mut(self, arm);
        if let Some((_, guard)) = &mut arm.guard {
            wrap_condition(guard);
        }
    }

    // Nested items are separate functions: rewriting them is their own
    // attribute's job.
    fn visit_item_mut(&mut self, _: &mut Item) {}

    // Const contexts: a runtime call there would not compile.
    fn visit_type_mut(&mut self, _: &mut Type) {}
    fn visit_generic_argument_mut(&mut self, _: &mut GenericArgument) {}
    fn visit_pat_mut(&mut self, _: &mut Pat) {}
    fn visit_expr_const_mut(&mut self, _: &mut ExprConst) {}
    fn visit_expr_repeat_mut(&mut self, repeat: &mut ExprRepeat) {
        self.visit_expr_mut(&mut repeat.expr);
    }
}

/// Rewrites one node whose children are already rewritten.
fn rewrite_node(expr: &mut Expr) {
    match expr {
        Expr::Binary(binary) => {
            if let Some(method) = comparison_method(&binary.op) {
                *expr = comparison(binary, method);
            } else if matches!(binary.op, BinOp::And(_) | BinOp::Or(_)) {
                wrap_condition(&mut binary.left);
                wrap_condition(&mut binary.right);
            }
        }
        Expr::If(branch) => wrap_condition(&mut branch.cond),
        Expr::While(looping) => wrap_condition(&mut looping.cond),
        _ => {}
    }
}

/// The runtime method that performs a comparison operator, if `op` is one.
fn comparison_method(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Eq(_) => "__symx_eq",
        BinOp::Ne(_) => "__symx_ne",
        BinOp::Lt(_) => "__symx_lt",
        BinOp::Le(_) => "__symx_le",
        BinOp::Gt(_) => "__symx_gt",
        BinOp::Ge(_) => "__symx_ge",
        _ => return None,
    })
}

/// `A op B` as a call the runtime resolves by autoref specialization. The
/// method name carries the operator's span, so that a type error ("no method
/// `__symx_eq`") points at the operator, as rustc's own error would.
fn comparison(binary: &ExprBinary, method: &str) -> Expr {
    let span = binary.span();
    let method = Ident::new(method, binary.op.span());
    let (left, right) = (&binary.left, &binary.right);
    let mut call: Expr = parse_quote_spanned! {span=>
        (&&::symx::__private::Cmp(&(#left), &(#right))).#method()
    };
    move_attributes(&binary.attrs, &mut call);
    call
}

/// Keeps the attributes of a replaced expression on its replacement.
fn move_attributes(attrs: &[syn::Attribute], call: &mut Expr) {
    if let Expr::MethodCall(call) = call {
        call.attrs = attrs.to_vec();
    }
}

/// Wraps a rewritten condition in `::symx::branch(..)` unless it is known to
/// be a plain `bool` already or is not a value at all.
fn wrap_condition(cond: &mut Expr) {
    if !needs_branch(cond) {
        return;
    }
    let span = cond.span();
    *cond = parse_quote_spanned!(span=> ::symx::branch(#cond));
}

fn needs_branch(cond: &Expr) -> bool {
    match cond {
        // A `let` scrutinee (`if let`, let chains) is a pattern match, not a
        // value; a rewritten `&&` / `||` already gives a plain `bool` (and in
        // a let chain must stay a bare `&&`).
        Expr::Let(_) => false,
        Expr::Binary(binary) => !matches!(binary.op, BinOp::And(_) | BinOp::Or(_)),
        // `while true` costs nothing to record.
        Expr::Lit(ExprLit {
            lit: Lit::Bool(_), ..
        }) => false,
        // A diverging operand (`ok || return`, `x || panic!()`) has type
        // `!`, which coerces to `bool` but would leave `branch`'s type
        // parameter to fall back to `()`.
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => false,
        Expr::Macro(call) => !is_diverging_macro(&call.mac.path),
        _ => true,
    }
}

fn is_diverging_macro(path: &syn::Path) -> bool {
    path.segments.last().is_some_and(|last| {
        ["panic", "unreachable", "todo", "unimplemented"].contains(&&*last.ident.to_string())
    })
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;
    use proc_macro2::TokenStream;
    use quote::{quote, ToTokens};

    use super::*;

    /// The rewritten statements of `body`, without the inserted import.
    fn rewrite(body: TokenStream) -> String {
        let mut block: Block = syn::parse2(quote!({ #body })).unwrap();
        instrument_body(&mut block);
        let import = compare_import().to_token_stream().to_string();
        assert_eq!(block.stmts[0].to_token_stream().to_string(), import);
        block.stmts.remove(0);
        let stmts = &block.stmts;
        quote!(#(#stmts)*).to_string()
    }

    fn expect(body: TokenStream, expected: TokenStream) {
        let expected: Block = syn::parse2(quote!({ #expected })).unwrap();
        let stmts = &expected.stmts;
        assert_eq!(rewrite(body), quote!(#(#stmts)*).to_string());
    }

    #[test]
    fn the_import_comes_first() {
        let mut block: Block = syn::parse2(quote!({
            let x = 1;
        }))
        .unwrap();
        instrument_body(&mut block);
        assert_eq!(
            block.stmts[0].to_token_stream().to_string(),
            quote!(
                #[allow(unused_imports)]
                use ::symx::__private::compare::*;
            )
            .to_string()
        );
        assert_eq!(block.stmts.len(), 2);
    }

    #[test]
    fn every_comparison_operator_becomes_its_method() {
        for (op, method) in [
            (quote!(==), "__symx_eq"),
            (quote!(!=), "__symx_ne"),
            (quote!(<), "__symx_lt"),
            (quote!(<=), "__symx_le"),
            (quote!(>), "__symx_gt"),
            (quote!(>=), "__symx_ge"),
        ] {
            let method = Ident::new(method, Span::call_site());
            expect(
                quote!(let b = x.len() #op 0;),
                quote!(let b = (&&::symx::__private::Cmp(&(x.len()), &(0))).#method();),
            );
        }
    }

    #[test]
    fn arithmetic_and_bitwise_operators_are_left_alone() {
        let body = quote!(let y = a + b * c - (d & e) | f ^ g << 1;);
        expect(body.clone(), body);
    }

    #[test]
    fn short_circuit_operands_become_branches() {
        expect(
            quote!(let b = p && q || r;),
            quote!(let b = ::symx::branch(p) && ::symx::branch(q) || ::symx::branch(r);),
        );
        expect(
            quote!(let b = x < 1 && y;),
            quote!(let b = ::symx::branch((&&::symx::__private::Cmp(&(x), &(1))).__symx_lt())
                && ::symx::branch(y);),
        );
    }

    #[test]
    fn conditions_and_guards_become_branches() {
        expect(
            quote! {
                if ready { a() } else if x == 1 { b() }
                while !done { step() }
                match v { Some(n) if n > 3 => {} _ => {} }
            },
            quote! {
                if ::symx::branch(ready) { a() }
                else if ::symx::branch((&&::symx::__private::Cmp(&(x), &(1))).__symx_eq()) { b() }
                while ::symx::branch(!done) { step() }
                match v {
                    Some(n) if ::symx::branch((&&::symx::__private::Cmp(&(n), &(3))).__symx_gt()) => {}
                    _ => {}
                }
            },
        );
    }

    #[test]
    fn a_short_circuit_condition_is_not_wrapped_twice() {
        expect(
            quote!(if a && b {}),
            quote!(if ::symx::branch(a) && ::symx::branch(b) {}),
        );
    }

    #[test]
    fn let_scrutinees_are_left_but_their_insides_rewritten() {
        expect(
            quote! {
                if let Some(x) = find(a == b) { x }
                while let Some(x) = it.next() {}
            },
            quote! {
                if let Some(x) = find((&&::symx::__private::Cmp(&(a), &(b))).__symx_eq()) { x }
                while let Some(x) = it.next() {}
            },
        );
    }

    #[test]
    fn let_chains_keep_their_lets_bare() {
        expect(
            quote!(if let Some(x) = o && x > 1 && ok {}),
            quote!(if let Some(x) = o
                && ::symx::branch((&&::symx::__private::Cmp(&(x), &(1))).__symx_gt())
                && ::symx::branch(ok) {}),
        );
    }

    #[test]
    fn closures_and_async_blocks_are_rewritten() {
        expect(
            quote! {
                let h = spawn(move || if a { 1 } else { 2 });
                let f = async { b || c };
            },
            quote! {
                let h = spawn(move || if ::symx::branch(a) { 1 } else { 2 });
                let f = async { ::symx::branch(b) || ::symx::branch(c) };
            },
        );
    }

    #[test]
    fn nested_items_are_left_alone() {
        let body = quote! {
            fn helper(a: u32) -> bool { if a > 1 { true } else { a == 0 } }
            impl S { fn m(&self) -> bool { self.0 && self.1 } }
            mod m { pub fn f() -> bool { 1 < 2 } }
            const C: bool = 1 == 1;
            static S: bool = 1 != 2;
        };
        expect(body.clone(), body);
    }

    #[test]
    fn const_contexts_are_left_alone() {
        let body = quote! {
            let a = [0u8; { N > 1 } as usize];
            let b: [u8; (N == 2) as usize] = f::<{ N < 3 }>();
            let c = const { N >= 4 };
            match x { Some(1) | None => {} _ => {} }
        };
        expect(body.clone(), body);
    }

    #[test]
    fn other_macros_are_left_alone() {
        let body = quote! {
            println!("{}", a == b);
            let v = vec![x < y];
            let m = matches!(o, Some(n) if n > 1);
        };
        expect(body.clone(), body);
    }

    #[test]
    fn diverging_operands_are_not_wrapped() {
        expect(
            quote! {
                let a = ok || return;
                let b = ok && std::panic!("no");
                while x || break {}
                let c = ready || matches!(o, Some(_));
            },
            quote! {
                let a = ::symx::branch(ok) || return;
                let b = ::symx::branch(ok) && std::panic!("no");
                while ::symx::branch(x) || break {}
                let c = ::symx::branch(ready) || ::symx::branch(matches!(o, Some(_)));
            },
        );
    }

    #[test]
    fn statement_macros_keep_their_attributes() {
        expect(
            quote! {
                #[cfg(feature = "slow")]
                assert!(ok);
            },
            quote! {
                #[cfg(feature = "slow")]
                {
                    ::symx::__private::core::assert!(
                        ::symx::__private::assertion(ok, ::symx::__private::core::stringify!(ok)),
                        "{}",
                        ::symx::__private::core::concat!("assertion failed: ", ::symx::__private::core::stringify!(ok))
                    )
                };
            },
        );
    }

    #[test]
    fn while_true_and_literal_conditions_are_not_wrapped() {
        let body = quote!(while true {
            if false {}
        });
        expect(body.clone(), body);
    }

    #[test]
    fn the_function_like_form_brings_the_traits_into_scope() {
        let out = assertion_macro(Kind::AssertEq, quote!(v, 7)).to_string();
        let import = compare_import().to_token_stream().to_string();
        assert!(out.starts_with(&format!("{{ {import}")), "{out}");
        assert!(out.contains("__symx_eq ()"), "{out}");
    }

    #[test]
    fn the_function_like_form_rewrites_its_condition() {
        let out = assertion_macro(Kind::Assert, quote!(v != 7, "v must not be 7")).to_string();
        let cond = syn::parse2::<Expr>(quote!((&&::symx::__private::Cmp(&(v), &(7))).__symx_ne()))
            .unwrap()
            .to_token_stream()
            .to_string();
        assert!(out.contains(&cond), "{out}");
        assert!(
            out.contains(&quote!(, "v must not be 7").to_string()),
            "{out}"
        );
    }

    #[test]
    fn the_function_like_form_explains_missing_arguments() {
        let message = |kind, input| {
            let out = assertion_macro(kind, input).to_string();
            assert!(out.contains("compile_error"), "{out}");
            out
        };
        assert!(message(Kind::Assert, quote!()).contains("needs a condition"));
        assert!(message(Kind::AssertEq, quote!(x)).contains("needs two values"));
        assert!(message(Kind::AssertNe, quote!()).contains("symx::assert_ne!(left, right)"));
        assert!(message(Kind::Assert, quote!(x y)).contains("expected"));
    }
}
