//! Support for the code `symx-macros` generates. Not part of the API; may change at any time.

use std::panic::Location;
use std::time::Duration;

use crate::builder::Builder;
use crate::rt::threads::Acquiring;
use crate::rt::{self, site, ObjId};
use crate::sym::notes::{Local, SyncOp};

pub use crate::sym::assertion;

/// What `symx::checkpoint!` expands to.
pub mod checkpoint {
    pub use crate::context::checkpoint::{like, reach, Rel, RelAny, RelSym, ViaAny, ViaSym, Wrap};
}
/// What `#[symx::r#abstract]` functions call.
pub mod abstraction {
    pub use crate::covering::abstraction::call;
}
/// What `#[symx::instrument]` puts at loop heads and epoch markers.
pub mod epoch {
    pub use crate::covering::epoch::{
        barrier_marker, crossed, loop_head, Havoc, HavocAny, HavocSym, Placement,
    };
}
pub use crate::sym::compare::Cmp;
/// What `#[symx::instrument]` marks atomic operations whose result is dropped with.
pub mod blind {
    pub use crate::sync::blind::{Blind, BlindAtomic, BlindOther};
}
/// `core`, for generated code: in an edition 2015 crate `::core::…` names the crate root's
/// `core`, which only an `extern crate core` declares, while `::symx` is there whenever the
/// crate can name symx at all.
pub use ::core;

/// What instrumented bodies import so that rewritten comparisons resolve: the traits only,
/// and anonymously, so that the glob import shadows none of the user's names.
pub mod compare {
    pub use crate::sym::compare::{PlainCompare as _, PlainEq as _, SymCompare as _};
}

/// The body of a `#[symx::test]`: explores `body` (or replays `SYMX_REPLAY`) and fails the
/// test with the report when a bug is found.
pub fn run_test(name: &'static str, builder: Builder, body: fn()) {
    run_test_with(name, builder, body, std::env::var("SYMX_REPLAY").ok());
}

/// [`run_test`] with the replay token passed in rather than read from the environment.
pub fn run_test_with(name: &str, builder: Builder, body: fn(), replay: Option<String>) {
    // `module_path!()` starts with the crate name, which `cargo test` filters do not contain.
    let path = name.split_once("::").map_or(name, |(_, rest)| rest);
    let builder = crate::context::mode_from_env(builder.name(path).trace_dir_from_env());
    // cargo symx: under the driver, the test serves its request instead (see `worker`).
    if crate::worker::serve(path, &builder, body) {
        return;
    }
    // Plain `cargo test` has no timeout: a stuck model thread would hang the test for good.
    let _watching = watch_for_stuck_threads(path);
    if let Some(token) = replay {
        replay_test(&builder, &token, &body);
        return;
    }
    crate::sym::record::take_drew_inputs();
    let report = builder.explore(body);
    if crate::sym::record::take_drew_inputs() {
        one_assignment_hint(path);
    }
    if let Some(failure) = report.failure() {
        panic!("\n{failure}(after {} executions)\n", report.executions());
    }
}

/// How long a model thread may run without reaching a scheduling point under plain
/// `cargo test` before the watchdog reports it, unless `SYMX_STUCK_AFTER_MS` says otherwise
/// (`0`: never).
const STUCK_AFTER: Duration = Duration::from_secs(10);

/// Watches this test's explorations (see `rt::watchdog`): a model thread stuck past the limit
/// is reported on stderr, with the two likely causes and the command that replays the schedule
/// up to there, and the test process exits with libtest's failure code, since nothing can
/// stop the stuck thread.
fn watch_for_stuck_threads(path: &str) -> Option<crate::rt::watchdog::Watching> {
    let limit = match std::env::var(crate::worker::protocol::ENV_STUCK_AFTER_MS) {
        Ok(ms) => Duration::from_millis(ms.trim().parse().ok()?),
        Err(_) => STUCK_AFTER,
    };
    if limit.is_zero() {
        return None;
    }
    let path = path.to_string();
    Some(crate::rt::watchdog::watch_this_thread(
        limit,
        move |stuck| {
            use std::io::Write;
            let report = crate::worker::report::stuck(&path, &stuck);
            let mut text = format!("\nsymx: `{path}` is stuck: {}\n", report.message);
            for line in &report.details {
                text += &format!("  {line}\n");
            }
            let command = crate::replay_command::for_test(&report.token, &path);
            text += &format!(
                "  replay with: {command}\n\
             symx: a stuck model thread cannot be stopped: the test process exits\n"
            );
            let _ = std::io::stderr().write_all(text.as_bytes());
            std::process::exit(101);
        },
    ))
}

