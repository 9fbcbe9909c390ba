//! `symx::sync::Barrier`: arrivals are counted in the runtime's barrier table, the same one
//! `#[symx::barrier_arrive]` feeds, so built-in and annotated barriers look alike to every
//! engine. Each `wait` is one visible operation; all but the n-th arrival of a generation wait
//! in the barrier's queue, and the n-th wakes them and is the generation's leader.
//!
//! Happens-before: every arrival of a generation happens before every departure from it. The
//! arrivals' clocks are joined per generation, so a fast thread's arrival at the next
//! generation is never ordered before a slow thread's departure from this one.

use std::fmt;
use std::panic::Location;
use std::sync::{Mutex as StdMutex, MutexGuard as StdGuard, PoisonError};

use crate::rt::clock::VClock;
use crate::rt::{self, ObjId, ObjKind, ObjRef, OpKind, Wait};

/// `std::sync::Barrier`, modelled: `wait` blocks until the barrier's count of threads have
/// arrived, and every arrival happens-before every departure.
pub struct Barrier {
    obj: ObjRef,
    n: usize,
    /// The joined arrival clocks of each generation of the current execution (reset when the
    /// barrier is first used in an execution). A generation's clock is read by its last
    /// departure, which may come after later generations began, so none is dropped early.
    clocks: StdMutex<Vec<VClock>>,
}

impl Barrier {
    /// A barrier that releases its waiters at every `n`-th arrival (`0` behaves as `1`, as
    /// std's does: nobody ever waits).
    #[track_caller]
    pub const fn new(n: usize) -> Self {
        Barrier {
            obj: ObjRef::new(),
            n,
            clocks: StdMutex::new(Vec::new()),
        }
    }

    fn key(&self) -> usize {
        self as *const Barrier as usize
    }

    fn expected(&self) -> usize {
        self.n.max(1)
    }

    fn clocks(&self) -> StdGuard<'_, Vec<VClock>> {
        self.clocks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The barrier's id in this execution; the first use in an execution declares it to the
    /// barrier table and forgets the generations of earlier executions.
    #[track_caller]
    fn id(&self) -> Option<ObjId> {
        let id = rt::with(|e| {
            if let Some(id) = self.obj.get(e.objects.generation) {
                return id;
            }
            let id = e.objects.of(&self.obj, ObjKind::Barrier, "Barrier", 0);
            e.barrier_init(id, self.expected());
            self.clocks().clear();
            id
        });
        if id.is_none() {
            rt::foreign::check(&self.obj, "Barrier", Location::caller());
        }
        id
    }

    /// Blocks until `n` threads have called `wait` (counting the caller) since the last
    /// release; the last of them returns as the leader.
    #[track_caller]
    pub fn wait(&self) -> BarrierWaitResult {
        let location = Location::caller();
        let Some(id) = self.id() else {
            assert!(
                self.n <= 1,
                "symx::sync::Barrier::wait would block forever outside a symx model"
            );
            return BarrierWaitResult(true);
        };
        rt::visible(OpKind::BarrierWait, Some(id), location);
        let generation = self.arrive(id, location);
        // Arrivals before the last commute with each other as long as a third is still to
        // come: whichever order they came in, the same one is last (the leader). The
        // partial-order reductions tell them apart by how many are still to come.
        let left = self.left(id, generation);
        rt::switch::record_outcome(rt::op::Outcome::Arrived(left));
        let leader = left == 0;
        if leader {
            rt::notify(self.key(), true);
        } else {
            // Only the leader notifies this queue, and only once its generation is complete.
            rt::wait(Wait {
                key: self.key(),
                obj: id,
                wake: None,
                spurious: false,
                timeout: false,
                location,
                what: "the other threads to arrive",
            });
        }
        self.depart(id, generation, location);
        BarrierWaitResult(leader)
    }

    /// Counts the caller's arrival and publishes its clock to its generation.
    fn arrive(&self, id: ObjId, location: &'static Location<'static>) -> usize {
        let (generation, published) = rt::with(|e| {
            let generation = e
                .barrier_arrive(id, location)
                .unwrap_or_else(|_| unreachable!("declared when first used"));
            e.note_sync(crate::sym::notes::SyncOp::BarrierArrive, id);
            (generation, e.sync_clock(&VClock::new()))
        })
        .expect("inside a model");
        let mut clocks = self.clocks();
        if clocks.len() <= generation {
            clocks.resize_with(generation + 1, VClock::new);
        }
        clocks[generation].join(&published);
        generation
    }

    /// How many arrivals `generation` still needs (0: it is complete).
    fn left(&self, id: ObjId, generation: usize) -> u32 {
        rt::with(|e| {
            let b = e.objects.get(id).barrier.as_ref();
            b.map_or(0, |b| {
                ((generation + 1) * b.expected).saturating_sub(b.arrived)
            })
        })
        .unwrap_or(0) as u32
    }

    /// Leaves the barrier: the table checks the generation is complete, and the caller takes
    /// every arrival's clock.
    fn depart(&self, id: ObjId, generation: usize, location: &'static Location<'static>) {
        let found = rt::with(|e| {
            e.note_sync(crate::sym::notes::SyncOp::BarrierDepart, id);
            e.barrier_depart(id, generation, location)
        });
        if let Some(found) = found.flatten() {
            rt::fail(found);
        }
        let arrivals = self.clocks()[generation].clone();
        rt::with(|e| e.sync_clock(&arrivals));
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier").finish_non_exhaustive()
    }
}

/// What [`Barrier::wait`] returns: whether the caller is its generation's leader.
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// True for exactly one thread per generation: the last to arrive.
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

impl fmt::Debug for BarrierWaitResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BarrierWaitResult")
            .field("is_leader", &self.0)
            .finish()
    }
}
