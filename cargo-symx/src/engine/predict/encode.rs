//! The SMT encoding of a CTP in "prefix mode" (`docs/papers.md`): per
//! event an order variable `O(e)` (Int) and an executed flag `x(e)` (Bool); the executed events
//! form a feasible prefix of an SC interleaving in which every thread followed its recorded
//! path as far as it got. Property formulas are `properties`' job; this module only states
//! what a feasible prefix is.
//!
//! The constraints, by the paper's names:
//! - prefix closure: `x(e) => x(pred e)`; a thread's first event needs its spawn;
//! - PO: `O(pred e) <= O(e)` (same-thread HB is folded to the static program order, gap D);
//!   spawn before the child's first event, the child's last event before a join (and a join
//!   needs the child finished);
//! - guards: `x(e) => guard(e)` (branches as taken, plain-value reads, pins, assumptions,
//!   assertions passed); thread-local code is eager (it runs once its thread gets there);
//! - locks: critical sections of one lock in different threads do not overlap (the direct
//!   critical-section form of the `L == 0` / `L := tid` check-and-set), and a failed try-lock
//!   happened inside someone's section;
//! - pi-functions: an executed read returns the value of an executed write to its object that
//!   is before it with no executed write in between, or the initial value;
//! - VD: written values are their DAG expressions over the pi-variables and the inputs.
//!
//! Condvars, wait queues and barriers are `blocking`'s; the blocking primitives modelled
//! nowhere (channels, park, once) keep their observed order, which is sound (it only
//! removes interleavings).

use std::collections::{BTreeMap, BTreeSet};

use symx::trace::format::{EventKind, Expr};

use z3::ast::{Bool, Int, BV};
use z3::Solver;

use super::blocking;
use super::slice::{LocalSource, Slice};
use super::Model;
use crate::solver::ctp::{Ctp, Ev, Section};
use crate::solver::dag;

/// The z3 terms of one CTP, and a solver holding its constraints.
pub struct Encoding<'c, 't> {
    pub ctp: &'c Ctp<'t>,
    /// `O(e)`: the event's time stamp.
    pub order: Vec<Int>,
    /// `x(e)`: the event is in the predicted prefix.
    pub exec: Vec<Bool>,
    /// Value of every DAG node (over pi-variables and inputs).
    pub values: Vec<BV>,
    /// Per object, its initial value (a constant, or free when the trace does not show it).
    initial: BTreeMap<u32, BV>,
    /// Per object whose initial value the trace does not show, its free initial value.
    pub unknown_initial: BTreeMap<u32, BV>,
    /// Which objects are thread-local and which events share an order variable.
    slice: Slice,
    /// The assumption literal of the context bound, when bounded.
    pub bound: Option<Bool>,
    /// Per user-annotated lock, the assumption literal of its mutual exclusion: a claim of
    /// the user's that every query assumes except the one asking whether it can break.
    pub claims: BTreeMap<u32, Bool>,
    pub solver: Solver,
}

/// Which interleavings the encoding admits.
#[derive(Clone, Debug, Default)]
pub struct EncodeOptions {
    pub model: Model,
    /// `O(e) <= b` for every event (the paper's context bound, §6), as an assumption.
    pub bound: Option<u32>,
    /// Initial values learned elsewhere (a replay) for objects the trace does not show.
    pub initial: BTreeMap<u32, i128>,
    /// Per-check solver timeout.
    pub timeout: Option<std::time::Duration>,
}

