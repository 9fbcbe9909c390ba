//! Finding `symx::start_here!` in a fragment: the one mark at a place the fragment allows
//! ([`find`]), taking it out of the function with its captures ([`take_mark`]), and the
//! compile error for a mark anywhere else ([`refuse_other_marks`]).

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, ItemFn, Stmt, Token};

use super::{Capture, Place};

/// Whether `mac` is `start_here!` (any path ending so).
fn is_mark(mac: &syn::Macro) -> bool {
    mac.path
        .segments
        .last()
        .is_some_and(|s| s.ident == "start_here")
}

fn stmt_mark(s: &Stmt) -> Option<&syn::Macro> {
    match s {
        Stmt::Macro(m) if is_mark(&m.mac) => Some(&m.mac),
        Stmt::Expr(Expr::Macro(m), _) if is_mark(&m.mac) => Some(&m.mac),
        _ => None,
    }
}

/// The body of a loop statement.
pub(super) fn loop_body(s: &Stmt) -> Option<&Block> {
    match s {
        Stmt::Expr(Expr::ForLoop(l), _) => Some(&l.body),
        Stmt::Expr(Expr::While(l), _) => Some(&l.body),
        Stmt::Expr(Expr::Loop(l), _) => Some(&l.body),
        _ => None,
    }
}

/// The one mark at a place a fragment allows.
pub(super) fn find(f: &ItemFn) -> syn::Result<Place> {
    let mut found = Vec::new();
    for (i, s) in f.block.stmts.iter().enumerate() {
        if let Some(m) = stmt_mark(s) {
            found.push((Place::Tail { at: i }, m));
        }
        if let Some(body) = loop_body(s) {
            for (k, t) in body.stmts.iter().enumerate() {
                if let Some(m) = stmt_mark(t) {
                    found.push((Place::Loop { looped: i, at: k }, m));
                }
            }
        }
    }
    match found.len() {
        0 => Err(syn::Error::new_spanned(
            &f.sig,
            "a fragment needs a `symx::start_here!(captures…)` at the top level of its body \
             or of a loop's body",
        )),
        1 => Ok(found.pop().expect("one").0),
        _ => Err(syn::Error::new_spanned(
            found[1].1,
            "a fragment has one resume point: a second `start_here!`",
        )),
    }
}

/// Replaces the mark in the function by a statement that only borrows its captures (so that
/// a local used only there is still used); its captures.
pub(super) fn take_mark(f: &mut ItemFn, place: &Place) -> syn::Result<(Span, Vec<Capture>)> {
    let slot = match *place {
        Place::Tail { at } => &mut f.block.stmts[at],
        Place::Loop { looped, at } => &mut loop_body_mut(&mut f.block.stmts[looped]).stmts[at],
    };
    let mac = stmt_mark(slot).expect("a mark").clone();
    let span = mac.path.segments.last().expect("a segment").ident.span();
    let captures: Vec<Capture> = mac
        .parse_body_with(Punctuated::<Capture, Token![,]>::parse_terminated)?
        .into_iter()
        .collect();
    let names = captures.iter().map(|c| &c.name);
    *slot = syn::parse_quote!(let _ = (#(&#names,)*););
    Ok((span, captures))
}

fn loop_body_mut(s: &mut Stmt) -> &mut Block {
    match s {
        Stmt::Expr(Expr::ForLoop(l), _) => &mut l.body,
        Stmt::Expr(Expr::While(l), _) => &mut l.body,
        Stmt::Expr(Expr::Loop(l), _) => &mut l.body,
        _ => unreachable!("a loop statement"),
    }
}

/// Any mark left is in a place a fragment does not allow.
pub(super) fn refuse_other_marks(block: &mut Block) -> syn::Result<()> {
    let mut v = Misplaced {
        inside: Vec::new(),
        error: None,
    };
    v.visit_block_mut(block);
    v.error.map_or(Ok(()), Err)
}

struct Misplaced {
    inside: Vec<&'static str>,
    error: Option<syn::Error>,
}

impl VisitMut for Misplaced {
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.inside.push("a closure");
        visit_mut::visit_expr_closure_mut(self, c);
        self.inside.pop();
    }
    fn visit_expr_async_mut(&mut self, a: &mut syn::ExprAsync) {
        self.inside.push("an `async` block");
        visit_mut::visit_expr_async_mut(self, a);
        self.inside.pop();
    }
    fn visit_arm_mut(&mut self, a: &mut syn::Arm) {
        self.inside.push("a match arm");
        visit_mut::visit_arm_mut(self, a);
        self.inside.pop();
    }
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        if is_mark(m) && self.error.is_none() {
            let msg = match self.inside.last() {
                Some(what) => format!("a resume point cannot be inside {what}"),
                None => "a fragment has one resume point, at the top level of its body or of \
                         the body of a loop that is a statement of it"
                    .into(),
            };
            self.error = Some(syn::Error::new_spanned(&*m, msg));
        }
    }
}
