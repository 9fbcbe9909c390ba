fn main() {
    let x = 1;
    let _ = symx::checkpoint!("", x);
}
