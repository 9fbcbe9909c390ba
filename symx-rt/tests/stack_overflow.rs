//! Model threads' stacks: `thread::Builder::stack_size` gives a thread the stack it asks for,
//! and a thread that runs past its stack is a failure of kind `stack-overflow` naming the
//! thread, its stack size and the settings that raise it, with a token that replays it; the
//! test process lives on (a fault handler on the alternate signal stack catches the fault on
//! the coroutine's guard page).
#![cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]

mod common;

use std::hint::black_box;

use symx::{thread, Builder, FailureKind};

/// Puts 512 KiB on the calling thread's stack (twice the default of a model thread).
fn uses_512_kib() {
    let big = [1u8; 512 * 1024];
    black_box(&big);
}

fn spawns_a_thread_using_512_kib(stack_size: Option<usize>) {
    let mut builder = thread::Builder::new();
    if let Some(size) = stack_size {
        builder = builder.stack_size(size);
    }
    builder.spawn(uses_512_kib).unwrap().join().unwrap();
}

#[test]
fn a_thread_gets_the_stack_size_its_builder_asks_for() {
    let report = Builder::new().explore(|| spawns_a_thread_using_512_kib(Some(2 << 20)));
    assert!(report.failure().is_none(), "{}", report.failure().unwrap());
    assert!(report.complete());
}

#[test]
fn a_thread_that_overflows_its_stack_is_a_failure_that_says_how_to_raise_it() {
    for _ in 0..2 {
        let failure = common::assert_fails(FailureKind::StackOverflow, || {
            spawns_a_thread_using_512_kib(None)
        });
        assert_eq!(failure.thread(), Some(1));
        assert!(
            failure
                .message()
                .starts_with("thread 1 overflowed its stack of 256 KiB; give it more with "),
            "{failure}"
        );
        assert!(failure
            .message()
            .contains("symx::thread::Builder::new().stack_size(BYTES)"));
        assert!(failure
            .to_string()
            .starts_with("symx found a stack overflow: "));
    }
    // The process is fine: the next exploration runs as usual.
    let report = Builder::new().explore(|| spawns_a_thread_using_512_kib(Some(2 << 20)));
    assert!(report.failure().is_none());
}

#[test]
fn the_main_model_thread_overflows_like_any_other_and_the_builder_raises_every_stack() {
    let failure = common::assert_fails(FailureKind::StackOverflow, uses_512_kib);
    assert_eq!(failure.thread(), Some(0));
    assert!(failure
        .message()
        .starts_with("thread 0 (main) overflowed its stack of 256 KiB"));
    let raised = Builder::new()
        .stack_size(2 << 20)
        .explore(|| spawns_a_thread_using_512_kib(None));
    assert!(raised.failure().is_none());
}

/// loom's `thread_stack_size` test: `2 * 65536` through loom's `Builder` is room for a
/// 512 KiB array, because loom counts words.
fn loom_thread_stack_size() {
    const STACK_SIZE: usize = 1 << 16;
    symx::loom::thread::Builder::new()
        .stack_size(2 * STACK_SIZE)
        .spawn(|| {
            black_box(&mut [0usize; STACK_SIZE]);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn loom_s_builder_counts_words_and_std_s_counts_bytes() {
    let report = Builder::new().explore(loom_thread_stack_size);
    assert!(report.failure().is_none(), "{}", report.failure().unwrap());
    // The same number through std's (and symx's) Builder is 128 KiB, raised to the 256 KiB
    // default, which a 512 KiB array overflows.
    let failure = common::assert_fails(FailureKind::StackOverflow, || {
        spawns_a_thread_using_512_kib(Some(2 << 16))
    });
    assert!(failure
        .message()
        .starts_with("thread 1 overflowed its stack of 256 KiB"));
}
