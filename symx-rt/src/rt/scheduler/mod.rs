//! The scheduler of one execution: runs model threads as coroutines on this OS thread, asks
//! the chooser (the exploration strategy) which enabled thread performs the next visible
//! operation, and detects the failures no single thread can see (deadlock, step limit).
//!
//! Threads that were just spawned or woken run invisibly up to their next visible operation
//! before every decision, so a chooser always sees each runnable thread's pending operation.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::chooser::{Candidate, Chooser};
use super::clock::VClock;
use super::execution::{location_hash, Config, Ctx, Execution, Found, Installed};
use super::objects::next_generation;
use super::op::{Event, Op, OpKind, Outcome, ThreadId, Value};
use super::threads::{Status, Thread};
use super::{diagnose, panic_hook, switch};

mod choice;

type Co = Coroutine<(), (), (), DefaultStack>;

/// What one execution left behind: its trace, its schedule and its failure, if any. (Not a
/// test's outcome: the explorer turns these into a [`crate::Report`].)
pub(crate) struct ExecutionResult {
    pub failure: Option<Found>,
    pub decisions: Vec<u32>,
    pub fingerprint: u64,
    /// The hash of the steps' source locations (see `Execution::locations`).
    pub locations: u64,
    pub steps: u64,
    pub preemptions: u32,
    /// The trace, rendered for reports (only when asked for, or on failure).
    pub rendered: Vec<crate::report::step::Step>,
    pub events: Vec<Event>,
    /// An `assume` did not hold: the execution was abandoned.
    pub discarded: bool,
    /// The symbolic inputs that were not zero, by name (replay tokens carry them).
    pub inputs: Vec<(String, i128)>,
    /// The execution drew a symbolic input (`symx::any`, `any_named`).
    pub drew_inputs: bool,
    /// Spawned threads (not the main one) that made no operation the model sees.
    pub idle_threads: u32,
    /// The full record of the execution, when recording was on.
    pub trace: Option<crate::trace::Trace>,
}

thread_local! {
    /// Stacks of finished coroutines, each with the size it was made for, reused by the next
    /// threads on this OS thread that ask for that same size: handing out a larger stack would
    /// hide an overflow the size asked for has, and make a verdict depend on what ran before.
    static STACKS: RefCell<Vec<(usize, DefaultStack)>> = const { RefCell::new(Vec::new()) };
    /// The per-step lists, kept for the next execution on this OS thread.
    static LISTS: RefCell<Lists> = RefCell::default();
}

/// The lists a scheduler fills at every step. Allocating them anew at each step cost 5–8 % of
/// a short execution's instructions (callgrind, the bench's counters); they are cleared and
/// refilled instead, and kept from one execution to the next.
#[derive(Default)]
struct Lists {
    /// The enabled threads, then (in place) the options among them.
    enabled: Vec<(ThreadId, Op)>,
    candidates: Vec<Candidate>,
    /// The coroutines' slots (all empty between executions).
    coroutines: Vec<Option<Co>>,
}

struct Scheduler<'a> {
    ctx: &'a Ctx,
    /// The chooser of `ctx` (the same pointer, read once instead of through its `RefCell` at
    /// every step).
    chooser: *mut (dyn Chooser + 'static),
    /// What the chooser asks to be shown ([`Chooser::sees_every_step`],
    /// [`Chooser::wants_trace`]), asked once per execution: every implementation answers the
    /// same for a whole execution.
    every_step: bool,
    wants_trace: bool,
    coroutines: Vec<Option<Co>>,
    stack_size: usize,
    /// This OS thread's watchdog, when it is watched.
    watch: Option<std::sync::Arc<super::watchdog::Watch>>,
    lists: Lists,
}

