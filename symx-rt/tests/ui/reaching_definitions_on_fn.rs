#[symx::reaching_definitions]
fn not_a_module() {}

fn main() {}
