//! `#[symx::reaching_definitions]` on an inline module: the must-reach definitions of the
//! values each `symx::checkpoint!` in the module captures (Bergan, Grossman, Ceze, OOPSLA
//! 2014, §2.5 and the flow functions of the dissertation's Figure 2.17), handed to the
//! checkpoint as analysed facts.
//!
//! The analysis runs on the structured syntax of the module's functions, without types:
//! - a function's entry facts are its parameters bound to the arguments of every call site
//!   in the module, each argument evaluated with the caller's facts before the statement that
//!   calls, and intersected over the call sites (a function nobody in the module calls knows
//!   nothing about its parameters);
//! - `let x = e;` and `x = e;` define `x` when `e` evaluates to a [`Term`] (integer
//!   literals, locals, `+ - *`, negation; casts, `.into()` and `Sym::from` of constants),
//!   and kill it otherwise; a local without a definition stands for its own unchanged value
//!   (`let r1 = r2 + 5` with `r2` unknown gives `r1 ↦ r2 + 5`);
//! - an `if`/`else` chain runs each arm from the same facts and keeps what they agree on
//!   (the paper's merge); any other statement kills every local it assigns or borrows
//!   mutably, anywhere inside (loops and `match` are not merged more finely: a kill anywhere
//!   is a kill), and every term that mentions one;
//! - calls to other functions change no local of the caller (Rust callees cannot, except
//!   through a `&mut`, which kills), which is what the paper's summaries give for locals.
//!
//! Only checkpoints at the top level of a function body are analysed. A capture gets a fact
//! when its definition is a constant (`r2 == 5`), or a term over other captures of the same
//! checkpoint with an integer literal in it (`r1 == r2 + 5`; the literal says the locals are
//! integers). Every fact is a must fact: sound, never needed for soundness.

mod term;

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, Item, ItemFn, ItemMod, Macro, Pat, Stmt};

use crate::diagnostics::wrong_item;
use term::Term;

/// The must-reach definitions of locals.
type Facts = BTreeMap<String, Term>;

/// Calls deeper than this know nothing (recursion).
const MAX_DEPTH: usize = 8;

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(args, item) {
        Ok(t) => t,
        Err(e) => e.into_compile_error(),
    }
}

