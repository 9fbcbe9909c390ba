pub struct RawLock;

pub struct Guard<'a> {
    lock: &'a RawLock,
}

impl Drop for Guard<'_> {
    #[symx::release]
    fn drop(&mut self) {
        let _ = self.lock;
    }
}

fn main() {
    drop(Guard { lock: &RawLock });
}
