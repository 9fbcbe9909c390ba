//! The flow functions of the reaching-definitions analysis over one function body (the
//! dissertation's Figure 2.17 on Rust's structured syntax), and what they observe on the way:
//! the facts before every checkpoint and at every call site.
//!
//! - A plain statement defines a local (`let x = e;`, `x = e;`) when `e` evaluates to a
//!   [`Term`], after killing every local the statement changes (assigns, borrows mutably or
//!   binds anew in any pattern inside it) and every term that mentions one.
//! - `if`/`else` chains and `match` run each arm from the same facts and keep what the arms
//!   agree on (the paper's merge); names an arm's pattern (`if let`, `match`) binds are the
//!   arm's own.
//! - A loop's head facts are an inductive invariant: the facts before the loop, intersected
//!   with what one pass of the body gives from them, until nothing changes (a head fact
//!   then holds on entry and after every pass). A body that can `break` or `continue`
//!   leaves or restarts mid-way, where only the head facts over locals the body never
//!   changes are known; those are what the exit and the back edge keep. Should the
//!   iteration not settle, the head keeps just those.
//!
//! Every fact is a must fact: dropping one is always sound, so each construct not listed
//! here kills what it may change.

use std::collections::HashMap;

use syn::visit_mut::VisitMut;
use syn::{Block, Expr, ExprIf, ExprMatch, Macro, Pat, Stmt};

use super::term::{self, Term};
use super::Facts;

/// More passes over a loop body than this and the head keeps only what the body cannot
/// change (the iteration need not settle: a definition's term depends on the facts).
const MAX_PASSES: usize = 16;

/// What the analysis of one function saw: the facts before each checkpoint statement (by
/// the address of its macro in the analysed tree) and the constant arguments of each call.
#[derive(Default)]
pub(super) struct Observed {
    pub(super) checkpoints: HashMap<usize, Facts>,
    pub(super) calls: Vec<Call>,
}

/// One call site: the callee's name and each argument's value when it is a constant.
pub(super) struct Call {
    pub(super) callee: String,
    pub(super) args: Vec<Option<Term>>,
}

/// The facts after running `b` from `facts`, recording what it sees into `seen`.
pub(super) fn block(facts: &mut Facts, b: &Block, seen: &mut Observed) {
    let names: Vec<String> = (b.stmts.iter())
        .filter_map(|s| match s {
            Stmt::Local(l) => Some(bound_names(&l.pat)),
            _ => None,
        })
        .flatten()
        .collect();
    if names.is_empty() {
        return b.stmts.iter().for_each(|s| stmt(facts, s, seen));
    }
    // The locals the block binds are gone after it; the outer ones they shadowed are back.
    let code = Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: b.clone(),
    });
    let (changes, assigned) = (changes(&code, false), changes(&code, true));
    let outer = facts.clone();
    for s in &b.stmts {
        stmt(facts, s, seen);
    }
    restore_shadowed(facts, &outer, &names, (&changes, &assigned));
}

fn stmt(facts: &mut Facts, s: &Stmt, seen: &mut Observed) {
    if let Some(mac) = super::checkpoint_in(s) {
        seen.checkpoints.insert(address(mac), facts.clone());
        if rebinds_its_captures(s, mac) {
            return;
        }
    }
    match s {
        Stmt::Expr(e, _) => expr(facts, e, seen),
        Stmt::Local(l) => {
            let defined = pat_ident(&l.pat).zip(l.init.as_ref().map(|i| &*i.expr));
            plain(facts, s, defined, seen);
        }
        Stmt::Macro(_) => plain(facts, s, None, seen),
        Stmt::Item(_) => {}
    }
}

/// `let (a, b) = checkpoint!("l", a, b);`: each capture bound again to its own name. The
/// checkpoint gives back the values it took (recorded ones on the prefix run, generalised
/// ones constrained by the very facts stated here when exploring from it), so every fact
/// that held before still holds after: the statement changes nothing the analysis tracks.
fn rebinds_its_captures(s: &Stmt, mac: &Macro) -> bool {
    let Stmt::Local(l) = s else { return false };
    let captures = crate::checkpoint::capture_names(&mac.tokens);
    let bound: Option<Vec<String>> = match &l.pat {
        Pat::Tuple(t) => t.elems.iter().map(pat_ident).collect(),
        p => pat_ident(p).map(|x| vec![x]),
    };
    bound.is_some_and(|b| !b.is_empty() && b == captures)
}