fn try_expand(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !args.is_empty() {
        return Err(syn::Error::new_spanned(
            args,
            "`#[symx::reaching_definitions]` takes no arguments",
        ));
    }
    let mut module = match syn::parse2::<Item>(item)? {
        Item::Mod(m) if m.content.is_some() => m,
        other => {
            return Err(wrong_item(
                "symx::reaching_definitions",
                "an inline module (`mod name { ... }`)",
                &other,
            ))
        }
    };
    annotate(&mut module);
    Ok(quote!(#module))
}

/// Adds the analysed facts to every top-level checkpoint of the module's functions.
fn annotate(module: &mut ItemMod) {
    let items = &module.content.as_ref().expect("inline").1;
    let fns: Vec<ItemFn> = items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    let program = Program { fns: &fns };
    let mut facts_at: Vec<(String, usize, Facts)> = Vec::new();
    for f in &fns {
        for (k, stmt) in f.block.stmts.iter().enumerate() {
            if checkpoint_in(stmt).is_some() {
                let name = f.sig.ident.to_string();
                facts_at.push((name, k, program.before(&f.sig.ident.to_string(), k, 0)));
            }
        }
    }
    let items = &mut module.content.as_mut().expect("inline").1;
    for item in items.iter_mut() {
        let Item::Fn(f) = item else { continue };
        let name = f.sig.ident.to_string();
        for (k, stmt) in f.block.stmts.iter_mut().enumerate() {
            let Some((_, _, facts)) = facts_at.iter().find(|(n, s, _)| *n == name && *s == k)
            else {
                continue;
            };
            AddFacts(facts).visit_stmt_mut(stmt);
        }
    }
}

/// The checkpoint macro of a top-level statement (`let x = checkpoint!(..);` or a statement
/// that is one).
fn checkpoint_in(stmt: &Stmt) -> Option<&Macro> {
    let mac = match stmt {
        Stmt::Macro(m) => &m.mac,
        Stmt::Local(l) => match l.init.as_ref().map(|i| &*i.expr) {
            Some(Expr::Macro(m)) => &m.mac,
            _ => return None,
        },
        Stmt::Expr(Expr::Macro(m), _) => &m.mac,
        _ => return None,
    };
    is_checkpoint(mac).then_some(mac)
}

fn is_checkpoint(mac: &Macro) -> bool {
    mac.path
        .segments
        .last()
        .is_some_and(|s| s.ident == "checkpoint")
}

/// Appends `; name = term` for each capture with a fact the checkpoint can state (a
/// constant, or a relational term over its captures) to the checkpoints it meets.
struct AddFacts<'a>(&'a Facts);

impl VisitMut for AddFacts<'_> {
    fn visit_macro_mut(&mut self, mac: &mut Macro) {
        if !is_checkpoint(mac) {
            return;
        }
        let captures = crate::checkpoint::capture_names(&mac.tokens);
        let stated = |t: &Term| match t {
            Term::Const(_) => true,
            t => t.is_relational() && t.vars().iter().all(|v| captures.contains(v)),
        };
        let known: Vec<TokenStream> = captures
            .iter()
            .filter_map(|c| self.0.get(c).filter(|t| stated(t)).map(|t| (c, t)))
            .map(|(c, t)| {
                let ident = syn::Ident::new(c, proc_macro2::Span::call_site());
                let value = t.tokens();
                quote!(#ident = #value)
            })
            .collect();
        if !known.is_empty() {
            let tokens = &mac.tokens;
            mac.tokens = quote!(#tokens ; #(#known),*);
        }
    }
}

struct Program<'a> {
    fns: &'a [ItemFn],
}

impl Program<'_> {
    fn function(&self, name: &str) -> Option<&ItemFn> {
        self.fns.iter().find(|f| f.sig.ident == name)
    }

    /// The facts of function `name` before its top-level statement `k`.
    fn before(&self, name: &str, k: usize, depth: usize) -> Facts {
        let Some(f) = self.function(name) else {
            return Facts::new();
        };
        let mut facts = self.entry(f, depth);
        for stmt in &f.block.stmts[..k] {
            transfer(&mut facts, stmt);
        }
        facts
    }

    /// The facts at `f`'s entry: its parameters, from every call site in the module.
    fn entry(&self, f: &ItemFn, depth: usize) -> Facts {
        if depth >= MAX_DEPTH {
            return Facts::new();
        }
        let params: Vec<Option<String>> = f
            .sig
            .inputs
            .iter()
            .map(|a| match a {
                FnArg::Typed(t) => pat_ident(&t.pat),
                FnArg::Receiver(_) => None,
            })
            .collect();
        let mut meet: Option<Facts> = None;
        for caller in self.fns {
            for (k, stmt) in caller.block.stmts.iter().enumerate() {
                for args in calls_of(stmt, &f.sig.ident.to_string()) {
                    let at = self.before(&caller.sig.ident.to_string(), k, depth + 1);
                    let mut bound = Facts::new();
                    // Only constants cross the call: a caller's locals are not the callee's.
                    for (p, a) in params.iter().zip(&args) {
                        if let (Some(p), Some(v @ Term::Const(_))) = (p, eval(&at, a)) {
                            bound.insert(p.clone(), v);
                        }
                    }
                    meet = Some(match meet {
                        None => bound,
                        Some(m) => intersect(&m, &bound),
                    });
                }
            }
        }
        meet.unwrap_or_default()
    }
}