impl<'c, 't> Encoding<'c, 't> {
    pub fn new(ctp: &'c Ctp<'t>, opts: &EncodeOptions) -> Self {
        let slice = Slice::new(ctp);
        let (initial, unknown_initial) = initial_values(ctp, opts);
        let reads: BTreeMap<u32, BV> = ctp
            .trace
            .events
            .iter()
            .filter_map(|e| e.read)
            .filter(|r| !slice.local_reads.contains_key(&r.var))
            .map(|r| (r.var, BV::new_const(format!("r{}", r.var), r.ty.bits())))
            .collect();
        // A read of a thread-local object is the term of its source (slicing): no variable.
        let values = dag::translate(&ctp.trace.exprs, |var, done| {
            match slice.local_reads.get(&var) {
                Some(&source) => local_term(ctp, source, done, &initial),
                None => reads[&var].clone(),
            }
        });
        let n = ctp.trace.events.len();
        let mut order: Vec<Int> = Vec::with_capacity(n);
        for e in 0..n {
            let a = slice.anchor[e];
            let o = if a == e {
                Int::new_const(format!("O{e}"))
            } else {
                order[a].clone()
            };
            order.push(o);
        }
        let mut enc = Encoding {
            ctp,
            order,
            exec: (0..n).map(|e| Bool::new_const(format!("x{e}"))).collect(),
            values,
            initial,
            unknown_initial,
            slice,
            bound: opts.bound.map(|_| Bool::new_const("bound")),
            claims: BTreeMap::new(),
            solver: Solver::new(),
        };
        enc.solver.set_params(&solver_params(opts));
        enc.program_order(opts.bound);
        enc.threads();
        enc.guards();
        enc.locks();
        enc.unmodelled();
        blocking::constrain(&enc);
        enc.pi_functions(opts, &reads);
        enc
    }

    /// Events with an order variable of their own (the size of the sliced trace).
    #[cfg(test)]
    pub fn sliced_events(&self) -> usize {
        (0..self.order.len())
            .filter(|&e| self.slice.is_anchor(e))
            .count()
    }

    /// `HB(a, b)`: the static program order within a thread, `O(a) < O(b)` across threads.
    pub fn hb(&self, a: Ev, b: Ev) -> Bool {
        if self.ctp.thread(a) == self.ctp.thread(b) {
            Bool::from_bool(self.ctp.po(a, b))
        } else {
            self.order[a].lt(&self.order[b])
        }
    }

    /// `x(pred e)`: the thread got as far as `e` (it may or may not execute `e` itself).
    pub fn reached(&self, e: Ev) -> Bool {
        match self.ctp.pred[e] {
            Some(p) => self.exec[p].clone(),
            None => match self.ctp.spawned_at[self.ctp.thread(e)] {
                Some(s) => self.exec[s].clone(),
                None => Bool::from_bool(true),
            },
        }
    }

    /// The value a write event writes.
    pub fn written(&self, w: Ev) -> BV {
        self.values[write_expr(self.ctp, w)].clone()
    }

    fn assert(&self, b: &Bool) {
        self.solver.assert(b);
    }

    /// Prefix closure and PO, time stamps from 0, and the bound (on executed events) as an
    /// assumption.
    fn program_order(&self, bound: Option<u32>) {
        let zero = Int::from_i64(0);
        for (e, o) in self.order.iter().enumerate() {
            if let Some(p) = self.ctp.pred[e] {
                self.assert(&self.exec[e].implies(&self.exec[p]));
            }
            if !self.slice.is_anchor(e) {
                // It shares its anchor's time stamp: nothing to order.
                continue;
            }
            self.assert(&o.ge(&zero));
            if let Some(p) = self.ctp.pred[e] {
                // Unbounded: strictly increasing along a thread, so that "before the chosen
                // write" is one comparison (`rf_linear`); bounded: non-strict, as the context
                // bound needs (a thread's run of events is one level).
                let prev = &self.order[p];
                if bound.is_some() {
                    self.assert(&prev.le(o));
                } else {
                    self.assert(&prev.lt(o));
                }
            }
            if let (Some(b), Some(lit)) = (bound, &self.bound) {
                // Only the prefix counts: events after it may lie at any level.
                let within = self.exec[e].implies(o.le(Int::from_u64(b as u64)));
                self.assert(&lit.implies(within));
            }
        }
    }

