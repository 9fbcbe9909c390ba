fn main() {
    let v = 7;
    symx::assert!(v ==, "v is {}", v);
}
