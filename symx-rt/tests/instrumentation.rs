//! Acceptance for body instrumentation: inside `#[symx::test]` and
//! `#[symx::instrument]` items, plain-`bool` code keeps its meaning (conditions, guards,
//! comparisons of every common type, assertions and their failure messages), while the same
//! syntax on symbolic values gives `Sym<bool>` comparisons and recorded branches and
//! assertions. Warnings are errors here, so generated code that trips a lint is caught.

#![deny(warnings)]

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Once;

use symx::sync::atomic::{AtomicBool, Ordering::SeqCst};
use symx::trace::format::EventKind;
use symx::{Builder, FailureKind, Sym};

#[derive(Debug, PartialEq)]
struct Point {
    x: i32,
}

/// `==` must need only `PartialEq`: `Point` has no ordering.
#[symx::test]
fn plain_code_inside_a_test_behaves_as_before() {
    let s = String::from("abc");
    let words = ["x", "yy"];
    let opt: Option<u32> = Some(3);
    let r = &5;
    assert!(s == "abc" && "abc" == s && s != "abd");
    assert!(*s == *"abc" && s[..] < *"abd");
    assert!(words.len() > 0 && words[1].len() >= 2);
    assert!(opt == Some(3) && opt != None && opt > Some(2) && None < opt);
    assert!(r == &5 && *r <= 5 && &6 > r);
    assert!(Point { x: 1 } == Point { x: 1 } && Point { x: 1 } != Point { x: 2 });
    assert!(words[..] == ["x", "yy"]);
    assert!(2.5 >= 2.5 && 1.5 < 2.0_f64);
    assert!(() == ());
    assert_eq!(Point { x: 4 }, Point { x: 2 + 2 });
    assert_ne!(s, "abd", "s was {}", s);
    debug_assert!(opt.is_some());
    debug_assert_eq!(words.len(), 2);
    debug_assert_ne!(words.len(), 3);
    std::assert!(true || unreachable!());
    core::assert_eq!(1 + 1, 2);
    // A statement macro keeps its attributes.
    #[cfg(any())]
    assert!(false, "compiled out");
    #[allow(clippy::eq_op)]
    assert!(1 == 1);
}

#[symx::test]
fn conditions_guards_and_loops_take_the_same_paths() {
    let mut n = 0;
    let mut trips = 0;
    while n < 3 {
        n += 1;
        trips += 1;
    }
    assert_eq!(trips, 3);
    let opt = Some(3u32);
    let kind = match opt {
        Some(k) if k > 5 => "big",
        Some(k) if k == 3 && n == 3 => "three",
        _ => "other",
    };
    assert_eq!(kind, "three");
    let x = if kind.len() < 2 || kind.starts_with('t') {
        1
    } else {
        2
    };
    assert_eq!(x, 1);
    let mut evaluated = false;
    let short = x == 2 && {
        evaluated = true;
        true
    };
    assert!(!short && !evaluated, "`&&` still short-circuits");
    if let Some(k) = opt {
        assert_eq!(k, 3)
    } else {
        unreachable!()
    }
    let mut seen = 0;
    let mut stack = vec!["a", "", "c"];
    while let Some(w) = stack.pop() {
        if w.len() != 0 {
            seen += 1
        }
    }
    assert_eq!(seen, 2);
    // Closure parameters typed by the callee's signature.
    let mut numbers = vec![3, 1, 2, 5];
    numbers.retain(|n| *n != 2);
    assert_eq!(numbers.iter().filter(|n| **n > 1).count(), 2);
    assert!(numbers.iter().any(|&n| n + 1 == 2));
    let less = |a: &u32, b: &u32| a < b;
    assert!(less(&1, &2));
}

#[symx::test]
fn spawned_closures_are_instrumented_and_behave() {
    let t = symx::thread::spawn(move || {
        let v = 10;
        assert!(v > 5, "in a spawned thread");
        v > 5 && v != 7
    });
    assert!(t.join().unwrap());
}

/// Generic code: the plain comparison is chosen for a type parameter.
#[symx::instrument]
fn largest<T: PartialOrd + Copy>(xs: &[T]) -> T {
    let mut best = xs[0];
    for &x in xs {
        if x > best {
            best = x;
        }
    }
    best
}

