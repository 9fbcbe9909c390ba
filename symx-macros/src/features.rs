//! The features the package under test declares, read from its `Cargo.toml` (cargo runs the
//! compiler with `CARGO_MANIFEST_DIR` set) when `#[symx::test]` expands. The generated test
//! asks `cfg!(feature = ...)` of each, so that the replay command it prints under plain
//! `cargo test` builds with the features this build had: the keys of the `[features]` table,
//! and the implicit feature of each optional dependency that no feature names as `dep:NAME`.

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

/// The declared features of `manifest` ([`table`]), then the implicit ones of its optional
/// dependencies ([`optional_dependencies`]).
fn of_manifest(manifest: &str) -> Vec<Declared> {
    let mut declared = table(manifest);
    let explicit = manifest.contains("dep:");
    for name in optional_dependencies(manifest) {
        let hidden = explicit && manifest.contains(&format!("\"dep:{name}\""));
        if !hidden && !declared.iter().any(|d| d.name == name) {
            declared.push(Declared {
                name,
                in_default: false,
            });
        }
    }
    declared
}

/// The optional dependencies of `manifest` (normal, build and target-specific): keys
/// `name = { …, optional = true }` of a dependency table, and tables `[dependencies.name]`
/// with `optional = true`.
fn optional_dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    // The dependency table the line is in, and the dependency a `[….dependencies.name]`
    // table is about.
    let (mut in_deps, mut table_dep): (bool, Option<String>) = (false, None);
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']').replace(' ', "");
            let (deps, dep) = dependency_header(&header);
            (in_deps, table_dep) = (deps, dep);
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim().trim_matches('"'), value.replace(' ', ""));
        match &table_dep {
            Some(dep) if key == "optional" && value == "true" => names.push(dep.clone()),
            None if in_deps && value.contains("optional=true") => names.push(key.to_string()),
            _ => {}
        }
    }
    names
}

/// Whether a table header (without brackets and spaces) is a dependency table
/// (`dependencies`, `build-dependencies`, `target.'cfg(unix)'.dependencies`), or the table of
/// one dependency (`dependencies.log`: its name). Dev-dependencies cannot be optional.
fn dependency_header(header: &str) -> (bool, Option<String>) {
    for table in ["dependencies", "build-dependencies"] {
        if header == table || header.ends_with(&format!(".{table}")) {
            return (true, None);
        }
        if let Some((_, name)) = header.split_once(&format!("{table}.")) {
            let starts = header.starts_with(table) || header.contains(&format!(".{table}."));
            if starts && !name.is_empty() && !name.contains('.') {
                return (false, Some(name.trim_matches('"').to_string()));
            }
        }
    }
    (false, None)
}

/// The keys of the `[features]` table of `manifest`, and the names `default` lists.
fn table(manifest: &str) -> Vec<Declared> {
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

    #[test]
    fn an_optional_dependency_is_a_feature_unless_a_feature_names_it_with_dep() {
        let manifest = r#"
[package]
name = "q"
[features]
tracing = ["dep:tracing"]
[dependencies]
log = { version = "0.4", optional = true }
tracing = { version = "0.1", optional = true }
serde = "1"
[target.'cfg(unix)'.dependencies]
libc = { version = "0.2", optional = true }
[dependencies.regex]
version = "1"
optional = true
[dev-dependencies]
proptest = "1"
"#;
        let got: Vec<String> = of_manifest(manifest).into_iter().map(|d| d.name).collect();
        assert_eq!(got, ["tracing", "log", "libc", "regex"]);
    }
}
