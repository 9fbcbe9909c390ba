use symx::sync::{Arc, Mutex};

fn consume<T>(_: T) {}

#[symx::fragment]
fn hands_its_guard_away(m: Arc<Mutex<u32>>) {
    let g = m.lock().unwrap();
    consume(g);
    symx::start_here!(m: Arc<Mutex<u32>>);
}

fn main() {}
