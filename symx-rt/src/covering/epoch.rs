//! Epoch markers as instrumented code meets them, and the *havoc* of a loop's state at a
//! boundary (Bergan, dissertation §3.2.2 and §3.3.3).
//!
//! `#[symx::instrument]` places the markers (Fig. 3.2's placement, made syntactic: see the
//! macro crate's `epochs` module) and calls [`loop_head`] at the top of every loop body with
//! its decision; [`barrier_marker`] before a barrier that covers a loop; [`crossed`] after a
//! `symx::epoch_marker()` statement. Each returns whether the thread just passed a boundary,
//! and when it did the generated code *havocs* the loop-carried locals: each `Sym` among
//! them becomes a fresh symbolic input `<name>@<k>.t<thread>` (`k`: the boundary's number
//! in the run), whose value is the one the run computed unless the input assignment gives
//! another. So an epoch's schedules are stated over the loop's state, not over the
//! iteration that first reached it: the over-approximate initial state the paper builds
//! with its context-specific analysis, made here by replaying a prefix and generalising.

use std::cell::Cell;
use std::panic::Location;

use serde::{Deserialize, Serialize};

use crate::rt::objects::ObjKind;
use crate::rt::{self, OpKind};
use crate::sym::{Sym, SymValue};

/// Settings of a run cut into bounded epochs (`symx::Builder::epochs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Epochs {
    /// End the run at this boundary (1: at the end of the first epoch); `None`: run on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_at: Option<u32>,
    /// Havoc each thread's carried locals on its own, also at a barrier that covers a loop
    /// (by default threads there are in lockstep: a carried local of one name is one input
    /// for all of them when their values agree, the barrier-matching invariant).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_lockstep: bool,
}

/// An explicit epoch marker: when the run is cut into bounded epochs (input-covering
/// schedules), the thread waits here until every other thread is at a marker, blocked or
/// finished, and the next epoch begins; otherwise nothing. A loop whose body calls it on
/// every iteration needs no marker of its own.
#[track_caller]
pub fn epoch_marker() {
    pass(Location::caller());
}

/// The thread reaches an active marker at `location`: it is held there until the boundary.
fn pass(location: &'static Location<'static>) {
    let on = rt::with(|e| e.epochs.is_some()).unwrap_or(false);
    if !on || std::thread::panicking() {
        return;
    }
    rt::visible(OpKind::EpochMarker, None, location);
    rt::with(|e| {
        let me = e.me();
        me.epoch_pass = false;
        me.crossed = true;
    });
}

/// The epoch-marker placement's decision about one loop (Fig. 3.2 with its three
/// optimizations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The loop may synchronize and nothing else bounds it: a marker at its head.
    Marker,
    /// No synchronization in the loop: no marker.
    SyncFree,
    /// Its only synchronization is spawning and joining threads, or a condition-variable
    /// wait (bounded by the loops that notify): no marker.
    Trivial,
    /// A barrier runs on every iteration: the barrier is the marker.
    CoveredByBarrier,
    /// A marker runs on every iteration (`symx::epoch_marker()`, an inner `loop` with one).
    CoveredByMarker,
}

impl Placement {
    fn reason(self) -> &'static str {
        match self {
            Placement::Marker => "synchronizes",
            Placement::SyncFree => "synchronization-free",
            Placement::Trivial => "trivial",
            Placement::CoveredByBarrier => "covered by a barrier",
            Placement::CoveredByMarker => "covered by a marker",
        }
    }
}

