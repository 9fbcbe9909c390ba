// Every problem is reported in one compile, not one per fix.
#[symx::test(max_step = 10, strategy = "PCT")]
async fn lost_update(threads: usize) -> u32 {
    threads as u32
}

fn main() {}
