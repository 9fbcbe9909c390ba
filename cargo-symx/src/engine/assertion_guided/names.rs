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

use symx::trace::format::{EventKind, Expr};
use symx::trace::Trace;

/// The canonical names of one trace's threads and reads.
pub struct Names {
    /// Per trace thread id, its spawn path.
    pub thread: Vec<String>,
    /// Per read variable: (trace thread id, rank among the thread's reads).
    pub read: HashMap<u32, (usize, u32)>,
}

impl Names {
    pub fn of(trace: &Trace) -> Names {
        let mut thread = vec![String::new(); trace.threads.len()];
        let mut children = vec![0u32; trace.threads.len()];
        let mut reads = vec![0u32; trace.threads.len()];
        let mut read = HashMap::new();
        if let Some(t) = thread.first_mut() {
            *t = "0".into();
        }
        for ev in &trace.events {
            if ev.kind == EventKind::Spawn {
                if let Some(c) = ev.child {
                    children[ev.thread] += 1;
                    thread[c] = format!("{}.{}", thread[ev.thread], children[ev.thread]);
                }
            }
            if let Some(r) = ev.read {
                read.insert(r.var, (ev.thread, reads[ev.thread]));
                reads[ev.thread] += 1;
            }
        }
        Names { thread, read }
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

/// The summary key of the state before event `pos`: every thread's own history.
pub fn key(trace: &Trace, names: &Names, pos: usize) -> u64 {
    let mut digests: BTreeMap<&str, DefaultHasher> = BTreeMap::new();
    let mut rank: HashMap<(usize, u32), u32> = HashMap::new();
    let mut per_thread = vec![0u32; trace.threads.len()];
    let mut shape = ExprShape::new(trace, names);
    for ev in &trace.events[..pos] {
        let h = digests.entry(names.thread[ev.thread].as_str()).or_default();
        ev.kind.hash(h);
        ev.location.hash(h);
        for o in touched(ev) {
            let r = *rank.entry((ev.thread, o)).or_insert_with(|| {
                per_thread[ev.thread] += 1;
                per_thread[ev.thread] - 1
            });
            r.hash(h);
        }
        if let Some(g) = ev.guard {
            shape.of(g).hash(h);
        }
        if let Some((cond, holds)) = ev.asserted() {
            (shape.of(cond), holds).hash(h);
        }
        if let Some(e) = ev.element {
            e.value.hash(h);
        }
        ev.child.map(|c| names.thread[c].as_str()).hash(h);
    }
    let mut h = DefaultHasher::new();
    for (t, d) in digests {
        (t, d.finish()).hash(&mut h);
    }
    h.finish()
}

/// Structural hashes of expressions with reads and inputs by canonical name.
struct ExprShape<'t> {
    trace: &'t Trace,
    names: &'t Names,
    memo: HashMap<u32, u64>,
}

impl<'t> ExprShape<'t> {
    fn new(trace: &'t Trace, names: &'t Names) -> Self {
        ExprShape {
            trace,
            names,
            memo: HashMap::new(),
        }
    }

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
