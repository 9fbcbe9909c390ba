pub struct SpinLock;

impl SpinLock {
    #[symx::release]
    pub async fn unlock(&self) {}
}

fn main() {
    drop(SpinLock.unlock());
}
