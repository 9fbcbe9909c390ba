//! The macros of symx. Users never name this crate: the runtime
//! crate (`symx-rt`, library `symx`) re-exports every macro here, and the
//! generated code reaches the runtime only through absolute `::symx::` paths.
//!
//! This crate owns the syntax of the attributes and their compile errors; it
//! must not encode what the runtime does with a test or an annotation.
//!
//! - [`macro@test`] (`test_attr`): a test explored by the runtime, its body
//!   instrumented.
//! - [`macro@instrument`] (`instrument_attr`, `instrument`): a function or
//!   `impl` block whose branches, comparisons and assertions on symbolic
//!   values are recorded.
//! - [`assert!`], [`assert_eq!`], [`assert_ne!`] (`assertions`, expanded by
//!   `instrument`, which rewrites their values): recorded assertions usable
//!   outside instrumented bodies.
//! - [`macro@acquire`], [`macro@try_acquire`], [`macro@release`], their
//!   `_shared` forms, [`macro@barrier_init`], [`macro@barrier_arrive`]
//!   (`annotations`): the meaning of user-built synchronization primitives.
//! - `__strategy_names!` (`strategy_names`, hidden): the strategy names
//!   `#[symx::test]` accepts, for the runtime's `StrategyKind`.

use proc_macro::TokenStream;

use crate::annotations::Annotation;
use crate::assertions::Kind;

mod abstraction;
mod annotations;
mod assertions;
mod blind;
mod checkpoint;
mod diagnostics;
mod epochs;
mod features;
mod fragment;
mod instrument;
mod instrument_attr;
mod reaching;
mod strategy_names;
mod syntax;
mod test_attr;
mod written_text;

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
///
/// The body is instrumented as [`macro@instrument`] describes, closures and
/// `async` blocks in it included (a spawned thread's closure is rewritten),
/// nested items excluded.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    test_attr::expand(args.into(), item.into()).into()
}

/// Input abstraction for input-covering schedules (Bergan's dissertation, §3.4.2): during
/// the enumeration (`cargo symx schedules`), a call of the function is an uninterpreted
/// function: its body runs without its branches being enumerated, and its result becomes a
/// fresh symbolic input `<name>@<line>#<k>.t<thread>`, so that a synchronization-free
/// search whose paths never run out (a structure an input shapes) costs one branch on its
/// result. At any other time the function simply runs.
///
/// Spelled `#[symx::r#abstract]`: `abstract` is a reserved keyword of Rust.
///
/// ```ignore
/// #[symx::r#abstract]
/// fn tree_search(tree: &Tree, x: symx::Sym<u32>) -> symx::Sym<bool> { /* no locks */ }
/// ```
///
/// The function must return a `symx::Sym<..>`, be neither `const` nor `async`, and call no
/// synchronizing operation (`lock`, `wait`, `send`, `recv`, atomics' operations, ...); its
/// body is instrumented as [`macro@instrument`] describes.
#[proc_macro_attribute]
pub fn r#abstract(args: TokenStream, item: TokenStream) -> TokenStream {
    abstraction::expand(args.into(), item.into()).into()
}

/// Records the branches, comparisons and assertions of a function, or of every
/// method of an `impl` block, that depend on symbolic values.
///
/// ```ignore
/// #[symx::instrument]
/// fn pick(n: symx::Sym<u32>) -> u32 {
///     if n > 3 { 1 } else { 2 }        // the branch on `n > 3` is recorded
/// }
///
/// #[symx::instrument]
/// impl Queue { /* every method body, trait impls included */ }
/// ```
///
/// Inside the body:
///
/// - the comparisons `== != < <= > >=` go through the runtime, which gives a
///   `Sym<bool>` when an operand is symbolic and the plain `bool` otherwise;
/// - the condition of `if` and `while`, each match-arm guard and each operand
///   of `&&` and `||` goes through `symx::branch`, which records a symbolic
///   condition and passes a `bool` through;
/// - `assert!`, `assert_eq!`, `assert_ne!` and their `debug_` forms (by the
///   last segment of the path, so `std::assert!` too) become the recorded
///   [`assert!`], [`assert_eq!`], [`assert_ne!`], with the standard messages.
///
/// Closures and `async` blocks in the body are rewritten too, so a spawned
/// thread's closure is. Plain `bool` code behaves as before, at no cost once
/// inlined. Not rewritten: other macros
/// (`println!("{}", a == b)`, `matches!`), nested items (`fn`, `impl`,
/// `mod`, `const`, `static`; mark them themselves), the `let` of `if let`,
/// `while let` and let chains (the expression matched is rewritten), and
/// const contexts such as array lengths and generic arguments. A `const fn`
/// can't be instrumented (an `impl` block's `const fn`s are skipped), and
/// neither can a trait method without a body.
///
/// Type inference sees a method call where the operator was:
///
/// - a comparison's operand types must be known where it is written. An
///   operand whose type is inferred only later (an untyped parameter of a
///   closure stored in a variable: `let less = |a, b| a < b;`) is taken to
///   be symbolic, and the call of `less` then fails to type-check; write the
///   types (`|a: &u32, b: &u32| a < b`). Closures passed straight to a
///   function (`v.retain(|x| *x != 2)`) get their types from it and are fine;
/// - operands that can't be compared fail with an error about the method
///   `__symx_eq` (or `_ne`, `_lt`, ...) that names the missing
///   `PartialEq` / `PartialOrd` bound, rather than with "can't compare";
/// - a condition whose type is inferred only from being a condition
///   (`if s.parse().unwrap()`) needs the type written out.
#[proc_macro_attribute]
pub fn instrument(args: TokenStream, item: TokenStream) -> TokenStream {
    instrument_attr::expand(args.into(), item.into()).into()
}