/// The top of a loop body in the function `function`: notes the loop and its placement, and
/// passes the marker when the loop has one. Whether the thread crossed a boundary here.
///
/// The placement sees one function's text: a loop it calls synchronization-free may
/// synchronize in a function it calls (Fig. 3.2 follows the call graph to its callers). The
/// run sees the calls: such a loop whose last iteration by this thread synchronized and
/// passed no marker is a marker from then on (its first iteration runs unmarked, which
/// bounds it as well).
#[track_caller]
pub fn loop_head(placement: Placement, function: &'static str) -> bool {
    let location = Location::caller();
    let site = crate::rt::epochs::site(location);
    let active = rt::with(|e| {
        let me = e.current;
        let since = e.epochs.as_ref()?.heads.get(&(me, site.clone())).copied();
        let promoted = placement == Placement::SyncFree
            && since.is_some_and(|from| synchronized_unmarked(e, me, from));
        let state = e.epochs.as_mut()?;
        match state.loops.iter_mut().find(|l| l.0 == site) {
            None => {
                let marker = placement == Placement::Marker || promoted;
                let reason = if promoted { CALLS } else { placement.reason() };
                state.loops.push((site.clone(), marker, reason, function));
            }
            Some(l) if promoted && !l.1 => (l.1, l.2) = (true, CALLS),
            Some(_) => {}
        }
        Some(placement == Placement::Marker || promoted)
    })
    .flatten();
    let crossed = match active {
        Some(true) => {
            pass(location);
            crossed()
        }
        _ => false,
    };
    rt::with(|e| {
        let (me, at) = (e.current, e.trace.len());
        if let Some(state) = e.epochs.as_mut() {
            state.heads.insert((me, site), at);
        }
    });
    crossed
}

/// The reason of a loop the placement called synchronization-free that synchronized.
const CALLS: &str = "synchronizes in a function it calls";

/// Whether thread `me` synchronized since step `from` without passing an epoch marker
/// (accesses to `Shared` memory and yields are not synchronization).
fn synchronized_unmarked(e: &crate::rt::execution::Execution, me: usize, from: usize) -> bool {
    let mine = e
        .trace
        .get(from..)
        .unwrap_or(&[])
        .iter()
        .filter(|ev| ev.thread == me);
    let mut synced = false;
    for ev in mine {
        let shared = ev
            .obj
            .is_some_and(|o| e.objects.get(o).kind == ObjKind::Shared);
        match ev.kind {
            OpKind::EpochMarker => return false,
            OpKind::Yield | OpKind::Checkpoint => {}
            OpKind::Load | OpKind::Store if shared => {}
            _ => synced = true,
        }
    }
    synced
}

/// The implicit marker of a barrier that covers a loop, just before the barrier. Whether the
/// thread crossed a boundary here.
#[track_caller]
pub fn barrier_marker() -> bool {
    pass(Location::caller());
    crossed()
}

/// Whether the thread passed a marker since the last call (and forgets it).
pub fn crossed() -> bool {
    rt::with(|e| std::mem::take(&mut e.me().crossed)).unwrap_or(false)
}

/// A loop-carried local on its way through the havoc.
pub struct Havoc<'a, T>(Cell<Option<&'a mut T>>);

impl<'a, T> Havoc<'a, T> {
    /// Takes the local's place.
    pub fn new(place: &'a mut T) -> Self {
        Havoc(Cell::new(Some(place)))
    }
}

/// A symbolic local: becomes a fresh input at the boundary.
pub trait HavocSym {
    /// Replaces the local by a fresh input named after it; at a barrier covering the loop
    /// (`lockstep`), one input for every thread there whose value agrees.
    fn havoc(&self, name: &str, lockstep: bool);
}

impl<T: SymValue> HavocSym for &Havoc<'_, Sym<T>> {
    #[track_caller]
    fn havoc(&self, name: &str, lockstep: bool) {
        let Some(place) = self.0.take() else { return };
        let location = Location::caller();
        let bits = place.peek().to_bits();
        let Some(input) = rt::with(|e| {
            let state = e.epochs.as_ref()?;
            let k = state.boundaries.len();
            let shared = format!("{name}@{k}.l{}", location.line());
            let agrees = |e: &crate::rt::execution::Execution| {
                e.sym.recorded_value(&shared).is_none_or(|v| v == bits)
            };
            Some(match lockstep && !state.settings.no_lockstep && agrees(e) {
                true => shared,
                false => format!("{name}@{k}.t{}", e.current),
            })
        })
        .flatten() else {
            return;
        };
        let computed = crate::sym::record::with_sym(|st| st.operand(&*place)).flatten();
        *place = crate::sym::record::input_defaulting(&input, place.peek(), computed, location);
    }
}

/// Any other local: left as it is (only symbolic values are the epoch's inputs).
pub trait HavocAny {
    /// Leaves the local as it is.
    fn havoc(&self, name: &str, lockstep: bool);
}

impl<T> HavocAny for Havoc<'_, T> {
    fn havoc(&self, _name: &str, _lockstep: bool) {}
}
