//! loom's `lazy_static!` and `lazy_static::Lazy`: a static initialised once per execution, as
//! [`crate::sync::LazyLock`]. As in loom, a lazy static belongs to the main thread's closure:
//! an access after the main thread has ended (by a thread nobody joined) panics, since the
//! process would be exiting. (symx drops the value when the execution's last thread ends.)

pub use crate::thread::{panicking, yield_now, AccessError};

/// loom's `Lazy`: a value that `init` computes once per execution.
pub struct Lazy<T> {
    lock: crate::sync::LazyLock<T>,
}

impl<T> Lazy<T> {
    /// A lazy value computed by `init`.
    pub const fn new(init: fn() -> T) -> Lazy<T> {
        Lazy {
            lock: crate::sync::LazyLock::new(init),
        }
    }

    /// The value, computed in this execution if it was not yet.
    #[track_caller]
    pub fn get(&'static self) -> &'static T {
        let main_ended = crate::rt::with(|e| e.threads[0].is_finished()).unwrap_or(false);
        assert!(
            !main_ended,
            "a lazy_static was accessed after the main thread ended (a thread nobody joined \
             outlived the model's closure)"
        );
        crate::sync::LazyLock::force(&self.lock)
    }
}

impl<T> std::fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lazy { .. }")
    }
}

/// loom's `lazy_static!` (the `lazy_static` crate's syntax): each `static ref` is a value of
/// its own type that derefs to the lazily computed value.
#[macro_export]
#[doc(hidden)]
macro_rules! __loom_lazy_static {
    ($(#[$attr:meta])* static ref $N:ident : $T:ty = $e:expr; $($t:tt)*) => {
        $crate::__loom_lazy_static!(@item $(#[$attr])* () $N, $T, $e);
        $crate::__loom_lazy_static!($($t)*);
    };
    ($(#[$attr:meta])* pub static ref $N:ident : $T:ty = $e:expr; $($t:tt)*) => {
        $crate::__loom_lazy_static!(@item $(#[$attr])* (pub) $N, $T, $e);
        $crate::__loom_lazy_static!($($t)*);
    };
    ($(#[$attr:meta])* pub ($($vis:tt)+) static ref $N:ident : $T:ty = $e:expr; $($t:tt)*) => {
        $crate::__loom_lazy_static!(@item $(#[$attr])* (pub ($($vis)+)) $N, $T, $e);
        $crate::__loom_lazy_static!($($t)*);
    };
    (@item $(#[$attr:meta])* ($($vis:tt)*) $N:ident, $T:ty, $e:expr) => {
        #[allow(missing_copy_implementations, non_camel_case_types, dead_code)]
        $(#[$attr])*
        $($vis)* struct $N { __private_field: () }
        #[doc(hidden)]
        $($vis)* static $N: $N = $N { __private_field: () };
        impl ::core::ops::Deref for $N {
            type Target = $T;
            fn deref(&self) -> &$T {
                fn __init() -> $T { $e }
                static LAZY: $crate::loom::lazy_static::Lazy<$T> =
                    $crate::loom::lazy_static::Lazy::new(__init);
                LAZY.get()
            }
        }
    };
    () => ();
}
