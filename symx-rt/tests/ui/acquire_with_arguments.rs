pub struct SpinLock;

impl SpinLock {
    #[symx::acquire(exclusive)]
    pub fn lock(&self) {}
}

fn main() {
    SpinLock.lock();
}
