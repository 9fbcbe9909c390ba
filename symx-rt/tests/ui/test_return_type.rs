#[symx::test]
fn lost_update() -> Result<(), String> {
    Ok(())
}

fn main() {}
