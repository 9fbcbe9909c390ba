//! The symx build: the user's own rustflags with `--cfg symx` (and its `--check-cfg`) appended,
//! built into a target directory of its own, so that a library's `#[cfg(symx)]` swap is on under
//! `cargo symx` and a plain `cargo build` afterwards finds its own artifacts untouched.
//!
//! Cargo takes rustflags from the first of these that is set: `CARGO_ENCODED_RUSTFLAGS`,
//! `RUSTFLAGS`, the configuration's `target.<triple>.rustflags`/`target.<cfg>.rustflags`
//! (joined), `build.rustflags`. Appending must keep the user's flags in effect whichever source
//! they come from, so the driver hands cargo one `CARGO_ENCODED_RUSTFLAGS` (which wins over
//! every other source) holding the user's flags followed by its own. When they come from the
//! environment they are read from it; when they come from the configuration, reading the
//! configuration ourselves would mean redoing cargo's file search, precedence and `cfg(...)`
//! matching, so cargo is asked instead: a `cargo metadata` of an empty package runs with this
//! executable as `RUSTC_WRAPPER` ([`probe_main`]), and the flags cargo passes to its
//! `rustc --print=cfg` query are exactly the ones it would compile with.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The environment variable that turns this executable into the probe's rustc wrapper; its
/// value is the file the probe writes the flags to.
pub const PROBE_ENV: &str = "__SYMX_PROBE_RUSTFLAGS";

/// The flags the symx build appends: the cfg, and its registration so that rustc's
/// `unexpected_cfgs` lint knows it.
pub const SYMX_FLAGS: [&str; 4] = ["--cfg", "symx", "--check-cfg", "cfg(symx)"];

/// The directory under the target directory that the symx build uses.
/// What `--cfg-loom` appends as well: a crate's loom tests and `cfg(loom)` swap, built against
/// symx's loom API when the crate's `loom` dependency points at it.
pub const LOOM_FLAGS: [&str; 4] = ["--cfg", "loom", "--check-cfg", "cfg(loom)"];

pub const SYMX_DIR: &str = "symx";

/// The separator of `CARGO_ENCODED_RUSTFLAGS`.
const SEP: char = '\x1f';

/// Where the user's rustflags come from, in cargo's order of precedence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UserFlags {
    /// `CARGO_ENCODED_RUSTFLAGS` is set (even empty: cargo then uses no flags at all).
    Encoded(Vec<String>),
    /// `RUSTFLAGS` is set.
    Plain(Vec<String>),
    /// Neither: the configuration decides (possibly no flags).
    Configured,
}

impl UserFlags {
    /// Reads the two environment variables as cargo does.
    pub fn from_env(encoded: Option<OsString>, plain: Option<OsString>) -> UserFlags {
        if let Some(e) = encoded {
            let e = e.to_string_lossy().into_owned();
            return UserFlags::Encoded(if e.is_empty() {
                Vec::new()
            } else {
                e.split(SEP).map(str::to_string).collect()
            });
        }
        match plain {
            Some(p) => UserFlags::Plain(
                p.to_string_lossy()
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            ),
            None => UserFlags::Configured,
        }
    }
}

/// `CARGO_ENCODED_RUSTFLAGS` for the symx build: `user`'s flags, then ours.
pub fn encoded(user: &[String], cfg_loom: bool) -> String {
    let loom = if cfg_loom { &LOOM_FLAGS[..] } else { &[] };
    let ours = SYMX_FLAGS.iter().chain(loom).map(|s| s.to_string());
    let all: Vec<String> = user.iter().cloned().chain(ours).collect();
    all.join(&SEP.to_string())
}

/// The value of `CARGO_ENCODED_RUSTFLAGS` that builds what the user's own build would, with
/// `--cfg symx` appended (and `--cfg loom` with `--cfg-loom`).
pub fn symx_rustflags(cargo: &Path, cfg_loom: bool) -> Result<String, String> {
    let user = match UserFlags::from_env(
        std::env::var_os("CARGO_ENCODED_RUSTFLAGS"),
        std::env::var_os("RUSTFLAGS"),
    ) {
        UserFlags::Encoded(f) | UserFlags::Plain(f) => f,
        UserFlags::Configured => configured(cargo)?,
    };
    Ok(encoded(&user, cfg_loom))
}

/// The target directory of the symx build: `symx/` under the one cargo would use (`--target-dir`,
/// else the workspace's, which already follows `CARGO_TARGET_DIR` and `build.target-dir`).
pub fn target_dir(given: Option<&Path>, workspace_target: &Path) -> PathBuf {
    given.unwrap_or(workspace_target).join(SYMX_DIR)
}

