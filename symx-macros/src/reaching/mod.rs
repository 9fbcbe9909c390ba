//! `#[symx::reaching_definitions]` on an inline module: the must-reach definitions of the
//! values each `symx::checkpoint!` in the module captures (Bergan, Grossman, Ceze, OOPSLA
//! 2014, §2.5 and the flow functions of the dissertation's Figure 2.17), handed to the
//! checkpoint as analysed facts.
//!
//! The analysis runs on the structured syntax of the module's functions, without types:
//! - a function's entry facts are its parameters bound to the constant arguments of every
//!   call site in the module (each evaluated with the caller's facts at the call), and
//!   intersected over the call sites (a function nobody in the module calls knows nothing
//!   about its parameters);
//! - within a body, [`flow`] carries the facts through statements, `if`/`else` and `match`
//!   arms (merged) and loops (an inductive head invariant), to every checkpoint that is a
//!   statement of a block or a `match` arm, in a loop as much as at the top;
//! - calls to other functions change no local of the caller (Rust callees cannot, except
//!   through a `&mut`, which kills), which is what the paper's summaries give for locals.
//!
//! A capture gets a fact when its definition is a constant (`r2 == 5`), or a term over other
//! captures of the same checkpoint with an integer literal in it (`r1 == r2 + 5`; the
//! literal says the locals are integers). Every fact is a must fact: sound, never needed for
//! soundness.

mod flow;
mod term;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, Item, ItemFn, ItemMod, Macro, Stmt};

use crate::diagnostics::wrong_item;
use flow::{intersect, pat_ident, Observed};
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

/// Adds the analysed facts to every checkpoint the analysis reaches in the module's
/// functions. The checkpoints are found again by address: the tree does not move between
/// the analysis and the annotation.
fn annotate(module: &mut ItemMod) {
    let items = &module.content.as_ref().expect("inline").1;
    let fns: Vec<&ItemFn> = items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) => Some(f),
            _ => None,
        })
        .collect();
    let program = Program { fns: &fns };
    let mut at: HashMap<usize, Facts> = HashMap::new();
    for f in &fns {
        at.extend(program.analyse(f, 0).checkpoints);
    }
    let items = &mut module.content.as_mut().expect("inline").1;
    for item in items.iter_mut() {
        if let Item::Fn(f) = item {
            AddFacts(&at).visit_item_fn_mut(f);
        }
    }
}

/// The checkpoint macro of a statement (`let x = checkpoint!(..);` or a statement that is
/// one).
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
/// constant, or a relational term over its captures) to the analysed checkpoints.
struct AddFacts<'a>(&'a HashMap<usize, Facts>);

impl VisitMut for AddFacts<'_> {
    fn visit_macro_mut(&mut self, mac: &mut Macro) {
        if !is_checkpoint(mac) {
            return;
        }
        let Some(facts) = self.0.get(&flow::address(mac)) else {
            return;
        };
        let captures = crate::checkpoint::capture_names(&mac.tokens);
        let stated = |t: &Term| match t {
            Term::Const(_) => true,
            t => t.is_relational() && t.vars().iter().all(|v| captures.contains(v)),
        };
        let known: Vec<TokenStream> = captures
            .iter()
            .filter_map(|c| facts.get(c).filter(|t| stated(t)).map(|t| (c, t)))
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
    fns: &'a [&'a ItemFn],
}

impl Program<'_> {
    /// What the flow functions see in `f`, from its entry facts.
    fn analyse(&self, f: &ItemFn, depth: usize) -> Observed {
        let mut facts = self.entry(f, depth);
        let mut seen = Observed::default();
        flow::block(&mut facts, &f.block, &mut seen);
        seen
    }

    /// The facts at `f`'s entry: its parameters, from every call site in the module.
    fn entry(&self, f: &ItemFn, depth: usize) -> Facts {
        if depth >= MAX_DEPTH {
            return Facts::new();
        }
        let name = f.sig.ident.to_string();
        let params: Vec<Option<String>> = (f.sig.inputs.iter())
            .map(|a| match a {
                FnArg::Typed(t) => pat_ident(&t.pat),
                FnArg::Receiver(_) => None,
            })
            .collect();
        let mut meet: Option<Facts> = None;
        for caller in self.fns.iter().filter(|g| calls(g, &name)) {
            let seen = self.analyse(caller, depth + 1);
            for call in seen.calls.iter().filter(|c| c.callee == name) {
                // Only constants cross the call: a caller's locals are not the callee's.
                let bound: Facts = (params.iter().zip(&call.args))
                    .filter_map(|(p, a)| Some((p.clone()?, a.clone()?)))
                    .collect();
                meet = Some(match meet {
                    None => bound,
                    Some(m) => intersect(&m, &bound),
                });
            }
        }
        meet.unwrap_or_default()
    }
}

/// Whether `f`'s body calls `name` anywhere (the analysis of `f` then says with what).
fn calls(f: &ItemFn, name: &str) -> bool {
    struct Finds<'n>(&'n str, bool);
    impl VisitMut for Finds<'_> {
        fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
            self.1 |= flow::path_ident(&c.func).as_deref() == Some(self.0);
            syn::visit_mut::visit_expr_call_mut(self, c);
        }
    }
    let mut finds = Finds(name, false);
    finds.visit_block_mut(&mut f.block.as_ref().clone());
    finds.1
}
