//! The `SYMX_REPLAY=… cargo test …` command a failure prints under plain `cargo test`: it
//! must build what this run built, or the token names a test the pasted build lacks. A
//! `#[symx::test]` tells the runtime its package's manifest and which of the package's
//! declared features this build enabled ([`built_with`]); in a binary without one (a plain
//! `#[test]` calling `symx::model`), the manifest comes from the environment cargo gives the
//! test, and features cannot be known: the command then says so in a shell comment. The
//! profile (`--release`, `--profile`), `--target` and `--target-dir` are read off the test
//! binary's own path in the target directory. The environment's `RUSTFLAGS` are repeated,
//! with `--cfg symx` added in a symx build.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One feature the package declares: its name, whether this build enabled it, and whether
/// `default` names it (then it needs no `--features` while default features are on).
pub type Feature = (&'static str, bool, bool);

/// How this test binary was built, as its `#[symx::test]`s know it.
struct Built {
    manifest_dir: Option<&'static str>,
    features: &'static [Feature],
}

/// Set by the first `#[symx::test]` that runs: every test of one binary shares its package
/// and its features, so the first is as good as any.
static BUILT: OnceLock<Built> = OnceLock::new();

/// Records how this binary was built (called by the code `#[symx::test]` generates).
pub fn built_with(manifest_dir: Option<&'static str>, features: &'static [Feature]) {
    let _ = BUILT.set(Built {
        manifest_dir,
        features,
    });
}

/// The command that replays `token` on the test `name` (its path without the crate name).
pub(crate) fn for_test(token: &str, name: &str) -> String {
    let rustflags = std::env::var("RUSTFLAGS").unwrap_or_default();
    let (mut cargo, note) = match BUILT.get() {
        Some(b) => (cargo_options(b.manifest_dir, b.features), ""),
        None => {
            let dir = std::env::var("CARGO_MANIFEST_DIR").ok();
            let note = if dir.as_deref().is_some_and(declares_features) {
                "  # and this run's --features: symx sees them only in a binary with a \
                 #[symx::test]"
            } else {
                ""
            };
            (cargo_options(dir.as_deref(), &[]), note)
        }
    };
    if let Ok(exe) = std::env::current_exe() {
        let manifest_dir = BUILT
            .get()
            .and_then(|b| b.manifest_dir.map(PathBuf::from))
            .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from));
        cargo.push_str(&build_options(&exe, manifest_dir.as_deref()));
    }
    format!(
        "SYMX_REPLAY={token} {}cargo test {cargo}{name} -- --exact --include-ignored{note}",
        rustflags_prefix(cfg!(symx), &rustflags)
    )
}

/// Whether the package's manifest declares features (or optional dependencies, which are
/// features too).
fn declares_features(manifest_dir: &str) -> bool {
    std::fs::read_to_string(Path::new(manifest_dir).join("Cargo.toml")).is_ok_and(|text| {
        text.lines().any(|l| {
            let l = l.trim().replace(' ', "");
            l == "[features]" || l.contains("optional=true")
        })
    })
}

/// `--release` or `--profile NAME`, `--target TRIPLE` and `--target-dir DIR`, as the test
/// binary's path shows them: cargo puts it at `DIR/[TRIPLE/]PROFILE-DIR/deps/NAME`, where the
/// profile's directory is `debug` for the dev and test profiles, `release` for release and
/// bench, and the profile's name otherwise; `DIR` (which holds cargo's `.rustc_info.json`,
/// and its `CACHEDIR.TAG` when cargo created the directory) is named when it is not the
/// `target` directory beside the manifest or one of its ancestors.
fn build_options(exe: &Path, manifest_dir: Option<&Path>) -> String {
    let is_target_dir =
        |d: &Path| d.join("CACHEDIR.TAG").is_file() || d.join(".rustc_info.json").is_file();
    let Some(profile_dir) = exe
        .parent()
        .filter(|d| d.ends_with("deps"))
        .and_then(Path::parent)
    else {
        return String::new();
    };
    let Some(above) = profile_dir.parent() else {
        return String::new();
    };
    let (target_dir, triple) = if is_target_dir(above) {
        (above, None)
    } else {
        match above.parent().filter(|d| is_target_dir(d)) {
            Some(dir) => (dir, above.file_name()),
            None => return String::new(),
        }
    };
    let mut out = String::new();
    match profile_dir.file_name().and_then(|p| p.to_str()) {
        Some("debug") | None => {}
        Some("release") => out.push_str("--release "),
        Some(profile) => out.push_str(&format!("--profile {} ", shell_word(profile))),
    }
    if let Some(triple) = triple {
        out.push_str(&format!(
            "--target {} ",
            shell_word(&triple.to_string_lossy())
        ));
    }
    let beside_manifest =
        manifest_dir.is_some_and(|m| m.ancestors().any(|a| a.join("target") == target_dir));
    if !beside_manifest {
        let dir = shell_word(&target_dir.to_string_lossy());
        out.push_str(&format!("--target-dir {dir} "));
    }
    out
}

