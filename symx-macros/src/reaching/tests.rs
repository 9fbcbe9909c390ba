//! The analysis on small modules: which facts reach which checkpoint.

use quote::quote;

fn expanded(module: proc_macro2::TokenStream) -> String {
    super::expand(quote!(), module).to_string()
}

#[test]
fn a_parameter_bound_by_the_only_call_site_is_a_fact() {
    let out = expanded(quote!(
        mod m {
            fn main_like() {
                foo(41);
                foo(42);
                bar(5.into());
            }
            fn foo(x: i64) {}
            fn bar(r2: Sym<i64>) {
                let r2 = symx::checkpoint!("ctx", r2);
            }
        }
    ));
    assert!(out.contains("\"ctx\" , r2 ; r2 = 5"), "{out}");
}

#[test]
fn call_sites_that_disagree_give_no_fact() {
    let out = expanded(quote!(
        mod m {
            fn main_like() {
                bar(5);
                bar(6);
            }
            fn bar(r2: i64) {
                symx::checkpoint!("ctx", r2);
            }
        }
    ));
    assert!(!out.contains("r2 ="), "{out}");
}

#[test]
fn a_definition_over_an_unknown_local_relates_two_captures_until_one_changes() {
    let out = expanded(quote!(
        mod m {
            fn f(r2: Sym<u32>, z: Sym<u32>) {
                let r1 = r2 + 5;
                let d = r1 * 2;
                let copy = r2;
                symx::checkpoint!("a", r1, r2, d, copy);
                let w = z - 1;
                z = z + 3;
                let (r1, _) = (z, 0);
                symx::checkpoint!("b", w, z, r1, r2);
            }
        }
    ));
    // `copy = r2` has no literal to say its type; `w` spoke of the old `z`, the new `z`
    // of itself.
    assert!(
        out.contains("(\"a\" , r1 , r2 , d , copy ; r1 = (r2 + 5) , d = ((r2 + 5) * 2))"),
        "{out}"
    );
    // `r1` was bound anew by a tuple pattern: its old fact is gone.
    assert!(out.contains("(\"b\" , w , z , r1 , r2)"), "{out}");
}

#[test]
fn if_else_arms_keep_what_they_agree_on() {
    let out = expanded(quote!(
        mod m {
            fn f(r: Sym<u32>) {
                let mut a = 1;
                let mut b = 1;
                let mut c = 1;
                let mut d = r + 1;
                if cond() {
                    a = 4;
                    b = 2;
                    let c = 9;
                    d = r + 1;
                } else if other() {
                    a = 4;
                } else {
                    a = 2 + 2;
                    d = r + 1;
                }
                symx::checkpoint!("here", a, b, c, d, r);
            }
        }
    ));
    // `a` is 4 in every arm, `b` only in one; the inner `c` is the arm's own, so the outer
    // `c` is still 1 after it; every arm leaves `d == r + 1`.
    assert!(
        out.contains("(\"here\" , a , b , c , d , r ; a = 4 , c = 1 , d = (r + 1))"),
        "{out}"
    );
}

#[test]
fn locals_flow_through_lets_and_die_at_assignments_and_mutable_borrows() {
    let out = expanded(quote!(
        mod m {
            fn f() {
                let a = 2;
                let b = a * 3 + 1;
                let mut c = 1;
                if cond() {
                    c = 4;
                }
                let mut d = 9;
                touch(&mut d);
                symx::checkpoint!("here", a, b, c, d);
            }
        }
    ));
    // `c` is assigned in a branch and `d` borrowed mutably: neither is known.
    assert!(
        out.contains("(\"here\" , a , b , c , d ; a = 2 , b = 7)"),
        "{out}"
    );
}

#[test]
fn match_arms_keep_what_they_agree_on_and_their_patterns_shadow() {
    let out = expanded(quote!(
        mod m {
            fn f(o: Option<u32>) {
                let x = 3;
                let mut a = 0;
                let mut b = 0;
                match o {
                    Some(x) => {
                        a = 1;
                        b = x + 1;
                        symx::checkpoint!("arm", x, a);
                    }
                    None => a = 1,
                }
                symx::checkpoint!("after", x, a, b);
            }
        }
    ));
    // In the arm `x` is the pattern's, not the outer 3; after the match `a` is 1 on both
    // arms, `b` only on one.
    assert!(out.contains("(\"arm\" , x , a ; a = 1)"), "{out}");
    assert!(
        out.contains("(\"after\" , x , a , b ; x = 3 , a = 1)"),
        "{out}"
    );
}

#[test]
fn a_checkpoint_in_a_core_loop_sees_the_loop_invariant() {
    let out = expanded(quote!(
        mod m {
            fn worker(n: u32) {
                let step = 4;
                let mut i = 0;
                let mut last = 7;
                while i < n {
                    let k = step * 2;
                    symx::checkpoint!("core", i, step, k, last);
                    i = i + step;
                    last = 7;
                }
                symx::checkpoint!("done", i, step, last);
            }
        }
    ));
    // `step` never changes and `last` is 7 on entry and after every pass; `i` changes.
    assert!(
        out.contains("(\"core\" , i , step , k , last ; step = 4 , k = 8 , last = 7)"),
        "{out}"
    );
    assert!(
        out.contains("(\"done\" , i , step , last ; step = 4 , last = 7)"),
        "{out}"
    );
}

