//! Parity with loom 0.7.2's public API, by compilation: every public item of loom 0.7.2 (each
//! module, function, type, method, field and macro, from its documentation) is named in
//! `LOOM_0_7_2` and used below against symx's loom API (the `symx-loom` folder, whose package is
//! named `loom`), and so is every stable associated function and trait impl of std's `Arc`/`Weak`
//! against `symx::sync`. An item that does not exist, or has another shape, stops this file
//! compiling. What is left out, or differs, is in `DIFFERENCES` with the reason (and in
//! docs/coming-from-loom.md).
//!
//! Covered version: loom 0.7.2 with its `futures` feature (the `checkpoint` feature adds no
//! public item).

#![allow(
    deprecated,
    clippy::redundant_clone,
    clippy::let_unit_value,
    clippy::clone_on_copy
)]

use std::time::Duration;

/// Every public item of loom 0.7.2, by path; `uses_*` below use each one.
const LOOM_0_7_2: &[&str] = &[
    // the crate root
    "model",
    "explore",
    "skip_branch",
    "stop_exploring",
    "MAX_THREADS",
    "thread_local!",
    "lazy_static!",
    // alloc
    "alloc::alloc",
    "alloc::alloc_zeroed",
    "alloc::dealloc",
    "alloc::Layout",
    "alloc::Track",
    "alloc::Track::new",
    "alloc::Track::get_ref",
    "alloc::Track::get_mut",
    "alloc::Track::into_inner",
    "alloc::Track: Debug",
    // cell
    "cell::Cell",
    "cell::Cell::new",
    "cell::Cell::set",
    "cell::Cell::swap",
    "cell::Cell::replace",
    "cell::Cell::get",
    "cell::Cell::take",
    "cell::Cell::into_inner",
    "cell::Cell: Default + Clone + From + PartialEq + Eq + PartialOrd + Ord",
    "cell::UnsafeCell",
    "cell::UnsafeCell::new",
    "cell::UnsafeCell::into_inner",
    "cell::UnsafeCell::with",
    "cell::UnsafeCell::with_mut",
    "cell::UnsafeCell::get",
    "cell::UnsafeCell::get_mut",
    "cell::UnsafeCell: Default + From + Debug",
    "cell::ConstPtr",
    "cell::ConstPtr::deref",
    "cell::ConstPtr::with",
    "cell::MutPtr",
    "cell::MutPtr::deref",
    "cell::MutPtr::with",
    // future
    "future::block_on",
    "future::AtomicWaker",
    "future::AtomicWaker::new",
    "future::AtomicWaker::register",
    "future::AtomicWaker::register_by_ref",
    "future::AtomicWaker::wake",
    "future::AtomicWaker::take_waker",
    "future::AtomicWaker: Default + Debug",
    // hint
    "hint::spin_loop",
    "hint::unreachable_unchecked",
    // lazy_static
    "lazy_static::Lazy",
    "lazy_static::Lazy::get",
    "lazy_static::AccessError",
    "lazy_static::yield_now",
    "lazy_static::panicking",
    // model
    "model::model",
    "model::Builder",
    "model::Builder::new",
    "model::Builder::checkpoint_file",
    "model::Builder::check",
    "model::Builder: Default + Debug",
    "model::Builder.max_threads",
    "model::Builder.max_branches",
    "model::Builder.max_permutations",
    "model::Builder.max_duration",
    "model::Builder.preemption_bound",
    "model::Builder.checkpoint_file",
    "model::Builder.checkpoint_interval",
    "model::Builder.expect_explicit_explore",
    "model::Builder.location",
    "model::Builder.log",
    // sync
    "sync::Arc",
    "sync::Arc::new",
    "sync::Arc::pin",
    "sync::Arc::try_unwrap",
    "sync::Arc::from_std",
    "sync::Arc::strong_count",
    "sync::Arc::increment_strong_count",
    "sync::Arc::decrement_strong_count",
    "sync::Arc::get_mut",
    "sync::Arc::ptr_eq",
    "sync::Arc::into_raw",
    "sync::Arc::as_ptr",
    "sync::Arc::from_raw",
    "sync::Arc: Deref + Clone + Default + From + AsRef + Borrow",
    "sync::Barrier",
    "sync::Barrier::new",
    "sync::Barrier::wait",
    "sync::Condvar",
    "sync::Condvar::new",
    "sync::Condvar::wait",
    "sync::Condvar::wait_timeout",
    "sync::Condvar::notify_one",
    "sync::Condvar::notify_all",
    "sync::Condvar: Default + Debug",
    "sync::WaitTimeoutResult",
    "sync::WaitTimeoutResult::timed_out",
    "sync::Mutex",
    "sync::Mutex::new",
    "sync::Mutex::into_inner",
    "sync::Mutex::lock",
    "sync::Mutex::try_lock",
    "sync::Mutex::get_mut",
    "sync::Mutex: Default + From + Debug",
    "sync::MutexGuard: Deref + DerefMut",
    "sync::Notify",
    "sync::Notify::new",
    "sync::Notify::notify",
    "sync::Notify::wait",
    "sync::Notify: Default + Debug",
    "sync::RwLock",
    "sync::RwLock::new",
    "sync::RwLock::read",
    "sync::RwLock::try_read",
    "sync::RwLock::write",
    "sync::RwLock::try_write",
    "sync::RwLock::get_mut",
    "sync::RwLock::into_inner",
    "sync::RwLock: Default + From + Debug",
    "sync::RwLockReadGuard: Deref",
    "sync::RwLockWriteGuard: Deref + DerefMut",
    "sync::LockResult",
    "sync::TryLockResult",
    "sync::atomic::Ordering",
    "sync::atomic::fence",
    "sync::atomic::spin_loop_hint",
    "sync::atomic::AtomicU8..AtomicU64, AtomicUsize, AtomicI8..AtomicI64, AtomicIsize: new, \
     with_mut, unsync_load, into_inner, load, store, swap, compare_and_swap, compare_exchange, \
     compare_exchange_weak, fetch_add, fetch_sub, fetch_and, fetch_nand, fetch_or, fetch_xor, \
     fetch_max, fetch_min, fetch_update, Default, From, Debug",
    "sync::atomic::AtomicBool: new, unsync_load, into_inner, load, store, swap, \
     compare_and_swap, compare_exchange, compare_exchange_weak, fetch_and, fetch_nand, \
     fetch_or, fetch_xor, fetch_update, Default, From, Debug",
    "sync::atomic::AtomicPtr: new, unsync_load, with_mut, into_inner, load, store, swap, \
     compare_and_swap, compare_exchange, compare_exchange_weak, fetch_update, Default, From, \
     Debug",
    "sync::mpsc::channel",
    "sync::mpsc::Sender::send",
    "sync::mpsc::Sender: Clone + Debug",
    "sync::mpsc::Receiver::recv",
    "sync::mpsc::Receiver::recv_timeout",
    "sync::mpsc::Receiver::try_recv",
    "sync::mpsc::Receiver: Debug",
    // thread
    "thread::spawn",
    "thread::Builder",
    "thread::Builder::new",
    "thread::Builder::name",
    "thread::Builder::stack_size",
    "thread::Builder::spawn",
    "thread::JoinHandle",
    "thread::JoinHandle::join",
    "thread::JoinHandle::thread",
    "thread::Thread",
    "thread::Thread::id",
    "thread::Thread::name",
    "thread::Thread::unpark",
    "thread::ThreadId: Clone + Copy + Eq + Hash + Debug",
    "thread::LocalKey",
    "thread::LocalKey::with",
    "thread::LocalKey::try_with",
    "thread::AccessError",
    "thread::current",
    "thread::park",
    "thread::yield_now",
    "thread::panicking",
];