/// `assert!` that records the assertion and its condition, symbolic or not.
///
/// ```ignore
/// symx::assert!(v != 7);
/// symx::assert!(v != 7, "v must not be 7, got {}", v);
/// ```
///
/// The condition is instrumented like a [`macro@instrument`] body. A failure
/// panics as `std::assert!` does: `assertion failed: v != 7`, or the given
/// message. Inside instrumented bodies plain `assert!` does the same.
#[proc_macro]
pub fn assert(input: TokenStream) -> TokenStream {
    instrument::assertion_macro(Kind::Assert, input.into()).into()
}

/// `assert_eq!` that records the comparison as an assertion.
///
/// ```ignore
/// symx::assert_eq!(x.get(), 2);
/// symx::assert_eq!(x.get(), 2, "after {} increments", n);
/// ```
///
/// Both values are evaluated once and borrowed; they must be `Debug`. A
/// failure panics with the message of `std::assert_eq!`
/// (``assertion `left == right` failed`` and both values).
#[proc_macro]
pub fn assert_eq(input: TokenStream) -> TokenStream {
    instrument::assertion_macro(Kind::AssertEq, input.into()).into()
}

/// `assert_ne!` that records the comparison as an assertion; see
/// [`assert_eq!`].
#[proc_macro]
pub fn assert_ne(input: TokenStream) -> TokenStream {
    instrument::assertion_macro(Kind::AssertNe, input.into()).into()
}

/// The strategy names `#[symx::test]` accepts, as an array of string
/// literals: the runtime's `StrategyKind` names its variants with them. Not
/// part of the API.
#[doc(hidden)]
#[proc_macro]
pub fn __strategy_names(_input: TokenStream) -> TokenStream {
    strategy_names::expand().into()
}

/// After a normal return from this method, the calling thread holds `self`
/// (or the object the argument names) exclusively.
///
/// ```ignore
/// impl SpinLock {
///     #[symx::acquire]
///     pub fn lock(&self) { while self.locked.swap(true, Acquire) { symx::hint::spin_loop() } }
/// }
/// impl<T> Mutex<T> {
///     #[symx::acquire(self.raw)]          // the lock is a field
///     pub fn lock(&self) -> Guard<'_, T> { /* ... */ }
/// }
/// ```
///
/// Every annotation takes an optional expression naming the object it is
/// about, `self` by default. A reference or smart pointer names what it
/// points at (`self.lock` of type `&RawLock`, `&self.inner`, an `Arc`), any
/// other place names itself (`self.raw`), so a guard's `self.lock` and the
/// lock's own `self` are the same object. With an argument the function
/// needs no `self`.
///
/// A call on a lock the thread already holds is reported as a self-deadlock;
/// a call that panics acquires nothing. The return is a scheduling point: other
/// threads may run between the acquisition and the critical section, so a lock
/// that lets two threads in is reported as misuse ("mutual exclusion is
/// broken"). The method becomes `#[track_caller]` so that the recorded
/// acquisition points at its caller.
#[proc_macro_attribute]
pub fn acquire(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::Acquire, args.into(), item.into()).into()
}

/// The calling thread holds `self` (or the named object) exclusively after
/// this method returns `true`, `Some` or `Ok`.
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

