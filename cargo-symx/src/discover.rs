//! Finding and building the tests: `cargo metadata` for the workspace, `cargo test --no-run
//! --message-format=json` for the executables, `<binary> --list` for the tests in each.
//! Compiler diagnostics are forwarded unchanged, so a build error looks like cargo's own.
//! The tests are built with `--cfg symx` in a target directory of their own ([`rustflags`]).

pub mod absent;
pub mod rustflags;

use std::ffi::OsString;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cargo_metadata::{Message, Metadata, MetadataCommand, PackageId};

/// Which packages to build and how: cargo's own options as the user gave them.
#[derive(Clone, Debug, Default)]
pub struct CargoOptions {
    pub manifest_path: Option<PathBuf>,
    pub packages: Vec<String>,
    pub workspace: bool,
    pub features: Vec<String>,
    /// Features the configuration adds, each as `package/feature` (`features` in
    /// `[package.metadata.symx]`): not the user's words, so not in printed commands.
    pub configured_features: Vec<String>,
    pub release: bool,
    pub target_dir: Option<PathBuf>,
    /// Build as plain `cargo test` does: without `--cfg symx`, in cargo's own target directory.
    pub no_cfg_symx: bool,
    /// Build with `--cfg loom` too (`--cfg-loom`): the crate's loom tests, against symx's loom
    /// API.
    pub cfg_loom: bool,
}

impl CargoOptions {
    /// The options as a user would type them again (`--manifest-path`, `--features`,
    /// `--release`, `--target-dir`, `--no-cfg-symx`), each followed by a space: what a printed
    /// command needs to build what this run built.
    pub fn as_typed(&self) -> String {
        let mut out = String::new();
        if let Some(path) = &self.manifest_path {
            out.push_str(&format!("--manifest-path {} ", path.display()));
        }
        if !self.features.is_empty() {
            out.push_str(&format!("--features {} ", self.features.join(",")));
        }
        if self.release {
            out.push_str("--release ");
        }
        if let Some(dir) = &self.target_dir {
            out.push_str(&format!("--target-dir {} ", dir.display()));
        }
        if self.no_cfg_symx {
            out.push_str("--no-cfg-symx ");
        }
        if self.cfg_loom {
            out.push_str("--cfg-loom ");
        }
        out
    }
}

/// The workspace members cargo builds for these options: `-p`'s, every member with
/// `--workspace`, else the member whose manifest is the given one or the nearest above the
/// current directory, else the default members.
pub fn selected<'m>(
    args: &CargoOptions,
    metadata: &'m Metadata,
) -> Vec<&'m cargo_metadata::Package> {
    let members = metadata.workspace_packages();
    if args.workspace {
        return members;
    }
    if !args.packages.is_empty() {
        return members
            .into_iter()
            .filter(|p| args.packages.iter().any(|s| s == p.name.as_str()))
            .collect();
    }
    let manifest = args.manifest_path.clone().or_else(nearest_manifest);
    let canonical = |p: &Path| p.canonicalize().ok();
    if let Some(own) = manifest.as_deref().and_then(canonical) {
        let found: Vec<_> = members
            .iter()
            .copied()
            .filter(|p| canonical(p.manifest_path.as_std_path()).as_ref() == Some(&own))
            .collect();
        if !found.is_empty() {
            return found;
        }
    }
    if metadata.workspace_default_members.is_missing() {
        return members; // cargo before 1.71 does not say
    }
    metadata.workspace_default_packages()
}

/// The `Cargo.toml` nearest above the current directory (cargo's own choice without
/// `--manifest-path`).
fn nearest_manifest() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .map(|d| d.join("Cargo.toml"))
        .find(|m| m.is_file())
}

/// One test executable cargo built.
#[derive(Clone, Debug)]
pub struct TestBinary {
    pub package: String,
    pub package_id: PackageId,
    /// The target's name (`counter` for `tests/counter.rs`, the crate name for unit tests).
    pub target: String,
    pub path: PathBuf,
    /// The package's directory: cargo runs tests there, and so do we.
    pub cwd: PathBuf,
    /// The target's root source file, relative to the workspace root when inside it: where a
    /// failure without a source location of its own (a crash) is pinned in SARIF.
    pub source: String,
}

/// One test inside a binary, as libtest names it.
#[derive(Clone, Debug)]
pub struct TestCase {
    pub binary: TestBinary,
    pub name: String,
    /// Environment variables its workers get besides the driver's own (the context mode a
    /// comparison run explores in).
    pub env: Vec<(String, String)>,
}

/// `cargo`: `$CARGO` when cargo runs us (`cargo symx ...` sets it), else the first `cargo` on
/// PATH; an error saying so when there is none, rather than a failed spawn later.
pub fn cargo() -> Result<PathBuf, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    locate_cargo(std::env::var_os("CARGO"), std::env::var_os("PATH"), &cwd)
}

