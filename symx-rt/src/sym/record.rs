//! The symbolic side of one execution: the expression arena, the inputs handed out, the read
//! variables, and — when the execution is recorded — the notes from which `trace::build`
//! assembles the trace (what each step read and wrote, and the thread-local events between
//! steps: branches, assumptions, assertions, escape guards, spawns, joins, annotations).
//!
//! Every function here is a no-op outside a model; values then stay concrete.

use std::collections::HashMap;
use std::panic::Location;
use std::sync::Arc;

use super::checks::CheckOp;
use super::expr::{Arena, CmpOp, Expr, ExprId, Ty, UnOp};
use super::notes::{Local, LocalNote, StepNote, SyncOp};
use super::value::{Handle, Sym, SymValue};
use crate::rt::execution::{ctx, Execution};
use crate::rt::op::{ObjId, ThreadId};

/// Values for named inputs (`any_named`, or `t<thread>#<k>` for the k-th `any()` of a thread).
pub type InputValues = std::collections::BTreeMap<String, i128>;

/// What an execution is told about its symbolic inputs and whether to record.
#[derive(Clone, Debug, Default)]
pub(crate) struct SymConfig {
    pub recording: bool,
    pub inputs: Option<Arc<InputValues>>,
    /// Seeds the values of inputs the assignment does not give (0: they are all zero).
    pub input_seed: u64,
    /// Which facts of a program context hold (`symx::context`).
    pub context_mode: crate::context::mode::ContextMode,
    /// The checkpoint label whose captures are generalised (`symx::checkpoint!`).
    pub context_label: Option<std::sync::Arc<str>>,
}

/// One input handed out in this execution.
#[derive(Clone, Debug)]
pub(crate) struct InputSlot {
    pub name: String,
    pub ty: Ty,
    pub bits: u128,
    /// The value the run computed, for an input that generalises it (a checkpoint's capture).
    pub recorded: Option<u128>,
    /// The term the run computed `recorded` by, when it depended on inputs.
    pub computed: Option<ExprId>,
}

/// The symbolic state of one execution.
#[derive(Debug, Default)]
pub(crate) struct SymState {
    pub config: SymConfig,
    pub generation: u32,
    pub arena: Arena,
    pub inputs: Vec<InputSlot>,
    names: HashMap<String, u32>,
    unnamed: HashMap<ThreadId, u32>,
    /// The value each read variable returned.
    pub reads: Vec<(Ty, u128)>,
    pub steps: Vec<StepNote>,
    pub locals: Vec<LocalNote>,
    /// The execution was abandoned, not failed: an `assume` failed, or the strategy stopped it.
    pub discarded: bool,
    /// An `assume` failed in some thread, which never runs again. The other threads run on
    /// (see `switch::discard`); when the execution ends it is discarded.
    pub assumed_false: bool,
}

impl SymState {
    pub fn new(config: SymConfig, generation: u32) -> Self {
        SymState {
            config,
            generation,
            ..SymState::default()
        }
    }

    pub fn recording(&self) -> bool {
        self.config.recording
    }

    /// The node of `s` in this execution, if it is symbolic here.
    pub fn operand<T: SymValue>(&self, s: &Sym<T>) -> Option<ExprId> {
        s.expr
            .filter(|h| h.generation == self.generation)
            .map(|h| h.id)
    }

    /// The node of `s`, adding a constant for a concrete value.
    pub fn node<T: SymValue>(&mut self, s: &Sym<T>) -> ExprId {
        self.operand(s).unwrap_or_else(|| {
            self.arena.push(Expr::Const {
                ty: T::TY,
                value: T::TY.to_i128(s.value.to_bits()),
            })
        })
    }

    pub fn handle(&self, id: ExprId) -> Handle {
        Handle {
            generation: self.generation,
            id,
        }
    }

    /// The guard "`s` has its concrete value": `s` or `!s` for a condition, `s == value`
    /// otherwise. `None` when `s` is concrete here.
    pub fn pin_guard<T: SymValue>(&mut self, s: &Sym<T>) -> Option<ExprId> {
        let id = self.operand(s)?;
        if T::TY == Ty::Bool {
            return Some(self.oriented(id, s.value.to_bits() == 1));
        }
        let c = self.arena.push(Expr::Const {
            ty: T::TY,
            value: T::TY.to_i128(s.value.to_bits()),
        });
        Some(self.arena.push(Expr::Compare {
            cmp: CmpOp::Eq,
            a: id,
            b: c,
        }))
    }

    /// A condition as taken: itself when true, its negation when false.
    fn oriented(&mut self, cond: ExprId, taken: bool) -> ExprId {
        if taken {
            cond
        } else {
            self.arena.push(Expr::Unary {
                ty: Ty::Bool,
                un: UnOp::Not,
                a: cond,
            })
        }
    }

