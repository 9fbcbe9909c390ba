//! Panic conditions of `Sym` operations as recorded checks: each operation that panics for
//! some operand values records, when an operand is symbolic, the condition under which it
//! does not. The recorded condition is compared with Rust's own `checked_*` over the edges of
//! every width, a failing check precedes the panic, and concrete operands record nothing.

mod common;

use symx::trace::format::{CheckOp, EventKind, TraceEvent, Verdict};
use symx::trace::Trace;
use symx::Sym;

/// The one trace of `body` run with inputs `a` and `b`, checked for consistency.
fn trace_with(a: i128, b: i128, body: impl Fn()) -> Trace {
    common::one_trace(&[("a", a), ("b", b)], body)
}

fn checks(t: &Trace) -> Vec<&TraceEvent> {
    t.events
        .iter()
        .filter(|e| e.kind == EventKind::Check)
        .collect()
}

/// Operand values where overflow and sign bugs live, as numbers of the type `ty`.
fn edges(min: i128, max: i128) -> Vec<i128> {
    let mut v = vec![
        0,
        1,
        2,
        3,
        -1,
        -2,
        min,
        min + 1,
        max,
        max - 1,
        max / 2,
        min / 2,
    ];
    v.extend([7, 100, 255, 256, 65535, 1 << 31, (1 << 32) + 5]);
    v.retain(|x| (min..=max).contains(x));
    v
}

/// For one type and operator: the recorded condition, re-evaluated at every pair of edge
/// operands, says "no panic" exactly where Rust's `checked_*` gives a value.
macro_rules! condition_matches_rust {
    ($name:ident, $t:ty, $op:expr, |$a:ident, $b:ident| $sym:expr, |$x:ident, $y:ident| $checked:expr) => {
        #[test]
        fn $name() {
            let t = trace_with(1, 1, || {
                let $a: Sym<$t> = symx::any_named("a");
                let $b: Sym<$t> = symx::any_named("b");
                let _ = $sym;
            });
            let found = checks(&t);
            if !common::overflow_checks() && !matches!($op, CheckOp::Div | CheckOp::Rem) {
                // Rust wraps here in this build: nothing can panic, nothing is recorded.
                assert_eq!(found.len(), 0, "{}", t.to_json());
                return;
            }
            assert_eq!(found.len(), 1, "{}", t.to_json());
            let check = found[0].check.unwrap();
            assert_eq!(check.op, $op);
            assert!(check.holds);
            assert_eq!(found[0].location.as_ref().unwrap().file, file!());
            let vals = edges(<$t>::MIN as i128, <$t>::MAX as i128);
            let mut compared = 0;
            for &$x in &vals {
                for &$y in &vals {
                    let bits = |i: u32| {
                        let v = if i == 0 { $x } else { $y };
                        Some(t.inputs[i as usize].ty.from_i128(v))
                    };
                    let got = symx::trace::eval(&t.exprs, check.cond, bits, |_| None).unwrap();
                    let ($x, $y) = ($x as $t, $y as $t);
                    let want = $checked;
                    assert_eq!(got == 1, want, "{} {:?} {}", $x, $op, $y);
                    compared += 1;
                }
            }
            assert_eq!(compared, vals.len() * vals.len());
        }
    };
}

macro_rules! all_ops {
    ($($t:ty: $add:ident $sub:ident $mul:ident $div:ident $rem:ident $shl:ident $shr:ident;)*) => {$(
        condition_matches_rust!($add, $t, CheckOp::Add, |a, b| a + b, |x, y| x.checked_add(y).is_some());
        condition_matches_rust!($sub, $t, CheckOp::Sub, |a, b| a - b, |x, y| x.checked_sub(y).is_some());
        condition_matches_rust!($mul, $t, CheckOp::Mul, |a, b| a * b, |x, y| x.checked_mul(y).is_some());
        condition_matches_rust!($div, $t, CheckOp::Div, |a, b| a / b, |x, y| x.checked_div(y).is_some());
        condition_matches_rust!($rem, $t, CheckOp::Rem, |a, b| a % b, |x, y| x.checked_rem(y).is_some());
        condition_matches_rust!($shl, $t, CheckOp::Shl, |a, b| a << b.cast::<u32>(),
            |x, y| x.checked_shl(y as u32).is_some());
        condition_matches_rust!($shr, $t, CheckOp::Shr, |a, b| a >> b.cast::<u32>(),
            |x, y| x.checked_shr(y as u32).is_some());
    )*};
}