/// Where symx's loom API differs from loom 0.7.2, and why.
const DIFFERENCES: &[(&str, &str)] = &[
    (
        "sync::Barrier::wait",
        "returns symx's BarrierWaitResult (with is_leader, as std's), not std's: std's has no \
         public constructor",
    ),
    (
        "thread::LocalKey.init, lazy_static::Lazy.init/_p",
        "loom's doc(hidden) fields its macros fill in; symx's macros use a const constructor",
    ),
];

loom::lazy_static! {
    static ref LAZY: usize = 3;
}

loom::thread_local! {
    static LOCAL: std::cell::Cell<u8> = std::cell::Cell::new(1);
}

static LAZY_TYPE: loom::lazy_static::Lazy<u32> = loom::lazy_static::Lazy::new(|| 4);

fn uses_root_alloc_and_hint() {
    assert_eq!(*LAZY, 3);
    assert_eq!(LOCAL.with(|c| c.get()), 1);
    assert_eq!(LOCAL.try_with(|c| c.get()), Ok(1));
    assert_eq!(*LAZY_TYPE.get(), 4);
    const { assert!(loom::MAX_THREADS >= 2) };
    loom::explore();
    loom::stop_exploring();
    let _: fn() = loom::skip_branch;
    let layout = loom::alloc::Layout::new::<u64>();
    unsafe {
        let p = loom::alloc::alloc(layout);
        loom::alloc::dealloc(p, layout);
        let z = loom::alloc::alloc_zeroed(layout);
        assert_eq!(*z, 0);
        loom::alloc::dealloc(z, layout);
    }
    let mut t = loom::alloc::Track::new(5);
    *t.get_mut() += 1;
    assert_eq!(
        (*t.get_ref(), format!("{t:?}")),
        (6, "Track(6)".to_string())
    );
    assert_eq!(t.into_inner(), 6);
    loom::hint::spin_loop();
    let _: unsafe fn() -> ! = loom::hint::unreachable_unchecked;
    let _: fn() = loom::lazy_static::yield_now;
    let _: fn() -> bool = loom::lazy_static::panicking;
    let _: Option<loom::lazy_static::AccessError> = None;
}