/// Says, once per test binary, that plain `cargo test` ran symbolic inputs at one assignment
/// only (no solver links into the runtime); the driver explores them all. Written to the
/// process's stderr directly: libtest would hold `eprintln!` back unless the test fails.
fn one_assignment_hint(path: &str) {
    use std::io::Write;
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
        let _ = writeln!(
            std::io::stderr(),
            "symx: `{path}` draws symbolic inputs: `cargo test` explored its schedules at one \
             input assignment (zero, or the values the test gives); `cargo symx test` explores \
             every input class"
        );
    }
}

/// Replays `token` on `body` (`SYMX_REPLAY`): panics with the failure it shows, or prints the
/// steps it ran without one.
#[track_caller]
pub(crate) fn replay_test(builder: &Builder, token: &str, body: &dyn Fn()) -> crate::Report {
    let schedule: crate::Schedule = match token.parse() {
        Ok(s) => s,
        Err(e) => panic!("symx: cannot use SYMX_REPLAY: {e}"),
    };
    let report = match builder.try_replay(&schedule, body) {
        Ok(r) => r,
        Err(e) => panic!("symx: cannot use SYMX_REPLAY: {e}"),
    };
    if let Some(moved) = report.moved_locations() {
        let places: Vec<String> = moved.iter().map(|l| l.to_string()).collect();
        println!(
            "symx: the code moved since the token was recorded; the same operations ran \
             (locations the token did not record: {})",
            places.join(", ")
        );
    }
    if let Some(failure) = report.failure() {
        panic!("\nreplayed:\n{failure}");
    }
    println!(
        "symx: replayed {} steps without a failure:",
        report.replayed_steps().len()
    );
    for step in crate::rt::diagnose::collapse_repeats(report.replayed_steps().to_vec()) {
        println!("{step}");
    }
    report
}

/// One step of an execution, as tests of the strategies see it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObservedStep {
    /// The thread that took the step (execution-local id).
    pub thread: usize,
    /// The operation, as traces name it.
    pub op: String,
    /// The object's id in this execution (numbered by first use).
    pub obj: Option<u32>,
    /// The operation turned out only to look at its object (a notify with nobody waiting, a
    /// `Once` found complete): it commutes with others that did.
    pub only_looked: bool,
    /// The step changed nothing another thread's fairness rule looks at (a yield, a load).
    pub quiet: bool,
    /// The step of this execution (an index into its steps) that let the thread run again
    /// after it yielded (see `rt::op::Event::let_go`).
    pub let_go: Option<u32>,
    /// What the step's code changed besides its operation's object (`rt::op::Event::touched`).
    pub touched: Vec<ObservedChange>,
    /// What the code of the threads the step woke changed before their next operation, right
    /// after the step (`rt::op::Event::woke`).
    pub woke: Vec<ObservedChange>,
}

/// A change to an object made by code between two visible operations (see [`ObservedStep`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObservedChange {
    /// The thread whose code made it.
    pub thread: usize,
    /// The object's id in this execution.
    pub obj: u32,
    /// How, as `rt::op::Touch` names it: `changed`, `released` (a `Released` drop, with or
    /// without drop glue), `dropped_sender` or `counted_senders`.
    pub how: &'static str,
}

impl ObservedChange {
    fn of(thread: usize, obj: u32, how: crate::rt::op::Touch) -> Self {
        use crate::rt::op::Touch;
        let how = match how {
            Touch::Changed => "changed",
            Touch::Released | Touch::ReleasedNoGlue => "released",
            Touch::DroppedSender => "dropped_sender",
            Touch::CountedSenders => "counted_senders",
        };
        ObservedChange { thread, obj, how }
    }
}

