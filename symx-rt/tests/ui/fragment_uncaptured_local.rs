#[symx::fragment]
fn forgets_a_local(x: u32) -> u32 {
    let y: u32 = x * 2;
    symx::start_here!(y);
    x + y
}

fn main() {}
