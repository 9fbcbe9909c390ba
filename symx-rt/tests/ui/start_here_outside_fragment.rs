fn plain(x: u32) -> u32 {
    symx::start_here!(x);
    x
}

fn main() {}
