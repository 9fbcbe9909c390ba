//! Where a user reads an annotated step as happening. An annotated primitive reached through a
//! wrapper crate has its caller inside the wrapper: a `lock_api` guard's `Drop` calls the
//! annotated `RawMutex::unlock`, and a `Drop` cannot be `#[track_caller]`, so
//! `Location::caller()` names a line of `lock_api`'s source the user never wrote. For such a
//! caller (one in a dependency's source: the cargo registry, a git checkout, the standard
//! library) the user's line is the first frame outside dependency sources beyond the wrapper's,
//! found by walking the stack.
//!
//! Symbolising is the expensive part (the first time, reading the binary's debug information
//! takes a second or two in a debug build), so a step only records its return addresses (a
//! walk of a few microseconds); they are symbolised when a report shows the step, each address
//! once per process. A failure found at such a caller is moved at once. Without debug
//! information (a release build without `debug`) no frame has a file: an annotated release
//! (a wrapper's guard dropped, a `force_unlock`) is then at the line where the thread acquired
//! the object (its `lock()`, which `#[track_caller]` carries through the wrapper), as a symx
//! guard's unlock is; any other step keeps its caller's location.

use std::collections::HashMap;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::execution::{ctx, Found};
use super::op::{Event, ObjId, OpKind, ThreadId};
use crate::report::step::SourceLocation;

/// Return addresses of one stack, innermost first.
#[derive(Clone, Debug)]
pub(crate) struct Stack {
    from: From,
    ips: Vec<usize>,
}

/// Where on the stack the user's line is looked for.
#[derive(Clone, Copy, Debug)]
enum From {
    /// Beyond the frame of this caller, which is in a dependency's source.
    Caller(&'static Location<'static>),
    /// Beyond symx's own frames: a guard's `Drop`, which has no caller location.
    Runtime,
}

/// How many frames a walk records: the annotation's own frames, the annotated method, the
/// wrapper's frames and the user's line fit well within it.
const WALK_DEPTH: usize = 48;

/// The step the current thread has just taken at `caller`: when `caller` is in a dependency's
/// source, the step keeps its stack, so that the report's row can show the user's line. (Every
/// step inside an annotated method is at its caller's line, since the annotation makes the
/// method `#[track_caller]`.)
pub(crate) fn note_step(caller: &'static Location<'static>) {
    if !is_foreign(caller) {
        return;
    }
    let Some(ctx) = ctx() else { return };
    let stack = walk(From::Caller(caller));
    let mut e = ctx.exec.borrow_mut();
    let me = e.current;
    if e.trace.last().is_some_and(|ev| ev.thread == me) {
        let step = e.trace.len() - 1;
        e.user_sites.push((step, stack));
    }
}

/// The unlock the current thread has just taken happened where its guard was dropped: the
/// first frame beyond symx's own and `drop_in_place`, which `Location::caller()` cannot give
/// (a `Drop` is not `#[track_caller]`). Only in executions rendered for a report: a failure
/// found while exploring is rendered by running its schedule again.
pub(crate) fn note_drop() {
    let Some(ctx) = ctx() else { return };
    if std::thread::panicking() || !ctx.exec.borrow().rendering {
        return;
    }
    let stack = walk(From::Runtime);
    let mut e = ctx.exec.borrow_mut();
    let me = e.current;
    let unlocked = |ev: &super::op::Event| {
        ev.thread == me && matches!(ev.kind, OpKind::Unlock | OpKind::ReadUnlock)
    };
    if e.trace.last().is_some_and(unlocked) {
        let step = e.trace.len() - 1;
        e.user_sites.retain(|(s, _)| *s != step);
        e.user_sites.push((step, stack));
    }
}

/// A failure found at `caller` moves to the user's line: its location, and the detail lines
/// that name `caller`.
pub(crate) fn relocate(found: Found, caller: &'static Location<'static>) -> Found {
    if !is_foreign(caller) {
        return found;
    }
    match walk(From::Caller(caller)).user_site() {
        Some(site) => moved(found, caller, site),
        None => found,
    }
}