/// `--manifest-path` (so the command works from any directory; none outside cargo), then
/// `--no-default-features` when the package's defaults were off, then the features this build
/// enabled beyond them.
fn cargo_options(manifest_dir: Option<&str>, features: &[Feature]) -> String {
    let mut out = match manifest_dir {
        Some(dir) => format!(
            "--manifest-path {} ",
            shell_word(&format!("{dir}/Cargo.toml"))
        ),
        None => String::new(),
    };
    let defaults_on = features.iter().any(|&(f, on, _)| f == "default" && on);
    let has_default = features.iter().any(|&(f, _, _)| f == "default");
    if has_default && !defaults_on {
        out.push_str("--no-default-features ");
    }
    let extra: Vec<&str> = (features.iter())
        .filter(|&&(f, on, by_default)| on && f != "default" && !(by_default && defaults_on))
        .map(|&(f, _, _)| f)
        .collect();
    if !extra.is_empty() {
        out.push_str(&format!("--features {} ", extra.join(",")));
    }
    out
}

/// The environment's `RUSTFLAGS` as a prefix of the command (a run started with
/// `RUSTFLAGS=… cargo test` needs them again), with `--cfg symx` added in a symx build.
fn rustflags_prefix(symx_build: bool, rustflags: &str) -> String {
    let mut flags = rustflags.trim().to_string();
    if symx_build && !flags.contains("--cfg symx") {
        flags = format!("{flags} --cfg symx").trim().to_string();
    }
    if flags.is_empty() {
        return String::new();
    }
    format!("RUSTFLAGS=\"{flags}\" ")
}

/// `word` as one shell word: quoted when it holds anything but plain path characters.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:=@%,".contains(c);
    if word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environments_rustflags_are_repeated_with_the_cfg_of_a_symx_build() {
        assert_eq!(rustflags_prefix(false, ""), "");
        assert_eq!(rustflags_prefix(false, "-Cx"), "RUSTFLAGS=\"-Cx\" ");
        assert_eq!(rustflags_prefix(true, ""), "RUSTFLAGS=\"--cfg symx\" ");
        assert_eq!(
            rustflags_prefix(true, "-Cx"),
            "RUSTFLAGS=\"-Cx --cfg symx\" "
        );
        assert_eq!(
            rustflags_prefix(true, "--cfg symx -Cx"),
            "RUSTFLAGS=\"--cfg symx -Cx\" "
        );
    }

    /// A target directory laid out as cargo lays it out, with a test binary in `profile`.
    fn binary_in(target: &Path, triple: Option<&str>, profile: &str) -> PathBuf {
        std::fs::create_dir_all(target).unwrap();
        std::fs::write(target.join("CACHEDIR.TAG"), "").unwrap();
        let mut deps = target.to_path_buf();
        deps.extend(triple);
        deps.extend([profile, "deps"]);
        std::fs::create_dir_all(&deps).unwrap();
        deps.join("t-0123")
    }

    #[test]
    fn the_profile_target_and_target_dir_are_read_off_the_binarys_path() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path();
        let project = root.join("p");
        let target = project.join("target");
        let options = |exe: &Path| build_options(exe, Some(&project.join("crates/q")));
        assert_eq!(options(&binary_in(&target, None, "debug")), "");
        assert_eq!(options(&binary_in(&target, None, "release")), "--release ");
        assert_eq!(
            options(&binary_in(
                &target,
                Some("x86_64-unknown-linux-musl"),
                "fast"
            )),
            "--profile fast --target x86_64-unknown-linux-musl "
        );
        let elsewhere = root.join("elsewhere");
        assert_eq!(
            options(&binary_in(&elsewhere, None, "debug")),
            format!("--target-dir {} ", elsewhere.display())
        );
        // A target directory that existed before cargo used it has no CACHEDIR.TAG, only
        // cargo's rustc cache; one nested in another is not taken for a `--target` triple.
        let nested = elsewhere.join("nested");
        let exe = binary_in(&nested, None, "debug");
        std::fs::remove_file(nested.join("CACHEDIR.TAG")).unwrap();
        std::fs::write(nested.join(".rustc_info.json"), "{}").unwrap();
        assert_eq!(options(&exe), format!("--target-dir {} ", nested.display()));
        // Not a cargo target directory: nothing is guessed.
        assert_eq!(options(&root.join("bin/t")), "");
    }

    #[test]
    fn features_beyond_the_defaults_are_named_and_missing_defaults_turned_off() {
        let path = "--manifest-path /w/p/Cargo.toml ";
        assert_eq!(cargo_options(Some("/w/p"), &[]), path);
        assert_eq!(cargo_options(None, &[("x", true, false)]), "--features x ");
        let on = [
            ("default", true, false),
            ("a", true, true),
            ("x", true, false),
        ];
        assert_eq!(
            cargo_options(Some("/w/p"), &on),
            format!("{path}--features x ")
        );
        let off = [
            ("default", false, false),
            ("a", true, true),
            ("x", false, false),
        ];
        assert_eq!(
            cargo_options(Some("/w/p"), &off),
            format!("{path}--no-default-features --features a ")
        );
        assert_eq!(
            cargo_options(Some("/my dir"), &[]),
            "--manifest-path '/my dir/Cargo.toml' "
        );
    }
}
