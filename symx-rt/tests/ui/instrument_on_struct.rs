#[symx::instrument]
struct Counter {
    count: u32,
}

fn main() {
    let _ = Counter { count: 0 }.count;
}
