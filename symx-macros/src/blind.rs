//! Blind accesses: an atomic operation whose result the program drops (every `store`, and a
//! read-modify-write whose value a statement discards: `hits.fetch_add(1, SeqCst);`,
//! `let _ = flag.swap(true, SeqCst);`) is rewritten to evaluate its arguments, tell the
//! runtime the step it is about to take is blind, and then take it:
//!
//! ```text
//! match (1, SeqCst) {
//!     (a0, a1) => { (&Blind(&(hits))).__symx_blind(); hits.fetch_add(a0, a1) }
//! }
//! ```
//!
//! The runtime marks the step only when the receiver is one of its integer atomics (autoref
//! specialization), so a user type with methods of these names is left as it was. A call is
//! recognised by its method's name and a memory ordering as its last argument (a path ending
//! in `Relaxed`, `Release`, `Acquire`, `AcqRel` or `SeqCst`); anything else is not marked,
//! which only costs the engines that use the marks some reduction. The match keeps the
//! temporaries of the arguments alive to the end of the operation, as the call did.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{
    parse_quote, parse_quote_spanned, Expr, ExprMethodCall, Ident, Local, LocalInit, Pat, Stmt,
    UnOp,
};

/// Operations that return nothing: blind wherever they are.
const STORES: &[&str] = &["store", "store_sym"];

/// Operations that return the old value: blind where a statement drops it.
const READ_MODIFY_WRITES: &[&str] = &[
    "swap",
    "fetch_add",
    "fetch_sub",
    "fetch_and",
    "fetch_nand",
    "fetch_or",
    "fetch_xor",
    "fetch_max",
    "fetch_min",
    "swap_sym",
    "fetch_add_sym",
    "fetch_sub_sym",
];

const ORDERINGS: &[&str] = &["Relaxed", "Release", "Acquire", "AcqRel", "SeqCst"];

/// Marks `expr` if it is a store.
pub(crate) fn expression(expr: &mut Expr) {
    if let Expr::MethodCall(call) = expr {
        if let Some(marked) = is_atomic_call(call, STORES).then(|| marked(call)).flatten() {
            *expr = marked;
        }
    }
}

/// Marks the read-modify-write whose value `stmt` drops, if it is one.
pub(crate) fn statement(stmt: &mut Stmt) {
    let expr = match stmt {
        Stmt::Expr(expr, Some(_)) => expr,
        Stmt::Local(Local {
            pat: Pat::Wild(_),
            init:
                Some(LocalInit {
                    expr,
                    diverge: None,
                    ..
                }),
            ..
        }) => &mut **expr,
        _ => return,
    };
    if let Expr::MethodCall(call) = expr {
        let rmw = is_atomic_call(call, READ_MODIFY_WRITES);
        if let Some(marked) = rmw.then(|| marked(call)).flatten() {
            *expr = marked;
        }
    }
}

fn is_atomic_call(call: &ExprMethodCall, methods: &[&str]) -> bool {
    call.turbofish.is_none()
        && methods.contains(&call.method.to_string().as_str())
        && call.args.last().is_some_and(is_ordering)
}

fn is_ordering(arg: &Expr) -> bool {
    let Expr::Path(path) = arg else { return false };
    let last = path.path.segments.last();
    path.qself.is_none() && last.is_some_and(|s| ORDERINGS.contains(&s.ident.to_string().as_str()))
}

