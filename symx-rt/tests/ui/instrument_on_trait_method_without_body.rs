trait Queue {
    #[symx::instrument]
    fn is_full(&self) -> bool;
}

fn main() {}
