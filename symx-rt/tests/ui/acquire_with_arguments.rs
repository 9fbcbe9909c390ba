pub struct SpinLock;

impl SpinLock {
    #[symx::acquire(self, exclusive)]
    pub fn lock(&self) {}
}

fn main() {
    SpinLock.lock();
}
