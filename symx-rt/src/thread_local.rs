//! `symx::thread_local!` and `symx::thread::LocalKey`: std's thread-local storage with one value
//! per model thread and per execution (a model thread is a coroutine, so std's own
//! `thread_local!` would give every model thread of a test the same value). A value is
//! initialised on its thread's first use and dropped when that thread ends, as std's are;
//! outside any model, a key behaves as std's does on the calling OS thread.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;

use crate::rt::{self, locals::Erased, locals::Local};

/// Declares thread-local statics of type [`LocalKey`], as `std::thread_local!` does: each
/// model thread of each execution sees its own value, created on first use.
///
/// ```
/// use std::cell::Cell;
///
/// symx::thread_local! {
///     static COUNT: Cell<u32> = Cell::new(0);
/// }
///
/// symx::model(|| {
///     COUNT.set(COUNT.get() + 1);
///     let t = symx::thread::spawn(|| COUNT.get());
///     assert_eq!(t.join().unwrap(), 0); // the other thread's own value
///     assert_eq!(COUNT.get(), 1); // every execution starts afresh
/// });
/// ```
#[macro_export]
macro_rules! thread_local {
    () => {};
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const $init:block; $($rest:tt)*) => (
        $crate::thread_local!($(#[$attr])* $vis static $name: $t = $init; $($rest)*);
    );
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const $init:block) => (
        $crate::thread_local!($(#[$attr])* $vis static $name: $t = $init);
    );
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = $init:expr; $($rest:tt)*) => (
        $(#[$attr])* $vis static $name: $crate::thread::LocalKey<$t> =
            $crate::thread::LocalKey::__new({ fn __init() -> $t { $init } __init });
        $crate::thread_local!($($rest)*);
    );
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = $init:expr) => (
        $(#[$attr])* $vis static $name: $crate::thread::LocalKey<$t> =
            $crate::thread::LocalKey::__new({ fn __init() -> $t { $init } __init });
    );
}

/// A key to a thread-local value (std's `LocalKey`, declared with
/// [`thread_local!`](macro@crate::thread_local)).
pub struct LocalKey<T: 'static> {
    init: fn() -> T,
}

/// The error of [`LocalKey::try_with`] while the thread's locals are being destroyed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessError;

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("already destroyed")
    }
}

impl std::error::Error for AccessError {}

std::thread_local! {
    /// The values of keys used outside any model, per OS thread.
    static OUTSIDE: RefCell<HashMap<usize, Box<dyn Any>>> = RefCell::new(HashMap::new());
}

impl<T: 'static> LocalKey<T> {
    #[doc(hidden)]
    pub const fn __new(init: fn() -> T) -> Self {
        LocalKey { init }
    }

    /// The key's address names it (keys are statics).
    fn key(&'static self) -> usize {
        self as *const Self as usize
    }

    /// The calling thread's value, created on first use; `None` while its locals are being
    /// destroyed.
    fn value(&'static self) -> Option<&'static T> {
        let Some(t) = rt::current_thread() else {
            return self.outside();
        };
        let found = rt::with(|e| e.local(t, self.key()))?;
        let ptr = match found {
            Local::Value(p) => p,
            Local::Destroyed => return None,
            Local::Missing => {
                // Initialised outside the execution's borrow: `init` may use symx objects.
                let value = Erased::new((self.init)());
                rt::with(|e| e.set_local(t, self.key(), value))?
            }
        };
        // SAFETY: the value is boxed in the execution and dropped only when its thread ends,
        // after which the thread runs no more code that could hold this reference.
        Some(unsafe { &*(ptr as *const T) })
    }

    fn outside(&'static self) -> Option<&'static T> {
        let found = OUTSIDE
            .try_with(|m| m.borrow().get(&self.key()).map(|b| &**b as *const dyn Any))
            .ok()?;
        let ptr = match found {
            Some(p) => p,
            None => {
                let value: Box<dyn Any> = Box::new((self.init)());
                OUTSIDE
                    .try_with(|m| {
                        &**m.borrow_mut().entry(self.key()).or_insert(value) as *const dyn Any
                    })
                    .ok()?
            }
        };
        // SAFETY: the box lives until the OS thread's locals are destroyed, and is never
        // replaced; the reference does not outlive the thread.
        unsafe { &*ptr }.downcast_ref::<T>()
    }

    /// Runs `f` with the calling thread's value. Panics while the thread's locals are being
    /// destroyed.
    pub fn with<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        self.try_with(f)
            .expect("cannot access a thread-local value during or after its destruction")
    }

    /// Runs `f` with the calling thread's value, or fails while its locals are being destroyed.
    pub fn try_with<F, R>(&'static self, f: F) -> Result<R, AccessError>
    where
        F: FnOnce(&T) -> R,
    {
        self.value().map(f).ok_or(AccessError)
    }
}

impl<T: 'static> LocalKey<Cell<T>> {
    /// Sets the calling thread's value.
    pub fn set(&'static self, value: T) {
        self.with(|c| c.set(value))
    }

    /// A copy of the calling thread's value.
    pub fn get(&'static self) -> T
    where
        T: Copy,
    {
        self.with(Cell::get)
    }

    /// Takes the calling thread's value, leaving the default.
    pub fn take(&'static self) -> T
    where
        T: Default,
    {
        self.with(Cell::take)
    }

    /// Replaces the calling thread's value, returning the old one.
    pub fn replace(&'static self, value: T) -> T {
        self.with(|c| c.replace(value))
    }
}

impl<T: 'static> LocalKey<RefCell<T>> {
    /// Runs `f` with a shared borrow of the calling thread's value.
    pub fn with_borrow<F: FnOnce(&T) -> R, R>(&'static self, f: F) -> R {
        self.with(|c| f(&c.borrow()))
    }

    /// Runs `f` with a mutable borrow of the calling thread's value.
    pub fn with_borrow_mut<F: FnOnce(&mut T) -> R, R>(&'static self, f: F) -> R {
        self.with(|c| f(&mut c.borrow_mut()))
    }

    /// Sets the calling thread's value.
    pub fn set(&'static self, value: T) {
        self.with(|c| *c.borrow_mut() = value)
    }

    /// Takes the calling thread's value, leaving the default.
    pub fn take(&'static self) -> T
    where
        T: Default,
    {
        self.with(RefCell::take)
    }

    /// Replaces the calling thread's value, returning the old one.
    pub fn replace(&'static self, value: T) -> T {
        self.with(|c| c.replace(value))
    }
}

impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LocalKey { .. }")
    }
}
