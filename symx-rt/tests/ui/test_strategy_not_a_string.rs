#[symx::test(strategy = pct, seed = 7)]
fn lost_update() {}

fn main() {}
