//! The figures of Wang et al., "Symbolic Predictive Analysis for Concurrent Programs", as
//! symx programs: shared values are `Shared` (their accesses are recorded and may race) and
//! the branches the paper treats symbolically are `symx::branch`.

use symx::sync::{Arc, Mutex};
use symx::Shared;

/// Fig. 1: the recorded run (T1 first) passes; the symbolic branch `x > b` is what lets an
/// engine move T2 ahead of T1's second half, where it reads `x = 2` and finds `y = 0`.
pub fn fig1() {
    struct S {
        l: Mutex<()>,
        x: Shared<i32>,
        y: Shared<i32>,
    }
    let s = Arc::new(S {
        l: Mutex::new(()),
        x: Shared::new(0),
        y: Shared::new(0),
    });
    let s1 = s.clone();
    let t1 = symx::thread::spawn(move || {
        let a = s1.x.get();
        {
            let _g = s1.l.lock().unwrap();
            s1.x.set(a + 2);
        }
        s1.y.set(a + 1);
        let _g = s1.l.lock().unwrap();
        s1.x.set(a + 1);
    });
    let s2 = s.clone();
    let t2 = symx::thread::spawn(move || {
        let b = 0;
        let _g = s2.l.lock().unwrap();
        if symx::branch(s2.x.get().sym_gt(b)) {
            symx::assert!(s2.y.get() == 1, "y == 1");
        }
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

/// Fig. 7: Fig. 1 with T1 writing `a + 1` in both sections, so the bug needs no new value
/// of `x`: the maximal causal model predicts it too.
pub fn fig7() {
    let x = Arc::new(Shared::new(0i32));
    let y = Arc::new(Shared::new(0i32));
    let l = Arc::new(Mutex::new(()));
    let (x1, y1, l1) = (x.clone(), y.clone(), l.clone());
    let t1 = symx::thread::spawn(move || {
        let a = x1.get();
        {
            let _g = l1.lock().unwrap();
            x1.set(a + 1);
        }
        y1.set(a + 1);
        let _g = l1.lock().unwrap();
        x1.set(a + 1);
    });
    let t2 = symx::thread::spawn(move || {
        let _g = l.lock().unwrap();
        if symx::branch(x.get().sym_gt(0)) {
            symx::assert!(y.get() == 1);
        }
    });
    t1.join().unwrap();
    t2.join().unwrap();
}
