#[symx::test(context_mode = "partial")]
fn explores_from_a_context() {}

fn main() {}
