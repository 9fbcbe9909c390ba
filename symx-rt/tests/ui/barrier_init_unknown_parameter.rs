pub struct MyBarrier;

impl MyBarrier {
    #[symx::barrier_init(count)]
    pub fn init(&self, parties: usize, spin: bool) {
        let _ = (parties, spin);
    }
}

fn main() {
    MyBarrier.init(2, true);
}