    /// Spawn before the child's first event; the child's last event before a join.
    fn threads(&self) {
        for (child, events) in self.ctp.threads.iter().enumerate() {
            if let (Some(&first), Some(s)) = (events.first(), self.ctp.spawned_at[child]) {
                self.assert(&self.exec[first].implies(&self.exec[s]));
                // Non-strict, like the paper's `t_first`, so that starting a thread is not a
                // level of the context bound: a tie still decodes spawn first, since a child's
                // id is always above its parent's.
                self.assert(&self.order[s].le(&self.order[first]));
            }
        }
        for (j, ev) in self.ctp.trace.events.iter().enumerate() {
            let is_join = ev.kind == EventKind::Join;
            if let (true, Some(last)) = (is_join, ev.child.and_then(|c| self.ctp.last_of(c))) {
                self.assert(&self.exec[j].implies(&self.exec[last]));
                self.assert(&self.order[last].lt(&self.order[j]));
            }
        }
    }

    /// Every executed event's guard holds: branches go the same way, pinned values stay, an
    /// assertion is passed only where it holds. Thread-local code is eager: a thread that got
    /// to such an event runs it if its condition holds (it cannot stop there and let an
    /// assertion go unchecked); a thread whose branch flips stops before the branch.
    fn guards(&self) {
        for e in 0..self.exec.len() {
            let cond = self.own_condition(e);
            self.assert(&self.exec[e].implies(&cond));
            if let (true, Some(p)) = (self.ctp.eager(e), self.ctp.pred[e]) {
                let go = Bool::and(&[&self.exec[p], &cond]);
                self.assert(&go.implies(&self.exec[e]));
            }
        }
    }

    /// The event's guard and its assertion (true when it has neither).
    pub fn own_condition(&self, e: Ev) -> Bool {
        let ev = self.ctp.event(e);
        let exprs = [ev.guard, ev.assert.as_ref().map(|a| a.cond)];
        let conds: Vec<Bool> = exprs
            .into_iter()
            .flatten()
            .map(|x| dag::holds(&self.values[x as usize]))
            .collect();
        Bool::and(&conds)
    }

    /// Mutual exclusion, pairwise over critical sections of different threads (under the
    /// lock's claim literal for a user-annotated lock); a failed try-lock lies inside a
    /// section of the lock.
    fn locks(&mut self) {
        for (&lock, sections) in &self.ctp.sections {
            let claim = self.ctp.annotated_lock(lock).then(|| {
                let lit = Bool::new_const(format!("claim{lock}"));
                self.claims.insert(lock, lit.clone());
                lit
            });
            for (i, s) in sections.iter().enumerate() {
                for t in &sections[i + 1..] {
                    if s.thread != t.thread && !(s.shared && t.shared) {
                        let ex = self.exclusive(s, t);
                        match &claim {
                            Some(lit) => self.assert(&lit.implies(&ex)),
                            None => self.assert(&ex),
                        }
                    }
                }
            }
        }
        for f in &self.ctp.try_fails {
            let held: Vec<Bool> = self.ctp.sections.get(&f.lock).map_or(vec![], |ss| {
                ss.iter().map(|s| self.held_at(s, f.event)).collect()
            });
            let held = Bool::or(&held);
            self.assert(&self.exec[f.event].implies(&held));
        }
    }

    /// `x(a) AND x(a') => (x(r) AND HB(r, a')) OR (x(r') AND HB(r', a))`.
    fn exclusive(&self, s: &Section, t: &Section) -> Bool {
        let before = |first: &Section, second: &Section| match first.release {
            Some(r) => Bool::and(&[&self.exec[r], &self.hb(r, second.acquire)]),
            None => Bool::from_bool(false),
        };
        let both = Bool::and(&[&self.exec[s.acquire], &self.exec[t.acquire]]);
        both.implies(Bool::or(&[before(s, t), before(t, s)]))
    }

    /// Section `s` holds its lock at event `e`.
    fn held_at(&self, s: &Section, e: Ev) -> Bool {
        let not_released = match s.release {
            Some(r) => Bool::or(&[self.exec[r].not(), self.hb(e, r)]),
            None => Bool::from_bool(true),
        };
        Bool::and(&[&self.exec[s.acquire], &self.hb(s.acquire, e), &not_released])
    }

