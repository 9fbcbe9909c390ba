//! `symx::checkpoint!` evaluates to its captures, and generalises the symbolic ones only
//! when the test explores from its label.

use symx::Sym;

fn captures() -> (Sym<u32>, Sym<u32>, &'static str) {
    let a = Sym::from(3u32);
    let b = Sym::from(4u32);
    symx::checkpoint!("here", a, b, "plain")
}

#[symx::test(context = "here")]
fn captures_are_generalised_at_the_explored_checkpoint() {
    let (a, b, plain) = captures();
    // Their values are the ones the run computed; they are inputs now.
    assert_eq!((a.peek(), b.peek(), plain), (3, 4, "plain"));
    assert!(a.is_symbolic() && b.is_symbolic());
}

#[symx::test(context = "elsewhere")]
fn captures_pass_through_other_checkpoints() {
    let (a, b, _) = captures();
    assert!(!a.is_symbolic() && !b.is_symbolic());
}

#[symx::test]
fn one_capture_is_its_value() {
    let x: Sym<u8> = symx::checkpoint!("one", Sym::from(7u8));
    assert_eq!(x.peek(), 7);
    let () = symx::checkpoint!("none");
}
