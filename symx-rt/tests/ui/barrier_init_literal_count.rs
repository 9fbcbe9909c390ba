pub struct MyBarrier;

impl MyBarrier {
    #[symx::barrier_init(2)]
    pub fn init(&self) {}
}

fn main() {
    MyBarrier.init();
}
