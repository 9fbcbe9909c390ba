#[symx::test]
#[test]
fn lost_update() {}

fn main() {}
