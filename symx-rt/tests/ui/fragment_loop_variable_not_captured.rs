#[symx::fragment]
fn sum(n: u32) -> u32 {
    let mut acc: u32 = 0;
    for i in 0..n {
        symx::start_here!(acc, n);
        acc += 1;
    }
    acc
}

fn main() {}
