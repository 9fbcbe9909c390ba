//! Weakest preconditions over a recorded trace (the paper's Definition 1, §4).
//!
//! A formula *at* a state speaks of the state's values by their canonical names (`names`):
//! `o:<object>` is an object's content there, `r:<read>` the value an earlier read returned,
//! `input:<name>` an input. [`transfer`] carries a formula at a later state of one trace back
//! to an earlier one across the events between them, which is the right fold of the paper's
//! per-instruction rules:
//! - a read of `o` into `R`: `φ[o / R]` (the read returned `o`'s content at that moment);
//! - a write of `e` to `o`: `φ[e / o]` (a read-modify-write does both, read first);
//! - a branch, assumption, pin or element choice with guard `g` as taken, and an assertion or
//!   check that held with condition `c`: `g ∧ φ`, `c ∧ φ` (conjunction, not `g → φ`: the
//!   formula only speaks of states that follow this path);
//! - anything else (locks, spawns, joins): `φ`.
//!
//! It is computed forwards, as one substitution per segment: each read in the segment is
//! resolved to the last write before it in the segment or to the object's content at the
//! segment's start, each guard becomes a term over the start's names, and the later state's
//! names are replaced by their contents. From the start of a trace, `transfer(0, n, ψ)` is
//! `pcon ∧ σ(ψ)`: the path condition up to `n` and `ψ` instantiated with this path's values,
//! which is what the pruning check asks about.

use std::collections::{BTreeMap, HashMap};

use symx::trace::format::{TraceEvent, Ty};
use symx::trace::Trace;
use z3::ast::{Ast, Bool, BV};

use super::names::{Names, Objects};
use crate::solver::dag::{self, Leaf};
use crate::solver::path::input_var;

/// The variable for the value read `name` returned.
pub fn read_var(name: &str, ty: Ty) -> BV {
    BV::new_const(format!("r:{name}"), ty.bits())
}

/// The variable for the content of the object called `name`.
pub fn object_var(name: &str, ty: Ty) -> BV {
    BV::new_const(format!("o:{name}"), ty.bits())
}

/// Where a read in the segment got its value.
enum Source {
    /// The expression an earlier write of the segment wrote.
    Write(u32),
    /// The object's content at the segment's start.
    Start(u32),
}

/// `φ` (a formula at the state before event `to`) as a formula at the state before `from`,
/// across the events of `trace` between them.
pub fn transfer(trace: &Trace, names: &Names, from: usize, to: usize, phi: &Bool) -> Bool {
    let seg = Segment::new(trace, names, from, to);
    let inputs = &trace.inputs;
    let mut terms = dag::Cone::new(
        &trace.exprs,
        |i, ty| input_var(&inputs[i as usize].name, ty),
        |var| seg.read_leaf(var),
    );
    let mut guards: Vec<Bool> = Vec::new();
    for ev in &trace.events[from..to] {
        if let Some(g) = ev.guard {
            guards.push(dag::holds(&terms.term(g)));
        }
        if let Some((cond, true)) = ev.asserted() {
            guards.push(dag::holds(&terms.term(cond)));
        }
    }
    let mut pairs: Vec<(BV, BV)> = Vec::new();
    let at_end = Objects::at(trace, names, to);
    for (&o, name) in &at_end.name {
        if let Some(ty) = seg.ty[&o] {
            let content = match seg.last_write.get(&o) {
                Some(&e) => terms.term(e),
                None => seg.at_start(o),
            };
            pairs.push((object_var(name, ty), content));
        }
    }
    for (&var, source) in &seg.sources {
        let ty = seg.read_ty[&var];
        let value = match *source {
            Source::Write(e) => terms.term(e),
            Source::Start(o) => seg.at_start(o),
        };
        pairs.push((read_var(&names.read_name(var), ty), value));
    }
    let refs: Vec<(&BV, &BV)> = pairs.iter().map(|(a, b)| (a, b)).collect();
    guards.push(phi.substitute(&refs));
    Bool::and(&guards)
}

