//! The symbolic API of the integer atomics: `load_sym`, `store_sym`, `swap_sym`,
//! `fetch_add_sym`, `fetch_sub_sym`, `compare_exchange_sym`, `compare_exchange_weak_sym`.
//!
//! The plain API returns plain integers whose use symx cannot follow, so each read it makes
//! is pinned in the trace (`read == value`). These methods return and take [`Sym`] values
//! instead: the read is a free read variable and the write carries its expression, so an
//! engine may ask what happens if the read returns something else.

use super::atomic::*;
use crate::sym::record::{set_written, unpin_read};
use crate::sym::Sym;

macro_rules! atomic_sym {
    ($($name:ident: $t:ty),*) => {$(
        impl $name {
            /// [`load`](Self::load), returning the value as a read variable of the trace.
            #[track_caller]
            pub fn load_sym(&self, order: Ordering) -> Sym<$t> {
                let v = self.load(order);
                Sym::with_expr(v, unpin_read())
            }

            /// [`store`](Self::store) of a possibly symbolic value, recorded with its
            /// expression.
            #[track_caller]
            pub fn store_sym(&self, val: impl Into<Sym<$t>>, order: Ordering) {
                let val = val.into();
                self.store(val.peek(), order);
                set_written(&val);
            }

            /// [`swap`](Self::swap) with a possibly symbolic value; returns the old value as
            /// a read variable.
            #[track_caller]
            pub fn swap_sym(&self, val: impl Into<Sym<$t>>, order: Ordering) -> Sym<$t> {
                let val = val.into();
                let old = self.swap(val.peek(), order);
                let old = Sym::with_expr(old, unpin_read());
                set_written(&val);
                old
            }

            /// [`fetch_add`](Self::fetch_add) (wrapping, as atomics do) of a possibly
            /// symbolic value; returns the old value as a read variable and records the
            /// write as `old + val`.
            #[track_caller]
            pub fn fetch_add_sym(&self, val: impl Into<Sym<$t>>, order: Ordering) -> Sym<$t> {
                let val = val.into();
                let old = Sym::with_expr(self.fetch_add(val.peek(), order), unpin_read());
                set_written(&old.wrapping_add(val));
                old
            }

            /// [`fetch_sub`](Self::fetch_sub), symbolic like
            /// [`fetch_add_sym`](Self::fetch_add_sym).
            #[track_caller]
            pub fn fetch_sub_sym(&self, val: impl Into<Sym<$t>>, order: Ordering) -> Sym<$t> {
                let val = val.into();
                let old = Sym::with_expr(self.fetch_sub(val.peek(), order), unpin_read());
                set_written(&old.wrapping_sub(val));
                old
            }

            /// [`compare_exchange`](Self::compare_exchange) with possibly symbolic operands.
            /// The previous value is a read variable, and whether it equals `current` is a
            /// branch of the execution (recorded at the caller): an engine that makes the read
            /// return another value knows the exchange may then succeed or fail. On success the
            /// write carries `new`'s expression.
            #[track_caller]
            pub fn compare_exchange_sym(
                &self,
                current: impl Into<Sym<$t>>,
                new: impl Into<Sym<$t>>,
                success: Ordering,
                failure: Ordering,
            ) -> Result<Sym<$t>, Sym<$t>> {
                let (current, new) = (current.into(), new.into());
                let outcome = self.compare_exchange(current.peek(), new.peek(), success, failure);
                let old = Sym::with_expr(outcome.unwrap_or_else(|v| v), unpin_read());
                if outcome.is_ok() {
                    set_written(&new);
                }
                // The branch is recorded after the write: the write belongs to the step.
                let swapped = crate::sym::branch(old.sym_eq(current));
                debug_assert_eq!(swapped, outcome.is_ok());
                if swapped {
                    Ok(old)
                } else {
                    Err(old)
                }
            }

            /// [`compare_exchange_weak`](Self::compare_exchange_weak), symbolic like
            /// [`compare_exchange_sym`](Self::compare_exchange_sym). It never fails spuriously
            /// here, as the plain one does not.
            #[track_caller]
            pub fn compare_exchange_weak_sym(
                &self,
                current: impl Into<Sym<$t>>,
                new: impl Into<Sym<$t>>,
                success: Ordering,
                failure: Ordering,
            ) -> Result<Sym<$t>, Sym<$t>> {
                self.compare_exchange_sym(current, new, success, failure)
            }
        }
    )*};
}

atomic_sym!(AtomicU8: u8, AtomicU16: u16, AtomicU32: u32, AtomicU64: u64, AtomicUsize: usize,
            AtomicI8: i8, AtomicI16: i16, AtomicI32: i32, AtomicI64: i64, AtomicIsize: isize);