    /// The value the run computed for the input called `name`, if one generalises it.
    pub(crate) fn recorded_value(&self, name: &str) -> Option<u128> {
        let &i = self.names.get(name)?;
        self.inputs[i as usize].recorded
    }

    /// A fresh input of type `ty` (or the existing one of that name).
    fn input(
        &mut self,
        thread: ThreadId,
        name: Option<&str>,
        ty: Ty,
        default: Option<(u128, Option<ExprId>)>,
    ) -> Result<(u32, u128), String> {
        let name = match name {
            Some(n) => n.to_string(),
            None => {
                let k = self.unnamed.entry(thread).or_insert(0);
                *k += 1;
                format!("t{thread}#{}", *k - 1)
            }
        };
        if let Some(&i) = self.names.get(&name) {
            let slot = &self.inputs[i as usize];
            if slot.ty != ty {
                return Err(format!(
                    "input `{name}` is used as {} and as {}",
                    slot.ty.name(),
                    ty.name()
                ));
            }
            return Ok((i, slot.bits));
        }
        let given = self
            .config
            .inputs
            .as_ref()
            .and_then(|m| m.get(&name).copied());
        let bits = match (given, default) {
            (Some(v), _) => ty.from_i128(v),
            (None, Some((d, _))) => d,
            (None, None) => ty.truncate(default_input(self.config.input_seed, &name)),
        };
        let i = self.inputs.len() as u32;
        self.names.insert(name.clone(), i);
        self.inputs.push(InputSlot {
            name,
            ty,
            bits,
            recorded: default.map(|(d, _)| d),
            computed: default.and_then(|(_, c)| c),
        });
        Ok((i, bits))
    }
}

/// The value of an input no assignment gives: zero without a seed, otherwise a value fixed
/// by the seed and the input's name (SplitMix64 of both).
pub(crate) fn default_input(seed: u64, name: &str) -> u128 {
    if seed == 0 {
        return 0;
    }
    let mut rng = crate::rng::Rng::new(seed ^ crate::schedule::test_hash(name) as u64);
    ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128
}

fn with_exec<R>(f: impl FnOnce(&mut Execution) -> R) -> Option<R> {
    ctx().map(|c| f(&mut c.exec.borrow_mut()))
}

/// The current execution's symbolic state, outside a model `None`.
pub(crate) fn with_sym<R>(f: impl FnOnce(&mut SymState) -> R) -> Option<R> {
    with_exec(|e| f(&mut e.sym))
}

impl Execution {
    /// Appends a thread-local event of the current thread (when recording).
    pub(crate) fn note_local(
        &mut self,
        local: Local,
        location: Option<&'static Location<'static>>,
    ) {
        if !self.sym.recording() {
            return;
        }
        if self
            .threads
            .get(self.current)
            .is_some_and(|t| t.abstracting > 0)
        {
            return; // inside an abstracted function: its paths are not enumerated
        }
        let note = LocalNote {
            at: self.trace.len() as u32,
            thread: self.current,
            local,
            location,
        };
        self.sym.locals.push(note);
    }

    /// The note of the current thread's step in progress (when recording).
    pub(crate) fn step_note(&mut self) -> Option<&mut StepNote> {
        if !self.sym.recording() {
            return None;
        }
        let event = self.trace.len().checked_sub(1)? as u32;
        if self.trace[event as usize].thread != self.current {
            return None;
        }
        if self.sym.steps.last().is_none_or(|s| s.event != event) {
            self.sym.steps.push(StepNote {
                event,
                ..StepNote::default()
            });
        }
        self.sym.steps.last_mut()
    }

    /// A read by the current step: a fresh read variable holding the value read.
    pub(crate) fn note_read(&mut self, ty: Ty, bits: u128) -> Option<u32> {
        self.step_note()?;
        let var = self.sym.reads.len() as u32;
        self.sym.reads.push((ty, bits));
        self.step_note()?.read = Some(var);
        Some(var)
    }

    /// A read whose value leaves the symbolic world at once (plain-value APIs): the step
    /// also gets the guard `read == value`.
    pub(crate) fn note_plain_read(&mut self, ty: Ty, bits: u128) {
        let Some(var) = self.note_read(ty, bits) else {
            return;
        };
        let r = self.sym.arena.push(Expr::Read { ty, var });
        let c = self.sym.arena.push(Expr::Const {
            ty,
            value: ty.to_i128(bits),
        });
        let g = self.sym.arena.push(Expr::Compare {
            cmp: CmpOp::Eq,
            a: r,
            b: c,
        });
        if let Some(step) = self.step_note() {
            step.guard = Some(g);
        }
    }

