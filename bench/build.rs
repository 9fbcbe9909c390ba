//! Records the resolved versions of loom and shuttle (from `Cargo.lock`) so that the printed
//! tables say exactly which releases were measured.

use std::fs;
use std::path::Path;

fn main() {
    let lock_path = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    // On the very first build Cargo.lock may not exist yet; the version is then unknown.
    let lock = fs::read_to_string(&lock_path).unwrap_or_default();
    for (krate, var) in [
        ("loom", "BENCH_LOOM_VERSION"),
        ("shuttle", "BENCH_SHUTTLE_VERSION"),
    ] {
        println!("cargo:rustc-env={var}={}", locked_version(&lock, krate));
    }
}

/// The `version` line that follows `name = "<krate>"` in a Cargo.lock.
fn locked_version(lock: &str, krate: &str) -> String {
    let name_line = format!("name = \"{krate}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == name_line {
            if let Some(v) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
            {
                return v.trim_matches('"').to_string();
            }
        }
    }
    "unknown".to_string()
}