fn uses_cell() {
    use loom::cell::{Cell, ConstPtr, MutPtr, UnsafeCell};
    let c = Cell::new(1);
    c.set(2);
    let d = Cell::<i32>::default();
    c.swap(&d);
    assert_eq!((c.replace(7), c.get(), d.take()), (0, 7, 2));
    let e = c.clone();
    assert!(e == c && e <= c && e.cmp(&c).is_eq());
    assert_eq!(Cell::from(3).into_inner(), 3);
    let u = UnsafeCell::new(1);
    u.with_mut(|p| unsafe { *p += 1 });
    assert_eq!(u.with(|p| unsafe { *p }), 2);
    {
        let r: ConstPtr<i32> = u.get();
        assert_eq!(unsafe { *r.deref() }, 2);
        r.with(|p| assert!(!p.is_null()));
    }
    {
        let w: MutPtr<i32> = u.get_mut();
        unsafe { *w.deref() = 3 };
        w.with(|p| assert!(!p.is_null()));
    }
    let _ = format!("{:?}", UnsafeCell::<u8>::default());
    assert_eq!(UnsafeCell::from(4).into_inner(), 4);
    assert_eq!(u.into_inner(), 3);
}

fn uses_future() {
    use loom::future::{block_on, AtomicWaker};
    let w = AtomicWaker::default();
    let _ = format!("{:?}", AtomicWaker::new());
    let v = block_on(std::future::poll_fn(|cx| {
        w.register_by_ref(cx.waker());
        w.register(cx.waker().clone());
        assert!(w.take_waker().is_some());
        w.wake();
        std::task::Poll::Ready(9)
    }));
    assert_eq!(v, 9);
}

