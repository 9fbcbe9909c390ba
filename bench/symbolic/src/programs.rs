//! The catalogue of measured programs (`symx_test_programs::symbolic`, the symbolic engine's
//! test programs): per program, its input and which of its values fail (what the enumeration
//! and sampling rows need).

use symx_test_programs::symbolic::{
    behind_a_branch, even_odd, hash_collision, split_increment, thirty_seven,
};

/// One program and what its bug needs of its single input.
pub struct Program {
    pub name: &'static str,
    pub body: fn(),
    /// The symbolic input's name.
    pub input: &'static str,
    /// The values the input ranges over, lowest first.
    pub domain: (i128, i128),
    /// The values the enumeration may skip: `assume` discards every other one at its first
    /// step, so an enumeration runs only these (`None`: the whole domain).
    pub assumed: Option<(i128, i128)>,
    /// Whether an input value lets some interleaving fail.
    pub fails_with: fn(i128) -> bool,
    /// How many values of the domain (or of `assumed`) fail, and the lowest one.
    pub failing: (u128, i128),
}

/// The x with x * 2654435761 == 0xDEADBEEF (mod 2^32): 2654435761 is odd, so the product is
/// a bijection and exactly one x fails.
pub fn collision_input() -> u32 {
    // The inverse of an odd number mod 2^32 by Newton's iteration (each step doubles the
    // correct low bits: 3, 6, 12, 24, 48).
    let a: u32 = 2654435761;
    let mut inv = a;
    for _ in 0..4 {
        inv = inv.wrapping_mul(2u32.wrapping_sub(a.wrapping_mul(inv)));
    }
    0xDEAD_BEEFu32.wrapping_mul(inv)
}

/// Every measured program.
pub fn all() -> Vec<Program> {
    vec![
        Program {
            name: "thirty_seven",
            body: thirty_seven,
            input: "n",
            domain: (0, u32::MAX as i128),
            assumed: None,
            fails_with: |n| n == 37,
            failing: (1, 37),
        },
        Program {
            name: "hash_collision",
            body: hash_collision,
            input: "x",
            domain: (0, u32::MAX as i128),
            assumed: None,
            fails_with: |x| x == collision_input() as i128,
            failing: (1, collision_input() as i128),
        },
        Program {
            name: "behind_a_branch",
            body: behind_a_branch,
            input: "mode",
            domain: (0, u8::MAX as i128),
            assumed: None,
            fails_with: |m| m == 7,
            failing: (1, 7),
        },
        Program {
            name: "even_odd",
            body: even_odd,
            input: "X",
            domain: (i64::MIN as i128, i64::MAX as i128),
            assumed: None,
            fails_with: |x| x % 2 == 0,
            failing: (1 << 63, i64::MIN as i128),
        },
        Program {
            name: "split_increment",
            body: split_increment,
            input: "X0",
            domain: (i64::MIN as i128, i64::MAX as i128),
            assumed: Some((-999, 999)),
            fails_with: |x| (-999..=999).contains(&x) && x != 41 && x != 42,
            failing: (1997, -999),
        },
    ]
}

/// The program called `name`.
pub fn named(name: &str) -> Option<Program> {
    all().into_iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_collision_input_collides() {
        assert_eq!(collision_input().wrapping_mul(2654435761), 0xDEAD_BEEF);
    }

    #[test]
    fn each_catalogue_entry_says_which_values_fail() {
        for p in all() {
            let (lo, hi) = p.assumed.unwrap_or(p.domain);
            assert!((p.fails_with)(p.failing.1), "{}", p.name);
            assert!(!(p.fails_with)(p.failing.1 - 1), "{}", p.name);
            if hi - lo < 1 << 16 {
                let count = (lo..=hi).filter(|&v| (p.fails_with)(v)).count();
                assert_eq!(count as u128, p.failing.0, "{}", p.name);
            }
        }
    }
}