/// A statement or expression of a block whose structure the analysis follows.
fn expr(facts: &mut Facts, e: &Expr, seen: &mut Observed) {
    match e {
        Expr::If(i) => branches(facts, i, seen),
        Expr::Match(m) => arms(facts, m, seen),
        Expr::While(w) if w.label.is_none() => {
            let head = Head::Cond(&w.cond);
            looped(facts, head, &w.body, seen)
        }
        Expr::Loop(l) if l.label.is_none() => looped(facts, Head::None, &l.body, seen),
        Expr::ForLoop(f) if f.label.is_none() => {
            observe_calls(facts, &f.expr, seen);
            kill(facts, &f.expr);
            looped(facts, Head::Pattern(&f.pat), &f.body, seen)
        }
        Expr::Block(b) if b.label.is_none() => block(facts, &b.block, seen),
        // A `match` arm that is a checkpoint (a statement's checkpoint is seen by `stmt`).
        Expr::Macro(m) if super::is_checkpoint(&m.mac) => {
            seen.checkpoints.insert(address(&m.mac), facts.clone());
            plain(facts, &Stmt::Expr(e.clone(), None), None, seen)
        }
        Expr::Assign(a) => {
            let stmt = Stmt::Expr(e.clone(), None);
            plain(facts, &stmt, path_ident(&a.left).zip(Some(&*a.right)), seen)
        }
        _ => plain(facts, &Stmt::Expr(e.clone(), None), None, seen),
    }
}

/// A statement the analysis does not look into: it sees the calls it makes, kills what it
/// changes, then adds the definition it makes.
fn plain(facts: &mut Facts, s: &Stmt, defined: Option<(String, &Expr)>, seen: &mut Observed) {
    let value = defined.as_ref().and_then(|(_, e)| eval(facts, e));
    let killed = kill_stmt(facts, s);
    // The arguments are evaluated before the statement's own assignments take effect, but
    // a local the statement changes may change before the call: only survivors count.
    calls(facts, s, seen);
    if let (Some((x, _)), Some(v)) = (defined, value) {
        if !killed.iter().any(|k| v.mentions(k)) {
            facts.insert(x, v);
        }
    }
}

/// The merge of Figure 2.17 for `if`/`else` (a chain of them too): the condition's kills,
/// then each arm from the same facts, then the facts every arm agrees on. A missing `else`
/// is an arm that changes nothing; names an `if let` binds belong to the `then` arm.
fn branches(facts: &mut Facts, i: &ExprIf, seen: &mut Observed) {
    let cond = without_let_patterns(&i.cond);
    observe_calls(facts, &cond, seen);
    kill(facts, &cond);
    let mut then = facts.clone();
    let then_block = Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: i.then_branch.clone(),
    });
    let changed = changes(&then_block, false);
    in_scope_of(&mut then, &let_bindings(&i.cond), &changed, |then| {
        block(then, &i.then_branch, seen)
    });
    match i.else_branch.as_ref().map(|(_, e)| &**e) {
        None => {}
        Some(Expr::If(elif)) => branches(facts, elif, seen),
        Some(other) => expr(facts, other, seen),
    }
    *facts = intersect(&then, facts);
}

/// `match`: the scrutinee's kills, then each arm (its pattern's names are its own, its
/// guard may kill) from the same facts, then what every arm agrees on.
fn arms(facts: &mut Facts, m: &ExprMatch, seen: &mut Observed) {
    observe_calls(facts, &m.expr, seen);
    kill(facts, &m.expr);
    let mut merged: Option<Facts> = None;
    for arm in &m.arms {
        let mut a = facts.clone();
        let mut scope = changes(&arm.body, false);
        if let Some((_, guard)) = &arm.guard {
            scope.extend(changes(guard, false));
        }
        in_scope_of(&mut a, &bound_names(&arm.pat), &scope, |a| {
            if let Some((_, guard)) = &arm.guard {
                observe_calls(a, guard, seen);
                kill(a, guard);
            }
            expr(a, &arm.body, seen);
        });
        merged = Some(match merged {
            None => a,
            Some(m) => intersect(&m, &a),
        });
    }
    // No arm: the scrutinee has no value, and nothing after the match runs.
    if let Some(m) = merged {
        *facts = m;
    }
}

/// Runs `inner` where `names` are bound anew from the start (a pattern's locals shadow the
/// outer ones), then brings back the outer ones' facts (see [`restore_shadowed`]).
fn in_scope_of(
    facts: &mut Facts,
    names: &[String],
    changes: &[String],
    inner: impl FnOnce(&mut Facts),
) {
    let outer = facts.clone();
    for x in names {
        drop_local(facts, x);
    }
    inner(facts);
    restore_shadowed(facts, &outer, names, (changes, &[]));
}

