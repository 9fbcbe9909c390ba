#[symx::instrument(branches = false)]
fn pick(n: u32) -> u32 {
    if n > 3 {
        1
    } else {
        2
    }
}

fn main() {
    let _ = pick(1);
}