fn uses_sync() {
    use loom::sync::{
        Arc, Barrier, Condvar, LockResult, Mutex, MutexGuard, Notify, RwLock, RwLockReadGuard,
        RwLockWriteGuard, TryLockResult, WaitTimeoutResult,
    };
    let a = Arc::new(1);
    let p = Arc::pin(2);
    assert_eq!(*p, 2);
    let b = Arc::clone(&a);
    assert!(Arc::ptr_eq(&a, &b) && Arc::strong_count(&a) == 2);
    let raw = Arc::into_raw(b);
    unsafe {
        Arc::increment_strong_count(raw);
        Arc::decrement_strong_count(raw);
        drop(Arc::from_raw(raw));
    }
    assert_eq!(Arc::as_ptr(&a), &*a as *const i32);
    let mut a = Arc::try_unwrap(a).map(Arc::new).unwrap();
    *Arc::get_mut(&mut a).unwrap() += 1;
    let s: Arc<[u8]> = Arc::from_std(std::sync::Arc::new([1, 2, 3]));
    let _: (&[u8], &[u8]) = (s.as_ref(), std::borrow::Borrow::borrow(&s));
    let _ = (Arc::<u8>::default(), Arc::from(3u8));
    let _ = Barrier::new(1).wait().is_leader();
    let m = Mutex::new(1);
    let cv = Condvar::default();
    let _ = format!("{cv:?} {m:?}");
    cv.notify_one();
    cv.notify_all();
    let g: LockResult<MutexGuard<'_, i32>> = m.lock();
    let (g, r) = Condvar::new()
        .wait_timeout(g.unwrap(), Duration::from_millis(1))
        .unwrap();
    let r: WaitTimeoutResult = r;
    assert!(r.timed_out());
    drop(g);
    let t: TryLockResult<MutexGuard<'_, i32>> = m.try_lock();
    drop(t);
    let mut m2 = Mutex::<i32>::default();
    *m2.get_mut().unwrap() = 5;
    assert_eq!(
        Mutex::from(5).into_inner().unwrap(),
        m2.into_inner().unwrap()
    );
    let _: fn(MutexGuard<'_, i32>) -> LockResult<MutexGuard<'_, i32>> = |g| Condvar::new().wait(g);
    let n = Notify::default();
    let _ = format!("{:?}", Notify::new());
    n.notify();
    n.wait();
    let l = RwLock::new(1);
    let _ = format!("{l:?}");
    {
        let r: RwLockReadGuard<'_, i32> = l.read().unwrap();
        assert_eq!(*r, 1);
        assert!(l.try_read().is_ok() && l.try_write().is_err());
    }
    {
        let mut w: RwLockWriteGuard<'_, i32> = l.write().unwrap();
        *w = 2;
    }
    let mut l2 = RwLock::<i32>::default();
    *l2.get_mut().unwrap() = 2;
    assert_eq!(
        l.into_inner().unwrap(),
        RwLock::from(2).into_inner().unwrap()
    );
}

macro_rules! uses_int_atomic {
    ($($a:ident: $t:ty),*) => {$({
        use loom::sync::atomic::{$a, Ordering::SeqCst};
        let mut x = <$a>::new(1);
        x.with_mut(|v| *v += 1);
        assert_eq!(unsafe { x.unsync_load() }, 2);
        x.store(3, SeqCst);
        assert_eq!((x.load(SeqCst), x.swap(4, SeqCst)), (3, 3));
        assert_eq!(x.compare_and_swap(4, 5, SeqCst), 4);
        assert_eq!(x.compare_exchange(5, 6, SeqCst, SeqCst), Ok(5));
        assert_eq!(x.compare_exchange_weak(0, 6, SeqCst, SeqCst), Err(6));
        let _ = (x.fetch_add(1, SeqCst), x.fetch_sub(1, SeqCst), x.fetch_and(7, SeqCst),
            x.fetch_nand(7, SeqCst), x.fetch_or(1, SeqCst), x.fetch_xor(1, SeqCst),
            x.fetch_max(9, SeqCst), x.fetch_min(2, SeqCst));
        assert_eq!(x.fetch_update(SeqCst, SeqCst, |v| Some(v + 1)), Ok(2));
        let _ = format!("{:?}", <$a>::default());
        let _: $t = <$a>::from(0 as $t).into_inner();
    })*};
}

fn uses_atomics() {
    use loom::sync::atomic::{fence, spin_loop_hint, AtomicBool, AtomicPtr, Ordering};
    uses_int_atomic!(AtomicU8: u8, AtomicU16: u16, AtomicU32: u32, AtomicU64: u64,
        AtomicUsize: usize, AtomicI8: i8, AtomicI16: i16, AtomicI32: i32, AtomicI64: i64,
        AtomicIsize: isize);
    fence(Ordering::SeqCst);
    spin_loop_hint();
    let b = AtomicBool::new(false);
    b.store(true, Ordering::SeqCst);
    assert!(b.load(Ordering::SeqCst) && unsafe { b.unsync_load() });
    assert!(b.swap(false, Ordering::SeqCst));
    assert!(!b.compare_and_swap(false, true, Ordering::SeqCst));
    let _ = (
        b.compare_exchange(true, false, Ordering::SeqCst, Ordering::SeqCst),
        b.compare_exchange_weak(true, false, Ordering::SeqCst, Ordering::SeqCst),
        b.fetch_and(true, Ordering::SeqCst),
        b.fetch_nand(true, Ordering::SeqCst),
        b.fetch_or(true, Ordering::SeqCst),
        b.fetch_xor(true, Ordering::SeqCst),
        b.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| Some(!v)),
    );
    let _ = (
        format!("{:?}", AtomicBool::default()),
        AtomicBool::from(true).into_inner(),
    );
    let mut x = 1u8;
    let mut p = AtomicPtr::new(&mut x as *mut u8);
    p.with_mut(|q| assert!(!q.is_null()));
    let q = unsafe { p.unsync_load() };
    p.store(q, Ordering::SeqCst);
    let _ = (
        p.load(Ordering::SeqCst),
        p.swap(q, Ordering::SeqCst),
        p.compare_and_swap(q, q, Ordering::SeqCst),
        p.compare_exchange(q, q, Ordering::SeqCst, Ordering::SeqCst),
        p.compare_exchange_weak(q, q, Ordering::SeqCst, Ordering::SeqCst),
        p.fetch_update(Ordering::SeqCst, Ordering::SeqCst, Some),
    );
    let _ = (
        format!("{:?}", AtomicPtr::<u8>::default()),
        AtomicPtr::from(q).into_inner(),
    );
}

