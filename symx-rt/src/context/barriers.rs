//! A pool of barriers of one class, addressed by symbolic identity: the paper's barrier
//! (`expected`, `arrived` and a queue; the last of `expected` arrivals resets `arrived` and
//! wakes the queue), with `arrived` and `expected` one array each over the pool.
//!
//! At the context both are inputs. The synchronization facts are the paper's: `expected` is
//! one of the counts the barrier was initialised with ([`Barriers::expect`], the paper's
//! `Bcnts`), and `arrived` is bounded by the waiters that must / may be in its queue
//! (`L ≤ arrived ≤ H`). `no-si` and `naive` drop them.

use std::panic::Location;
use std::sync::Arc;

use super::facts::{fact, Provenance};
use super::mode::FactFamily;
use super::pool::Pool;
use super::queue::{self, Name, Purpose};
use crate::rt::{self, OpKind};
use crate::sym::{any_named, Sym, SymVec};

/// `n` barriers of one class. Clones are the same pool.
#[derive(Clone)]
pub struct Barriers(Arc<Pool<State>>);

#[derive(Default)]
struct State {
    /// `arrived` and `expected` of every barrier, made at the first wait of the execution.
    counts: Option<(SymVec<u64>, SymVec<u64>)>,
    /// Declared expected counts (the paper's `Bcnts`).
    expects: Vec<(Sym<usize>, u32)>,
}

impl Barriers {
    /// `n` barriers; `name` names their inputs (`<name>.arrived[k]`, `<name>.expected[k]`).
    pub fn new(name: &str, n: usize) -> Self {
        Barriers(Arc::new(Pool::new("context::Barriers", name, n)))
    }

    /// The number of barriers.
    pub fn len(&self) -> usize {
        self.0.n
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.0.n == 0
    }

    /// Declares that barrier `id` was created expecting `count` arrivals. Call before any
    /// thread waits.
    pub fn expect(&self, id: Sym<usize>, count: u32) {
        self.with_state(|s| {
            assert!(
                s.counts.is_none(),
                "symx::context: `expect` after the barriers were first used"
            );
            s.expects.push((id, count));
        });
    }

    /// Arrives at barrier `id` and waits for the rest; `true` for the arrival that releases
    /// the others (the leader).
    #[track_caller]
    pub fn wait(&self, id: Sym<usize>) -> bool {
        let location = Location::caller();
        let class = self.class(location);
        rt::visible(OpKind::QueueNotify, Some(class), location);
        self.make_counts(class);
        let (arrived, expected) = self.with_state(|s| {
            let (a, x) = s.counts.as_ref().expect("made above");
            (a.get(id), x.get(id))
        });
        // Counts are 32-bit inputs kept in 64 bits: `arrived + 1` never wraps.
        let next = arrived + 1u64;
        let last = next.sym_eq(expected);
        let outcomes = vec![(last, true), (!last, false)];
        let leader = queue::decide(outcomes, |l| if l { "T" } else { "F" }.into(), location);
        let name = Name {
            class,
            purpose: Purpose::Barrier,
            id,
        };
        if leader {
            self.with_state(|s| s.counts.as_mut().expect("made").0.set(id, 0u64));
            queue::notify_all(name, location);
        } else {
            self.with_state(|s| s.counts.as_mut().expect("made").0.set(id, next));
            queue::wait(name, "a context barrier", location);
        }
        leader
    }

    /// The counts at the context: inputs, with the barrier invariants as facts.
    #[track_caller]
    fn make_counts(&self, class: rt::ObjId) {
        if self.with_state(|s| s.counts.is_some()) {
            return;
        }
        let expects = self.with_state(|s| s.expects.clone());
        let (mut arrived, mut expected) = (SymVec::new(), SymVec::new());
        for k in 0..self.0.n {
            let name = Name {
                class,
                purpose: Purpose::Barrier,
                id: Sym::constant(k),
            };
            let (low, high) = queue::bounds(&name);
            let a: Sym<u32> = any_named(&format!("{}.arrived[{k}]", self.0.name));
            let text = format!("{low} <= {}[{k}].arrived <= {high}", self.0.name);
            let within = a.sym_ge(low as u32) & a.sym_le(high as u32);
            fact(FactFamily::Sync, Provenance::Declared, &text, within);
            let x: Sym<u32> = any_named(&format!("{}.expected[{k}]", self.0.name));
            for &(id, count) in &expects {
                let text = format!(
                    "{}[{k}] expects {count} if it is the one declared",
                    self.0.name
                );
                let cond = !id.sym_eq(k) | x.sym_eq(count);
                fact(FactFamily::Sync, Provenance::Declared, &text, cond);
            }
            arrived.push(a.cast::<u64>());
            expected.push(x.cast::<u64>());
        }
        self.with_state(|s| s.counts = Some((arrived, expected)));
    }

    fn with_state<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        self.0.with_state(f)
    }

    fn class(&self, location: &'static Location<'static>) -> rt::ObjId {
        self.0.class(location)
    }
}
