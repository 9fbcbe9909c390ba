pub struct SpinLock;

#[symx::acquire]
fn lock(lock: &SpinLock) {
    let _ = lock;
}

fn main() {
    lock(&SpinLock);
}
