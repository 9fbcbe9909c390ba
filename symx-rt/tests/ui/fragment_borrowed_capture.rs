#[symx::fragment]
fn keeps_a_borrow(v: Vec<u32>) -> usize {
    let first: &u32 = &v[0];
    symx::start_here!(first);
    *first as usize
}

fn main() {}
