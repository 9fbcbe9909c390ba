#[symx::test]
const THREADS: usize = 2;

fn main() {
    let _ = THREADS;
}
