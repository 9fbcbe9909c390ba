//! The attribute macros of symx. Users never name this crate: the runtime
//! crate (`symx-rt`, library `symx`) re-exports every macro here, and the
//! generated code reaches the runtime only through absolute `::symx::` paths.
//!
//! This crate owns the syntax of the attributes and their compile errors; it
//! must not encode what the runtime does with a test or an annotation.
//!
//! - [`macro@test`] (`test_attr`): a test explored by the runtime.
//! - [`macro@acquire`], [`macro@try_acquire`], [`macro@release`],
//!   [`macro@barrier_init`], [`macro@barrier_arrive`] (`annotations`): the
//!   meaning of user-built synchronization primitives.

use proc_macro::TokenStream;

use crate::annotations::Annotation;

mod annotations;
mod diagnostics;
mod test_attr;

/// Makes `fn name()` a `#[test]` whose body runs under the symx explorer.
///
/// ```ignore
/// #[symx::test]                                   // exhaustive exploration (DPOR)
/// fn lost_update() { /* uses symx::thread and symx::sync */ }
///
/// #[symx::test(strategy = "pct", iterations = 10_000, seed = 7)]
/// fn rare_interleaving() { /* ... */ }
/// ```
///
/// The arguments are `key = value` pairs, each setting the `symx::Builder`
/// option of the same name: `preemption_bound`, `max_executions`,
/// `max_steps`, `strategy` (`"dpor"`, `"dfs"`, `"random"` or `"pct"`),
/// `iterations`, `seed`, `depth`, `spurious_wakeups`, `stack_size` and
/// `time_budget_ms`.
///
/// Other attributes on the function (`#[ignore]`, `#[should_panic]`, doc
/// comments) stay on the generated test. The function must take no
/// parameters, return `()`, and be neither generic nor `async`.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    test_attr::expand(args.into(), item.into()).into()
}

/// After a normal return from this method, the calling thread holds `self`.
///
/// ```ignore
/// impl SpinLock {
///     #[symx::acquire]
///     pub fn lock(&self) { while self.locked.swap(true, Acquire) { symx::hint::spin_loop() } }
/// }
/// ```
///
/// A call on a lock the thread already holds is reported as a self-deadlock;
/// a call that panics acquires nothing. The method becomes `#[track_caller]`
/// so that the recorded acquisition points at its caller.
#[proc_macro_attribute]
pub fn acquire(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::Acquire, args.into(), item.into()).into()
}

/// The calling thread holds `self` after this method returns `true`, `Some`
/// or `Ok`.
///
/// ```ignore
/// impl SpinLock {
///     #[symx::try_acquire]
///     pub fn try_lock(&self) -> bool { !self.locked.swap(true, Acquire) }
/// }
/// ```
#[proc_macro_attribute]
pub fn try_acquire(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::TryAcquire, args.into(), item.into()).into()
}

/// `self` is released when a call of this method begins.
///
/// ```ignore
/// impl SpinLock {
///     #[symx::release]
///     pub fn unlock(&self) { self.locked.store(false, Release) }
/// }
/// ```
#[proc_macro_attribute]
pub fn release(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::Release, args.into(), item.into()).into()
}

/// `self` is a barrier expecting as many arrivals as the named parameter says.
///
/// ```ignore
/// impl MyBarrier {
///     #[symx::barrier_init(n)]
///     pub fn new_in_place(&self, n: usize) { self.left.store(n, SeqCst) }
/// }
/// ```
///
/// The parameter's value is converted with `as usize`.
#[proc_macro_attribute]
pub fn barrier_init(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::BarrierInit, args.into(), item.into()).into()
}

/// A call of this method is the calling thread's arrival at barrier `self`;
/// the call returns once the barrier has opened.
///
/// ```ignore
/// impl MyBarrier {
///     #[symx::barrier_arrive]
///     pub fn wait(&self) { /* ... */ }
/// }
/// ```
#[proc_macro_attribute]
pub fn barrier_arrive(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::BarrierArrive, args.into(), item.into()).into()
}
