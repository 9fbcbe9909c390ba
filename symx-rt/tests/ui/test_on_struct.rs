#[symx::test]
struct Counter {
    value: u32,
}

fn main() {
    let _ = Counter { value: 0 }.value;
}
