//! The `SYMX_REPLAY=… cargo test …` command a failure prints under plain `cargo test`: it
//! must build what this run built, or the token names a test the pasted build lacks. A
//! `#[symx::test]` tells the runtime its package's manifest and which of the package's
//! declared features this build enabled ([`built_with`]); the environment's `RUSTFLAGS`
//! are repeated, with `--cfg symx` added in a symx build.

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
    let cargo = match BUILT.get() {
        Some(b) => cargo_options(b.manifest_dir, b.features),
        None => String::new(),
    };
    format!(
        "SYMX_REPLAY={token} {}cargo test {cargo}{name} -- --exact",
        rustflags_prefix(cfg!(symx), &rustflags)
    )
}

/// `--manifest-path` (so the command works from any directory; none outside cargo), then `--no-default-features`
/// when the package's defaults were off, then the features this build enabled beyond them.
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
