#[symx::instrument]
const fn small(n: u32) -> bool {
    n < 3
}

fn main() {
    let _ = small(1);
}
