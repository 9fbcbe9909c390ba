//! Which stable items of `std::sync`, `std::sync::atomic`, `std::sync::mpsc` and `std::thread`
//! (Rust 1.91) symx mirrors, and why each one it does not is left out: a gap is a decision
//! written down here, not an accident. `mirrored` names every item of `STD` that is not one of
//! the `GAPS` under its symx path, so this file stops compiling if one goes away.

#![allow(unused_imports, deprecated)]

/// Every stable public item of the four modules, as of Rust 1.91.
const STD: &[&str] = &[
    // std::sync
    "sync::Arc",
    "sync::Barrier",
    "sync::BarrierWaitResult",
    "sync::Condvar",
    "sync::LazyLock",
    "sync::LockResult",
    "sync::Mutex",
    "sync::MutexGuard",
    "sync::Once",
    "sync::OnceLock",
    "sync::OnceState",
    "sync::PoisonError",
    "sync::RwLock",
    "sync::RwLockReadGuard",
    "sync::RwLockWriteGuard",
    "sync::TryLockError",
    "sync::TryLockResult",
    "sync::WaitTimeoutResult",
    "sync::Weak",
    "sync::ONCE_INIT",
    // std::sync::atomic
    "atomic::AtomicBool",
    "atomic::AtomicI8",
    "atomic::AtomicI16",
    "atomic::AtomicI32",
    "atomic::AtomicI64",
    "atomic::AtomicIsize",
    "atomic::AtomicPtr",
    "atomic::AtomicU8",
    "atomic::AtomicU16",
    "atomic::AtomicU32",
    "atomic::AtomicU64",
    "atomic::AtomicUsize",
    "atomic::Ordering",
    "atomic::fence",
    "atomic::compiler_fence",
    "atomic::spin_loop_hint",
    "atomic::ATOMIC_BOOL_INIT",
    "atomic::ATOMIC_ISIZE_INIT",
    "atomic::ATOMIC_USIZE_INIT",
    // std::sync::mpsc
    "mpsc::channel",
    "mpsc::sync_channel",
    "mpsc::Sender",
    "mpsc::SyncSender",
    "mpsc::Receiver",
    "mpsc::Iter",
    "mpsc::TryIter",
    "mpsc::IntoIter",
    "mpsc::SendError",
    "mpsc::RecvError",
    "mpsc::TryRecvError",
    "mpsc::RecvTimeoutError",
    "mpsc::TrySendError",
    // std::thread (and std's `thread_local!`)
    "thread::spawn",
    "thread::scope",
    "thread::Scope",
    "thread::ScopedJoinHandle",
    "thread::Builder",
    "thread::JoinHandle",
    "thread::Thread",
    "thread::ThreadId",
    "thread::LocalKey",
    "thread::AccessError",
    "thread::current",
    "thread::park",
    "thread::park_timeout",
    "thread::park_timeout_ms",
    "thread::sleep",
    "thread::sleep_ms",
    "thread::yield_now",
    "thread::panicking",
    "thread::available_parallelism",
    "thread::Result",
    "thread_local!",
];

/// The items symx leaves out, with the reason.
const GAPS: &[(&str, &str)] = &[
    (
        "sync::ONCE_INIT",
        "deprecated since 1.38 in favour of `Once::new`, which is `const`",
    ),
    (
        "atomic::ATOMIC_BOOL_INIT",
        "deprecated since 1.34 in favour of `AtomicBool::new`, which is `const`",
    ),
    (
        "atomic::ATOMIC_ISIZE_INIT",
        "deprecated since 1.34 in favour of `AtomicIsize::new`, which is `const`",
    ),
    (
        "atomic::ATOMIC_USIZE_INIT",
        "deprecated since 1.34 in favour of `AtomicUsize::new`, which is `const`",
    ),
    (
        "thread::park_timeout_ms",
        "deprecated since 1.6 in favour of `park_timeout`, which symx has",
    ),
    (
        "thread::sleep_ms",
        "deprecated since 1.6 in favour of `sleep`, which symx has",
    ),
    (
        "thread::available_parallelism",
        "a fact about the machine, not a synchronisation: std's is the right one to call",
    ),
];

/// Names each mirrored item (every item of `STD` but the `GAPS`) under its symx path: this
/// function only has to compile.
#[allow(dead_code)]
fn mirrored() {
    use symx::sync::atomic::{
        compiler_fence, fence, spin_loop_hint, AtomicBool, AtomicI16, AtomicI32, AtomicI64,
        AtomicI8, AtomicIsize, AtomicPtr, AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
        Ordering,
    };
    use symx::sync::mpsc::{
        channel, sync_channel, IntoIter, Iter, Receiver, RecvError, RecvTimeoutError, SendError,
        Sender, SyncSender, TryIter, TryRecvError, TrySendError,
    };
    use symx::sync::{
        Arc, Barrier, BarrierWaitResult, Condvar, LazyLock, LockResult, Mutex, MutexGuard, Once,
        OnceLock, OnceState, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError,
        TryLockResult, WaitTimeoutResult, Weak,
    };
    use symx::thread::{
        current, panicking, park, park_timeout, scope, sleep, spawn, yield_now, AccessError,
        Builder, JoinHandle, LocalKey, Scope, ScopedJoinHandle, Thread, ThreadId,
    };
    symx::thread_local! { static L: u8 = 0; }
    let _: symx::thread::Result<()> = Ok(());
}

#[test]
fn every_gap_is_a_std_item_named_once() {
    let mut seen = std::collections::HashSet::new();
    for item in STD {
        assert!(seen.insert(item), "{item} is listed twice");
    }
    for (item, why) in GAPS {
        assert!(
            STD.contains(item),
            "{item} ({why}) is not one of std's items"
        );
    }
    assert_eq!(
        STD.len() - GAPS.len(),
        66,
        "mirrored items: update `mirrored` with the list"
    );
}