struct Counter {
    count: u32,
}

#[symx::instrument]
impl Counter {
    fn bump_below(&mut self, limit: u32) -> bool {
        if self.count < limit {
            self.count += 1;
            return true;
        }
        false
    }

    const fn limit() -> u32 {
        3
    }
}

#[symx::instrument]
impl PartialEq<u32> for Counter {
    fn eq(&self, other: &u32) -> bool {
        self.count == *other
    }
}

/// Instrumentation composes with the annotations, in either order.
struct Flag {
    set: AtomicBool,
}

impl Flag {
    #[symx::acquire]
    #[symx::instrument]
    fn lock(&self) {
        while self.set.swap(true, SeqCst) {
            symx::hint::spin_loop();
        }
    }

    #[symx::instrument]
    #[symx::release]
    fn unlock(&self) {
        if self.set.load(SeqCst) {
            self.set.store(false, SeqCst);
        }
    }
}

#[symx::instrument]
async fn at_least(n: u32, limit: u32) -> bool {
    n >= limit && async { limit > 0 }.await
}

#[test]
fn instrumented_functions_and_impls_compile_and_behave() {
    drop(at_least(1, 2));
    assert_eq!(largest(&[3, 9, 2]), 9);
    assert_eq!(largest(&["b", "c", "a"]), "c");
    let mut c = Counter { count: 0 };
    while c.bump_below(Counter::limit()) {}
    assert!(c == 3);
    let report = Builder::new().explore(|| {
        let flag = symx::sync::Arc::new(Flag {
            set: AtomicBool::new(false),
        });
        let other = flag.clone();
        let t = symx::thread::spawn(move || {
            other.lock();
            other.unlock();
        });
        flag.lock();
        flag.unlock();
        t.join().unwrap();
    });
    assert!(report.failure().is_none(), "{:?}", report.failure());
    assert!(report.executions() > 1);
}

// Failure messages: the instrumented assertions panic with std's text.

#[symx::instrument]
fn instrumented_asserts(case: u32, a: u32, b: u32) {
    match case {
        0 => assert_eq!(a, b),
        1 => assert_eq!(a, b, "with {} and {b}", a),
        2 => assert_ne!(a, b),
        3 => assert!(a == b),
        4 => assert!(a == b, "a={a}"),
        5 => assert!(Some(a).map(|x| x as u64) == Some(1u64 << 40) && !(b > 100 && a < b)),
        6 => debug_assert_eq!(a, b),
        7 => symx::assert_ne!(a, b, "{}", "bye"),
        8 => assert!(Point { x: a as i32 } == Point { x: 0 }),
        _ => assert!(
            a == b // equal
                || b > 100
        ),
    }
}

fn std_asserts(case: u32, a: u32, b: u32) {
    match case {
        0 => assert_eq!(a, b),
        1 => assert_eq!(a, b, "with {} and {b}", a),
        2 => assert_ne!(a, b),
        3 => assert!(a == b),
        4 => assert!(a == b, "a={a}"),
        5 => assert!(Some(a).map(|x| x as u64) == Some(1u64 << 40) && !(b > 100 && a < b)),
        6 => debug_assert_eq!(a, b),
        7 => assert_ne!(a, b, "{}", "bye"),
        8 => assert!(Point { x: a as i32 } == Point { x: 0 }),
        _ => assert!(
            a == b // equal
                || b > 100
        ),
    }
}

/// The message a panic in `f` carries.
fn panic_message(f: impl FnOnce()) -> String {
    quietly(|| {
        let payload = panic::catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic");
        match payload.downcast::<String>() {
            Ok(s) => *s,
            Err(payload) => payload.downcast_ref::<&str>().unwrap().to_string(),
        }
    })
}

