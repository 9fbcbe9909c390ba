//! The allocations an execution tracks: `symx::sync::Arc`s (their strong counts are modelled),
//! `symx::loom::alloc::Track`ed values and blocks from `symx::loom::alloc::alloc`.
//!
//! A count the model keeps itself, rather than reading std's, is what lets a use after the last
//! reference went away (`Arc::from_raw`, `increment_strong_count`, a second drop) be reported
//! as a failure instead of being undefined behaviour inside the checker: the memory of an `Arc`
//! whose last reference went away is kept (its value is dropped, as std does) until the
//! execution ends, so its address is not reused and a stale pointer still finds its entry.
//! Whatever is still alive once every thread has finished is a leak (failure kind `leak`),
//! reported with the allocation's location. Objects created outside any execution are not
//! tracked: they behave exactly as std's.

use rustc_hash::FxHashMap as HashMap;
use std::panic::Location;

use super::execution::{Execution, Found};
use super::objects::ObjKind;
use super::op::ObjId;
use crate::report::kind::FailureKind;

/// What was allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AllocKind {
    Arc,
    Track,
    Alloc,
}

/// Keeps an allocation's memory (not its value) until the execution ends: a `std::sync::Weak`.
pub(crate) trait Keep {}

impl<T: ?Sized> Keep for std::sync::Weak<T> {}

/// One tracked allocation.
pub(crate) struct Allocation {
    pub kind: AllocKind,
    pub type_name: &'static str,
    pub location: &'static Location<'static>,
    /// Strong references (an `Arc`'s count; 1 for a live `Track` or block).
    pub strong: usize,
    /// The object whose clock carries the happens-before of the count (an `Arc`'s drops),
    /// made at the first drop.
    pub obj: Option<ObjId>,
    /// The memory of a freed `Arc`, held so that its address is not reused.
    keep: Option<Box<dyn Keep>>,
}

impl Allocation {
    /// `Arc<State>`, `Track<Node>`, `memory from alloc`: how reports name it.
    fn label(&self) -> String {
        match self.kind {
            AllocKind::Arc => format!("Arc<{}>", self.type_name),
            AllocKind::Track => format!("Track<{}>", self.type_name),
            AllocKind::Alloc => "memory from alloc".to_string(),
        }
    }
}

/// The tracked allocations of one execution, by key: an address, or a `Track`'s number.
#[derive(Default)]
pub(crate) struct Heap {
    live: HashMap<(u8, usize), Allocation>,
}

impl std::fmt::Debug for Heap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Heap({} allocations)", self.live.len())
    }
}

fn key(kind: AllocKind, at: usize) -> (u8, usize) {
    (kind as u8, at)
}

impl Heap {
    pub fn get_mut(&mut self, kind: AllocKind, at: usize) -> Option<&mut Allocation> {
        self.live.get_mut(&key(kind, at))
    }

    pub fn remove(&mut self, kind: AllocKind, at: usize) -> Option<Allocation> {
        self.live.remove(&key(kind, at))
    }

    /// Keeps a freed `Arc`'s memory until the execution ends.
    ///
    /// # Safety
    /// `keep` must not touch its value when dropped (a `std::sync::Weak` does not), so that it
    /// may outlive what the value borrowed.
    pub unsafe fn keep<'a>(&mut self, at: usize, keep: Box<dyn Keep + 'a>) {
        // SAFETY: per the contract, dropping `keep` only releases memory.
        let keep: Box<dyn Keep + 'static> = unsafe { std::mem::transmute(keep) };
        if let Some(a) = self.live.get_mut(&key(AllocKind::Arc, at)) {
            a.keep = Some(keep);
        }
    }

    /// The allocations still alive, oldest location first.
    fn leaked(&self) -> Vec<&Allocation> {
        let mut v: Vec<&Allocation> = self.live.values().filter(|a| a.strong > 0).collect();
        v.sort_by_key(|a| (a.location.file(), a.location.line(), a.location.column()));
        v
    }
}

impl Execution {
    /// Starts tracking an allocation at `at` (an address, or a `Track`'s number).
    pub fn track(
        &mut self,
        kind: AllocKind,
        at: usize,
        type_name: &'static str,
        location: &'static Location<'static>,
    ) {
        let allocation = Allocation {
            kind,
            type_name,
            location,
            strong: 1,
            obj: None,
            keep: None,
        };
        self.heap.live.insert(key(kind, at), allocation);
    }

    /// The failure of touching a tracked allocation that is no longer alive.
    pub fn use_after_free(
        &self,
        kind: AllocKind,
        at: usize,
        what: &str,
        location: &Location<'_>,
    ) -> Found {
        let allocation = self.heap.live.get(&key(kind, at));
        let name = allocation.map_or("an allocation".to_string(), Allocation::label);
        let label = self.threads[self.current].label(self.current);
        Found {
            kind: FailureKind::Panic,
            message: format!(
                "{label}: use after free: {what} on {name} whose last reference is gone, at \
                 {location}"
            ),
            details: allocation
                .map(|a| vec![format!("{} allocated at {}", a.label(), a.location)])
                .unwrap_or_default(),
            location: Some(location.into()),
            thread: Some(self.current),
        }
    }

    /// One strong reference to the `Arc` at `at` goes away: std's `fetch_sub(Release)`, and
    /// for the last one the `Acquire` fence before the value is dropped. `None` when the `Arc`
    /// is not tracked; `Some(Err(..))` when its count was already zero. What the step did to
    /// the count, for a partial-order reduction, is the caller's to record (`sync::arc`).
    pub fn arc_release(&mut self, at: usize) -> Option<Result<bool, ()>> {
        let obj = self.arc_obj(at)?;
        let a = self.heap.live.get_mut(&key(AllocKind::Arc, at))?;
        if a.strong == 0 {
            return Some(Err(()));
        }
        a.strong -= 1;
        let last = a.strong == 0;
        self.release_to(obj, std::sync::atomic::Ordering::Release, true);
        if last {
            self.acquire_from(obj, std::sync::atomic::Ordering::Acquire);
        }
        Some(Ok(last))
    }

    /// The object whose clock and events stand for the count of the tracked `Arc` at `at`,
    /// made on first need: objects are numbered in order of use.
    pub fn arc_obj(&mut self, at: usize) -> Option<ObjId> {
        let a = self.heap.live.get_mut(&key(AllocKind::Arc, at))?;
        let objects = &mut self.objects;
        let created = a.location;
        let obj = a
            .obj
            .get_or_insert_with(|| objects.fresh(ObjKind::Arc, "Arc", created));
        Some(*obj)
    }

    /// The leak check: a tracked allocation still alive when every thread has finished.
    pub fn leak(&self) -> Option<Found> {
        let leaked = self.heap.leaked();
        let first = leaked.first()?;
        let what = |a: &Allocation| match a.kind {
            AllocKind::Arc => format!(
                "{} allocated at {} still has {} strong reference{}",
                a.label(),
                a.location,
                a.strong,
                if a.strong == 1 { "" } else { "s" }
            ),
            AllocKind::Track => {
                format!("{} created at {} was never dropped", a.label(), a.location)
            }
            AllocKind::Alloc => format!("{} at {} was never deallocated", a.label(), a.location),
        };
        Some(Found {
            kind: FailureKind::Leak,
            message: format!(
                "leak: {} when the execution ended{}",
                what(first),
                match leaked.len() {
                    1 => String::new(),
                    n => format!(" (and {} more allocations)", n - 1),
                }
            ),
            details: leaked.iter().map(|a| what(a)).collect(),
            location: Some(first.location.into()),
            thread: None,
        })
    }
}
