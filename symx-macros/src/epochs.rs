//! Epoch markers for input-covering schedules: Bergan's `PlaceEpochMarkers` (dissertation,
//! Fig. 3.2) made syntactic, one function at a time, and the havoc of each loop's carried
//! locals at a boundary.
//!
//! Each loop of an instrumented body gets, at the top of its body, a call to
//! `symx::__private::epoch::loop_head` with the placement's decision, which the runtime
//! reports per site (`cargo symx schedules` lists them):
//!
//! - *covered by a barrier*: a top-level statement of the body waits at a barrier
//!   (`x.wait()` without arguments); the barrier is the loop's marker (the paper's third
//!   optimization), so an implicit marker goes just before that statement;
//! - *covered by a marker*: a top-level statement calls `symx::epoch_marker()`, or is an
//!   inner `loop` (which runs at least once) that has a marker (the paper's second: don't
//!   cover the same loop twice);
//! - *synchronization-free*: no synchronizing call in the loop: no marker;
//! - *trivial*: its only synchronization is spawning and joining threads or a
//!   condition-variable wait (`cv.wait(guard)`): no marker (the paper's first);
//! - otherwise the loop head is an active marker (*synchronizes*).
//!
//! Synchronizing calls are recognised by name (`lock`, `wait`, `send`, `recv`, atomics'
//! operations, `epoch_marker`, ...), not through a call graph: a loop that synchronizes
//! only inside a function it calls is placed *synchronization-free*, and the runtime makes
//! its head a marker once an iteration synchronized without passing one (the run sees the
//! calls the text does not). Closures in the loop are not looked into (a spawned thread's
//! body is not the loop's synchronization).
//!
//! At a boundary the loop's *carried* locals (plain names assigned in the loop and not
//! bound in it) are havocked: the runtime turns each symbolic one into a fresh input. So
//! are the `Sym` locals the loop only reads whose binding says their type (a parameter or a
//! `let` typed `Sym<..>`, never bound otherwise in the function): a statement before the
//! loop rebinds each mutably (`let mut n = n;`, a copy) for the havoc to replace. A thread's
//! parameter is what tells apart threads that run the same function, so with symbolic
//! thread ids the epoch's constraints speak of it by the thread, not of the input it came
//! from (which another way into the epoch gives another thread).

use proc_macro2::{Span, TokenStream};
use quote::{quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{
    parse_quote_spanned, Block, Expr, ExprClosure, FnArg, Ident, Item, Local, Pat, Signature, Stmt,
    Type,
};

use crate::syntax::names_function;

/// Places the markers and the havoc code in every loop of `block`, the body of the function
/// `sig` (whose name the runtime reports with each loop).
pub(crate) fn place(block: &mut Block, sig: &Signature) {
    Placer {
        function: sig.ident.to_string(),
        symbolic: symbolic_names(sig, block),
        read_only: Vec::new(),
    }
    .visit_block_mut(block);
}

/// The decision about one loop, named as the runtime's `Placement`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placement {
    Marker,
    SyncFree,
    Trivial,
    CoveredByBarrier(usize),
    CoveredByMarker(Option<usize>),
}

struct Placer {
    function: String,
    /// Names whose every binding in the function is typed `Sym<..>`.
    symbolic: Vec<String>,
    /// The read-only `Sym` locals rebound before the loop about to be visited.
    read_only: Vec<Ident>,
}

