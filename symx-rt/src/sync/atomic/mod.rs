//! `symx::sync::atomic`: atomics whose every operation is a scheduling point.
//!
//! Inside an execution the current value lives in the runtime's object table (the object's own
//! storage keeps the initial value, so a `static` atomic starts every execution afresh);
//! outside one, the operations act on the object's own storage like std's.

use std::panic::Location;

pub use std::sync::atomic::Ordering;

use crate::rt::{self, ObjKind, ObjRef, OpKind, Value};
use crate::sym::expr::Ty;
use crate::sym::SymValue;

/// A compiler fence: orders nothing between threads, so nothing for the model to do.
pub fn compiler_fence(order: Ordering) {
    std::sync::atomic::compiler_fence(order);
}

/// loom's (and std's deprecated) name for [`crate::hint::spin_loop`].
#[track_caller]
pub fn spin_loop_hint() {
    crate::hint::spin_loop();
}

/// A memory fence. Interleavings are sequentially consistent; the fence matters to
/// happens-before (relaxed accesses around it synchronise).
#[track_caller]
pub fn fence(order: Ordering) {
    rt::with(|e| e.fence(order));
    std::sync::atomic::fence(order);
}

/// The ordering a compare-exchange's load uses on failure cannot be stronger than its success
/// ordering in std; we only need whether it acquires.
fn read_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Release => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Acquire,
        o => o,
    }
}

/// What one atomic operation is: its kind, orderings (the second applies when it does not
/// write) and where it was called.
struct AtomicOp {
    kind: OpKind,
    order: Ordering,
    failure_order: Ordering,
    location: &'static Location<'static>,
    /// The value type, as the trace records it.
    ty: Ty,
}

/// One atomic operation inside an execution: a scheduling point, then read (and maybe write)
/// the current value with the happens-before effects of `order`, and record on the step's
/// event what it read or wrote (`value` of the value read and the value written, if any).
/// Returns the value read and whether a write happened.
fn access(
    obj: &ObjRef,
    type_name: &'static str,
    initial: u64,
    op: AtomicOp,
    update: impl FnOnce(u64) -> Option<u64>,
    value: impl Fn(u64, Option<u64>) -> Value,
) -> Option<(u64, Option<u64>)> {
    let AtomicOp {
        kind,
        order,
        failure_order,
        location,
        ty,
    } = op;
    let type_name = obj.user_type().unwrap_or(type_name);
    // Finding the object and announcing the operation take one look at the execution.
    let Some(id) = rt::visible_on(kind, location, |e| {
        let id = e.objects.of(obj, ObjKind::Atomic, type_name, initial);
        e.objects.note_initial(id, ty, ty.truncate(initial as u128));
        id
    }) else {
        rt::foreign::check(obj, type_name, location);
        return None;
    };
    let (old, new, race) = rt::with(|e| {
        let old = e.objects.get(id).value;
        let new = update(old);
        let read = if new.is_some() {
            read_order(order)
        } else {
            failure_order
        };
        e.acquire_from(id, read);
        let applied = if new.is_some() { order } else { failure_order };
        let me = e.current;
        let blind = std::mem::take(&mut e.me().blind_next);
        if let Some(ev) = e.trace.last_mut().filter(|ev| ev.thread == me) {
            ev.order = Some(applied);
            ev.blind = blind;
        }
        let mut race = None;
        match new {
            Some(v) => {
                e.objects.get_mut(id).value = v;
                race = e.atomic_write(id, location);
                e.release_to(id, order, kind != OpKind::Store);
            }
            None => e.quiet_step = true,
        }
        // The plain-value API hands the value read to untracked code: pin it. What it
        // writes is a constant for the same reason.
        if kind != OpKind::Store {
            e.note_plain_read(ty, ty.truncate(old as u128));
        }
        if let Some(v) = new {
            e.note_write(None, ty, ty.truncate(v as u128));
        }
        // What `rt::record_value` would do after the step, with this same look.
        if race.is_none() {
            if let Some(ev) = e.trace.last_mut().filter(|ev| ev.thread == me) {
                ev.value = value(old, new);
            }
        }
        (old, new, race)
    })?;
    if let Some(found) = race {
        rt::fail(found);
        // Only a thread already unwinding gets here (see `rt::fail`).
        rt::record_value(value(old, new));
    }
    Some((old, new))
}

