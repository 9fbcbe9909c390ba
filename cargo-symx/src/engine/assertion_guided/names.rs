//! Names that mean the same thing in every execution that reaches the same state, and the
//! summary key of a state.
//!
//! A trace numbers threads in spawn order and objects and read variables by first use, which
//! all depend on the interleaving. The summaries speak of:
//! - a thread by its *spawn path* (`0` the main thread, `0.2` its second child, ...);
//! - a read by its thread and its rank among that thread's reads (`R(t, k)`);
//! - an object, at a state, by the first thread (in spawn-path order) that touched it before
//!   that state and the object's rank among the objects that thread touched.
//!
//! The *key* of a state (the paper's global control location, which Rust cannot name) is the
//! digest of every thread's own history: for each event, its location, kind, the object by
//! the thread's own rank of it, and the outcome (a guard or assertion as a term over the
//! names above, so a branch taken the other way is another history). Two states with one key
//! have run the same events in every thread, in possibly different interleavings with
//! possibly different values: the k-th read of a thread is the same read in both, the object
//! names agree, and each thread's locals are the same function of inputs and reads. Lock
//! owners, wait queues and which threads finished follow from the histories.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use symx::trace::format::{EventKind, Expr, TraceEvent};
use symx::trace::Trace;

/// The canonical names of one trace's threads and reads (of its events up to some point;
/// [`Names::extend`] names the ones after it, which renames nothing).
#[derive(Default)]
pub struct Names {
    /// Per trace thread id, its spawn path.
    pub thread: Vec<String>,
    /// Per read variable: (trace thread id, rank among the thread's reads).
    pub read: HashMap<u32, (usize, u32)>,
    /// Per thread: children spawned and reads made so far.
    children: Vec<u32>,
    reads: Vec<u32>,
    /// The events named so far.
    upto: usize,
}

impl Names {
    pub fn of(trace: &Trace) -> Names {
        let mut names = Names::default();
        names.extend(trace, trace.events.len());
        names
    }

    /// Names the threads and reads of the events before `upto`.
    pub fn extend(&mut self, trace: &Trace, upto: usize) {
        let n = trace.threads.len();
        self.thread.resize(n, String::new());
        self.children.resize(n, 0);
        self.reads.resize(n, 0);
        if let Some(t) = self.thread.first_mut() {
            "0".clone_into(t);
        }
        for ev in &trace.events[self.upto.min(upto)..upto] {
            if ev.kind == EventKind::Spawn {
                if let Some(c) = ev.child {
                    self.children[ev.thread] += 1;
                    self.thread[c] =
                        format!("{}.{}", self.thread[ev.thread], self.children[ev.thread]);
                }
            }
            if let Some(r) = ev.read {
                self.read.insert(r.var, (ev.thread, self.reads[ev.thread]));
                self.reads[ev.thread] += 1;
            }
        }
        self.upto = self.upto.max(upto);
    }

    /// The canonical name of read variable `var`.
    pub fn read_name(&self, var: u32) -> String {
        match self.read.get(&var) {
            Some(&(t, k)) => format!("{}#{k}", self.thread[t]),
            None => format!("?{var}"),
        }
    }
}

/// The objects touched before a position, by canonical name, both ways.
#[derive(Default)]
pub struct Objects {
    pub name: BTreeMap<u32, String>,
    pub id: BTreeMap<String, u32>,
}

/// The objects each event touches.
pub fn touched(ev: &symx::trace::format::TraceEvent) -> impl Iterator<Item = u32> {
    ev.obj.into_iter().chain(ev.obj2)
}

impl Objects {
    /// The names of the objects touched by the events before `pos`.
    pub fn at(trace: &Trace, names: &Names, pos: usize) -> Objects {
        // Per object: the touching threads' (spawn path, their rank of it), smallest first.
        let mut rank: HashMap<(usize, u32), u32> = HashMap::new();
        let mut per_thread = vec![0u32; trace.threads.len()];
        let mut best: BTreeMap<u32, (String, u32)> = BTreeMap::new();
        for ev in &trace.events[..pos] {
            for o in touched(ev) {
                let r = *rank.entry((ev.thread, o)).or_insert_with(|| {
                    per_thread[ev.thread] += 1;
                    per_thread[ev.thread] - 1
                });
                let candidate = (names.thread[ev.thread].clone(), r);
                let entry = best.entry(o).or_insert_with(|| candidate.clone());
                if candidate < *entry {
                    *entry = candidate;
                }
            }
        }
        let mut out = Objects::default();
        for (o, (t, r)) in best {
            let n = format!("{t}@{r}");
            out.id.insert(n.clone(), o);
            out.name.insert(o, n);
        }
        out
    }
}