impl VisitMut for Placer {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let mut i = 0;
        while i < block.stmts.len() {
            let names = match &block.stmts[i] {
                Stmt::Expr(e @ (Expr::While(_) | Expr::Loop(_)), _) => self.reads_only(e),
                _ => Vec::new(),
            };
            for n in &names {
                let rebind: Stmt = parse_quote_spanned! {n.span()=>
                    #[allow(unused_mut)]
                    let mut #n = #n;
                };
                block.stmts.insert(i, rebind);
                i += 1;
            }
            self.read_only = names;
            self.visit_stmt_mut(&mut block.stmts[i]);
            i += 1;
        }
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let read_only = std::mem::take(&mut self.read_only);
        let (span, placement, mut carried) = match &*expr {
            Expr::While(w) => (
                w.while_token.span,
                decide(&w.body),
                carried(Some(&w.cond), &w.body),
            ),
            Expr::Loop(l) => (l.loop_token.span, decide(&l.body), carried(None, &l.body)),
            // A `for` loop's state is its iterator, which is not a local to havoc.
            Expr::ForLoop(f) => (f.for_token.span, decide(&f.body), Vec::new()),
            _ => return visit_mut::visit_expr_mut(self, expr),
        };
        let body = match expr {
            Expr::While(w) => &mut w.body,
            Expr::Loop(l) => &mut l.body,
            Expr::ForLoop(f) => &mut f.body,
            _ => unreachable!(),
        };
        carried.extend(read_only);
        instrument_loop(body, span, placement, &carried, &self.function);
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut Item) {}
}

impl Placer {
    /// The `Sym` locals the loop `e` reads and does not assign, when it crosses boundaries.
    fn reads_only(&self, e: &Expr) -> Vec<Ident> {
        let (cond, body) = match e {
            Expr::While(w) => (Some(&*w.cond), &w.body),
            Expr::Loop(l) => (None, &l.body),
            _ => return Vec::new(),
        };
        // A synchronization-free loop's head may still become a marker (see the runtime's
        // `loop_head`).
        let havocs = matches!(
            decide(body),
            Placement::Marker
                | Placement::SyncFree
                | Placement::CoveredByBarrier(_)
                | Placement::CoveredByMarker(Some(_))
        );
        if !havocs {
            return Vec::new();
        }
        let names = names_in(cond, body);
        let mut out: Vec<Ident> = Vec::new();
        for n in names.read {
            let s = n.to_string();
            let assigned = names.assigned.iter().any(|a| *a == s);
            let fresh = !out.iter().any(|o| *o == s);
            if self.symbolic.contains(&s) && !assigned && !names.bound.contains(&s) && fresh {
                out.push(n);
            }
        }
        out
    }
}

/// The names whose every binding in the function (its parameters, `let`s, closures'
/// parameters) is typed `Sym<..>`.
fn symbolic_names(sig: &Signature, block: &Block) -> Vec<String> {
    let mut b = Bindings::default();
    for arg in &sig.inputs {
        if let FnArg::Typed(t) = arg {
            b.visit_pat_type_mut(&mut t.clone());
        }
    }
    b.visit_block_mut(&mut block.clone());
    let mut out: Vec<String> = b.symbolic;
    out.retain(|n| !b.other.contains(n));
    out.dedup();
    out
}

/// Each binding of a function, by whether its type is written `Sym<..>`.
#[derive(Default)]
struct Bindings {
    symbolic: Vec<String>,
    other: Vec<String>,
}

impl VisitMut for Bindings {
    fn visit_pat_type_mut(&mut self, t: &mut syn::PatType) {
        match (&*t.pat, is_sym(&t.ty)) {
            (Pat::Ident(id), true) if id.subpat.is_none() => {
                self.symbolic.push(id.ident.to_string())
            }
            _ => visit_mut::visit_pat_type_mut(self, t),
        }
    }

    fn visit_pat_ident_mut(&mut self, id: &mut syn::PatIdent) {
        self.other.push(id.ident.to_string());
        visit_mut::visit_pat_ident_mut(self, id);
    }

    fn visit_item_mut(&mut self, _: &mut Item) {}
}

/// `Sym<..>` under any path (`symx::Sym<u32>`).
fn is_sym(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "Sym"))
}

fn decide(body: &Block) -> Placement {
    for (i, stmt) in body.stmts.iter().enumerate() {
        let Some(e) = top_expr(stmt) else { continue };
        if waits_at_barrier(e) {
            return Placement::CoveredByBarrier(i);
        }
        if calls_marker(e) {
            return Placement::CoveredByMarker(Some(i));
        }
        if let Expr::Loop(inner) = e {
            if decide(&inner.body) != Placement::SyncFree
                && decide(&inner.body) != Placement::Trivial
            {
                return Placement::CoveredByMarker(None);
            }
        }
    }
    let mut calls = SyncCalls::default();
    calls.visit_block_mut(&mut body.clone());
    match (calls.any, calls.nontrivial) {
        (false, _) => Placement::SyncFree,
        (true, false) => Placement::Trivial,
        (true, true) => Placement::Marker,
    }
}