/// At the end of a scope that bound `names`: forgets the scope's own locals and brings back
/// the `outer` facts that speak of the locals they shadowed. Such a fact ends when it also
/// speaks of another local the scope changes (`changes`), or of a local the scope assigns
/// before shadowing it (`assigned`: a block's `x = 1; let x = ..;` changes the outer `x`).
fn restore_shadowed(
    facts: &mut Facts,
    outer: &Facts,
    names: &[String],
    (changes, assigned): (&[String], &[String]),
) {
    for x in names {
        drop_local(facts, x);
    }
    for (k, t) in outer {
        let locals: Vec<String> = std::iter::once(k.clone()).chain(t.vars()).collect();
        let shadowed = locals.iter().any(|v| names.contains(v));
        let kept = locals
            .iter()
            .all(|v| !assigned.contains(v) && (names.contains(v) || !changes.contains(v)));
        if shadowed && kept {
            facts.insert(k.clone(), t.clone());
        }
    }
}

/// Every local `e` (a scope's code) may change, or (`assignments_only`) assigns or
/// borrows mutably.
fn changes(e: &Expr, assignments_only: bool) -> Vec<String> {
    let mut kills = Kills {
        names: Vec::new(),
        assignments_only,
    };
    kills.visit_expr_mut(&mut e.clone());
    kills.names
}

/// What a loop evaluates at its head before each pass.
#[derive(Clone, Copy)]
enum Head<'a> {
    /// `loop`: nothing.
    None,
    /// `while cond` / `while let p = e`.
    Cond(&'a Expr),
    /// `for p in ..`: a fresh binding of `p` for each pass.
    Pattern(&'a Pat),
}

/// A loop: the head invariant by iteration (module doc), then one last pass that records
/// what the body sees under it, then the exit's facts (the head's, when its condition
/// fails; a `loop` leaves only by `break`).
fn looped(facts: &mut Facts, head: Head, b: &Block, seen: &mut Observed) {
    let entry = facts.clone();
    let leaves_midway = breaks_or_continues(b);
    let mut inv = entry.clone();
    let mut settled = false;
    for _ in 0..MAX_PASSES {
        let mut after = pass(&inv, head, b, &mut Observed::default());
        if leaves_midway {
            after = intersect(&after, &unchanged_by(&inv, head, b));
        }
        let next = intersect(&entry, &after);
        if next == inv {
            settled = true;
            break;
        }
        inv = next;
    }
    if !settled {
        inv = unchanged_by(&entry, head, b);
    }
    pass(&inv, head, b, seen);
    *facts = at_head(&inv, head, &mut Observed::default());
    if leaves_midway {
        *facts = intersect(facts, &unchanged_by(&inv, head, b));
    }
}

/// One pass: the head, then the body from its facts.
fn pass(inv: &Facts, head: Head, b: &Block, seen: &mut Observed) -> Facts {
    let mut f = at_head(inv, head, seen);
    if let Head::Pattern(p) = head {
        for x in bound_names(p) {
            drop_local(&mut f, &x);
        }
    }
    if let Head::Cond(c) = head {
        for x in let_bindings(c) {
            drop_local(&mut f, &x);
        }
    }
    block(&mut f, b, seen);
    f
}

/// The facts after evaluating the loop's head from `inv`.
fn at_head(inv: &Facts, head: Head, seen: &mut Observed) -> Facts {
    let mut f = inv.clone();
    if let Head::Cond(c) = head {
        let c = without_let_patterns(c);
        observe_calls(&f, &c, seen);
        kill(&mut f, &c);
    }
    f
}

/// `facts` without every local the loop (its head and body) may change, nor any term that
/// mentions one: what holds at any point inside the loop when `facts` held at its head.
fn unchanged_by(facts: &Facts, head: Head, b: &Block) -> Facts {
    let mut f = facts.clone();
    for s in &b.stmts {
        kill_stmt(&mut f, s);
    }
    match head {
        Head::Cond(c) => {
            kill(&mut f, c);
        }
        Head::Pattern(p) => {
            for x in bound_names(p) {
                drop_local(&mut f, &x);
            }
        }
        Head::None => {}
    }
    f
}

/// Whether a loop body contains a `break` or `continue` (any: one aimed at an outer loop
/// leaves this one mid-way too).
fn breaks_or_continues(b: &Block) -> bool {
    #[derive(Default)]
    struct Found(bool);
    impl VisitMut for Found {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if matches!(e, Expr::Break(_) | Expr::Continue(_)) {
                self.0 = true;
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    let mut found = Found::default();
    found.visit_block_mut(&mut b.clone());
    found.0
}

/// Records the constant arguments of every call `f(..)` in `e` under `facts` minus what
/// `e` itself changes.
fn observe_calls(facts: &Facts, e: &Expr, seen: &mut Observed) {
    let mut survivors = facts.clone();
    kill(&mut survivors, e);
    calls(&survivors, &Stmt::Expr(e.clone(), None), seen);
}

fn calls(facts: &Facts, s: &Stmt, seen: &mut Observed) {
    struct Calls<'f>(&'f Facts, Vec<Call>);
    impl VisitMut for Calls<'_> {
        fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
            if let Some(callee) = path_ident(&c.func) {
                let args = (c.args.iter())
                    .map(|a| eval(self.0, a).filter(|t| matches!(t, Term::Const(_))))
                    .collect();
                self.1.push(Call { callee, args });
            }
            syn::visit_mut::visit_expr_call_mut(self, c);
        }
    }
    let mut found = Calls(facts, Vec::new());
    found.visit_stmt_mut(&mut s.clone());
    seen.calls.extend(found.1);
}