/// The summary keys of the states of one execution, in the order it reaches them: each key
/// is the digest of every thread's own history, so reaching a later state only adds the
/// events since the last one to the histories.
#[derive(Default)]
pub struct Keys {
    names: Names,
    /// Per thread (by spawn path), the digest of its history so far.
    digests: BTreeMap<String, DefaultHasher>,
    /// Per (thread, object), the thread's own rank of the object.
    rank: HashMap<(usize, u32), u32>,
    per_thread: Vec<u32>,
    shapes: HashMap<u32, u64>,
}

impl Keys {
    /// The key of the state before event `pos` (no earlier than the last one asked).
    pub fn at(&mut self, trace: &Trace, pos: usize) -> u64 {
        let from = self.names.upto;
        self.names.extend(trace, pos);
        self.per_thread.resize(trace.threads.len(), 0);
        for ev in &trace.events[from.min(pos)..pos] {
            self.add(trace, ev);
        }
        let mut h = DefaultHasher::new();
        for (t, d) in &self.digests {
            (t, d.finish()).hash(&mut h);
        }
        h.finish()
    }

    fn add(&mut self, trace: &Trace, ev: &TraceEvent) {
        let mut h = (self.digests)
            .remove(&self.names.thread[ev.thread])
            .unwrap_or_default();
        ev.kind.hash(&mut h);
        ev.location.hash(&mut h);
        for o in touched(ev) {
            let per_thread = &mut self.per_thread[ev.thread];
            let r = *self.rank.entry((ev.thread, o)).or_insert_with(|| {
                *per_thread += 1;
                *per_thread - 1
            });
            r.hash(&mut h);
        }
        let mut shape = ExprShape {
            trace,
            names: &self.names,
            memo: &mut self.shapes,
        };
        if let Some(g) = ev.guard {
            shape.of(g).hash(&mut h);
        }
        if let Some((cond, holds)) = ev.asserted() {
            (shape.of(cond), holds).hash(&mut h);
        }
        if let Some(e) = ev.element {
            e.value.hash(&mut h);
        }
        ev.child.map(|c| self.names.thread[c].as_str()).hash(&mut h);
        self.digests.insert(self.names.thread[ev.thread].clone(), h);
    }
}

/// Structural hashes of expressions with reads and inputs by canonical name.
struct ExprShape<'t> {
    trace: &'t Trace,
    names: &'t Names,
    memo: &'t mut HashMap<u32, u64>,
}

impl ExprShape<'_> {
    fn of(&mut self, id: u32) -> u64 {
        if let Some(&h) = self.memo.get(&id) {
            return h;
        }
        let node = &self.trace.exprs[id as usize];
        let mut h = DefaultHasher::new();
        match *node {
            Expr::Read { var, ty } => ("read", self.names.read_name(var), ty).hash(&mut h),
            Expr::Input { input, ty } => {
                ("input", &self.trace.inputs[input as usize].name, ty).hash(&mut h)
            }
            _ => {
                // The node without its operand ids, then its operands' shapes.
                bare(node).hash(&mut h);
                let operands: Vec<u32> = node.operands().collect();
                for o in operands {
                    self.of(o).hash(&mut h);
                }
            }
        }
        let v = h.finish();
        self.memo.insert(id, v);
        v
    }
}

/// A node's own fields, without its operands.
fn bare(node: &Expr) -> String {
    match *node {
        Expr::Const { ty, value } => format!("const {ty:?} {value}"),
        Expr::Unary { ty, un, .. } => format!("un {ty:?} {un:?}"),
        Expr::Binary { ty, bin, .. } => format!("bin {ty:?} {bin:?}"),
        Expr::Compare { cmp, .. } => format!("cmp {cmp:?}"),
        Expr::Cast { ty, .. } => format!("cast {ty:?}"),
        Expr::ConstArray { ty, value } => format!("array {ty:?} {value}"),
        Expr::Store { ty, .. } => format!("store {ty:?}"),
        Expr::Select { ty, .. } => format!("select {ty:?}"),
        Expr::Read { .. } | Expr::Input { .. } => unreachable!("leaves are named"),
    }
}
