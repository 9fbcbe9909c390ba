#[symx::test(strategy = "random", seed = 1, iterations = 100, seed = 2)]
fn lost_update() {}

fn main() {}