#[test]
fn failing_assertions_say_what_std_says() {
    let expected = [
        "assertion `left == right` failed\n  left: 1\n right: 2",
        "assertion `left == right` failed: with 1 and 2\n  left: 1\n right: 2",
    ];
    assert_eq!(panic_message(|| instrumented_asserts(0, 1, 2)), expected[0]);
    assert_eq!(panic_message(|| instrumented_asserts(1, 1, 2)), expected[1]);
    for (case, a, b) in [
        (0, 1, 2),
        (1, 1, 2),
        (2, 4, 4),
        (3, 1, 2),
        (4, 1, 2),
        (5, 1, 0),
        (7, 1, 1),
        (8, 1, 0),
    ] {
        assert_eq!(
            panic_message(|| instrumented_asserts(case, a, b)),
            panic_message(|| std_asserts(case, a, b)),
            "case {case}"
        );
    }
    // A condition over several lines, or with a comment, is printed by `stringify!`, which
    // spaces some tokens differently from std; the text is the same up to whitespace.
    let multi_line = panic_message(|| instrumented_asserts(9, 1, 2));
    assert_eq!(multi_line, "assertion failed: a == b || b > 100");
    assert_eq!(
        panic_message(|| std_asserts(9, 1, 2)),
        "assertion failed: a == b || b > 100"
    );
    if cfg!(debug_assertions) {
        assert_eq!(
            panic_message(|| instrumented_asserts(6, 1, 2)),
            panic_message(|| std_asserts(6, 1, 2))
        );
    }
}

#[test]
fn passing_assertions_do_not_panic() {
    for (case, a, b) in [
        (0, 1, 1),
        (1, 2, 2),
        (2, 1, 2),
        (3, 3, 3),
        (4, 3, 3),
        (6, 1, 1),
        (7, 1, 2),
        (8, 0, 0),
        (9, 1, 1),
    ] {
        instrumented_asserts(case, a, b);
    }
}

#[test]
fn the_function_like_assertions_work_in_plain_code() {
    let v = 7;
    symx::assert!(v == 7);
    symx::assert_eq!(v, 7, "v");
    symx::assert_ne!(v, 8);
    assert_eq!(
        panic_message(|| symx::assert!(v != 7, "v must not be {}", v)),
        "v must not be 7"
    );
    assert_eq!(
        panic_message(|| symx::assert!(v < 3)),
        "assertion failed: v < 3"
    );
    assert_eq!(
        panic_message(|| symx::assert_eq!(v, 8)),
        "assertion `left == right` failed\n  left: 7\n right: 8"
    );
}

// Source locations: generated code carries the user's spans.

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
    static LAST_LINE: Cell<u32> = const { Cell::new(0) };
}

/// Runs `f` with this thread's panics recorded (their line) instead of printed; other
/// threads' panics still reach the default hook.
fn quietly<R>(f: impl FnOnce() -> R) -> R {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.get() {
                LAST_LINE.set(info.location().map_or(0, |l| l.line()));
            } else {
                default(info)
            }
        }));
    });
    QUIET.set(true);
    let r = f();
    QUIET.set(false);
    r
}

#[symx::instrument]
fn failing_assert_eq(line: &mut u32) {
    *line = line!() + 1;
    assert_eq!(1 + 1, 3);
}

#[test]
fn a_failing_assertion_is_located_at_the_users_line() {
    let mut line = 0;
    panic_message(|| failing_assert_eq(&mut line));
    assert_ne!(line, 0);
    assert_eq!(LAST_LINE.get(), line);
    let expected = line!() + 1;
    panic_message(|| symx::assert!(1 > 2));
    assert_eq!(LAST_LINE.get(), expected);
}

// Symbolic values: the same syntax records what depends on an input.

#[symx::instrument]
fn symbolic_body() {
    let n = symx::any::<u32>(); // 0: no input assignment is given
    let big: Sym<bool> = n > 3;
    let also: Sym<bool> = 3 < n;
    assert!(!big.concrete() && !also.concrete());
    let mut taken = 0;
    if n > 3 {
        taken = 1;
    } else if n == 0 && 1 < 2 {
        taken = 2;
    }
    match 5 {
        k if n < k => taken += 10,
        _ => {}
    }
    assert_eq!(taken, 12);
    symx::assert!(n != 0, "n is {}", n.peek());
}

#[test]
fn symbolic_conditions_branch_and_assert_on_their_concrete_values() {
    let report = Builder::new().explore(symbolic_body);
    let failure = report.failure().expect("the assertion on n != 0 fails");
    assert_eq!(failure.kind(), FailureKind::Panic);
    assert!(failure.message().contains("n is 0"), "{failure}");
}

