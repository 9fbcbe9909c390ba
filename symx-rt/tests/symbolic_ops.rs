//! The expression language against Rust itself: for random operands of every integer width
//! and signedness, each operator on `Sym` records an expression whose evaluation (the trace
//! check, which every engine's encoding must agree with) gives exactly the value Rust
//! computed. Operations that would panic in a debug build are skipped, as the program would
//! have failed there.

use std::collections::BTreeMap;

use symx::{Builder, Shared, Sym};
use symx_test_programs::rng::SplitMix64;

/// Mostly small values and the edges, where wrapping and sign bugs live.
fn operand(rng: &mut SplitMix64) -> i128 {
    match rng.next_u64() % 4 {
        0 => (rng.next_u64() % 16) as i128 - 8,
        1 => [0, 1, -1, i128::MAX, i128::MIN, 127, 128, 255, -128][(rng.next_u64() % 9) as usize],
        _ => ((rng.next_u64() as u128) << 64 | rng.next_u64() as u128) as i128,
    }
}

macro_rules! check_type {
    ($name:ident, $t:ty) => {
        #[test]
        fn $name() {
            let mut rng = SplitMix64::new(0x5eed ^ <$t>::BITS as u64);
            let mut checked = 0;
            for _ in 0..300 {
                let (a, b) = (operand(&mut rng), operand(&mut rng));
                let inputs = BTreeMap::from([("a".to_string(), a), ("b".to_string(), b)]);
                let report = Builder::new().inputs(inputs).explore_traces(
                    || {
                        let a: Sym<$t> = symx::any_named("a");
                        let b: Sym<$t> = symx::any_named("b");
                        let (x, y) = (a.peek(), b.peek());
                        let out = Shared::new(<$t>::default());
                        let flag = Shared::new(false);
                        let wide = Shared::new(0i128);
                        if x.checked_add(y).is_some() {
                            out.set(a + b);
                        }
                        if x.checked_sub(y).is_some() {
                            out.set(a - b);
                        }
                        if x.checked_mul(y).is_some() {
                            out.set(a * b);
                        }
                        if x.checked_div(y).is_some() {
                            out.set(a / b);
                        }
                        if x.checked_rem(y).is_some() {
                            out.set(a % b);
                        }
                        out.set(a.wrapping_add(b));
                        out.set(a.wrapping_sub(b));
                        out.set(a.wrapping_mul(b));
                        out.set(a & b);
                        out.set(a | b);
                        out.set(a ^ b);
                        out.set(!a);
                        let k = (y as u32) % <$t>::BITS;
                        let amount: Sym<u32> = b.cast::<u32>() % <$t>::BITS;
                        assert_eq!(amount.peek(), k);
                        out.set(a << amount);
                        out.set(a >> amount);
                        out.set(a << k);
                        flag.set(a.sym_lt(b));
                        flag.set(a.sym_le(b));
                        flag.set(a.sym_gt(b));
                        flag.set(a.sym_ge(b));
                        flag.set(a.sym_eq(b));
                        flag.set(a.sym_ne(b));
                        wide.set(a.cast::<i128>());
                        wide.set(a.cast::<u8>().cast::<i128>());
                        wide.set(a.cast::<i16>().cast::<i128>());
                        out.set(a.cast::<u128>().cast::<$t>());
                    },
                    |trace| {
                        trace
                            .check_consistency()
                            .unwrap_or_else(|e| panic!("a = {a}, b = {b}: {e}"));
                    },
                );
                assert!(
                    report.failure().is_none(),
                    "a = {a}, b = {b}: {:?}",
                    report.failure()
                );
                checked += 1;
            }
            assert_eq!(checked, 300);
        }
    };
}

check_type!(u8_operators_evaluate_as_rust_computes, u8);
check_type!(i8_operators_evaluate_as_rust_computes, i8);
check_type!(u16_operators_evaluate_as_rust_computes, u16);
check_type!(i32_operators_evaluate_as_rust_computes, i32);
check_type!(u64_operators_evaluate_as_rust_computes, u64);
check_type!(i64_operators_evaluate_as_rust_computes, i64);
check_type!(usize_operators_evaluate_as_rust_computes, usize);
check_type!(u128_operators_evaluate_as_rust_computes, u128);
check_type!(i128_operators_evaluate_as_rust_computes, i128);

/// Negation is only for signed types.
#[test]
fn negation_evaluates_as_rust_computes() {
    for a in [0i32, 1, -1, 7, i32::MAX, i32::MIN + 1] {
        let inputs = BTreeMap::from([("a".to_string(), a as i128)]);
        Builder::new().inputs(inputs).explore_traces(
            || {
                let a: Sym<i32> = symx::any_named("a");
                let out = Shared::new(0i32);
                out.set(-a);
                assert_eq!(out.get().peek(), -a.peek());
            },
            |t| t.check_consistency().unwrap(),
        );
    }
}
