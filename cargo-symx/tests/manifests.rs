//! The workspace's manifests keep the habits of a maintained crate: one `rust-version` and one
//! lint table in `[workspace.package]`/`[workspace.lints]`, inherited by every member, and a
//! `rust-version` no older than what the locked dependency tree needs. CI runs this first
//! (`.ci/run`); clippy's `incompatible_msrv` checks our own code against the same version.

use std::path::{Path, PathBuf};

use cargo_metadata::semver::Version;
use cargo_metadata::{Metadata, MetadataCommand};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn manifest(path: &Path) -> toml::Table {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `[workspace.package] rust-version`, completed to three parts (`1.91` is `1.91.0`).
fn workspace_rust_version() -> Version {
    let root = manifest(&workspace_root().join("Cargo.toml"));
    let text = root["workspace"]["package"]["rust-version"]
        .as_str()
        .expect("[workspace.package] sets rust-version")
        .to_string();
    parse_rust_version(&text)
}

fn parse_rust_version(text: &str) -> Version {
    let parts = text.split('.').count();
    let full = format!("{text}{}", ".0".repeat(3 - parts));
    Version::parse(&full).unwrap_or_else(|e| panic!("rust-version `{text}`: {e}"))
}

fn metadata() -> Metadata {
    MetadataCommand::new()
        .manifest_path(workspace_root().join("Cargo.toml"))
        .other_options(vec!["--locked".to_string()])
        .exec()
        .expect("cargo metadata runs on the workspace")
}

/// Whether `table[key]` is `{ workspace = true }` (`key.workspace = true` in the manifest).
fn inherits(table: Option<&toml::Value>, key: &str) -> bool {
    table
        .and_then(|t| t.get(key))
        .and_then(|v| v.get("workspace"))
        .and_then(toml::Value::as_bool)
        == Some(true)
}

#[test]
fn every_member_inherits_the_rust_version_and_the_lints() {
    let metadata = metadata();
    let mut wrong = Vec::new();
    for member in metadata.workspace_packages() {
        let manifest = manifest(member.manifest_path.as_std_path());
        if !inherits(manifest.get("package"), "rust-version") {
            wrong.push(format!("{}: rust-version.workspace = true", member.name));
        }
        if !inherits(Some(&toml::Value::Table(manifest.clone())), "lints") {
            wrong.push(format!("{}: [lints] workspace = true", member.name));
        }
    }
    assert!(
        metadata.workspace_packages().len() >= 6,
        "the members are found"
    );
    assert!(
        wrong.is_empty(),
        "members missing an inherited setting:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn rust_version_is_no_older_than_any_dependency_needs() {
    let ours = workspace_rust_version();
    let newer: Vec<String> = metadata()
        .packages
        .iter()
        .filter_map(|p| Some((p, p.rust_version.as_ref()?)))
        .filter(|(_, needs)| **needs > ours)
        .map(|(p, needs)| format!("{} {} needs Rust {needs}", p.name, p.version))
        .collect();
    assert!(
        newer.is_empty(),
        "rust-version {ours} in [workspace.package] is older than the locked dependencies need; \
         raise it to the newest of:\n{}",
        newer.join("\n")
    );
}

#[test]
fn short_rust_versions_are_completed_with_zeros() {
    assert_eq!(parse_rust_version("1.91"), Version::new(1, 91, 0));
    assert_eq!(parse_rust_version("1.88.2"), Version::new(1, 88, 2));
}