/// [`relocate`] for a failure of the current thread's annotated release of `obj` at
/// `caller`: where the stack shows no user frame, the failure is at the line where the thread
/// acquired `obj` (see the module doc).
pub(crate) fn relocate_release(
    found: Found,
    caller: &'static Location<'static>,
    obj: ObjId,
) -> Found {
    if !is_foreign(caller) {
        return found;
    }
    let site = walk(From::Caller(caller)).user_site().or_else(|| {
        let ctx = ctx()?;
        let e = ctx.exec.borrow();
        acquired_at(&e.trace, e.current, obj).map(SourceLocation::from)
    });
    match site {
        Some(site) => moved(found, caller, site),
        None => found,
    }
}

/// `found`, at `caller`, moved to `site`: its location, and the detail lines that name `caller`.
fn moved(mut found: Found, caller: &'static Location<'static>, site: SourceLocation) -> Found {
    let (from, to) = (caller.to_string(), site.to_string());
    for line in &mut found.details {
        *line = line.replace(&from, &to);
    }
    found.location = Some(site);
    found
}

/// Where `thread` last acquired `obj` among `trace`'s steps (an annotated acquisition at a
/// line of the user's), for a release whose own line the stack cannot show.
pub(crate) fn acquired_at(
    trace: &[Event],
    thread: ThreadId,
    obj: ObjId,
) -> Option<&'static Location<'static>> {
    let acquires = |ev: &&Event| {
        ev.thread == thread
            && ev.obj == Some(obj)
            && matches!(
                ev.kind,
                OpKind::AnnotatedAcquire | OpKind::AnnotatedAcquireShared
            )
    };
    let last = trace.iter().rev().find(acquires)?;
    (!is_foreign(last.location)).then_some(last.location)
}

fn walk(from: From) -> Stack {
    let mut ips = Vec::with_capacity(WALK_DEPTH);
    backtrace::trace(|frame| {
        ips.push(frame.ip() as usize);
        ips.len() < WALK_DEPTH
    });
    Stack { from, ips }
}

impl Stack {
    /// The user's frame: for [`From::Caller`], the first frame outside dependency sources
    /// beyond the caller's; for [`From::Runtime`], the first outside dependency sources and
    /// symx's own. `None` when the stack does not show one (no debug information).
    pub(crate) fn user_site(&self) -> Option<SourceLocation> {
        let frames: Vec<Frame> = self
            .ips
            .iter()
            .flat_map(|&ip| resolved(ip).to_vec())
            .collect();
        let start = match self.from {
            From::Caller(caller) => {
                let at_caller = |f: &&Frame| same_file(&f.file, caller.file());
                frames
                    .iter()
                    .position(|f| at_caller(&f) && f.line == caller.line())
                    .or_else(|| frames.iter().position(|f| at_caller(&f)))?
            }
            From::Runtime => 0,
        };
        let user = frames[start..].iter().find(|f| is_user_source(&f.file))?;
        Some(SourceLocation {
            file: display_path(&user.file),
            line: user.line,
            column: user.column.max(1),
        })
    }
}

/// [`is_dependency_source`] of `caller`'s file, remembered per location: every step asks.
fn is_foreign(caller: &'static Location<'static>) -> bool {
    const SLOTS: usize = 256;
    thread_local! {
        static FOREIGN: [std::cell::Cell<(usize, bool)>; SLOTS] =
            const { [const { std::cell::Cell::new((0, false)) }; SLOTS] };
    }
    let foreign = || is_dependency_source(caller.file());
    FOREIGN.with(|cache| super::execution::by_location(cache, caller, foreign))
}

/// Whether `file` is a dependency's source rather than the user's: crates from a registry or a
/// git checkout, and the standard library (closures and iterator adaptors in between).
pub(crate) fn is_dependency_source(file: &str) -> bool {
    let file = file.replace('\\', "/");
    [
        "/registry/src/",
        "/git/checkouts/",
        "/rustc/",
        "/lib/rustlib/src/",
    ]
    .iter()
    .any(|dir| file.contains(dir))
        || file.starts_with("rustc/")
}

/// Whether a frame at `file` can be the user's line: Rust source, neither a dependency's nor
/// symx's own. A build without debug information for its own code still walks into frames
/// that have it (the C library's thread start, `pthread_create.c`): none of those is the
/// user's, and the step keeps its caller's location.
fn is_user_source(file: &str) -> bool {
    file.ends_with(".rs") && !is_dependency_source(file) && !is_runtime_source(file)
}

