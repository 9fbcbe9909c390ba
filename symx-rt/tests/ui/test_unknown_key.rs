#[symx::test(preemption = 2)]
fn lost_update() {}

fn main() {}
