#[symx::fragment]
fn no_resume_point(x: u32) -> u32 {
    x + 1
}

fn main() {}
