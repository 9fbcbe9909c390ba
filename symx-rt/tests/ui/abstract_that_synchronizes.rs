use symx::sync::Mutex;
use symx::Sym;

#[symx::r#abstract]
fn search(m: &Mutex<u32>, x: Sym<u32>) -> Sym<bool> {
    let g = m.lock().unwrap();
    x == *g
}

fn main() {}
