use symx::Sym;

#[symx::r#abstract(returns = "found")]
fn search(x: Sym<u32>) -> Sym<bool> {
    x == 3u32
}

fn main() {}