    /// The value the current step wrote, with its expression (a constant when plain).
    pub(crate) fn note_write(&mut self, expr: Option<ExprId>, ty: Ty, bits: u128) {
        if !self.sym.recording() {
            return;
        }
        let expr = expr.unwrap_or_else(|| {
            self.sym.arena.push(Expr::Const {
                ty,
                value: ty.to_i128(bits),
            })
        });
        if let Some(step) = self.step_note() {
            step.write = Some((expr, ty, bits));
        }
    }

    /// A lock or barrier state change by the current step.
    pub(crate) fn note_sync(&mut self, op: SyncOp, obj: ObjId) {
        if let Some(step) = self.step_note() {
            step.sync.push((op, obj));
        }
    }
}

/// `a op b` for operands of which at least one may be symbolic.
pub(crate) fn binary<T: SymValue, U: SymValue>(
    a: Sym<T>,
    b: Sym<T>,
    value: U,
    make: impl FnOnce(ExprId, ExprId) -> Expr,
) -> Sym<U> {
    if a.expr.is_none() && b.expr.is_none() {
        return Sym::constant(value);
    }
    let handle = with_exec(|e| {
        let st = &mut e.sym;
        if st.operand(&a).is_none() && st.operand(&b).is_none() {
            return None;
        }
        let (ia, ib) = (st.node(&a), st.node(&b));
        let id = st.arena.push(make(ia, ib));
        Some(st.handle(id))
    })
    .flatten();
    Sym::with_expr(value, handle)
}

/// `op a` for an operand that may be symbolic.
pub(crate) fn unary<T: SymValue, U: SymValue>(
    a: Sym<T>,
    value: U,
    make: impl FnOnce(ExprId) -> Expr,
) -> Sym<U> {
    if a.expr.is_none() {
        return Sym::constant(value);
    }
    let handle = with_exec(|e| {
        let st = &mut e.sym;
        let ia = st.operand(&a)?;
        let id = st.arena.push(make(ia));
        Some(st.handle(id))
    })
    .flatten();
    Sym::with_expr(value, handle)
}

/// `s` escapes to a plain value here: record the guard that pins it. `location` is `None`
/// only where Rust passes no caller location (formatting); the trace then gives the pin its
/// thread's previous location.
pub(crate) fn pin<T: SymValue>(s: Sym<T>, location: Option<&'static Location<'static>>) {
    if s.expr.is_none() {
        return;
    }
    with_exec(|e| {
        if !e.sym.recording() {
            return;
        }
        if let Some(guard) = e.sym.pin_guard(&s) {
            e.note_local(Local::Pin { guard }, location);
        }
    });
}