    /// Unmodelled blocking events keep their observed order, and an event that follows one
    /// in its thread waits for every unmodelled event observed before it (whatever woke it).
    fn unmodelled(&self) {
        let u = &self.ctp.unmodelled;
        for w in u.windows(2) {
            self.assert(&self.exec[w[1]].implies(&self.exec[w[0]]));
            self.assert(&self.exec[w[1]].implies(self.hb(w[0], w[1])));
        }
        for &b in u {
            let thread = self.ctp.thread(b);
            let Some(&s) = self.ctp.threads[thread]
                .iter()
                .find(|&&s| self.ctp.pred[s] == Some(b))
            else {
                continue;
            };
            let last_other = u
                .iter()
                .rev()
                .find(|&&v| v < s && self.ctp.thread(v) != thread);
            if let Some(&v) = last_other {
                self.assert(&self.exec[s].implies(&self.exec[v]));
                self.assert(&self.exec[s].implies(self.hb(v, s)));
            }
        }
    }

    /// The pi-function of every read (the paper's §4.2, in prefix form).
    fn pi_functions(&self, opts: &EncodeOptions, reads: &BTreeMap<u32, BV>) {
        let pinned = self.control_and_data_reads();
        for (&obj, events) in &self.ctp.reads {
            let init = self.initial[&obj].clone();
            let local = self.slice.is_local(obj);
            for &e in events {
                let rec = self.ctp.event(e).read.expect("a read event");
                let r = &match reads.get(&rec.var) {
                    Some(r) => r.clone(),
                    None => self.local_value(rec.var),
                };
                if local {
                    // Its value is its source's term already (`new`).
                } else if opts.bound.is_some() {
                    let pi = self.pi(obj, e, r, &init);
                    self.assert(&self.exec[e].implies(&pi));
                } else {
                    self.rf_linear(obj, e, r, &init);
                }
                let pin = match opts.model {
                    Model::Ctp => false,
                    Model::Mcm => pinned.contains(&rec.var),
                    Model::ValuesPreserved => true,
                };
                if pin {
                    self.assert(&r.eq(dag::constant(rec.ty, rec.value)));
                }
            }
        }
    }

    /// Read variables that flow into a guard or a written value. The maximal causal model
    /// keeps exactly these at their observed values: they decide what the rest of the run
    /// does, while a read seen only by an assertion is the observation being predicted.
    fn control_and_data_reads(&self) -> BTreeSet<u32> {
        let exprs = &self.ctp.trace.exprs;
        let mut live = vec![false; exprs.len()];
        for ev in &self.ctp.trace.events {
            for x in [ev.guard, ev.write.map(|w| w.expr)].into_iter().flatten() {
                live[x as usize] = true;
            }
        }
        let mut out = BTreeSet::new();
        // Operands precede their users: one backward sweep marks everything reachable.
        for i in (0..exprs.len()).rev() {
            if !live[i] {
                continue;
            }
            if let Expr::Read { var, .. } = exprs[i] {
                out.insert(var);
            }
            for o in exprs[i].operands() {
                live[o as usize] = true;
            }
        }
        out
    }

    /// The value a read of a thread-local object returns (its source's term).
    fn local_value(&self, var: u32) -> BV {
        let source = self.slice.local_reads[&var];
        local_term(self.ctp, source, &self.values, &self.initial)
    }

    /// The writes of `obj` a read at `e` may see besides the initial value: all other
    /// threads' writes and the last earlier one of its own thread (None: the initial value is
    /// a candidate too).
    fn candidates(&self, obj: u32, e: Ev) -> (Vec<Ev>, Vec<Ev>, Option<Ev>) {
        let writes: Vec<Ev> = self
            .ctp
            .writes
            .get(&obj)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
            .filter(|&w| w != e)
            .collect();
        let same_thread_last = writes
            .iter()
            .copied()
            .filter(|&w| self.ctp.po(w, e))
            .max_by_key(|&w| self.ctp.event(w).index);
        let cand = writes
            .iter()
            .copied()
            .filter(|&w| self.ctp.thread(w) != self.ctp.thread(e) || Some(w) == same_thread_last)
            .collect();
        (writes, cand, same_thread_last)
    }