/// The expression a top-level statement evaluates (its initialiser for a `let`).
fn top_expr(stmt: &Stmt) -> Option<&Expr> {
    match stmt {
        Stmt::Expr(e, _) => Some(e),
        Stmt::Local(Local {
            init: Some(init), ..
        }) => Some(&init.expr),
        _ => None,
    }
}

/// `b.wait()` (a barrier: a condition variable's `wait` takes a guard), possibly as the
/// receiver of further calls (`b.wait().is_leader()`).
fn waits_at_barrier(e: &Expr) -> bool {
    match e {
        Expr::MethodCall(m) => {
            (m.method == "wait" && m.args.is_empty()) || waits_at_barrier(&m.receiver)
        }
        Expr::Paren(p) => waits_at_barrier(&p.expr),
        _ => false,
    }
}

/// `symx::epoch_marker()`, under any path.
fn calls_marker(e: &Expr) -> bool {
    match e {
        Expr::Call(c) => names_function(&c.func, "epoch_marker"),
        _ => false,
    }
}

/// The first call in `block` (closures aside) that synchronizes, by name, and that name.
pub(crate) fn first_sync_call(block: &Block) -> Option<(TokenStream, String)> {
    let mut calls = SyncCalls::default();
    calls.visit_block_mut(&mut block.clone());
    calls.first
}

/// The synchronizing calls of a loop, by name.
#[derive(Default)]
struct SyncCalls {
    any: bool,
    /// One beyond spawning, joining and condition-variable waits.
    nontrivial: bool,
    /// The first synchronizing call and its name.
    first: Option<(TokenStream, String)>,
}

const SYNC_METHODS: &[&str] = &[
    "lock",
    "try_lock",
    "read",
    "write",
    "try_read",
    "try_write",
    "wait",
    "wait_while",
    "wait_timeout",
    "wait_timeout_while",
    "notify_one",
    "notify_all",
    "send",
    "try_send",
    "recv",
    "try_recv",
    "recv_timeout",
    "load",
    "store",
    "swap",
    "fetch_add",
    "fetch_sub",
    "fetch_and",
    "fetch_or",
    "fetch_xor",
    "fetch_max",
    "fetch_min",
    "fetch_update",
    "compare_exchange",
    "compare_exchange_weak",
    "call_once",
    "unpark",
    "acquire",
    "release",
    "post",
];

const TRIVIAL: &[&str] = &["spawn", "join", "scope"];

impl SyncCalls {
    fn note(&mut self, name: &Ident, args: usize) {
        let any = self.any;
        self.note_kind(name, args);
        if self.any && !any {
            self.first = Some((name.to_token_stream(), name.to_string()));
        }
    }

    fn note_kind(&mut self, name: &Ident, args: usize) {
        let name = name.to_string();
        if TRIVIAL.contains(&name.as_str()) || (name == "wait" && args > 0) || name == "wait_while"
        {
            self.any = true;
        } else if SYNC_METHODS.contains(&name.as_str()) || name == "park" || name == "epoch_marker"
        {
            self.any = true;
            self.nontrivial = true;
        }
    }
}

impl VisitMut for SyncCalls {
    fn visit_expr_method_call_mut(&mut self, m: &mut syn::ExprMethodCall) {
        self.note(&m.method, m.args.len());
        visit_mut::visit_expr_method_call_mut(self, m);
    }

    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        if let Expr::Path(p) = &*c.func {
            if let Some(last) = p.path.segments.last() {
                let name = last.ident.clone();
                if name == "spawn" || name == "scope" || name == "park" || name == "epoch_marker" {
                    self.note(&name, c.args.len());
                }
            }
        }
        visit_mut::visit_expr_call_mut(self, c);
    }

    fn visit_expr_closure_mut(&mut self, _: &mut ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut Item) {}
}