/// `self` (or the named object) is released when a call of this method
/// begins; the release is a scheduling point.
///
/// ```ignore
/// impl SpinLock {
///     #[symx::release]
///     pub fn unlock(&self) { self.locked.store(false, Release) }
/// }
/// impl Drop for Guard<'_> {
///     #[symx::release(self.lock)]        // a guard releases its lock, not itself
///     fn drop(&mut self) { self.lock.locked.store(false, Release) }
/// }
/// ```
///
/// On `Drop::drop` the argument is required: without it the guard would
/// release itself (write `#[symx::release(self)]` if `Self` is the lock).
#[proc_macro_attribute]
pub fn release(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::Release, args.into(), item.into()).into()
}

/// After a normal return the calling thread holds `self` (or the named
/// object) shared, as a reader of a reader-writer lock: readers exclude
/// writers, not each other.
///
/// ```ignore
/// impl RwSpinLock {
///     #[symx::acquire_shared]
///     pub fn read(&self) { /* ... */ }
/// }
/// ```
///
/// Waiting to read a lock the thread writes, or to write one it reads, is a
/// self-deadlock; a reader let in while a writer holds the lock (or a writer
/// while readers do) is misuse.
#[proc_macro_attribute]
pub fn acquire_shared(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::AcquireShared, args.into(), item.into()).into()
}

/// The calling thread holds `self` (or the named object) shared after this
/// method returns `true`, `Some` or `Ok`.
#[proc_macro_attribute]
pub fn try_acquire_shared(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::TryAcquireShared, args.into(), item.into()).into()
}

/// The calling thread's shared hold on `self` (or the named object) ends when
/// a call of this method begins.
///
/// ```ignore
/// impl Drop for ReadGuard<'_> {
///     #[symx::release_shared(self.lock)]
///     fn drop(&mut self) { self.lock.state.fetch_sub(1, Release); }
/// }
/// ```
#[proc_macro_attribute]
pub fn release_shared(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::ReleaseShared, args.into(), item.into()).into()
}

/// `self` (or the named object) is a barrier expecting as many arrivals as
/// the named parameter says.
///
/// ```ignore
/// impl MyBarrier {
///     #[symx::barrier_init(n)]
///     pub fn new_in_place(&self, n: usize) { self.left.store(n, SeqCst) }
/// }
/// impl Pool {
///     #[symx::barrier_init(self.barrier, n)]
///     pub fn start(&self, n: usize) { /* ... */ }
/// }
/// ```
///
/// The parameter's value is converted with `as usize`.
#[proc_macro_attribute]
pub fn barrier_init(args: TokenStream, item: TokenStream) -> TokenStream {
    annotations::expand(Annotation::BarrierInit, args.into(), item.into()).into()
}

/// A call of this method is the calling thread's arrival at barrier `self`
/// (or the named object); the call returns once the barrier has opened.
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

/// A resume point of a program context: `symx::checkpoint!("label", a, b)` evaluates to its
/// captures (one: its value; several: a tuple). When the test explores from `label`
/// (`#[symx::test(context = "label")]`), every `symx::Sym` capture is generalised: replaced
/// by a symbolic input whose first value is the one the run computed. Other captures pass
/// through.
#[proc_macro]
pub fn checkpoint(input: TokenStream) -> TokenStream {
    checkpoint::expand(input.into()).into()
}

/// A function that can be resumed at its `symx::start_here!(captures…)`: the attribute adds
/// `resume_<name>(captures…)`, which runs the rest of the function's tail, or of the current
/// iteration of the loop the mark is in and then the loop's remaining iterations and the
/// statements after it. Misplaced marks, uncaptured locals, borrowed captures and captures
/// without a type are compile errors.
#[proc_macro_attribute]
pub fn fragment(args: TokenStream, item: TokenStream) -> TokenStream {
    fragment::expand(args.into(), item.into()).into()
}

/// The resume point of a `#[symx::fragment]` function, which removes it: anywhere else it
/// is a compile error.
#[proc_macro]
pub fn start_here(_input: TokenStream) -> TokenStream {
    syn::Error::new(
        proc_macro2::Span::call_site(),
        "`symx::start_here!` marks the resume point of a `#[symx::fragment]` function, at the \
         top level of its body or of a loop's body",
    )
    .into_compile_error()
    .into()
}

/// Analyses an inline module: for each `symx::checkpoint!` at the top level of one of its
/// functions, the must-reach definitions of the captured locals (over the module's call
/// sites and the function's statements) become analysed value facts of the checkpoint.
#[proc_macro_attribute]
pub fn reaching_definitions(args: TokenStream, item: TokenStream) -> TokenStream {
    reaching::expand(args.into(), item.into()).into()
}
