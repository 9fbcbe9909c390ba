fn main() {
    symx::assert!();
}
