#[symx::test]
fn lost_update<T: Default>() {
    let _ = T::default();
}

fn main() {}
