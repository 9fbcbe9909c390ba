fn main() {
    let v = 7;
    symx::assert_eq!(v);
}