/// Whether `file` is one of symx-rt's own sources (the guard's `Drop`, this walk), named as
/// debug information does (absolute) or as `file!()` does (relative to the workspace root).
fn is_runtime_source(file: &str) -> bool {
    let own = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let relative = file!().strip_suffix("rt/site.rs").unwrap_or("symx-rt/src/");
    let file = file.replace('\\', "/");
    Path::new(&file).starts_with(own) || file.starts_with(relative)
}

/// One source frame of the stack (inlined calls are frames of their own).
#[derive(Clone, Debug)]
struct Frame {
    file: String,
    line: u32,
    column: u32,
}

/// Every return address resolved so far, to its frames (innermost first).
type Symbols = HashMap<usize, Arc<[Frame]>>;

fn symbols() -> &'static Mutex<Symbols> {
    static SYMBOLS: OnceLock<Mutex<Symbols>> = OnceLock::new();
    SYMBOLS.get_or_init(Default::default)
}

fn resolved(ip: usize) -> Arc<[Frame]> {
    if let Some(frames) = symbols().lock().unwrap_or_else(|e| e.into_inner()).get(&ip) {
        return frames.clone();
    }
    let mut frames = Vec::new();
    backtrace::resolve(ip as *mut std::ffi::c_void, |symbol| {
        if let (Some(file), Some(line)) = (symbol.filename(), symbol.lineno()) {
            frames.push(Frame {
                file: file.to_string_lossy().into_owned(),
                line,
                column: symbol.colno().unwrap_or(1),
            });
        }
    });
    let frames: Arc<[Frame]> = frames.into();
    let mut cache = symbols().lock().unwrap_or_else(|e| e.into_inner());
    cache.insert(ip, frames.clone());
    frames
}

/// Debug information names files by absolute path; `file!()` names a workspace's own files
/// relative to the workspace root. Compare by path suffix so either form matches.
fn same_file(resolved: &str, named: &str) -> bool {
    resolved == named || Path::new(resolved).ends_with(named)
}

/// `file` as `file!()` would name it: relative to the workspace root when it is inside it.
fn display_path(file: &str) -> String {
    match workspace_root().and_then(|root| Path::new(file).strip_prefix(root).ok()) {
        Some(rel) => rel.to_string_lossy().into_owned(),
        None => file.to_string(),
    }
}

/// The root of the workspace the test belongs to: the nearest directory at or above the
/// package's (cargo sets `CARGO_MANIFEST_DIR` when it runs a test) whose `Cargo.toml` has a
/// `[workspace]` table, else the package's own directory.
fn workspace_root() -> Option<&'static Path> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| {
        let package = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())?;
        let workspace = package.ancestors().find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .is_ok_and(|toml| toml.lines().any(|l| l.trim() == "[workspace]"))
        });
        Some(workspace.unwrap_or(&package).to_path_buf())
    })
    .as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_sources_are_the_registry_git_checkouts_and_the_standard_library() {
        let registry = "/home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/\
                        lock_api-0.4.14/src/mutex.rs";
        assert!(is_dependency_source(registry));
        assert!(is_dependency_source(
            "/home/u/.cargo/git/checkouts/spin-rs-1a2b/3c4d/src/mutex.rs"
        ));
        assert!(is_dependency_source(
            "/rustc/59807616e/library/core/src/ops/function.rs"
        ));
        assert!(!is_dependency_source("tests/primitives.rs"));
        assert!(!is_dependency_source("/home/u/project/src/lib.rs"));
    }

    #[test]
    fn only_rust_source_outside_dependencies_and_symx_is_the_user_s() {
        assert!(is_user_source("/home/u/project/src/lib.rs"));
        assert!(!is_user_source("./nptl/pthread_create.c"));
        assert!(!is_user_source(
            "/rustc/59807616e/library/std/src/thread/mod.rs"
        ));
        assert!(!is_user_source(file!()));
    }

    #[test]
    fn a_caller_in_the_user_s_own_source_is_not_foreign() {
        assert!(!is_foreign(Location::caller()));
    }

    #[test]
    fn a_resolved_absolute_path_matches_the_relative_name_file_gives() {
        assert!(same_file("/work/proj/src/lib.rs", "src/lib.rs"));
        assert!(!same_file("/work/proj/src/lib.rs", "b/lib.rs"));
    }
}
