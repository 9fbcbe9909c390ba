#[symx::fragment]
fn untyped(x: u32) -> u32 {
    let y = x + 1;
    symx::start_here!(y);
    y
}

fn main() {}