fn uses_mpsc_and_thread() {
    use loom::sync::mpsc::{channel, Receiver, Sender};
    use loom::thread::{self, AccessError, Builder, JoinHandle, LocalKey, Thread, ThreadId};
    let (tx, rx): (Sender<u8>, Receiver<u8>) = channel();
    let _ = format!("{:?} {:?}", tx.clone(), rx);
    tx.send(1).unwrap();
    assert_eq!(rx.recv(), Ok(1));
    tx.send(2).unwrap();
    assert_eq!(rx.recv_timeout(Duration::from_secs(1)), Ok(2));
    assert!(rx.try_recv().is_err());
    // loom's spawn takes closures that are not Send.
    let rc = std::rc::Rc::new(5);
    let h: JoinHandle<i32> = thread::spawn(move || *rc);
    let t: &Thread = h.thread();
    let (id, name): (ThreadId, Option<&str>) = (t.id(), t.name());
    let _ = (format!("{id:?}"), name, id == Clone::clone(&id));
    t.unpark();
    assert_eq!(h.join().unwrap(), 5);
    let h = Builder::new()
        .name("n".into())
        .stack_size(64 * 1024)
        .spawn(|| thread::current().name().map(String::from))
        .unwrap();
    assert_eq!(h.join().unwrap().as_deref(), Some("n"));
    thread::current().unpark();
    thread::park();
    thread::yield_now();
    assert!(!thread::panicking());
    let _: Option<AccessError> = None;
    let _: &'static LocalKey<std::cell::Cell<u8>> = &LOCAL;
}