/// Runs `body` once as thread 0 of a new execution, with `chooser` deciding its schedule.
pub(crate) fn run_execution(
    config: Config,
    chooser: &mut dyn Chooser,
    body: &dyn Fn(),
    render: bool,
) -> ExecutionResult {
    panic_hook::install();
    panic_hook::take();
    // SAFETY (both transmutes): only lifetimes are erased. Every coroutine that could use
    // `body` or the chooser is finished or reset before this function returns.
    let chooser: *mut (dyn Chooser + 'static) = unsafe { std::mem::transmute(chooser) };
    let body: &'static dyn Fn() = unsafe { std::mem::transmute(body) };
    let generation = next_generation();
    let _live = super::foreign::Live::new(generation);
    let mut exec = Execution::new(config.clone(), generation);
    exec.rendering = render;
    let ctx = Ctx {
        exec: RefCell::new(exec),
        chooser: RefCell::new(chooser),
        in_thread: Cell::new(false),
    };
    let installed = Installed::new(&ctx);
    let mut lists = LISTS.with_borrow_mut(std::mem::take);
    // SAFETY: see above; no model thread runs during the calls.
    let (every_step, wants_trace) =
        unsafe { ((*chooser).sees_every_step(), (*chooser).wants_trace()) };
    let mut s = Scheduler {
        ctx: &ctx,
        chooser,
        every_step,
        wants_trace,
        coroutines: std::mem::take(&mut lists.coroutines),
        stack_size: config.stack_size,
        watch: super::watchdog::current(),
        lists,
    };
    let main = Thread::new(0, &VClock::new(), None);
    ctx.exec.borrow_mut().threads.push(main);
    s.add_coroutine(0, Box::new(body));
    s.run();
    s.tell_unfinished();
    let result = s.result(render);
    s.teardown();
    let mut lists = std::mem::take(&mut s.lists);
    lists.enabled.clear();
    lists.candidates.clear();
    lists.coroutines = std::mem::take(&mut s.coroutines);
    lists.coroutines.clear();
    LISTS.with_borrow_mut(|l| *l = lists);
    drop(installed);
    ctx.exec.into_inner().recycle();
    result
}

impl Scheduler<'_> {
    fn exec(&self) -> std::cell::RefMut<'_, Execution> {
        self.ctx.exec.borrow_mut()
    }

    fn add_coroutine(&mut self, id: ThreadId, f: Box<dyn FnOnce()>) {
        // `thread::Builder::stack_size` may ask for more than the builder's size, never less.
        let size = {
            let mut e = self.exec();
            let size = e.threads[id].stack_size.unwrap_or(0).max(self.stack_size);
            e.threads[id].stack_size = Some(size);
            size
        };
        let stack = pooled_stack(size).unwrap_or_else(|| {
            DefaultStack::new(size).expect("symx: cannot allocate a thread stack")
        });
        let co = Co::with_stack(stack, move |yielder: &Yielder<(), ()>, ()| {
            super::execution::with(|e| e.threads[id].yielder = yielder as *const _);
            let result = catch_unwind(AssertUnwindSafe(f));
            super::spawn::thread_finished(id, result.err());
        });
        if self.coroutines.len() <= id {
            self.coroutines.resize_with(id + 1, || None);
        }
        self.coroutines[id] = Some(co);
    }

    /// Runs thread `t` until it reaches its next scheduling point, blocks, fails or returns.
    fn resume(&mut self, t: ThreadId) {
        {
            let mut e = self.exec();
            if let Some(watch) = &self.watch {
                watch.resuming(&e, t);
            }
            e.current = t;
            e.threads[t].status = Status::Running;
        }
        let co = self.coroutines[t]
            .as_mut()
            .expect("resumed a thread without a coroutine");
        self.ctx.in_thread.set(true);
        let (result, overflowed) = super::overflow::resume(co);
        self.ctx.in_thread.set(false);
        if let Some(watch) = &self.watch {
            watch.returned();
        }
        if overflowed {
            let found = diagnose::stack_overflow(&self.ctx.exec.borrow(), t);
            let mut e = self.exec();
            e.threads[t].status = Status::Finished;
            e.set_failure(found);
        }
        if let CoroutineResult::Return(()) = result {
            let stack = self.coroutines[t].take().expect("coroutine").into_stack();
            let size = self.exec().threads[t]
                .stack_size
                .expect("set when its coroutine was made");
            STACKS.with(|s| s.borrow_mut().push((size, stack)));
        }
        // Most steps spawn nothing; the queue's storage goes back for the next spawns.
        let mut spawns = {
            let mut e = self.exec();
            if e.spawns.is_empty() {
                return;
            }
            std::mem::take(&mut e.spawns)
        };
        for (id, f) in spawns.drain(..) {
            self.add_coroutine(id, f);
        }
        let mut e = self.exec();
        if e.spawns.is_empty() {
            e.spawns = spawns;
        }
    }

    /// The execution is over early: it failed (a thread symx did not spawn used one of its
    /// objects, or one of them holds an earlier execution's state, too), or an `assume`
    /// discarded it.
    fn failed(&self) -> bool {
        let mut e = self.ctx.exec.borrow_mut();
        if let Some(found) = super::foreign::take(e.objects.generation) {
            e.set_failure(found);
        }
        if let Some(found) = super::survivors::take(&mut e) {
            e.set_failure(found);
        }
        e.failure.is_some() || e.sym.discarded || e.epochs.as_ref().is_some_and(|s| s.stopped)
    }

    /// Runs every fresh thread (just spawned or woken) to its next visible operation.
    fn run_fresh(&mut self) {
        loop {
            let fresh = {
                let e = self.ctx.exec.borrow();
                e.threads
                    .iter()
                    .position(|t| matches!(t.status, Status::Fresh))
            };
            match fresh {
                Some(t) if !self.failed() => self.resume(t),
                _ => return,
            }
        }
    }

    /// Threads whose pending operation can run now, with that operation, into `out`.
    fn enabled(&self, out: &mut Vec<(ThreadId, Op)>) {
        let e = self.ctx.exec.borrow();
        out.clear();
        for (id, th) in e.threads.iter().enumerate() {
            match th.status {
                Status::Ready(op) if e.is_enabled(&op) => out.push((id, op)),
                Status::Waiting(w)
                    if w.spurious && e.config.spurious_wakeups && !th.spurious_used =>
                {
                    out.push((
                        id,
                        Op {
                            kind: OpKind::SpuriousWake,
                            obj: Some(w.obj),
                            obj2: None,
                            location: w.location,
                        },
                    ))
                }
                _ => {}
            }
        }
    }

    fn run(&mut self) {
        // The main thread runs the body from its start: switching away from it before its
        // first step, while it could take that step, is a preemption like any other (CHESS's
        // definition, and loom's).
        let mut last: Option<ThreadId> = Some(crate::rt::threads::MAIN);
        let mut steps: u64 = 0;
        loop {
            let mut enabled = std::mem::take(&mut self.lists.enabled);
            let go_on = self.step(&mut enabled, &mut last, &mut steps);
            self.lists.enabled = enabled;
            if !go_on {
                return;
            }
        }
    }

    /// Runs the threads that were just spawned or woken, then one step of the schedule (or
    /// lets time pass). Returns whether the execution goes on.
    fn step(
        &mut self,
        enabled: &mut Vec<(ThreadId, Op)>,
        last: &mut Option<ThreadId>,
        steps: &mut u64,
    ) -> bool {
        self.run_fresh();
        if self.failed() {
            return false;
        }
        self.enabled(enabled);
        if self.ctx.exec.borrow().epochs.is_some()
            && !super::epochs::hold_at_markers(&mut self.exec(), enabled)
        {
            return false; // the end of the epoch the run was asked to stop at
        }
        if enabled.is_empty() && self.time_out_waiters() {
            return true;
        }
        if enabled.is_empty() && self.ctx.exec.borrow().sym.assumed_false {
            return false; // what still waits may wait for the thread that assumed (discarded)
        }
        let deadlock = diagnose::deadlock(&self.ctx.exec.borrow(), enabled);
        if let Some(found) = deadlock {
            self.exec().set_failure(found);
            return false;
        }
        if enabled.is_empty() {
            // Every thread finished: what is still allocated has leaked.
            let mut e = self.exec();
            if let Some(found) = e.config.leak_check.then(|| e.leak()).flatten() {
                e.set_failure(found);
            }
            return false;
        }
        // `enabled` becomes the options: nothing below needs the threads the rules hide.
        let (choice, hidden) = self.options(enabled, *last);
        let (t, op) = self.pick(enabled, choice, hidden, *last, *steps);
        *steps += 1;
        // Since the check above no model thread ran, so only the chooser can have ended the
        // execution here (`Chooser::stop`); a misuse another OS thread posts meanwhile is
        // found at the next step's check, as one posted a moment later would be.
        let (stopped, max_steps) = {
            let e = self.ctx.exec.borrow();
            (e.sym.discarded, e.config.max_steps)
        };
        if stopped {
            return false; // the chooser abandoned the execution
        }
        if *steps > max_steps {
            let found = diagnose::step_limit(&self.ctx.exec.borrow());
            self.exec().set_failure(found);
            return false;
        }
        self.record(t, op);
        if op.kind == OpKind::SpuriousWake {
            let mut e = self.exec();
            e.current = t;
            switch::wake(&mut e, t);
            drop(e);
        } else {
            self.resume(t);
        }
        self.after_step(t);
        *last = Some(t);
        true
    }

    /// Nothing can run: time passes, and every wait with a timeout times out (the waiters
    /// run on, told so). Returns whether any did; if none did, it is a deadlock or the end.
    fn time_out_waiters(&mut self) -> bool {
        let mut e = self.exec();
        let timed: Vec<ThreadId> = e
            .queue
            .iter()
            .copied()
            .filter(|&t| matches!(e.threads[t].status, Status::Waiting(w) if w.timeout))
            .collect();
        for &t in &timed {
            switch::wake(&mut e, t);
            e.threads[t].timed_out = true;
        }
        !timed.is_empty()
    }

    /// Appends the step to the trace and the fingerprint, and updates who has yielded.
    fn record(&mut self, t: ThreadId, op: Op) {
        let mut e = self.exec();
        let e = &mut *e;
        let obj = op.obj.map_or(u64::MAX, |o| o as u64);
        e.hash_step(&[t as u64, op.kind.fingerprint(), obj]);
        e.hash_location(location_hash(op.location));
        let at = e.trace.len() as u32;
        let th = &mut e.threads[t];
        let enablers = std::mem::take(&mut th.after);
        let let_go = th.let_go.take();
        th.last_event = Some(at);
        let thread_key = th.key;
        match op.kind {
            OpKind::Yield => th.yielded = true,
            OpKind::SpuriousWake => th.spurious_used = true,
            _ => {}
        }
        let fixed = e.context.in_prefix();
        e.trace.push(Event {
            thread: t,
            thread_key,
            kind: op.kind,
            obj: op.obj,
            obj2: op.obj2,
            value: Value::None,
            order: None,
            location: op.location,
            touched: smallvec::SmallVec::new(),
            joined: smallvec::SmallVec::new(),
            woke: Vec::new(),
            outcome: Outcome::Unknown,
            enablers,
            fixed,
            blind: false,
            quiet: false,
            let_go,
        });
        e.quiet_step = matches!(
            op.kind,
            OpKind::Yield | OpKind::SpuriousWake | OpKind::Checkpoint
        );
    }

    /// After a step that changed shared state, threads that gave way may find things changed:
    /// they compete again. A step that only read (a spinner's load, a failed compare-exchange)
    /// changes nothing, so two spinners cannot keep each other running while the thread they
    /// wait for never does.
    fn after_step(&mut self, t: ThreadId) {
        let mut e = self.exec();
        let quiet = e.quiet_step;
        let at = e.trace.len().checked_sub(1);
        if let Some(ev) = e.trace.last_mut() {
            ev.quiet = quiet;
        }
        if quiet {
            return;
        }
        for (id, th) in e.threads.iter_mut().enumerate() {
            if id != t {
                if th.yielded {
                    th.let_go = at.map(|a| a as u32);
                }
                th.yielded = false;
                th.spurious_used = false;
            }
        }
    }

    fn result(&self, render: bool) -> ExecutionResult {
        let mut e = self.exec();
        if let Some(found) = super::foreign::take(e.objects.generation) {
            e.set_failure(found);
        }
        if let Some(found) = super::survivors::take(&mut e) {
            e.set_failure(found);
        }
        if e.sym.assumed_false {
            // The assumption rules the execution out, with whatever happened after it.
            e.failure = None;
            e.sym.discarded = true;
        }
        let failure = e.failure.clone();
        let rendered = if render || failure.is_some() {
            diagnose::render_steps(&e)
        } else {
            Vec::new()
        };
        let trace = e
            .sym
            .recording()
            .then(|| crate::trace::build::from_execution(&e));
        super::execution::TRACE_LENGTH.set(e.trace.len());
        super::execution::DECISIONS_LENGTH.set(e.decisions.len());
        ExecutionResult {
            failure,
            decisions: std::mem::take(&mut e.decisions),
            fingerprint: e.fingerprint,
            locations: e.locations,
            steps: e.trace.len() as u64,
            preemptions: e.preemptions,
            rendered,
            events: std::mem::take(&mut e.trace),
            discarded: e.sym.discarded,
            drew_inputs: !e.sym.inputs.is_empty(),
            // A failure ends the execution early: threads that had no turn yet are not idle.
            idle_threads: if e.failure.is_some() {
                0
            } else {
                e.threads.iter().skip(1).filter(|t| t.is_idle()).count() as u32
            },
            inputs: e
                .sym
                .inputs
                .iter()
                .filter(|i| i.bits != 0)
                .map(|i| (i.name.clone(), i.ty.to_i128(i.bits)))
                .collect(),
            trace,
        }
    }

    /// Discards threads that did not finish (after a failure, a deadlock or the step limit)
    /// without unwinding them: running their destructors could only cause second failures.
    /// Their stacks are released; what lives on them is leaked.
    fn teardown(&mut self) {
        for co in self.coroutines.iter_mut().filter_map(Option::take) {
            let mut co = co;
            if !co.done() {
                // SAFETY: nothing of this execution runs again, so nothing can observe the
                // objects left on the discarded stack.
                unsafe { co.force_reset() };
            }
            drop(co);
        }
    }
}

/// A finished coroutine's stack made for exactly `size` bytes, if this OS thread has one.
fn pooled_stack(size: usize) -> Option<DefaultStack> {
    STACKS.with(|s| {
        let mut s = s.borrow_mut();
        let i = s.iter().rposition(|(made_for, _)| *made_for == size)?;
        Some(s.swap_remove(i).1)
    })
}