    /// The pi-function with one choice variable per candidate and the chosen write's time
    /// stamp `T_e` (unbounded mode, where PO is strict): `x(e) => OR_i s_i`, `s_i => r =
    /// val(wi) AND x(wi) AND HB(wi, e) AND T_e = O(wi)`, and every other executed write is
    /// before `T_e` or after `e`. Linear in the writes of the object instead of quadratic;
    /// the same models as `pi` (the differential test checks both).
    fn rf_linear(&self, obj: u32, e: Ev, r: &BV, init: &BV) {
        let (writes, cand, same_thread_last) = self.candidates(obj, e);
        let t_e = Int::new_const(format!("T{e}"));
        let choice: BTreeMap<Ev, Bool> = cand
            .iter()
            .map(|&w| (w, Bool::new_const(format!("s{e}_{w}"))))
            .collect();
        let mut options: Vec<Bool> = choice.values().cloned().collect();
        for (&wi, s) in &choice {
            let source = Bool::and(&[
                r.eq(self.written(wi)),
                self.exec[wi].clone(),
                self.hb(wi, e),
                t_e.eq(&self.order[wi]),
            ]);
            self.assert(&s.implies(&source));
        }
        if same_thread_last.is_none() {
            // The initial value: "before" every write (time stamps are >= 0).
            let s = Bool::new_const(format!("s{e}_init"));
            self.assert(&s.implies(Bool::and(&[r.eq(init), t_e.eq(Int::from_i64(-1))])));
            options.push(s);
        }
        self.assert(&self.exec[e].implies(Bool::or(&options)));
        for &wj in &writes {
            if self.ctp.po(e, wj) {
                continue;
            }
            let mut alts = vec![self.exec[wj].not(), self.order[wj].lt(&t_e)];
            if self.ctp.thread(wj) != self.ctp.thread(e) {
                alts.push(self.order[e].lt(&self.order[wj]));
            }
            if let Some(s) = choice.get(&wj) {
                alts.push(s.clone());
            }
            self.assert(&self.exec[e].implies(Bool::or(&alts)));
        }
    }

    /// `BIGOR_{wi in Cand} (r = val(wi) AND x(wi) AND HB(wi, e) AND no executed write of
    /// the object lies between wi and e)`, with the initial value as the candidate before
    /// every write.
    fn pi(&self, obj: u32, e: Ev, r: &BV, init: &BV) -> Bool {
        let (writes, cand, same_thread_last) = self.candidates(obj, e);
        let rf = Rf {
            next: next_in_thread(self.ctp, &writes),
            writes,
            same_thread_last,
        };
        let mut options = Vec::new();
        for &wi in &cand {
            let mut conj = vec![
                r.eq(self.written(wi)),
                self.exec[wi].clone(),
                self.hb(wi, e),
            ];
            conj.extend(self.no_write_between(&rf, Some(wi), e));
            options.push(Bool::and(&conj));
        }
        if same_thread_last.is_none() {
            let mut conj = vec![r.eq(init)];
            conj.extend(self.no_write_between(&rf, None, e));
            options.push(Bool::and(&conj));
        }
        Bool::or(&options)
    }