/// The key of a checkpoint: its macro's address in the analysed tree, which the annotating
/// pass finds again in the same, unmoved tree.
pub(super) fn address(mac: &Macro) -> usize {
    mac as *const Macro as usize
}

pub(super) fn intersect(a: &Facts, b: &Facts) -> Facts {
    a.iter()
        .filter(|(k, v)| b.get(*k) == Some(v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

pub(super) fn pat_ident(p: &Pat) -> Option<String> {
    match p {
        Pat::Ident(i) if i.subpat.is_none() => Some(i.ident.to_string()),
        Pat::Type(t) => pat_ident(&t.pat),
        _ => None,
    }
}

fn kill(facts: &mut Facts, e: &Expr) -> Vec<String> {
    kill_stmt(facts, &Stmt::Expr(e.clone(), None))
}

/// Kills every local `s` changes, and returns them.
fn kill_stmt(facts: &mut Facts, s: &Stmt) -> Vec<String> {
    let mut kills = Kills::default();
    kills.visit_stmt_mut(&mut s.clone());
    for k in &kills.names {
        drop_local(facts, k);
    }
    kills.names
}

/// Forgets local `x` and every term that mentions it.
fn drop_local(facts: &mut Facts, x: &str) {
    facts.remove(x);
    facts.retain(|_, t| !t.mentions(x));
}

/// Every local a statement assigns (`x = `, `x += `), borrows mutably or (unless
/// `assignments_only`) binds anew in any pattern inside it (`let`, closure parameters,
/// `match` arms, `if let`, `for`): a name bound inside shadows the outer one there, so the
/// outer one's facts do not speak of it.
#[derive(Default)]
struct Kills {
    names: Vec<String>,
    assignments_only: bool,
}

impl VisitMut for Kills {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Assign(a) => self.names.extend(path_ident(&a.left)),
            Expr::Binary(b) if crate::syntax::is_compound_assignment(&b.op) => {
                self.names.extend(path_ident(&b.left))
            }
            Expr::Reference(r) if r.mutability.is_some() => self.names.extend(path_ident(&r.expr)),
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_pat_ident_mut(&mut self, i: &mut syn::PatIdent) {
        if !self.assignments_only {
            self.names.push(i.ident.to_string());
        }
        syn::visit_mut::visit_pat_ident_mut(self, i);
    }
}

/// Every local a pattern binds (`(a, b)`, `S { x, .. }`, `x @ ..`).
fn bound_names(p: &Pat) -> Vec<String> {
    let mut kills = Kills::default();
    kills.visit_pat_mut(&mut p.clone());
    kills.names
}

/// The names the `let` conditions of an `if let` / `while let` (and their `&&` chains)
/// bind for the arm.
fn let_bindings(cond: &Expr) -> Vec<String> {
    match cond {
        Expr::Let(l) => bound_names(&l.pat),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            let mut names = let_bindings(&b.left);
            names.extend(let_bindings(&b.right));
            names
        }
        Expr::Paren(p) => let_bindings(&p.expr),
        _ => Vec::new(),
    }
}

/// The condition with its `let` chain's patterns left out: what it evaluates and changes
/// before either arm runs (the patterns bind only for the `then` arm).
fn without_let_patterns(cond: &Expr) -> Expr {
    match cond {
        Expr::Let(l) => (*l.expr).clone(),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            let mut b = b.clone();
            *b.left = without_let_patterns(&b.left);
            *b.right = without_let_patterns(&b.right);
            Expr::Binary(b)
        }
        Expr::Paren(p) => without_let_patterns(&p.expr),
        other => other.clone(),
    }
}

pub(super) fn path_ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Paren(p) => path_ident(&p.expr),
        _ => None,
    }
}

/// The term `e` evaluates to under `facts`.
pub(super) fn eval(facts: &Facts, e: &Expr) -> Option<Term> {
    term::eval(&|x| facts.get(x).cloned(), e)
}