/// The names a loop (its condition and body, closures aside) assigns, binds and reads.
fn names_in(cond: Option<&Expr>, body: &Block) -> Names {
    let mut names = Names::default();
    if let Some(c) = cond {
        names.visit_expr_mut(&mut c.clone());
    }
    names.visit_block_mut(&mut body.clone());
    names
}

/// Plain names assigned in the loop (its condition or body, closures aside) and not bound
/// in its body: the loop-carried locals.
fn carried(cond: Option<&Expr>, body: &Block) -> Vec<Ident> {
    let names = names_in(cond, body);
    let mut out: Vec<Ident> = Vec::new();
    for n in names.assigned {
        let s = n.to_string();
        let upper = s.starts_with(|c: char| c.is_uppercase());
        if !upper && !names.bound.contains(&s) && !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

#[derive(Default)]
struct Names {
    assigned: Vec<Ident>,
    bound: Vec<String>,
    /// Plain names used as values.
    read: Vec<Ident>,
}

impl Names {
    fn target(&mut self, e: &Expr) {
        if let Expr::Path(p) = e {
            if let Some(id) = p.path.get_ident() {
                self.assigned.push(id.clone());
            }
        }
    }
}

impl VisitMut for Names {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match &*e {
            Expr::Assign(a) => self.target(&a.left),
            Expr::Binary(b) if crate::syntax::is_compound_assignment(&b.op) => self.target(&b.left),
            Expr::Path(p) => self.read.extend(p.path.get_ident().cloned()),
            _ => {}
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_pat_mut(&mut self, p: &mut Pat) {
        if let Pat::Ident(id) = p {
            self.bound.push(id.ident.to_string());
        }
        visit_mut::visit_pat_mut(self, p);
    }

    fn visit_expr_closure_mut(&mut self, _: &mut ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut Item) {}
}

/// Puts the loop head call at the top of `body`, and the implicit marker or the havoc after
/// an explicit one where the placement says.
fn instrument_loop(
    body: &mut Block,
    span: Span,
    placement: Placement,
    carried: &[Ident],
    function: &str,
) {
    let lockstep = matches!(placement, Placement::CoveredByBarrier(_));
    let havoc = havoc(carried, span, lockstep);
    let kind = match placement {
        Placement::Marker => "Marker",
        Placement::SyncFree => "SyncFree",
        Placement::Trivial => "Trivial",
        Placement::CoveredByBarrier(_) => "CoveredByBarrier",
        Placement::CoveredByMarker(_) => "CoveredByMarker",
    };
    let kind = Ident::new(kind, span);
    match placement {
        Placement::CoveredByBarrier(i) => {
            let at = body.stmts[i].span();
            let marker: Stmt = parse_quote_spanned! {at=>
                if ::symx::__private::epoch::barrier_marker() { #havoc }
            };
            body.stmts.insert(i, marker);
        }
        Placement::CoveredByMarker(Some(i)) => {
            let after: Stmt = parse_quote_spanned! {span=>
                if ::symx::__private::epoch::crossed() { #havoc }
            };
            body.stmts.insert(i + 1, after);
        }
        _ => {}
    }
    let head: Stmt = parse_quote_spanned! {span=>
        if ::symx::__private::epoch::loop_head(
            ::symx::__private::epoch::Placement::#kind,
            #function,
        ) {
            #havoc
        }
    };
    body.stmts.insert(0, head);
}

/// The havoc of the carried locals (each `Sym` one becomes a fresh input).
fn havoc(carried: &[Ident], span: Span, lockstep: bool) -> TokenStream {
    let each = carried.iter().map(|n| {
        let name = n.to_string();
        quote_spanned! {span=>
            (&&::symx::__private::epoch::Havoc::new(&mut #n)).havoc(#name, #lockstep);
        }
    });
    quote_spanned! {span=>
        #[allow(unused_imports)]
        use ::symx::__private::epoch::{HavocAny as _, HavocSym as _};
        #(#each)*
    }
}
