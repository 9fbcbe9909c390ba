#[symx::test(preemption_bound(2))]
fn lost_update() {}

fn main() {}