fn intersect(a: &Facts, b: &Facts) -> Facts {
    a.iter()
        .filter(|(k, v)| b.get(*k) == Some(v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn pat_ident(p: &Pat) -> Option<String> {
    match p {
        Pat::Ident(i) if i.subpat.is_none() => Some(i.ident.to_string()),
        Pat::Type(t) => pat_ident(&t.pat),
        _ => None,
    }
}

/// The flow function of one top-level statement: the definition it makes is evaluated with
/// the facts before it; then everything the statement changes is killed (with every term
/// that mentions it); then the definition holds, unless it speaks of a local the statement
/// changed (`x = x + 1` cannot be said of the new `x`).
fn transfer(facts: &mut Facts, stmt: &Stmt) {
    if let Stmt::Expr(Expr::If(i), _) = stmt {
        return branches(facts, i);
    }
    let defined = match stmt {
        Stmt::Local(l) => pat_ident(&l.pat).map(|x| (x, l.init.as_ref().map(|i| &*i.expr))),
        Stmt::Expr(Expr::Assign(a), _) => path_ident(&a.left).map(|x| (x, Some(&*a.right))),
        _ => None,
    };
    let value = defined
        .as_ref()
        .and_then(|(_, e)| e.and_then(|e| eval(facts, e)));
    let killed = kill(facts, stmt);
    if let (Some((x, _)), Some(v)) = (defined, value) {
        if !killed.iter().any(|k| v.mentions(k)) {
            facts.insert(x, v);
        }
    }
}

/// The merge of Figure 2.17 for `if`/`else` (a chain of them too): the condition's kills,
/// then each arm from the same facts, then the facts every arm agrees on. A missing `else`
/// is an arm that changes nothing.
fn branches(facts: &mut Facts, i: &syn::ExprIf) {
    kill(facts, &Stmt::Expr((*i.cond).clone(), None));
    let mut then = facts.clone();
    block(&mut then, &i.then_branch);
    match i.else_branch.as_ref().map(|(_, e)| &**e) {
        None => {}
        Some(Expr::If(elif)) => branches(facts, elif),
        Some(Expr::Block(b)) => block(facts, &b.block),
        Some(other) => {
            kill(facts, &Stmt::Expr(other.clone(), None));
        }
    }
    *facts = intersect(&then, facts);
}

/// A block's statements in order; a local it binds is gone after it (its facts with it, and
/// an outer local of the same name is conservatively unknown).
fn block(facts: &mut Facts, b: &syn::Block) {
    for stmt in &b.stmts {
        transfer(facts, stmt);
    }
    for stmt in &b.stmts {
        if let Stmt::Local(l) = stmt {
            for x in bound_names(&l.pat) {
                drop_local(facts, &x);
            }
        }
    }
}

/// Kills every local `stmt` changes, and returns them.
fn kill(facts: &mut Facts, stmt: &Stmt) -> Vec<String> {
    let mut kills = Kills::default();
    kills.visit_stmt_mut(&mut stmt.clone());
    for k in &kills.0 {
        drop_local(facts, k);
    }
    kills.0
}

/// Forgets local `x` and every term that mentions it.
fn drop_local(facts: &mut Facts, x: &str) {
    facts.remove(x);
    facts.retain(|_, t| !t.mentions(x));
}

/// Every local a statement assigns (`x = `, `x += `), borrows mutably or binds anew in a
/// nested `let` (conservatively: shadowing inside a block is a kill too).
#[derive(Default)]
struct Kills(Vec<String>);

impl VisitMut for Kills {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Assign(a) => self.0.extend(path_ident(&a.left)),
            Expr::Binary(b) if crate::syntax::is_compound_assignment(&b.op) => {
                self.0.extend(path_ident(&b.left))
            }
            Expr::Reference(r) if r.mutability.is_some() => self.0.extend(path_ident(&r.expr)),
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        self.0.extend(bound_names(&l.pat));
        syn::visit_mut::visit_local_mut(self, l);
    }
}

/// Every local a pattern binds (`(a, b)`, `S { x, .. }`, `x @ ..`).
fn bound_names(p: &Pat) -> Vec<String> {
    struct Names(Vec<String>);
    impl VisitMut for Names {
        fn visit_pat_ident_mut(&mut self, i: &mut syn::PatIdent) {
            self.0.push(i.ident.to_string());
            syn::visit_mut::visit_pat_ident_mut(self, i);
        }
    }
    let mut names = Names(Vec::new());
    names.visit_pat_mut(&mut p.clone());
    names.0
}

fn path_ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Paren(p) => path_ident(&p.expr),
        _ => None,
    }
}

