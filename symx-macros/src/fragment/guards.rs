//! The locks a fragment holds at its resume point, found lexically: the arbitrary-context
//! paper's must-hold lockset (Bergan, Grossman, Ceze, OOPSLA 2014, §2.8), which Rust's guard
//! scopes make exact. A guard bound by a `let` before the mark (`let g = m.lock()…`,
//! `.read()`, `.write()`, unwrapped or not), in the function's body or in the loop's body
//! before the mark, and not dropped before it, is held at the mark; the resumed fragment
//! takes it again first, with the same `let`, so that what it runs after the mark runs under
//! the locks the function held there.
//!
//! Whether a guard is still held at the mark is decided from its uses between its `let` and
//! the mark: `drop(g)` releases it; dereferencing it, calling a method on it, borrowing it
//! and handing it to a condition variable's `wait…` (which gives back a guard of the same
//! lock) keep it; any other use may move it away, and is a compile error at that use, since
//! neither answer would be sound.

use proc_macro2::{Span, TokenTree};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Pat, Stmt};

use crate::syntax::{is_punct, names_function};

/// The guards held at the mark: their `let`s, in order, from the enclosing scopes.
pub(super) struct Held {
    /// Bound in the function's body before the mark (or before the loop holding it).
    pub(super) outer: Vec<Stmt>,
    /// Bound in the loop's body before the mark.
    pub(super) inner: Vec<Stmt>,
}

impl Held {
    /// The names the held guards bind: taken again, they need no capture.
    pub(super) fn names(&self) -> Vec<String> {
        (self.outer.iter().chain(&self.inner))
            .filter_map(guard_name)
            .map(|i| i.to_string())
            .collect()
    }
}

/// The guards of `outer` (the function's statements before the mark, or before its loop)
/// and `inner` (the loop body's statements before the mark) still held at the mark.
pub(super) fn held(outer: &[Stmt], inner: &[Stmt]) -> syn::Result<Held> {
    let mut held = Held {
        outer: Vec::new(),
        inner: Vec::new(),
    };
    for (k, s) in outer.iter().enumerate() {
        let after: Vec<&Stmt> = outer[k + 1..].iter().chain(inner).collect();
        if still_held(s, &after)? {
            held.outer.push(s.clone());
        }
    }
    for (k, s) in inner.iter().enumerate() {
        let after: Vec<&Stmt> = inner[k + 1..].iter().collect();
        if still_held(s, &after)? {
            held.inner.push(s.clone());
        }
    }
    Ok(held)
}

