// Every receiver and body shape the annotations accept compiles against the
// runtime: `return` and `?` in the body, borrows returned from `&mut self`,
// smart-pointer receivers, `impl Trait` results, trait and generic impls.

use std::cell::Cell;
use std::num::ParseIntError;
use std::pin::Pin;
use std::sync::Arc;

pub struct SpinLock {
    locked: Cell<bool>,
    data: u32,
    name: String,
}

pub struct Guard<'a>(pub &'a SpinLock);

impl SpinLock {
    #[symx::acquire]
    pub fn lock(&self) -> Guard<'_> {
        self.locked.set(true);
        Guard(self)
    }

    #[symx::try_acquire]
    pub fn try_lock(&self) -> Option<Guard<'_>> {
        if self.locked.replace(true) {
            return None;
        }
        Some(Guard(self))
    }

    #[symx::try_acquire]
    pub fn try_lock_parsed(&self, input: &str) -> Result<u32, ParseIntError> {
        let extra: u32 = input.parse()?;
        Ok(self.data + extra)
    }

    #[symx::acquire]
    pub fn lock_mut(&mut self) -> &mut u32 {
        &mut self.data
    }

    #[symx::acquire]
    pub fn lock_named(&self, short: bool) -> &str {
        if short {
            return &self.name;
        }
        "spin lock"
    }

    #[symx::acquire]
    pub fn lock_boxed(self: Box<Self>) -> u32 {
        self.data
    }

    #[symx::acquire]
    pub fn lock_shared(self: Arc<Self>) -> Arc<Self> {
        self
    }

    #[symx::acquire]
    pub fn lock_pinned(self: Pin<&mut Self>) {}

    #[symx::acquire]
    pub fn lock_iter(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::once(self.data)
    }

    #[symx::acquire]
    pub fn lock_with(&self, buffer: Vec<u8>, mut spins: u32) -> (Vec<u8>, u32) {
        spins += 1;
        (buffer, spins)
    }

    #[symx::release]
    pub fn unlock(&self) {
        #![allow(clippy::needless_return)]
        self.locked.set(false);
        return;
    }
}

pub struct MyBarrier {
    left: Cell<u32>,
}

impl MyBarrier {
    #[symx::barrier_init(parties)]
    pub fn init(&self, parties: u32) {
        self.left.set(parties);
    }

    #[symx::barrier_arrive]
    pub fn wait(&self) -> bool {
        self.left.set(self.left.get() - 1);
        self.left.get() == 0
    }
}

pub trait Lock {
    fn lock(&self);

    #[symx::try_acquire]
    fn try_lock(&self) -> bool {
        false
    }

    #[symx::release]
    fn unlock(&self) {}
}

impl Lock for SpinLock {
    #[symx::acquire]
    fn lock(&self) {
        self.locked.set(true);
    }
}

pub struct Slot<T>(T);

impl<T: Clone> Slot<T> {
    #[symx::acquire]
    pub fn take<U: From<T>>(&self) -> U {
        U::from(self.0.clone())
    }

    #[symx::barrier_arrive]
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: Send> Lock for Slot<T> {
    #[symx::acquire]
    fn lock(&self) {}
}

// Named objects: a field by value or by reference, a reference expression, a smart
// pointer, a parameter of a function without `self`; shared acquisition.
pub struct Wrapper {
    raw: SpinLock,
    shared: Arc<SpinLock>,
    barrier: MyBarrier,
}

pub struct WrapperGuard<'a> {
    lock: &'a SpinLock,
}

impl Wrapper {
    #[symx::acquire(self.raw)]
    pub fn lock(&self) -> WrapperGuard<'_> {
        WrapperGuard { lock: &self.raw }
    }

    #[symx::try_acquire(&self.raw)]
    pub fn try_lock(&self) -> Option<WrapperGuard<'_>> {
        None
    }

    #[symx::acquire_shared(self.shared)]
    pub fn read(&self) {}

    #[symx::try_acquire_shared(self.shared)]
    pub fn try_read(&self) -> bool {
        true
    }

    #[symx::release_shared(self.shared)]
    pub fn unlock_read(&self) {}

    #[symx::barrier_init(self.barrier, n)]
    pub fn start(&self, n: usize) {
        let _ = n;
    }

    #[symx::barrier_arrive(self.barrier)]
    pub fn arrive(&self) {}
}

impl Drop for WrapperGuard<'_> {
    #[symx::release(self.lock)]
    fn drop(&mut self) {}
}

#[symx::acquire(lock)]
pub fn lock_free_fn(lock: &SpinLock) {
    let _ = lock;
}

#[symx::release(*lock)]
pub fn unlock_free_fn(lock: &SpinLock) {
    let _ = lock;
}

fn main() {}
