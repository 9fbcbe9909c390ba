#[symx::acquire]
struct SpinLock {
    locked: bool,
}

fn main() {
    let _ = SpinLock { locked: false }.locked;
}
