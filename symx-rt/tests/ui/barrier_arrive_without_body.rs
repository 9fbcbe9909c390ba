pub trait Barrier {
    #[symx::barrier_arrive]
    fn wait(&self);
}

fn main() {}