/// The formula of one explored path from `from` to its end, ending in `leaf`.
pub fn path(trace: &Trace, from: usize, leaf: bool) -> Bool {
    let names = Names::of(trace);
    transfer(
        trace,
        &names,
        from,
        trace.events.len(),
        &Bool::from_bool(leaf),
    )
}

struct Segment<'t> {
    trace: &'t Trace,
    names: &'t Names,
    from: usize,
    start: Objects,
    /// Per read variable of the segment, where it got its value. Ordered: the substitution
    /// built from it is the formula the solver sees, and a formula that changed with the
    /// process's hash seed could make the same search take other paths in another run.
    sources: BTreeMap<u32, Source>,
    read_ty: HashMap<u32, Ty>,
    /// Per read variable, the event it was read at.
    read_at: HashMap<u32, usize>,
    /// Per object, the last write of the segment (its expression).
    last_write: HashMap<u32, u32>,
    /// Per object, its value type (`None`: an object without a value, a lock).
    ty: HashMap<u32, Option<Ty>>,
}

impl<'t> Segment<'t> {
    fn new(trace: &'t Trace, names: &'t Names, from: usize, to: usize) -> Self {
        let mut seg = Segment {
            trace,
            names,
            from,
            start: Objects::at(trace, names, from),
            sources: BTreeMap::new(),
            read_ty: HashMap::new(),
            read_at: HashMap::new(),
            last_write: HashMap::new(),
            ty: HashMap::new(),
        };
        for o in &trace.objects {
            let ty = o.initial.map(|i| i.ty);
            seg.ty.insert(o.id, ty);
        }
        for (i, ev) in trace.events.iter().enumerate() {
            seg.note_types(ev);
            if let Some(r) = ev.read {
                seg.read_at.insert(r.var, i);
                seg.read_ty.insert(r.var, r.ty);
            }
            if i < from || i >= to {
                continue;
            }
            let Some(o) = ev.obj else { continue };
            if let Some(r) = ev.read {
                let source = match seg.last_write.get(&o) {
                    Some(&e) => Source::Write(e),
                    None => Source::Start(o),
                };
                seg.sources.insert(r.var, source);
            }
            if let Some(w) = ev.write {
                seg.last_write.insert(o, w.expr);
            }
        }
        seg
    }

    fn note_types(&mut self, ev: &TraceEvent) {
        let Some(o) = ev.obj else { return };
        let ty = ev.read.map(|r| r.ty).or(ev.write.map(|w| w.ty));
        if let (Some(ty), Some(slot)) = (ty, self.ty.get_mut(&o)) {
            slot.get_or_insert(ty);
        }
    }

    /// What read variable `var` stands for, as a term over the start's names: its own name
    /// if it was read before the segment, else where it got its value in the segment.
    fn read_leaf(&self, var: u32) -> Leaf {
        let ty = self.read_ty.get(&var).copied().unwrap_or(Ty::I128);
        match self.read_at.get(&var) {
            Some(&at) if at < self.from => Leaf::Term(read_var(&self.names.read_name(var), ty)),
            _ => match self.sources.get(&var) {
                Some(&Source::Write(e)) => Leaf::Node(e),
                Some(&Source::Start(o)) => Leaf::Term(self.at_start(o)),
                // Read after the segment: nothing before `to` uses it.
                None => Leaf::Term(fresh("later", ty)),
            },
        }
    }

    /// Object `o`'s content at the segment's start: its name there if it was touched before,
    /// else its initial value (unknown: any value).
    fn at_start(&self, o: u32) -> BV {
        let ty = self.ty[&o].unwrap_or(Ty::I128);
        if let Some(name) = self.start.name.get(&o) {
            return object_var(name, ty);
        }
        match self.trace.objects[o as usize].initial {
            Some(i) => dag::constant(i.ty, i.value),
            None => fresh("initial", ty),
        }
    }
}

/// A variable no other formula mentions: any value.
fn fresh(what: &str, ty: Ty) -> BV {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    BV::new_const(format!("{what}:{n}"), ty.bits())
}
