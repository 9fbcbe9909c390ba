use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex};
use symx::{Builder, FailureKind};

#[test]
fn two_fetch_adds_have_two_executions() {
    let report = Builder::new().explore(|| {
        let a = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let a = a.clone();
                symx::thread::spawn(move || {
                    a.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(a.load(Ordering::SeqCst), 2);
    });
    assert!(report.failure().is_none(), "{report}");
    assert!(report.complete());
    assert_eq!(report.executions(), 2);
}

#[test]
fn lost_update_found() {
    let report = Builder::new().explore(|| {
        let a = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let a = a.clone();
                symx::thread::spawn(move || {
                    let v = a.load(Ordering::SeqCst);
                    a.store(v + 1, Ordering::SeqCst);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(a.load(Ordering::SeqCst), 2, "lost update");
    });
    let f = report.failure().expect("bug");
    println!("{f}");
    assert_eq!(f.kind(), FailureKind::Panic);
    let again = Builder::new().replay(f.schedule(), || {
        let a = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let a = a.clone();
                symx::thread::spawn(move || {
                    let v = a.load(Ordering::SeqCst);
                    a.store(v + 1, Ordering::SeqCst);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(a.load(Ordering::SeqCst), 2, "lost update");
    });
    assert_eq!(again.failure().unwrap().kind(), FailureKind::Panic);
}

#[test]
fn lock_order_inversion_deadlocks() {
    let report = Builder::new().explore(|| {
        let a = Arc::new(Mutex::new(0));
        let b = Arc::new(Mutex::new(0));
        let (a2, b2) = (a.clone(), b.clone());
        let t = symx::thread::spawn(move || {
            let _x = a2.lock().unwrap();
            let _y = b2.lock().unwrap();
        });
        {
            let _y = b.lock().unwrap();
            let _x = a.lock().unwrap();
        }
        t.join().unwrap();
    });
    let f = report.failure().expect("deadlock");
    println!("{f}");
    assert_eq!(f.kind(), FailureKind::Deadlock);
}