all_ops! {
    u8: u8_add u8_sub u8_mul u8_div u8_rem u8_shl u8_shr;
    i8: i8_add i8_sub i8_mul i8_div i8_rem i8_shl i8_shr;
    u16: u16_add u16_sub u16_mul u16_div u16_rem u16_shl u16_shr;
    i32: i32_add i32_sub i32_mul i32_div i32_rem i32_shl i32_shr;
    u64: u64_add u64_sub u64_mul u64_div u64_rem u64_shl u64_shr;
    i64: i64_add i64_sub i64_mul i64_div i64_rem i64_shl i64_shr;
    usize: usize_add usize_sub usize_mul usize_div usize_rem usize_shl usize_shr;
    isize: isize_add isize_sub isize_mul isize_div isize_rem isize_shl isize_shr;
    u128: u128_add u128_sub u128_mul u128_div u128_rem u128_shl u128_shr;
    i128: i128_add i128_sub i128_mul i128_div i128_rem i128_shl i128_shr;
}

/// Negation's condition against `checked_neg`, for each signed type named.
macro_rules! neg_matches_rust {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        condition_matches_rust!(
            $name,
            $t,
            CheckOp::Neg,
            |a, b| {
                let _ = b;
                -a
            },
            |x, _y| x.checked_neg().is_some()
        );
    )*};
}

neg_matches_rust!(i32_neg: i32, i128_neg: i128);

/// With one operand known, the condition folds it in; it must still be Rust's, for every
/// value of the other operand (all 256 of an `i8`).
#[test]
fn conditions_with_a_known_operand_match_rust() {
    if !common::overflow_checks() {
        let t = trace_with(0, 0, || {
            let _ = symx::any_named::<i8>("a") + 1;
        });
        assert!(checks(&t).is_empty(), "Rust wraps in this build");
        return;
    }
    type Op = (fn(Sym<i8>, i8) -> Sym<i8>, fn(i8, i8) -> Option<i8>);
    let ops: [Op; 4] = [
        (|a, k| a + k, |x, k| x.checked_add(k)),
        (|a, k| k + a, |x, k| k.checked_add(x)),
        (|a, k| a - k, |x, k| x.checked_sub(k)),
        (|a, k| k - a, |x, k| k.checked_sub(x)),
    ];
    for k in edges(i8::MIN as i128, i8::MAX as i128) {
        for (n, (sym, checked)) in ops.iter().enumerate() {
            let k = k as i8;
            let t = trace_with(0, 0, || {
                let _ = sym(symx::any_named("a"), k);
            });
            let check = checks(&t)[0].check.unwrap();
            for x in i8::MIN..=i8::MAX {
                let bits = |_| Some(t.inputs[0].ty.from_i128(x as i128));
                let got = symx::trace::eval(&t.exprs, check.cond, bits, |_| None).unwrap();
                assert_eq!(
                    got == 1,
                    checked(x, k).is_some(),
                    "op {n}: x = {x}, k = {k}"
                );
            }
        }
    }
}

