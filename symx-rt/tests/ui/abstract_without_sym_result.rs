#[symx::r#abstract]
fn search(n: u32) -> bool {
    n > 3
}

fn main() {}