#[test]
fn a_loop_that_breaks_midway_keeps_only_what_its_body_never_changes() {
    let out = expanded(quote!(
        mod m {
            fn f() {
                let fixed = 2;
                let mut x = 1;
                loop {
                    x = 5;
                    if done() {
                        break;
                    }
                    x = 1;
                }
                symx::checkpoint!("after", fixed, x);
                let mut y = 1;
                for j in 0..3 {
                    y = j;
                    symx::checkpoint!("in_for", j, y, fixed);
                }
                symx::checkpoint!("after_for", y);
            }
        }
    ));
    // `x` is 5 at the break, 1 at the head: unknown after. `y` is `j` in the body (a term
    // over the pattern's fresh local), unknown after the loop.
    assert!(out.contains("(\"after\" , fixed , x ; fixed = 2)"), "{out}");
    assert!(
        out.contains("(\"in_for\" , j , y , fixed ; fixed = 2)"),
        "{out}"
    );
    assert!(out.contains("(\"after_for\" , y)"), "{out}");
}

#[test]
fn a_call_in_a_nested_block_or_closure_binds_what_holds_there() {
    let out = expanded(quote!(
        mod m {
            fn main_like() {
                let mut x = 1;
                {
                    x = 2;
                    at_two(x);
                }
                let v = [9, 9];
                v.iter().for_each(|x| shadowed(*x));
                let x = 5;
                std::thread::spawn(move || |x: u32| shadowed(x));
            }
            fn at_two(p: u32) {
                symx::checkpoint!("two", p);
            }
            fn shadowed(q: u32) {
                symx::checkpoint!("q", q);
            }
        }
    ));
    // The call inside the block sees `x = 2` (not the 1 before the block); a closure's
    // parameter shadows the outer `x`, so `shadowed` learns nothing.
    assert!(out.contains("(\"two\" , p ; p = 2)"), "{out}");
    assert!(out.contains("(\"q\" , q)"), "{out}");
}

#[test]
fn an_if_let_binding_shadows_the_outer_local_in_its_arm() {
    let out = expanded(quote!(
        mod m {
            fn f(o: Option<u32>) {
                let x = 3;
                if let Some(x) = o {
                    symx::checkpoint!("then", x);
                } else {
                    symx::checkpoint!("else", x);
                }
            }
        }
    ));
    assert!(out.contains("(\"then\" , x)"), "{out}");
    assert!(out.contains("(\"else\" , x ; x = 3)"), "{out}");
}

#[test]
fn a_fact_the_second_pass_breaks_is_no_invariant() {
    let out = expanded(quote!(
        mod m {
            fn f() {
                let mut a = 1;
                let mut b = 1;
                while go() {
                    symx::checkpoint!("head", a, b);
                    a = b;
                    b = 2;
                }
            }
        }
    ));
    // `a` is 1 at the first two heads and 2 from the third on; `b` is 1 only at the first.
    assert!(out.contains("(\"head\" , a , b)"), "{out}");
}

#[test]
fn a_checkpoint_that_gives_its_captures_back_keeps_their_facts() {
    let out = expanded(quote!(
        mod m {
            fn f() {
                let stride = 3;
                let mut i = 0;
                loop {
                    let (i, stride) = symx::checkpoint!("core", i, stride);
                    let once = symx::checkpoint!("again", stride);
                    let (stride, i) = symx::checkpoint!("swapped", i, stride);
                    symx::checkpoint!("last", stride);
                }
            }
        }
    ));
    // Rebinding each capture to its own name is an identity; `once` is a new name, which is
    // fine; swapping names is not an identity, so `stride` is unknown at "last".
    assert!(
        out.contains("(\"core\" , i , stride ; i = 0 , stride = 3)"),
        "{out}"
    );
    assert!(out.contains("(\"again\" , stride ; stride = 3)"), "{out}");
    assert!(out.contains("(\"last\" , stride)"), "{out}");
}

#[test]
fn a_block_that_assigns_a_local_before_shadowing_it_changes_the_outer_one() {
    let out = expanded(quote!(
        mod m {
            fn f() {
                let x = 1;
                let y = 2;
                let z = x + 1;
                {
                    x = 5;
                    let x = 7;
                    let y = 8;
                    symx::checkpoint!("inner", x, y);
                }
                symx::checkpoint!("outer", x, y, z);
            }
        }
    ));
    // Inside: the block's own `x` and `y`. After: `y` is the outer 2 again; the outer `x`
    // was assigned before the shadowing `let` (`z` was folded to 2 when `x` was 1).
    assert!(out.contains("(\"inner\" , x , y ; x = 7 , y = 8)"), "{out}");
    assert!(
        out.contains("(\"outer\" , x , y , z ; y = 2 , z = 2)"),
        "{out}"
    );
}