#[test]
fn every_loom_0_7_2_item_is_usable_through_symx() {
    let mut b = loom::model::Builder::new();
    let _ = format!("{b:?} {:?}", loom::model::Builder::default());
    b.max_threads = 5;
    b.max_branches = 1_000;
    b.max_permutations = None;
    b.max_duration = Some(Duration::from_secs(60));
    b.preemption_bound = Some(2);
    b.checkpoint_interval = 20_000;
    b.expect_explicit_explore = false;
    b.location = true;
    b.log = false;
    b.checkpoint_file("ignored.json").checkpoint_file = None;
    b.check(|| {
        uses_root_alloc_and_hint();
        uses_cell();
        uses_future();
        uses_sync();
        uses_atomics();
        uses_mpsc_and_thread();
    });
    loom::model(|| {});
    loom::model::model(|| {});
}

#[test]
fn the_item_lists_name_each_item_once() {
    let mut seen = std::collections::HashSet::new();
    for item in LOOM_0_7_2 {
        assert!(seen.insert(item), "{item} is listed twice");
    }
    for (item, why) in DIFFERENCES {
        assert!(!why.is_empty(), "{item} needs a reason");
    }
}

/// std's `Arc` and `Weak`: every stable associated function and trait impl, on `symx::sync`.
#[test]
fn std_arc_and_weak_in_full() {
    symx::model(|| {
        use std::borrow::Borrow;
        use symx::sync::{Arc, Weak};
        let a = Arc::new(1);
        let c = Arc::new_cyclic(|w: &Weak<i32>| w.strong_count() as i32);
        let p = Arc::pin(1);
        assert_eq!((*c, *p), (0, 1));
        let w = Arc::downgrade(&a);
        assert_eq!((Arc::strong_count(&a), Arc::weak_count(&a)), (1, 1));
        assert!(Arc::ptr_eq(&w.upgrade().unwrap(), &a));
        let raw = Arc::into_raw(a.clone());
        unsafe {
            Arc::increment_strong_count(raw);
            Arc::decrement_strong_count(raw);
            drop(Arc::from_raw(raw));
        }
        let mut m = Arc::new(vec![1]);
        Arc::make_mut(&mut m).push(2);
        Arc::get_mut(&mut m).unwrap().push(3);
        assert_eq!(Arc::unwrap_or_clone(m), vec![1, 2, 3]);
        assert_eq!(Arc::into_inner(Arc::new(4)), Some(4));
        assert!(Arc::try_unwrap(a.clone()).is_err());
        assert_eq!(unsafe { *Arc::as_ptr(&a) }, 1);
        drop(a);
        assert!(w.upgrade().is_none());
        let (w2, w3) = (Weak::<u8>::new(), Weak::<u8>::default());
        assert!(!w2.ptr_eq(&w3) || w2.as_ptr() == w3.as_ptr());
        assert_eq!(
            (
                w.strong_count(),
                w.weak_count(),
                w.clone().into_raw().is_null()
            ),
            (0, 0, false)
        );
        let _ = format!("{w:?}");
        unsafe { drop(Weak::<u8>::from_raw(Weak::new().into_raw())) };
        let s: Arc<str> = Arc::from("s");
        let s2: Arc<str> = Arc::from(String::from("s"));
        let v: Arc<[u8]> = Arc::from(vec![1]);
        let v2: Arc<[u8]> = Arc::from(&[1u8][..]);
        let b: Arc<[u8]> = Arc::from(Box::<[u8]>::from([1u8]));
        let i: Arc<[u8]> = [1u8].into_iter().collect();
        assert!(s == s2 && v == v2 && b == i && s <= s2 && v.cmp(&b).is_eq());
        let x = Arc::new(3);
        let _ = (
            format!("{x:?} {x} {x:p}"),
            Arc::<u8>::default(),
            Arc::from(1u8),
        );
        let _: (&i32, &i32) = (x.as_ref(), x.borrow());
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&x, &mut h);
        let e: Arc<std::fmt::Error> = Arc::new(std::fmt::Error);
        let _ = std::error::Error::source(&e);
        fn send_sync<T: Send + Sync + Unpin>(_: T) {}
        send_sync(x);
    });
}