/// The lines `recorded_body` notes: its branch, its `&&`, its two assertions.
static LINES: [AtomicU32; 4] = [const { AtomicU32::new(0) }; 4];

#[symx::instrument]
fn recorded_body() {
    let n = symx::any::<u32>();
    LINES[0].store(line!() + 1, Relaxed);
    if n > 3 {
        unreachable!()
    }
    LINES[1].store(line!() + 1, Relaxed);
    let small = n < 10 && n != 5;
    LINES[2].store(line!() + 1, Relaxed);
    assert!(n <= 3 && small);
    LINES[3].store(line!() + 1, Relaxed);
    std::assert!(n.cast::<i64>() - 4 < 0, "n is small");
}

#[test]
fn branches_and_assertions_are_recorded_at_the_users_source() {
    let mut events = Vec::new();
    let report = Builder::new().explore_traces(recorded_body, |trace| {
        events.extend(trace.events.iter().filter_map(|e| {
            let location = e.location.as_ref()?;
            matches!(e.kind, EventKind::Branch | EventKind::Assert).then(|| {
                let text = e.assert.as_ref().map(|a| a.text.clone());
                (
                    e.kind,
                    location.file.to_string(),
                    location.line,
                    location.column,
                    text,
                )
            })
        }))
    });
    assert!(report.failure().is_none(), "{:?}", report.failure());
    let file = file!().to_string();
    let line = |i: usize| LINES[i].load(Relaxed);
    let branch = |line, column| (EventKind::Branch, file.clone(), line, column, None);
    let expected = [
        branch(line(0), 8),  // `n > 3`
        branch(line(1), 17), // `n < 10`
        branch(line(1), 27), // `n != 5`
        branch(line(2), 13), // `n <= 3`, an operand of `&&`; the assertion is on a `bool`
        (
            EventKind::Assert,
            file.clone(),
            line(3),
            5, // `std::assert!` itself
            Some("n.cast::<i64>() - 4 < 0".to_string()),
        ),
    ];
    assert_eq!(events, expected);
}

/// The import instrumented bodies get brings no names into scope: a user's own `Cmp` (the
/// name of the runtime's comparison wrapper) still resolves to the user's type.
#[symx::test]
fn instrumentation_shadows_none_of_the_users_names() {
    #[derive(PartialEq, PartialOrd, Debug)]
    struct Cmp(u32);
    struct SymCompare;
    let _ = SymCompare;
    assert!(Cmp(1) < Cmp(2));
    assert_eq!(Cmp(3), Cmp(3));
}

/// The symbolic atomic API: reads are free read variables, writes carry expressions.
#[test]
fn symbolic_atomics_record_free_reads_and_written_expressions() {
    use symx::sync::atomic::{AtomicU32, Ordering::SeqCst};
    use symx::trace::format::{EventKind, Expr};
    let mut traces = Vec::new();
    symx::Builder::new().explore_traces(
        || {
            let a = AtomicU32::new(5);
            let v = a.load_sym(SeqCst);
            a.store_sym(v * 2, SeqCst);
            let old = a.fetch_add_sym(symx::any_named::<u32>("k"), SeqCst);
            assert_eq!(old.peek(), 10);
            let _ = a.swap_sym(old, SeqCst);
            let _ = a.fetch_sub_sym(1u32, SeqCst);
        },
        |t| traces.push(t.clone()),
    );
    let t = &traces[0];
    t.check_consistency().unwrap();
    let atomics: Vec<_> = t.events.iter().filter(|e| e.step.is_some()).collect();
    assert_eq!(atomics.len(), 5);
    assert!(
        atomics.iter().all(|e| e.guard.is_none()),
        "no read is pinned"
    );
    let kinds: Vec<_> = atomics.iter().map(|e| e.kind).collect();
    use EventKind::*;
    assert_eq!(kinds, [Load, Store, Rmw, Rmw, Rmw]);
    for e in &atomics[1..] {
        let w = e.write.expect("every one but the load writes");
        assert!(
            !matches!(t.exprs[w.expr as usize], Expr::Const { .. }),
            "{:?} writes an expression over reads and inputs",
            e.kind
        );
    }
}