/// Explores `body` like `Builder::explore`, handing every execution's steps to `observe`.
pub fn explore_observed<F: Fn()>(
    builder: &Builder,
    body: F,
    mut observe: impl FnMut(&[ObservedStep]),
) -> crate::Report {
    crate::explore::explore_observed(&builder.with_defaults(), &body, &mut |events| {
        let steps: Vec<ObservedStep> = events
            .iter()
            .map(|e| ObservedStep {
                thread: e.thread,
                op: e.kind.to_string(),
                obj: e.obj,
                only_looked: e.outcome == crate::rt::op::Outcome::OnlyRead,
                quiet: e.quiet,
                let_go: e.let_go,
                touched: (e.touched.iter())
                    .map(|&(obj, how)| ObservedChange::of(e.thread, obj, how))
                    .collect(),
                woke: (e.woke.iter())
                    .map(|w| ObservedChange::of(w.thread, w.obj, w.how))
                    .collect(),
            })
            .collect();
        observe(&steps);
    })
}

/// The settings of shard `index` of `count` of `builder`'s exploration, as a worker runs it
/// under `--shards`, the shards of an optimal DPOR handing each other work in `exchange`
/// (`None`: the strategy is not split, shard 0 runs it whole).
pub fn shard(
    builder: &Builder,
    index: u32,
    count: u32,
    exchange: &std::path::Path,
) -> Option<Builder> {
    let part = crate::worker::protocol::Shard { index, count };
    let mut b = builder.clone();
    b.exchange = Some(exchange.to_path_buf());
    crate::worker::shard::prepare(b, part)
}

/// How often the busy shards of a split optimal DPOR look for idle ones to give work to
/// (default 2 ms; a test sets 0 to split between every two executions).
pub fn split_look_every(interval: std::time::Duration) {
    crate::explore::dpor::exchange::look_every(interval);
}

/// Makes the shards of a split optimal DPOR made after it wait a little at random at each step
/// of their exchange (from `seed`; 0: never, the default), so that a test sees many orders of
/// gifts and messages.
pub fn split_jitter(seed: u64) {
    crate::explore::dpor::exchange::jitter(seed);
}

/// Stops the running explorations that save a checkpoint after their current execution, as
/// Ctrl-C does (for tests of resuming).
pub fn interrupt() {
    crate::explore::checkpoint::interrupt();
}

fn address<T: ?Sized>(obj: &T) -> usize {
    obj as *const T as *const () as usize
}

/// The object id of an annotated user object, known by address.
pub(crate) fn user_object<T: ?Sized>(obj: &T) -> Option<ObjId> {
    let addr = address(obj);
    rt::with(|e| e.objects.by_address(addr, rt::short_type_name::<T>()))
}

/// A call of an annotated acquire or try-acquire method in progress.
pub struct AcquireCall {
    obj: Option<ObjId>,
    location: &'static Location<'static>,
    shared: bool,
    /// The acquisition this call is nested in (a `try_acquire` inside an `acquire`'s spin
    /// loop): it is the thread's again once this call ends.
    outer: Option<Acquiring>,
}

impl AcquireCall {
    /// The calling thread starts acquiring `obj`, exclusively or `shared` (and may spin
    /// inside the call). Waiting for a lock in a mode the thread's own hold excludes is a
    /// self-deadlock.
    #[track_caller]
    pub fn begin<T: ?Sized>(obj: &T, shared: bool) -> AcquireCall {
        let location = Location::caller();
        let obj = user_object(obj);
        if let Some(id) = obj {
            let found = rt::with(|e| e.annotated_self_deadlock(id, shared, location)).flatten();
            if let Some(found) = found {
                rt::fail(site::relocate(found, location));
            }
            rt::with(|e| e.note_local(Local::AcquireCall { obj: id }, Some(location)));
        }
        Self::enter(obj, location, shared)
    }

    /// A try-acquire call: it cannot block, so trying a lock the thread already holds is no
    /// self-deadlock (it just fails).
    #[track_caller]
    pub fn begin_try<T: ?Sized>(obj: &T, shared: bool) -> AcquireCall {
        Self::enter(user_object(obj), Location::caller(), shared)
    }