/// The call with its arguments (and a receiver that is not a place) evaluated first and the
/// mark between them and the operation, or `None` for a receiver it cannot take apart
/// without changing what the call does. A place receiver (`a`, `self.hits`, `s[0]`) stays
/// where it is, so that a method taking `&mut self` still can; it is evaluated twice, which
/// for a path, a field or an index by a literal or a variable does nothing more. A call's
/// result is bound by value (a reference, typically). The operation keeps the call's method
/// token, whose span is where the runtime's `#[track_caller]` methods say the step happened.
fn marked(call: &ExprMethodCall) -> Option<Expr> {
    let span = call.span();
    let receiver = &call.receiver;
    let hygienic = |name: String, at: Span| Ident::new(&name, at.resolved_at(Span::mixed_site()));
    let names: Vec<Ident> = (call.args.iter().enumerate())
        .map(|(i, a)| hygienic(format!("__symx_argument{i}"), a.span()))
        .collect();
    let args = call.args.iter();
    let import = quote::quote_spanned! {span=>
        #[allow(unused_imports)]
        use ::symx::__private::blind::{BlindAtomic as _, BlindOther as _};
    };
    // The call itself, with its own `.`, method and parentheses.
    let mut op = call.clone();
    op.attrs.clear();
    op.args = names.iter().map(|n| -> Expr { parse_quote!(#n) }).collect();
    let mut out: Expr = if is_place(receiver) {
        parse_quote_spanned! {span=>
            match (#(#args,)*) {
                (#(#names,)*) => {
                    #import
                    (&::symx::__private::blind::Blind(&(#receiver))).__symx_blind();
                    #op
                }
            }
        }
    } else if matches!(**receiver, Expr::Call(_) | Expr::MethodCall(_)) {
        let recv = hygienic("__symx_receiver".into(), receiver.span());
        *op.receiver = parse_quote!(#recv);
        parse_quote_spanned! {span=>
            match (#receiver, #(#args,)*) {
                #[allow(unused_mut)]
                (mut #recv, #(#names,)*) => {
                    #import
                    (&::symx::__private::blind::Blind(&#recv)).__symx_blind();
                    #op
                }
            }
        }
    } else {
        return None;
    };
    if let Expr::Match(m) = &mut out {
        m.attrs = call.attrs.clone();
    }
    Some(out)
}

/// Whether evaluating `e` again only names the same place.
fn is_place(e: &Expr) -> bool {
    match e {
        Expr::Path(_) => true,
        Expr::Field(f) => is_place(&f.base),
        Expr::Paren(p) => is_place(&p.expr),
        Expr::Index(i) => is_place(&i.expr) && matches!(*i.index, Expr::Lit(_) | Expr::Path(_)),
        Expr::Unary(u) => matches!(u.op, UnOp::Deref(_)) && is_place(&u.expr),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use quote::{quote, ToTokens};
    use syn::Block;

    use crate::instrument::instrument_body;

    /// Whether `body`'s one statement comes out marked.
    fn marked(body: proc_macro2::TokenStream) -> bool {
        let mut block: Block = syn::parse2(quote!({ #body })).unwrap();
        instrument_body(&mut block);
        block.to_token_stream().to_string().contains("__symx_blind")
    }

    #[test]
    fn dropped_results_of_atomic_operations_are_marked() {
        assert!(marked(quote!(hits.fetch_add(1, SeqCst);)));
        assert!(marked(quote!(let _ = flag.swap(true, Ordering::SeqCst);)));
        assert!(marked(quote!(self.s[0].fetch_sub_sym(x, Relaxed);)));
        assert!(marked(quote!(slot(&q, at).store_sym(x, SeqCst);)));
        assert!(marked(quote!(let f = move || a.store(1, Release);)));
    }

    #[test]
    fn used_results_and_other_calls_are_not() {
        assert!(!marked(quote!(let old = hits.fetch_add(1, SeqCst);)));
        assert!(!marked(quote!(f(hits.fetch_add(1, SeqCst));)));
        assert!(!marked(quote!(v.swap(0, 1);)));
        assert!(!marked(quote!(hits.fetch_add(1, order);)));
        assert!(!marked(quote!(a.compare_exchange(0, 1, SeqCst, SeqCst);)));
        // Taking the receiver apart would lock twice or move out of the guard.
        assert!(!marked(
            quote!(m.lock().unwrap().hits.fetch_add(1, SeqCst);)
        ));
    }
}
