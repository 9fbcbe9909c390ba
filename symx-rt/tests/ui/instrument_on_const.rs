#[symx::instrument]
const LIMIT: bool = 1 < 2;

fn main() {
    let _ = LIMIT;
}