/// An unsynchronised read of an atomic's current value: no scheduling point, and a data race
/// with any write to it that happens-before does not order before the read. `None` outside a
/// model.
fn unsync_read(
    obj: &ObjRef,
    type_name: &'static str,
    location: &'static Location<'static>,
) -> Option<u64> {
    let (value, found) = rt::with(|e| {
        let id = obj.get(e.objects.generation)?;
        e.me().accessed = true;
        Some((e.objects.get(id).value, e.cell_access(id, false, location)))
    })
    .flatten()
    .or_else(|| {
        rt::foreign::check(obj, type_name, location);
        None
    })?;
    if let Some(found) = found {
        rt::fail(found);
    }
    Some(value)
}

macro_rules! atomic_int {
    ($(#[$doc:meta])* $name:ident, $t:ty) => {
        $(#[$doc])*
        #[doc = concat!("`std::sync::atomic::", stringify!($name), "`, modelled: every access is a \
            scheduling point, and happens-before follows its orderings.")]
        #[derive(Debug, Default)]
        pub struct $name {
            init: std::sync::atomic::$name,
            obj: ObjRef,
        }

        impl $name {
            /// A new atomic holding the value. `const`, as in `std`: usable in statics.
            #[track_caller]
            pub const fn new(v: $t) -> Self {
                $name { init: std::sync::atomic::$name::new(v), obj: ObjRef::new() }
            }

            fn modelled(
                &self,
                kind: OpKind,
                order: Ordering,
                failure: Ordering,
                location: &'static Location<'static>,
                update: impl FnOnce($t) -> Option<$t>,
            ) -> Option<($t, Option<$t>)> {
                let initial = self.init.load(Ordering::Relaxed) as u64;
                let op = AtomicOp { kind, order, failure_order: failure, location, ty: <$t as SymValue>::TY };
                let (old, new) = access(
                    &self.obj,
                    stringify!($name),
                    initial,
                    op,
                    |v| update(v as $t).map(|n| n as u64),
                    |old, new| {
                        let (old, new) = (old as $t, new.map(|n| n as $t));
                        match (kind, new) {
                            (OpKind::Load, _) => Value::One(old as i128),
                            (OpKind::Store, Some(n)) => Value::One(n as i128),
                            (_, Some(n)) => Value::Two(old as i128, n as i128),
                            (_, None) => Value::One(old as i128),
                        }
                    },
                )?;
                Some((old as $t, new.map(|n| n as $t)))
            }

            /// A read-modify-write that always writes `f(old)`; returns `old`.
            #[track_caller]
            fn rmw(&self, order: Ordering, f: impl Fn($t) -> $t) -> $t {
                match self.modelled(OpKind::Rmw, order, order, Location::caller(), |v| Some(f(v))) {
                    Some((old, _)) => old,
                    None => self
                        .init
                        .fetch_update(order, read_order(order), |v| Some(f(v)))
                        .expect("always writes"),
                }
            }

            /// Reads the value: a scheduling point; `order` decides what it synchronises with.
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $t {
                match self.modelled(OpKind::Load, order, order, Location::caller(), |_| None) {
                    Some((v, _)) => v,
                    None => self.init.load(order),
                }
            }

            /// Writes the value: a scheduling point; `order` decides what it synchronises with.
            #[track_caller]
            pub fn store(&self, val: $t, order: Ordering) {
                if self.modelled(OpKind::Store, order, order, Location::caller(), |_| Some(val)).is_none() {
                    self.init.store(val, order);
                }
            }

            /// Writes the value and returns the previous one, in one step.
            #[track_caller]
            pub fn swap(&self, val: $t, order: Ordering) -> $t {
                self.rmw(order, |_| val)
            }

            /// Writes `new` if the value is `current`, in one step; returns the previous value,
            /// `Ok` if it was written and `Err` otherwise.
            #[track_caller]
            pub fn compare_exchange(&self, current: $t, new: $t, success: Ordering, failure: Ordering) -> Result<$t, $t> {
                let update = |v: $t| (v == current).then_some(new);
                match self.modelled(OpKind::CompareExchange, success, failure, Location::caller(), update) {
                    Some((old, Some(_))) => Ok(old),
                    Some((old, None)) => Err(old),
                    None => self.init.compare_exchange(current, new, success, failure),
                }
            }

            /// Never fails spuriously here: a spurious failure is indistinguishable from a
            /// retry, which the explored interleavings already contain.
            #[track_caller]
            pub fn compare_exchange_weak(&self, current: $t, new: $t, success: Ordering, failure: Ordering) -> Result<$t, $t> {
                self.compare_exchange(current, new, success, failure)
            }

            /// Each attempt is one compare-exchange: a scheduling point, as in std's loop.
            #[track_caller]
            pub fn fetch_update<F: FnMut($t) -> Option<$t>>(&self, set: Ordering, fetch: Ordering, mut f: F) -> Result<$t, $t> {
                let mut prev = self.load(fetch);
                while let Some(next) = f(prev) {
                    match self.compare_exchange(prev, next, set, fetch) {
                        Ok(x) => return Ok(x),
                        Err(actual) => prev = actual,
                    }
                }
                Err(prev)
            }

            /// Adds (wrapping), returning the previous value.
            #[track_caller]
            pub fn fetch_add(&self, val: $t, order: Ordering) -> $t { self.rmw(order, |v| v.wrapping_add(val)) }
            /// Subtracts (wrapping), returning the previous value.
            #[track_caller]
            pub fn fetch_sub(&self, val: $t, order: Ordering) -> $t { self.rmw(order, |v| v.wrapping_sub(val)) }
            /// Bitwise and, returning the previous value.
            #[track_caller]
            pub fn fetch_and(&self, val: $t, order: Ordering) -> $t { self.rmw(order, |v| v & val) }
            /// Bitwise nand, returning the previous value.
            #[track_caller]
            pub fn fetch_nand(&self, val: $t, order: Ordering) -> $t { self.rmw(order, |v| !(v & val)) }
            /// Bitwise or, returning the previous value.
            #[track_caller]
            pub fn fetch_or(&self, val: $t, order: Ordering) -> $t { self.rmw(order, |v| v | val) }
            /// Bitwise xor, returning the previous value.
            #[track_caller]
            pub fn fetch_xor(&self, val: $t, order: Ordering) -> $t { self.rmw(order, |v| v ^ val) }
            /// Maximum, returning the previous value.
            #[track_caller]
            pub fn fetch_max(&self, val: $t, order: Ordering) -> $t { self.rmw(order, |v| v.max(val)) }
            /// Minimum, returning the previous value.
            #[track_caller]
            pub fn fetch_min(&self, val: $t, order: Ordering) -> $t { self.rmw(order, |v| v.min(val)) }

            /// Writes `new` if the value is `current`; returns the previous value either way
            /// (std's deprecated form of [`compare_exchange`](Self::compare_exchange), kept
            /// undeprecated here so that loom code under `#![deny(warnings)]` builds).
            #[track_caller]
            pub fn compare_and_swap(&self, current: $t, new: $t, order: Ordering) -> $t {
                let failure = read_order(order);
                match self.compare_exchange(current, new, order, failure) {
                    Ok(v) | Err(v) => v,
                }
            }

            /// loom's unsynchronised load: reads the value without a scheduling point; a write
            /// to the atomic that happens-before does not order before it is a data race.
            ///
            /// # Safety
            /// Every write to the atomic must happen before this read (as loom requires).
            #[track_caller]
            pub unsafe fn unsync_load(&self) -> $t {
                match unsync_read(&self.obj, stringify!($name), Location::caller()) {
                    Some(v) => v as $t,
                    None => self.init.load(Ordering::Relaxed),
                }
            }

            /// Runs `f` with exclusive access to the value (loom's `with_mut`).
            pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut $t) -> R) -> R {
                f(self.get_mut())
            }

            /// Exclusive access: the value is synchronised back into the object's own storage
            /// and the object starts afresh at its next use.
            pub fn get_mut(&mut self) -> &mut $t {
                self.settle();
                self.init.get_mut()
            }

            /// The value, consuming the atomic.
            pub fn into_inner(mut self) -> $t {
                self.settle();
                self.init.load(Ordering::Relaxed)
            }

            fn settle(&mut self) {
                let current = rt::with(|e| {
                    let id = self.obj.get(e.objects.generation)?;
                    let state = e.objects.get_mut(id);
                    state.taken = true;
                    Some(state.value)
                }).flatten();
                if let Some(v) = current {
                    self.init.store(v as $t, Ordering::Relaxed);
                    self.obj.forget();
                }
            }
        }

        impl From<$t> for $name {
            #[track_caller]
            fn from(v: $t) -> Self { Self::new(v) }
        }
    };
}

atomic_int!(AtomicU8, u8);
atomic_int!(AtomicU16, u16);
atomic_int!(AtomicU32, u32);
atomic_int!(AtomicU64, u64);
atomic_int!(AtomicUsize, usize);
atomic_int!(AtomicI8, i8);
atomic_int!(AtomicI16, i16);
atomic_int!(AtomicI32, i32);
atomic_int!(AtomicI64, i64);
atomic_int!(AtomicIsize, isize);

impl AtomicU8 {
    /// The atomic implementing another user-visible type, which reports name.
    #[track_caller]
    const fn implementing(v: u8, name: &'static str) -> Self {
        AtomicU8 {
            init: std::sync::atomic::AtomicU8::new(v),
            obj: ObjRef::named(name),
        }
    }
}

mod flag;
mod ptr;

pub use flag::AtomicBool;
pub use ptr::AtomicPtr;
