#[symx::test]
fn lost_update(threads: usize, rounds: u32) {
    let _ = (threads, rounds);
}

fn main() {}
