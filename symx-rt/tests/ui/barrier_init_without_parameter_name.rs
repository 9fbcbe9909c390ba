pub struct MyBarrier;

impl MyBarrier {
    #[symx::barrier_init]
    pub fn init(&self, n: usize) {
        let _ = n;
    }
}

fn main() {
    MyBarrier.init(2);
}