#[test]
fn a_failing_check_is_recorded_before_the_panic() {
    let t = trace_with(7, 0, || {
        let a: Sym<u32> = symx::any_named("a");
        let b: Sym<u32> = symx::any_named("b");
        let _ = a / b;
    });
    let found = checks(&t);
    assert_eq!(found.len(), 1);
    let check = found[0].check.unwrap();
    assert_eq!((check.op, check.holds), (CheckOp::Div, false));
    let kinds: Vec<EventKind> = t.events.iter().map(|e| e.kind).collect();
    use EventKind::{Check, Exit, Input};
    assert_eq!(
        kinds,
        vec![Input, Input, Check, Exit],
        "the panic ends the thread there"
    );
    match &t.verdict {
        Verdict::Fail { kind, message } => {
            assert_eq!(kind, "panic");
            assert!(message.contains("attempt to divide by zero"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // The same with an overflow, where the build checks overflow (debug); else it wraps.
    let t = trace_with(200, 100, || {
        let a: Sym<u8> = symx::any_named("a");
        let b: Sym<u8> = symx::any_named("b");
        let _ = a + b;
    });
    if !common::overflow_checks() {
        assert!(checks(&t).is_empty() && matches!(t.verdict, Verdict::Pass));
        return;
    }
    let check = checks(&t)[0].check.unwrap();
    assert_eq!((check.op, check.holds), (CheckOp::Add, false));
    assert!(matches!(&t.verdict, Verdict::Fail { message, .. }
        if message.contains("attempt to add with overflow")));
}

#[test]
fn only_symbolic_operands_the_condition_depends_on_record_a_check() {
    let t = trace_with(5, 3, || {
        let a: Sym<u32> = symx::any_named("a");
        let c = Sym::constant(9u32);
        let _ = c + c; // nothing symbolic
        let _ = c / 3u32;
        let _ = a / 3u32; // the divisor is a nonzero constant: cannot panic
        let _ = a << 3u32; // constant shift amount
        let _ = a & 1u32; // cannot panic
        let _ = a.wrapping_mul(7u32); // wraps by definition
        let _ = !a;
        let _ = a + 1u32; // one check
        let x: Sym<i32> = symx::any_named("b");
        let _ = x / -1; // MIN / -1 panics: one check
    });
    let found: Vec<CheckOp> = checks(&t).iter().map(|e| e.check.unwrap().op).collect();
    let add = common::overflow_checks().then_some(CheckOp::Add);
    assert_eq!(
        found,
        add.into_iter().chain([CheckOp::Div]).collect::<Vec<_>>()
    );
}

#[test]
fn indexing_records_the_bounds_check_and_the_element_chosen() {
    let t = trace_with(2, 0, || {
        let i: Sym<usize> = symx::any_named("a");
        let v = vec![10, 20, 30, 40];
        let array = [1u8, 2, 3];
        let slice: &[u8] = &array;
        assert_eq!(v[i], 30);
        assert_eq!(array[i], 3);
        assert_eq!(slice[i], 3);
        let mut w = v.clone();
        w[i] += 1;
        assert_eq!(w[2], 31);
    });
    let elements: Vec<_> = t
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Element)
        .collect();
    let lens: Vec<u64> = elements.iter().map(|e| e.element.unwrap().len).collect();
    assert_eq!(lens, vec![4, 3, 3, 4]);
    assert!(elements.iter().all(|e| e.element.unwrap().value == 2
        && e.guard.is_some()
        && e.location.as_ref().unwrap().file == file!()));
    let bounds = checks(&t);
    assert_eq!(bounds.len(), 4);
    assert!(bounds
        .iter()
        .all(|e| e.check.unwrap().op == CheckOp::Index && e.check.unwrap().holds));
    assert!(!t.events.iter().any(|e| e.kind == EventKind::Pin));

    let t = trace_with(5, 0, || {
        let i: Sym<usize> = symx::any_named("a");
        let _ = [1u8, 2, 3][i];
    });
    let check = checks(&t)[0].check.unwrap();
    assert_eq!((check.op, check.holds), (CheckOp::Index, false));
    assert!(!t.events.iter().any(|e| e.kind == EventKind::Element));
    assert!(matches!(&t.verdict, Verdict::Fail { message, .. }
        if message.contains("index out of bounds")));
}

#[test]
fn every_pin_has_a_location_in_the_users_code() {
    let t = trace_with(4, 0, || {
        let a: Sym<u32> = symx::any_named("a");
        let _ = a.concrete();
        let _ = format!("{a:?} {a}");
        let _ = a == 4u32;
    });
    let pins: Vec<_> = t
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Pin)
        .collect();
    assert_eq!(pins.len(), 4);
    for p in pins {
        assert_eq!(p.location.as_ref().map(|l| &*l.file), Some(file!()));
    }
}