/// The arguments of every call `name(..)` in a statement.
fn calls_of(stmt: &Stmt, name: &str) -> Vec<Vec<Expr>> {
    struct Calls<'n>(&'n str, Vec<Vec<Expr>>);
    impl VisitMut for Calls<'_> {
        fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
            if path_ident(&c.func).as_deref() == Some(self.0) {
                self.1.push(c.args.iter().cloned().collect());
            }
            syn::visit_mut::visit_expr_call_mut(self, c);
        }
    }
    let mut calls = Calls(name, Vec::new());
    calls.visit_stmt_mut(&mut stmt.clone());
    calls.1
}

/// The term `e` evaluates to under `facts`.
fn eval(facts: &Facts, e: &Expr) -> Option<Term> {
    term::eval(&|x| facts.get(x).cloned(), e)
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn expanded(module: proc_macro2::TokenStream) -> String {
        super::expand(quote!(), module).to_string()
    }

    #[test]
    fn a_parameter_bound_by_the_only_call_site_is_a_fact() {
        let out = expanded(quote!(
            mod m {
                fn main_like() {
                    foo(41);
                    foo(42);
                    bar(5.into());
                }
                fn foo(x: i64) {}
                fn bar(r2: Sym<i64>) {
                    let r2 = symx::checkpoint!("ctx", r2);
                }
            }
        ));
        assert!(out.contains("\"ctx\" , r2 ; r2 = 5"), "{out}");
    }

    #[test]
    fn call_sites_that_disagree_give_no_fact() {
        let out = expanded(quote!(
            mod m {
                fn main_like() {
                    bar(5);
                    bar(6);
                }
                fn bar(r2: i64) {
                    symx::checkpoint!("ctx", r2);
                }
            }
        ));
        assert!(!out.contains("r2 ="), "{out}");
    }

    #[test]
    fn a_definition_over_an_unknown_local_relates_two_captures_until_one_changes() {
        let out = expanded(quote!(
            mod m {
                fn f(r2: Sym<u32>, z: Sym<u32>) {
                    let r1 = r2 + 5;
                    let d = r1 * 2;
                    let copy = r2;
                    symx::checkpoint!("a", r1, r2, d, copy);
                    let w = z - 1;
                    z = z + 3;
                    let (r1, _) = (z, 0);
                    symx::checkpoint!("b", w, z, r1, r2);
                }
            }
        ));
        // `copy = r2` has no literal to say its type; `w` spoke of the old `z`, the new `z`
        // of itself.
        assert!(
            out.contains("(\"a\" , r1 , r2 , d , copy ; r1 = (r2 + 5) , d = ((r2 + 5) * 2))"),
            "{out}"
        );
        // `r1` was bound anew by a tuple pattern: its old fact is gone.
        assert!(out.contains("(\"b\" , w , z , r1 , r2)"), "{out}");
    }

    #[test]
    fn if_else_arms_keep_what_they_agree_on() {
        let out = expanded(quote!(
            mod m {
                fn f(r: Sym<u32>) {
                    let mut a = 1;
                    let mut b = 1;
                    let mut c = 1;
                    let mut d = r + 1;
                    if cond() {
                        a = 4;
                        b = 2;
                        let c = 9;
                        d = r + 1;
                    } else if other() {
                        a = 4;
                    } else {
                        a = 2 + 2;
                        d = r + 1;
                    }
                    symx::checkpoint!("here", a, b, c, d, r);
                }
            }
        ));
        // `a` is 4 in every arm, `b` only in one; the inner `c` is the arm's own, so the outer
        // `c` is conservatively unknown; every arm leaves `d == r + 1`.
        assert!(
            out.contains("(\"here\" , a , b , c , d , r ; a = 4 , d = (r + 1))"),
            "{out}"
        );
    }

    #[test]
    fn locals_flow_through_lets_and_die_at_assignments_and_mutable_borrows() {
        let out = expanded(quote!(
            mod m {
                fn f() {
                    let a = 2;
                    let b = a * 3 + 1;
                    let mut c = 1;
                    if cond() {
                        c = 4;
                    }
                    let mut d = 9;
                    touch(&mut d);
                    symx::checkpoint!("here", a, b, c, d);
                }
            }
        ));
        // `c` is assigned in a branch and `d` borrowed mutably: neither is known.
        assert!(
            out.contains("(\"here\" , a , b , c , d ; a = 2 , b = 7)"),
            "{out}"
        );
    }
}