/// The rustflags the configuration gives, learnt from cargo itself (see the module doc).
fn configured(cargo: &Path) -> Result<Vec<String>, String> {
    let dir = std::env::temp_dir().join(format!("symx-rustflags-{}", std::process::id()));
    let found = probe(cargo, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    found
}

/// Runs the probe in the scratch directory `dir`.
fn probe(cargo: &Path, dir: &Path) -> Result<Vec<String>, String> {
    let manifest = dir.join("Cargo.toml");
    let package = "[package]\nname = \"symx-rustflags-probe\"\nversion = \"0.0.0\"\n\
                   edition = \"2021\"\n[lib]\npath = \"lib.rs\"\n[workspace]\n";
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&manifest, package))
        .and_then(|()| std::fs::write(dir.join("lib.rs"), ""))
        .map_err(|e| format!("cannot write the rustflags probe in {}: {e}", dir.display()))?;
    let out = dir.join("flags");
    let me = std::env::current_exe()
        .map_err(|e| format!("cannot find the cargo-symx executable: {e}"))?;
    // The current directory stays the user's: cargo reads its configuration from there.
    let run = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline"])
        .arg("--manifest-path")
        .arg(&manifest)
        .env("RUSTC_WRAPPER", me)
        .env(PROBE_ENV, &out)
        // Cargo caches the query's answer; a cached answer would never reach the probe.
        .env("CARGO_CACHE_RUSTC_INFO", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let advice = "set RUSTFLAGS to the flags to build with";
    if !run.status.success() {
        return Err(format!(
            "cannot learn the rustflags of cargo's configuration (cargo metadata failed: {}); \
             {advice}",
            String::from_utf8_lossy(&run.stderr).trim()
        ));
    }
    let flags = std::fs::read_to_string(target_file(out.as_os_str()))
        .or_else(|_| std::fs::read_to_string(&out))
        .map_err(|_| {
            format!(
                "cannot learn the rustflags of cargo's configuration (cargo did not ask rustc for \
                 its cfgs); {advice}"
            )
        })?;
    Ok(flags
        .split(SEP)
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect())
}

/// Where the probe writes the flags of a query for a `--target`, beside `out`.
fn target_file(out: &std::ffi::OsStr) -> PathBuf {
    let mut name = out.to_owned();
    name.push(".target");
    PathBuf::from(name)
}

/// The flags of a `rustc - --crate-name ___ --print=file-names FLAGS... --crate-type ...`
/// query (cargo's target-information query, the flags cargo compiles with in the middle), or
/// `None` for any other invocation.
pub fn query_flags(args: &[String]) -> Option<Vec<String>> {
    let start = args.iter().position(|a| a == "--print=file-names")? + 1;
    let rest = &args[start..];
    let end = rest
        .iter()
        .position(|a| a == "--crate-type" || a == "--target")
        .unwrap_or(rest.len());
    Some(rest[..end].to_vec())
}

/// The probe's `main`: cargo runs `cargo-symx RUSTC ARGS...`; the flags of its target query go
/// to the file [`PROBE_ENV`] names, and rustc runs as asked so that cargo gets its answers.
pub fn probe_main(out: OsString) -> u8 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(flags) = query_flags(&args) {
        // Cargo may ask more than once (again with the flags of the `target.'cfg(..)'` tables
        // the first answer matched): the last query holds the flags it compiles with. With
        // `build.target` it asks for the host and for the target, whose flags the tests get.
        let to = if args.iter().any(|a| a == "--target") {
            target_file(&out)
        } else {
            PathBuf::from(&out)
        };
        if std::fs::write(to, flags.join(&SEP.to_string())).is_err() {
            return 101;
        }
    }
    let Some((rustc, rest)) = args.split_first() else {
        return 101;
    };
    match Command::new(rustc).args(rest).status() {
        Ok(s) => s.code().map_or(101, |c| c as u8),
        Err(_) => 101,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn cargo_encoded_rustflags_win_over_rustflags_even_when_empty() {
        let both = UserFlags::from_env(Some("-Ca\x1f--cfg\x1fx y".into()), Some("-Cb".into()));
        assert_eq!(
            both,
            UserFlags::Encoded(vec!["-Ca".into(), "--cfg".into(), "x y".into()])
        );
        assert_eq!(
            UserFlags::from_env(Some("".into()), Some("-Cb".into())),
            UserFlags::Encoded(vec![])
        );
        assert_eq!(
            UserFlags::from_env(None, Some(" --cfg  user ".into())),
            UserFlags::Plain(words("--cfg user"))
        );
        assert_eq!(UserFlags::from_env(None, None), UserFlags::Configured);
    }

    #[test]
    fn our_flags_come_after_the_users() {
        assert_eq!(
            encoded(&words("--cfg user"), false),
            "--cfg\x1fuser\x1f--cfg\x1fsymx\x1f--check-cfg\x1fcfg(symx)"
        );
        assert_eq!(
            encoded(&[], false),
            "--cfg\x1fsymx\x1f--check-cfg\x1fcfg(symx)"
        );
    }

    #[test]
    fn the_flags_of_cargos_target_query_are_the_ones_between_file_names_and_crate_types() {
        let query = words(
            "rustc - --crate-name ___ --print=file-names -Cdebug-assertions=off --cfg a \
             --crate-type bin --crate-type rlib --print=sysroot --print=cfg -Wwarnings",
        );
        assert_eq!(
            query_flags(&query),
            Some(words("-Cdebug-assertions=off --cfg a"))
        );
        let targeted =
            words("rustc - --crate-name ___ --print=file-names --target x86 --crate-type bin");
        assert_eq!(query_flags(&targeted), Some(vec![]));
        assert_eq!(query_flags(&words("rustc -vV")), None);
    }

    #[test]
    fn the_symx_build_has_its_own_directory_under_the_chosen_target_directory() {
        let ws = Path::new("/ws/target");
        assert_eq!(target_dir(None, ws), Path::new("/ws/target/symx"));
        assert_eq!(target_dir(Some(Path::new("/t")), ws), Path::new("/t/symx"));
    }
}
