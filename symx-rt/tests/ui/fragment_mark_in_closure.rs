#[symx::fragment]
fn inside_a_closure(x: u32) -> u32 {
    let f = move || {
        symx::start_here!(x);
        x + 1
    };
    f()
}

fn main() {}