fn locate_cargo(
    from_env: Option<OsString>,
    path: Option<OsString>,
    cwd: &Path,
) -> Result<PathBuf, String> {
    if let Some(cargo) = from_env.filter(|c| !c.is_empty()) {
        return Ok(cargo.into());
    }
    which::which_in("cargo", path, cwd).map_err(|e| {
        format!(
            "cannot find `cargo` on PATH ({e}); install Rust (https://rustup.rs) or set CARGO to \
             the cargo executable"
        )
    })
}

pub fn metadata(args: &CargoOptions) -> Result<Metadata, String> {
    let mut cmd = MetadataCommand::new();
    cmd.cargo_path(cargo()?);
    if let Some(path) = &args.manifest_path {
        cmd.manifest_path(path);
    }
    cmd.no_deps();
    cmd.exec()
        .map_err(|e| format!("cannot read the workspace: {e}"))
}

/// How the tests are built: the symx build's rustflags and target directory, or (with
/// `--no-cfg-symx`) exactly what `cargo test` would do.
fn add_build_flags(
    cmd: &mut Command,
    args: &CargoOptions,
    metadata: &Metadata,
) -> Result<(), String> {
    if let Some(dir) = build_dir(args, metadata.target_directory.as_std_path()) {
        cmd.arg("--target-dir").arg(dir);
    }
    if !args.no_cfg_symx {
        cmd.env(
            "CARGO_ENCODED_RUSTFLAGS",
            rustflags::symx_rustflags(&cargo()?, args.cfg_loom)?,
        );
    }
    Ok(())
}

/// The `--target-dir` the tests are built with: the symx build's own directory, or with
/// `--no-cfg-symx` the user's (`None`: cargo's default).
fn build_dir(args: &CargoOptions, workspace_target: &Path) -> Option<PathBuf> {
    if args.no_cfg_symx {
        return args.target_dir.clone();
    }
    Some(rustflags::target_dir(
        args.target_dir.as_deref(),
        workspace_target,
    ))
}

fn add_cargo_args(cmd: &mut Command, args: &CargoOptions, color: bool) {
    if let Some(path) = &args.manifest_path {
        cmd.arg("--manifest-path").arg(path);
    }
    for p in &args.packages {
        cmd.args(["--package", p]);
    }
    if args.workspace {
        cmd.arg("--workspace");
    }
    for f in args.features.iter().chain(&args.configured_features) {
        cmd.args(["--features", f]);
    }
    if args.release {
        cmd.arg("--release");
    }
    cmd.args(["--color", if color { "always" } else { "never" }]);
}

/// Builds every test target the arguments select; cargo's own output goes to our stderr.
pub fn build(
    args: &CargoOptions,
    metadata: &Metadata,
    color: bool,
) -> Result<Vec<TestBinary>, String> {
    let mut cmd = Command::new(cargo()?);
    cmd.args(["test", "--no-run"]);
    cmd.arg(if color {
        "--message-format=json-diagnostic-rendered-ansi"
    } else {
        "--message-format=json"
    });
    add_cargo_args(&mut cmd, args, color);
    add_build_flags(&mut cmd, args, metadata)?;
    cmd.stdout(Stdio::piped()).stderr(Stdio::inherit());
    let mut child = cmd.spawn().map_err(|e| format!("cannot run cargo: {e}"))?;
    let stdout = child.stdout.take().expect("piped");
    let mut binaries = Vec::new();
    for message in Message::parse_stream(BufReader::new(stdout)) {
        match message.map_err(|e| format!("cannot read cargo's output: {e}"))? {
            Message::CompilerMessage(m) => {
                if let Some(rendered) = &m.message.rendered {
                    eprint!("{rendered}");
                }
            }
            Message::CompilerArtifact(a) if a.profile.test => {
                if let Some(exe) = a.executable {
                    let mut b = binary(metadata, a.package_id, a.target.name, exe.into());
                    let src = a.target.src_path.as_std_path();
                    let root = metadata.workspace_root.as_std_path();
                    b.source = src.strip_prefix(root).unwrap_or(src).display().to_string();
                    binaries.push(b);
                }
            }
            _ => {}
        }
    }
    let status = child.wait().map_err(|e| format!("cargo failed: {e}"))?;
    if !status.success() {
        return Err("the tests did not build (cargo's errors are above)".into());
    }
    binaries.sort_by(|a, b| (&a.package, &a.target).cmp(&(&b.package, &b.target)));
    Ok(binaries)
}