    fn enter(
        obj: Option<ObjId>,
        location: &'static Location<'static>,
        shared: bool,
    ) -> AcquireCall {
        let outer = obj
            .and_then(|obj| {
                let now = Acquiring {
                    obj,
                    location,
                    shared,
                };
                rt::with(|e| e.me().acquiring.replace(now))
            })
            .flatten();
        AcquireCall {
            obj,
            location,
            shared,
            outer,
        }
    }

    /// The call returned; the thread holds the object when `acquired`. The acquisition is a
    /// scheduling point: other threads may run between it and the critical section.
    pub fn finish(self, acquired: bool) {
        let (obj, location, shared) = (self.obj, self.location, self.shared);
        drop(self);
        if let (true, Some(id)) = (acquired, obj) {
            let op = if shared {
                rt::OpKind::AnnotatedAcquireShared
            } else {
                rt::OpKind::AnnotatedAcquire
            };
            rt::visible(op, Some(id), location);
            let found = rt::with(|e| e.annotated_acquired(id, shared, location)).flatten();
            if let Some(found) = found {
                rt::fail(site::relocate(found, location));
            }
        }
    }
}

impl Drop for AcquireCall {
    fn drop(&mut self) {
        if self.obj.is_some() {
            rt::with(|e| e.me().acquiring = self.outer);
        }
    }
}

/// The reference an annotation's argument evaluates to, before the choice between the
/// object it points at ([`ThroughPointer`]) and the object it is ([`ThePlace`]): method
/// resolution tries the first, which needs `Deref`, before the second, which needs an
/// auto-reference.
pub struct Named<'a, T: ?Sized>(pub &'a T);

/// An annotation's argument that is a reference or a smart pointer names what it points at.
pub trait ThroughPointer<'a> {
    /// The object pointed at.
    type Object: ?Sized;
    /// The object pointed at.
    fn object(&self) -> &'a Self::Object;
}

impl<'a, P: std::ops::Deref + ?Sized> ThroughPointer<'a> for Named<'a, P> {
    type Object = P::Target;
    fn object(&self) -> &'a P::Target {
        self.0
    }
}

/// An annotation's argument that is not a pointer names itself.
pub trait ThePlace<'a> {
    /// The object itself.
    type Object: ?Sized;
    /// The object itself.
    fn object(&self) -> &'a Self::Object;
}

impl<'a, T: ?Sized> ThePlace<'a> for &Named<'a, T> {
    type Object = T;
    fn object(&self) -> &'a T {
        self.0
    }
}

/// What counts as "acquired" for a `#[symx::try_acquire]` method's result.
pub trait Acquired {
    /// Whether the call acquired the lock.
    fn acquired(&self) -> bool;
}

impl Acquired for bool {
    fn acquired(&self) -> bool {
        *self
    }
}

impl<T> Acquired for Option<T> {
    fn acquired(&self) -> bool {
        self.is_some()
    }
}

impl<T, E> Acquired for Result<T, E> {
    fn acquired(&self) -> bool {
        self.is_ok()
    }
}

/// A call of a `#[symx::barrier_arrive]` method in progress.
pub struct BarrierArrival {
    arrival: Option<(ObjId, usize)>,
}

impl BarrierArrival {
    /// Starts the arrival of the calling thread at the barrier `obj`.
    #[track_caller]
    pub fn begin<T: ?Sized>(obj: &T) -> BarrierArrival {
        let location = Location::caller();
        let arrival = user_object(obj).and_then(|id| {
            let arrived = rt::with(|e| {
                let op = SyncOp::BarrierArrive;
                e.note_local(Local::Annotated { op, obj: id }, Some(location));
                e.barrier_arrive(id, location)
            })?;
            match arrived {
                Ok(generation) => Some((id, generation)),
                Err(found) => {
                    rt::fail(site::relocate(found, location));
                    None
                }
            }
        });
        BarrierArrival { arrival }
    }

    /// The thread leaves the barrier: everyone of its generation must have arrived.
    #[track_caller]
    pub fn depart(self) {
        let location = Location::caller();
        if let Some((id, generation)) = self.arrival {
            let found = rt::with(|e| {
                let op = SyncOp::BarrierDepart;
                e.note_local(Local::Annotated { op, obj: id }, Some(location));
                e.barrier_depart(id, generation, location)
            });
            if let Some(found) = found.flatten() {
                rt::fail(site::relocate(found, location));
            }
        }
    }
}
