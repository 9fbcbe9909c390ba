#[symx::r#abstract]
struct Tree;

fn main() {}