fn binary(metadata: &Metadata, id: PackageId, target: String, path: PathBuf) -> TestBinary {
    let package = metadata.packages.iter().find(|p| p.id == id);
    TestBinary {
        package: package.map_or_else(|| id.repr.clone(), |p| p.name.to_string()),
        cwd: package
            .and_then(|p| p.manifest_path.parent())
            .map_or_else(|| metadata.workspace_root.clone().into(), |d| d.into()),
        package_id: id,
        target,
        path,
        source: String::new(),
    }
}

/// The tests of `binary` whose name contains `filter`, as `<binary> --list` reports them.
pub fn list(
    binary: &TestBinary,
    filter: Option<&str>,
    extra: &[String],
) -> Result<Vec<TestCase>, String> {
    let out = Command::new(&binary.path)
        .args(["--list", "--format", "terse"])
        .args(extra)
        .current_dir(&binary.cwd)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.path.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} --list failed: {}",
            binary.path.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let libtest = |l: &str| l.is_empty() || l.ends_with(": test") || l.ends_with(": bench");
    if !text.lines().all(libtest) {
        return Err(format!(
            "{} does not list its tests like libtest (harness = false?)",
            binary.path.display()
        ));
    }
    Ok(text
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .filter(|name| filter.is_none_or(|f| name.contains(f)))
        .map(|name| TestCase {
            binary: binary.clone(),
            name: name.to_string(),
            env: Vec::new(),
        })
        .collect())
}

/// Builds the selected test targets of the workspace `metadata` describes and lists the tests
/// matching `filter`; `color` colours cargo's output (what `test`, `list`, `replay` and `predict`
/// all start with).
pub fn build_and_list(
    cargo: &CargoOptions,
    metadata: &Metadata,
    filter: Option<&str>,
    extra: &[String],
    color: bool,
) -> Result<Vec<TestCase>, String> {
    let binaries: Vec<TestBinary> = build(cargo, metadata, color)?;
    let mut cases = Vec::new();
    for b in &binaries {
        // A binary that is not a libtest harness (`harness = false`) cannot be listed: it is
        // said so and left out rather than failing the run.
        match list(b, filter, extra) {
            Ok(found) => cases.extend(found),
            Err(e) => eprintln!("warning: {e}; its tests are not run"),
        }
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opt_out_builds_where_and_as_cargo_test_does_and_printed_commands_repeat_it() {
        let ws = Path::new("/ws/target");
        let mut args = CargoOptions::default();
        assert_eq!(build_dir(&args, ws), Some(PathBuf::from("/ws/target/symx")));
        assert_eq!(args.as_typed(), "");
        args.no_cfg_symx = true;
        assert_eq!(build_dir(&args, ws), None);
        assert_eq!(args.as_typed(), "--no-cfg-symx ");
        args.target_dir = Some("/t".into());
        assert_eq!(build_dir(&args, ws), Some(PathBuf::from("/t")));
        args.no_cfg_symx = false;
        assert_eq!(build_dir(&args, ws), Some(PathBuf::from("/t/symx")));
        args.target_dir = None;
        args.cfg_loom = true;
        assert_eq!(args.as_typed(), "--cfg-loom ");
    }

    #[test]
    fn cfg_loom_appends_loom_after_symx_to_the_users_flags() {
        let user = vec!["-Cdebuginfo=1".to_string()];
        let sep = '\x1f'.to_string();
        assert_eq!(
            rustflags::encoded(&user, true),
            [
                "-Cdebuginfo=1",
                "--cfg",
                "symx",
                "--check-cfg",
                "cfg(symx)",
                "--cfg",
                "loom"
            ]
            .into_iter()
            .chain(["--check-cfg", "cfg(loom)"])
            .collect::<Vec<_>>()
            .join(&sep)
        );
        assert!(!rustflags::encoded(&user, false).contains("loom"));
    }

    #[test]
    fn cargo_comes_from_the_environment_first_then_from_path() {
        let dir = tempfile::tempdir().unwrap();
        let on_path = dir.path().join("cargo");
        std::fs::write(&on_path, "").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&on_path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let path = Some(dir.path().as_os_str().to_owned());
        let from_env = locate_cargo(Some("/opt/rust/cargo".into()), path.clone(), dir.path());
        assert_eq!(from_env, Ok(PathBuf::from("/opt/rust/cargo")));
        assert_eq!(
            locate_cargo(None, path.clone(), dir.path()),
            Ok(on_path.clone())
        );
        assert_eq!(locate_cargo(Some("".into()), path, dir.path()), Ok(on_path));
    }

    #[test]
    fn a_missing_cargo_is_an_error_that_says_so() {
        let empty = tempfile::tempdir().unwrap();
        let err = locate_cargo(
            None,
            Some(empty.path().as_os_str().to_owned()),
            empty.path(),
        )
        .expect_err("no cargo in an empty directory");
        assert!(err.starts_with("cannot find `cargo` on PATH"), "{err}");
        assert!(err.contains("set CARGO"), "{err}");
    }
}
