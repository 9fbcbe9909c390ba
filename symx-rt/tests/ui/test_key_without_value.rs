#[symx::test(max_steps)]
fn lost_update() {}

fn main() {}
