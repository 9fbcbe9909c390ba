//! The features the package under test declares, read from its `Cargo.toml` (cargo runs the
//! compiler with `CARGO_MANIFEST_DIR` set) when `#[symx::test]` expands. The generated test
//! asks `cfg!(feature = ...)` of each, so that the replay command it prints under plain
//! `cargo test` builds with the features this build had. Only the `[features]` table counts:
//! an optional dependency's implicit feature is not named.

use std::path::Path;

/// One declared feature: its name and whether the `default` feature names it.
pub struct Declared {
    pub name: String,
    pub in_default: bool,
}

/// The features the manifest of the package being compiled declares; none when it cannot be
/// read (a build outside cargo).
pub fn declared() -> Vec<Declared> {
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return Vec::new();
    };
    match std::fs::read_to_string(Path::new(&dir).join("Cargo.toml")) {
        Ok(text) => of_manifest(&text),
        Err(_) => Vec::new(),
    }
}

/// The keys of the `[features]` table of `manifest`, and the names `default` lists.
fn of_manifest(manifest: &str) -> Vec<Declared> {
    let mut keys = Vec::new();
    let mut defaults = String::new();
    let mut inside = false;
    let mut in_default = false;
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') && !in_default {
            inside = line.replace(' ', "") == "[features]";
            continue;
        }
        if !inside {
            continue;
        }
        if in_default {
            defaults.push_str(line);
            in_default = !line.contains(']');
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_matches('"');
        if key == "default" {
            defaults.push_str(value);
            in_default = !value.contains(']');
        }
        if !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-+".contains(c))
        {
            keys.push(key.to_string());
        }
    }
    let listed: Vec<&str> = defaults.split('"').skip(1).step_by(2).collect();
    keys.into_iter()
        .map(|name| Declared {
            in_default: listed.contains(&name.as_str()),
            name,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_features_table_and_its_defaults_are_read_and_nothing_else() {
        let manifest = r#"
[package]
name = "q"  # a comment
[features]
default = ["fast",
   "small"]   # both
fast = []
"with-log" = ["dep:log"]
small = []
[dependencies]
log = { version = "0.4", optional = true }
"#;
        let got: Vec<(String, bool)> = of_manifest(manifest)
            .into_iter()
            .map(|d| (d.name, d.in_default))
            .collect();
        let want = [
            ("default", false),
            ("fast", true),
            ("with-log", false),
            ("small", true),
        ];
        let want: Vec<(String, bool)> = want.iter().map(|&(n, d)| (n.to_string(), d)).collect();
        assert_eq!(got, want);
        assert!(of_manifest("[package]\nname = \"p\"\n").is_empty());
    }
}