/// Whether `s` binds a guard that none of `after` releases or moves.
fn still_held(s: &Stmt, after: &[&Stmt]) -> syn::Result<bool> {
    let Some(name) = guard_name(s) else {
        return Ok(false);
    };
    let mut uses = Uses {
        name: name.to_string(),
        dropped: false,
        moved: None,
    };
    for t in after {
        if rebinds(t, &uses.name) && !waits_on(t, &uses.name) {
            return Err(syn::Error::new_spanned(
                t,
                format!(
                    "guard `{name}` is shadowed before the resume point while its lock is still \
                     held: give one of them another name"
                ),
            ));
        }
        uses.visit_stmt_mut(&mut (*t).clone());
        if let Some(span) = uses.moved {
            return Err(syn::Error::new(
                span,
                format!(
                    "guard `{name}` may be moved before the resume point: whether its lock \
                     is held there cannot be told; release it with `drop({name})` or keep \
                     it until after the mark"
                ),
            ));
        }
        if uses.dropped {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether `s` is a `let` that binds `name` again.
fn rebinds(s: &Stmt, name: &str) -> bool {
    let Stmt::Local(l) = s else { return false };
    let mut names = Vec::new();
    super::bound(&l.pat, &mut names);
    names.iter().any(|(n, _)| n == name)
}

/// Whether `s` is `let … = cv.wait…(name, …)…`: the name is bound to a guard of the same lock.
fn waits_on(s: &Stmt, name: &str) -> bool {
    let Stmt::Local(l) = s else { return false };
    let mut e = l.init.as_ref().map(|i| &*i.expr);
    while let Some(Expr::MethodCall(m)) = e {
        if m.method.to_string().starts_with("wait") {
            return matches!(m.args.first(), Some(Expr::Path(p)) if p.path.is_ident(name));
        }
        e = Some(&*m.receiver);
    }
    false
}

/// The name a guard `let` binds: `let [mut] g = <receiver>.lock()…` (or `.read()`,
/// `.write()`, then any `.unwrap()` / `.expect(..)`). `let _ = m.lock()` releases at once.
fn guard_name(s: &Stmt) -> Option<&Ident> {
    let Stmt::Local(l) = s else { return None };
    let pat = match &l.pat {
        Pat::Type(t) => &*t.pat,
        p => p,
    };
    let Pat::Ident(i) = pat else { return None };
    let init = &*l.init.as_ref()?.expr;
    takes_a_lock(init).then_some(&i.ident)
}

fn takes_a_lock(e: &Expr) -> bool {
    match e {
        Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => {
            takes_a_lock(&m.receiver)
        }
        Expr::MethodCall(m) => {
            m.args.is_empty() && ["lock", "read", "write"].iter().any(|n| m.method == n)
        }
        Expr::Try(t) => takes_a_lock(&t.expr),
        _ => false,
    }
}

/// The uses of a guard's name in a statement.
struct Uses {
    name: String,
    dropped: bool,
    moved: Option<Span>,
}

impl Uses {
    fn is_guard(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(p) => p.path.is_ident(&self.name),
            Expr::Paren(p) => self.is_guard(&p.expr),
            _ => false,
        }
    }
}

impl VisitMut for Uses {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Call(c) if c.args.len() == 1 && self.is_guard(&c.args[0]) => {
                if names_function(&c.func, "drop") {
                    self.dropped = true;
                } else {
                    self.moved
                        .get_or_insert(syn::spanned::Spanned::span(&c.args[0]));
                }
            }
            Expr::MethodCall(m) if self.is_guard(&m.receiver) => {
                m.args.iter_mut().for_each(|a| self.visit_expr_mut(a))
            }
            // A condition variable's wait gives back a guard of the same lock.
            Expr::MethodCall(m)
                if m.method.to_string().starts_with("wait")
                    && m.args.first().is_some_and(|a| self.is_guard(a)) =>
            {
                self.visit_expr_mut(&mut m.receiver);
                m.args
                    .iter_mut()
                    .skip(1)
                    .for_each(|a| self.visit_expr_mut(a));
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && self.is_guard(&u.expr) => {}
            Expr::Field(f) if self.is_guard(&f.base) => {}
            Expr::Reference(r) if self.is_guard(&r.expr) => {}
            Expr::Index(i) if self.is_guard(&i.expr) => self.visit_expr_mut(&mut i.index),
            // `g = cv.wait(g)…` gives the name a guard again.
            Expr::Assign(a) if self.is_guard(&a.left) => self.visit_expr_mut(&mut a.right),
            e if self.is_guard(e) => {
                self.moved.get_or_insert(syn::spanned::Spanned::span(&*e));
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        // A macro's arguments are tokens: the guard is kept where it is dereferenced,
        // borrowed or the receiver of a method (`assert!(*g > 0)`), and may be moved
        // anywhere else.
        let tokens: Vec<TokenTree> = m.tokens.clone().into_iter().collect();
        if let Some(span) = moved_in_tokens(&tokens, &self.name) {
            self.moved.get_or_insert(span);
        }
    }
}

fn moved_in_tokens(tokens: &[TokenTree], name: &str) -> Option<Span> {
    for (k, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                if let Some(span) = moved_in_tokens(&inner, name) {
                    return Some(span);
                }
            }
            TokenTree::Ident(i) if i == name => {
                let borrowed = k > 0 && is_punct(tokens.get(k - 1), &['*', '&']);
                let method = is_punct(tokens.get(k + 1), &['.']);
                if !borrowed && !method {
                    return Some(i.span());
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmts(tokens: proc_macro2::TokenStream) -> Vec<Stmt> {
        syn::parse2::<syn::Block>(quote::quote!({ #tokens }))
            .expect("a block")
            .stmts
    }

    fn held_names(outer: proc_macro2::TokenStream) -> syn::Result<Vec<String>> {
        held(&stmts(outer), &[]).map(|h| h.names())
    }

    #[test]
    fn a_guard_is_held_until_dropped_and_through_a_wait() {
        let names = held_names(quote::quote!(
            let a = m.lock().unwrap();
            let b = r.read()?;
            let c = w.write().expect("poisoned");
            let _ = n.lock();
            let mut d = q.lock().unwrap();
            d = cv.wait(d).unwrap();
            let d = cv.wait_while(d, |v| *v == 0).unwrap();
            drop(b);
            assert!(*a > 0 && c.len() == 1);
            let n = d.len() + *c;
        ))
        .expect("no move");
        assert_eq!(names, ["a", "c", "d"]);
    }

    #[test]
    fn a_guard_moved_or_shadowed_before_the_mark_is_an_error() {
        let moved = held_names(quote::quote!(
            let g = m.lock().unwrap();
            println!("{:?}", g);
        ));
        assert!(moved.is_err_and(|e| e.to_string().contains("may be moved")));
        let shadowed = held_names(quote::quote!(
            let g = m.lock().unwrap();
            let g = 5;
        ));
        assert_eq!(
            shadowed.map_err(|e| e.to_string()),
            Err(
                "guard `g` is shadowed before the resume point while its lock is still held: \
                 give one of them another name"
                    .to_string()
            )
        );
    }
}
