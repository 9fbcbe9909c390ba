#[symx::test]
async fn lost_update() {}

fn main() {}
