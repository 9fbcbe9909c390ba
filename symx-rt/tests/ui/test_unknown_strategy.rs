#[symx::test(strategy = "bfs")]
fn lost_update() {}

fn main() {}