    /// For every other write `wj`: `NOT x(wj) OR HB(wj, wi) OR HB(e, wj)` (`wi = None`: the
    /// initial value, before everything), dropping the conjuncts PO makes true.
    fn no_write_between(&self, rf: &Rf, wi: Option<Ev>, e: Ev) -> Vec<Bool> {
        let (writes, next, last) = (&rf.writes, &rf.next, rf.same_thread_last);
        let mut out = Vec::new();
        for &wj in writes {
            if Some(wj) == wi || self.ctp.po(e, wj) || wi.is_some_and(|wi| self.ctp.po(wj, wi)) {
                continue;
            }
            // Along wi's thread only its next write matters: later ones need it executed and
            // come after it. Along e's thread only the last write before e matters likewise.
            let not_next = wi.is_some_and(|wi| self.ctp.po(wi, wj) && next.get(&wi) != Some(&wj));
            let not_last = self.ctp.po(wj, e) && Some(wj) != last;
            if not_next || not_last {
                continue;
            }
            let mut alts = vec![self.exec[wj].not(), self.hb(e, wj)];
            if let Some(wi) = wi {
                alts.push(self.hb(wj, wi));
            }
            out.push(Bool::or(&alts));
        }
        out
    }
}

impl<'t> blocking::Order<'t> for Encoding<'_, 't> {
    fn ctp(&self) -> &Ctp<'t> {
        self.ctp
    }
    fn executed(&self, e: Ev) -> Bool {
        self.exec[e].clone()
    }
    fn hb(&self, a: Ev, b: Ev) -> Bool {
        Encoding::hb(self, a, b)
    }
    fn require(&self, constraint: &Bool) {
        self.solver.assert(constraint);
    }
}

/// Every object's initial value: observed, learned, or (unknown) a free variable; and the
/// unknown ones.
fn initial_values(ctp: &Ctp, opts: &EncodeOptions) -> (BTreeMap<u32, BV>, BTreeMap<u32, BV>) {
    let (mut all, mut unknown) = (BTreeMap::new(), BTreeMap::new());
    for (&obj, &(ty, seen)) in &ctp.initial {
        let v = match seen.or_else(|| opts.initial.get(&obj).copied()) {
            Some(v) => dag::constant(ty, v),
            None => {
                let v = BV::new_const(format!("init{obj}"), ty.bits());
                unknown.insert(obj, v.clone());
                v
            }
        };
        all.insert(obj, v);
    }
    (all, unknown)
}

/// The per-query timeout, and z3's older simplex (`arith.solver=2`) for the order variables,
/// whose constraints are all difference constraints: on the scale bench's banking rows it
/// solved faster than the default arithmetic solver (banking:2:24:24: 3.3 s against 5.1 s
/// for 48 queries; BENCHMARKS.md).
fn solver_params(opts: &EncodeOptions) -> z3::Params {
    let mut params = z3::Params::new();
    if let Some(t) = opts.timeout {
        params.set_u32("timeout", t.as_millis().min(u32::MAX as u128) as u32);
    }
    params.set_u32("arith.solver", 2);
    params
}

/// The term of a read of a thread-local object: its source write's value among `values`
/// (the terms of the expression nodes, as far as built) or the object's initial value.
fn local_term(ctp: &Ctp, source: LocalSource, values: &[BV], initial: &BTreeMap<u32, BV>) -> BV {
    match source {
        LocalSource::Write(w) => values[write_expr(ctp, w)].clone(),
        LocalSource::Initial(obj) => initial[&obj].clone(),
    }
}

/// The expression node of a write event's value.
fn write_expr(ctp: &Ctp, w: Ev) -> usize {
    ctp.event(w).write.expect("a write event").expr as usize
}

/// The writes a pi-function ranges over, with what prunes its interference conjuncts.
struct Rf {
    writes: Vec<Ev>,
    /// Each write's next write of the same object in its thread.
    next: BTreeMap<Ev, Ev>,
    /// The read's own thread's last write before it.
    same_thread_last: Option<Ev>,
}

fn next_in_thread(ctp: &Ctp, writes: &[Ev]) -> BTreeMap<Ev, Ev> {
    let mut last: BTreeMap<usize, Ev> = BTreeMap::new();
    let mut next = BTreeMap::new();
    // `writes` is in trace order, which is program order within each thread.
    for &w in writes {
        if let Some(prev) = last.insert(ctp.thread(w), w) {
            next.insert(prev, w);
        }
    }
    next
}