thread_local! {
    /// An execution on this OS thread (model threads are coroutines on the test's own thread)
    /// drew a symbolic input since [`take_drew_inputs`] last asked.
    static DREW_INPUTS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether an execution on this thread drew a symbolic input since the last call.
pub(crate) fn take_drew_inputs() -> bool {
    DREW_INPUTS.with(|d| d.replace(false))
}

/// A fresh symbolic input of the current execution.
pub(crate) fn input<T: SymValue>(
    name: Option<&str>,
    location: &'static Location<'static>,
) -> Sym<T> {
    input_from(name, None, location)
}

/// A fresh named input whose value, when the input assignment does not give one, is
/// `default` (a generalised value: its first value is the one the run computed, by the term
/// `computed` when it depended on inputs).
pub(crate) fn input_defaulting<T: SymValue>(
    name: &str,
    default: T,
    computed: Option<ExprId>,
    location: &'static Location<'static>,
) -> Sym<T> {
    input_from(Some(name), Some((default.to_bits(), computed)), location)
}

fn input_from<T: SymValue>(
    name: Option<&str>,
    default: Option<(u128, Option<ExprId>)>,
    location: &'static Location<'static>,
) -> Sym<T> {
    let made = with_exec(|e| {
        let thread = e.current;
        let (i, bits) = e.sym.input(thread, name, T::TY, default)?;
        let id = e.sym.arena.push(Expr::Input {
            ty: T::TY,
            input: i,
        });
        e.note_local(Local::Input { input: i }, Some(location));
        Ok::<_, String>(Sym::with_expr(T::from_bits(bits), Some(e.sym.handle(id))))
    });
    match made {
        Some(Ok(s)) => {
            DREW_INPUTS.with(|d| d.set(true));
            s
        }
        Some(Err(why)) => {
            if let Some(found) = with_exec(|e| e.misuse(why, Vec::new(), location)) {
                crate::rt::fail(found);
            }
            unreachable!("a failed execution does not resume this thread")
        }
        None => {
            let name = name.map_or_else(String::new, str::to_string);
            Sym::constant(T::from_bits(T::TY.truncate(default_input(0, &name))))
        }
    }
}

/// Records a condition that decided control flow (`what` builds the local event from the
/// oriented guard) and returns its concrete value.
pub(crate) fn condition(
    c: Sym<bool>,
    location: &'static Location<'static>,
    what: impl FnOnce(ExprId, bool) -> Local,
) -> bool {
    if c.expr.is_some() {
        with_exec(|e| {
            if !e.sym.recording() {
                return;
            }
            if let Some(guard) = e.sym.pin_guard(&c) {
                e.note_local(what(guard, c.value), Some(location));
            }
        });
    }
    c.value
}

/// Records an assertion on a symbolic condition (the condition itself, not oriented).
pub(crate) fn assertion(
    c: Sym<bool>,
    text: &'static str,
    location: &'static Location<'static>,
) -> bool {
    unoriented(c, location, |cond, holds| Local::Assert {
        cond,
        holds,
        text,
    });
    c.value
}

/// Records the check that an operation does not panic (its condition, not oriented).
pub(crate) fn check(ok: Sym<bool>, op: CheckOp, location: &'static Location<'static>) {
    unoriented(ok, location, |cond, holds| Local::Check { cond, holds, op });
}

/// Records a local event on a symbolic condition as it is, with its outcome.
fn unoriented(
    c: Sym<bool>,
    location: &'static Location<'static>,
    what: impl FnOnce(ExprId, bool) -> Local,
) {
    if c.expr.is_none() {
        return;
    }
    with_exec(|e| {
        if !e.sym.recording() {
            return;
        }
        if let Some(cond) = e.sym.operand(&c) {
            e.note_local(what(cond, c.value), Some(location));
        }
    });
}

/// Records that the current thread took the outcome whose condition is `taken` of a choice
/// whose other outcomes have the conditions `others` (all `bool`, the same execution's).
pub(crate) fn choice(
    taken: Sym<bool>,
    outcome: String,
    others: &[Sym<bool>],
    location: &'static Location<'static>,
) {
    with_exec(|e| {
        if !e.sym.recording() {
            return;
        }
        let guard = e.sym.node(&taken);
        let alternatives = others.iter().map(|o| e.sym.node(o)).collect();
        e.note_local(
            Local::Choice {
                guard,
                alternatives,
                outcome,
            },
            Some(location),
        );
    });
}

/// Whether the current execution is recorded (what is not recorded need not be built).
pub(crate) fn recording() -> bool {
    with_exec(|e| e.sym.recording()).unwrap_or(false)
}

/// A symbolic index chose element `i` of a collection of `len` (an in-bounds one): record
/// the choice as a flippable guard, not a pin.
pub(crate) fn element(i: Sym<usize>, len: usize, location: &'static Location<'static>) {
    if i.expr.is_none() {
        return;
    }
    with_exec(|e| {
        if !e.sym.recording() {
            return;
        }
        let Some(index) = e.sym.operand(&i) else {
            return;
        };
        if let Some(guard) = e.sym.pin_guard(&i) {
            let local = Local::Element {
                guard,
                index,
                value: i.value,
                len,
            };
            e.note_local(local, Some(location));
        }
    });
}

/// The current execution's handle for a fresh read variable of the current step.
pub(crate) fn read_var<T: SymValue>(e: &mut Execution, value: T) -> Option<Handle> {
    let var = e.note_read(T::TY, value.to_bits())?;
    let id = e.sym.arena.push(Expr::Read { ty: T::TY, var });
    Some(e.sym.handle(id))
}

/// Turns the current step's pinned read into a free one (the caller hands the value on as a
/// `Sym`) and returns the read variable's expression.
pub(crate) fn unpin_read() -> Option<Handle> {
    with_exec(|e| {
        let step = e.step_note()?;
        step.guard = None;
        let var = step.read?;
        let ty = e.sym.reads[var as usize].0;
        let id = e.sym.arena.push(Expr::Read { ty, var });
        Some(e.sym.handle(id))
    })
    .flatten()
}

/// Replaces the current step's written value by `value` with its expression.
pub(crate) fn set_written<T: SymValue>(value: &Sym<T>) {
    with_exec(|e| {
        if !e.sym.recording() {
            return;
        }
        let expr = e.sym.node(value);
        if let Some(step) = e.step_note() {
            step.write = Some((expr, T::TY, value.value.to_bits()));
        }
    });
}

/// The node of a value written by the current step (when recording and symbolic).
pub(crate) fn written<T: SymValue>(e: &mut Execution, value: &Sym<T>) -> Option<ExprId> {
    e.sym.operand(value)
}
