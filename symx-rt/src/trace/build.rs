//! Assembles the [`Trace`] of a recorded execution from the runtime's step events and the
//! symbolic notes (`sym::record`): thread-local events recorded while `k` steps had happened
//! go between step `k - 1` and step `k`, in the order they were recorded.

use std::borrow::Cow;

use super::format::*;
use crate::rt::execution::Execution;
use crate::rt::op::{Event, OpKind};
use crate::rt::ObjKind;
use crate::sym::notes::{Local, LocalNote, StepNote, SyncOp};

pub(crate) fn from_execution(e: &Execution) -> Trace {
    let mut b = Builder {
        e,
        events: Vec::with_capacity(e.trace.len() + e.sym.locals.len()),
        per_thread: vec![0; e.threads.len()],
    };
    let mut locals = e.sym.locals.iter().peekable();
    let mut steps = e.sym.steps.iter().peekable();
    let boundaries = e.epochs.as_ref().map_or(&[][..], |s| &s.boundaries[..]);
    let mut epoch_seqs = Vec::with_capacity(boundaries.len());
    for (k, ev) in e.trace.iter().enumerate() {
        while let Some(l) = locals.next_if(|l| l.at as usize <= k) {
            b.local(l);
        }
        // A boundary comes after every thread ran up to its marker: after the locals noted
        // before step `k`, before the step (the first marker passed).
        while boundaries
            .get(epoch_seqs.len())
            .is_some_and(|(at, _)| *at as usize == k)
        {
            epoch_seqs.push(b.events.len() as u32);
        }
        let note = steps.next_if(|s| s.event as usize == k);
        b.step(k as u32, ev, note);
    }
    for l in locals {
        b.local(l);
    }
    while epoch_seqs.len() < boundaries.len() {
        epoch_seqs.push(b.events.len() as u32);
    }
    let threads = b.threads();
    Trace {
        format: Cow::Borrowed(TRACE_FORMAT),
        version: TRACE_VERSION,
        test: None,
        schedule: None,
        memory_model: Cow::Borrowed("sequentially-consistent"),
        threads,
        objects: objects(e),
        inputs: e
            .sym
            .inputs
            .iter()
            .map(|i| InputInfo {
                name: i.name.clone(),
                ty: i.ty,
                value: i.ty.to_i128(i.bits),
                recorded: i.recorded.map(|r| i.ty.to_i128(r)),
                computed: i.computed,
            })
            .collect(),
        exprs: e.sym.arena.nodes.clone(),
        events: b.events,
        verdict: verdict(e),
        epochs: epoch_boundaries(e, &epoch_seqs),
        loops: loop_heads(e),
        context: crate::rt::prefix::entered(e).map(|(steps, facts)| ContextRecord {
            label: e
                .sym
                .config
                .context_label
                .as_deref()
                .unwrap_or("")
                .to_string(),
            steps,
            facts: facts.to_vec(),
        }),
    }
}

/// The epoch boundaries with the trace positions `seqs` found for them.
fn epoch_boundaries(e: &Execution, seqs: &[u32]) -> Vec<EpochBoundary> {
    let Some(state) = &e.epochs else {
        return Vec::new();
    };
    let last = state.boundaries.len();
    (state.boundaries.iter().zip(seqs).enumerate())
        .map(|(i, ((_, contexts), &seq))| EpochBoundary {
            seq,
            contexts: contexts.clone(),
            ends_run: state.stopped && i + 1 == last,
        })
        .collect()
}

fn loop_heads(e: &Execution) -> Vec<LoopHead> {
    let Some(state) = &e.epochs else {
        return Vec::new();
    };
    (state.loops.iter())
        .map(|(site, marker, reason, function)| LoopHead {
            site: site.clone(),
            marker: *marker,
            reason: reason.to_string(),
            function: function.to_string(),
        })
        .collect()
}

struct Builder<'a> {
    e: &'a Execution,
    events: Vec<TraceEvent>,
    per_thread: Vec<u32>,
}

impl Builder<'_> {
    fn push(
        &mut self,
        thread: usize,
        kind: EventKind,
        location: Option<Location>,
    ) -> &mut TraceEvent {
        if self.per_thread.len() <= thread {
            self.per_thread.resize(thread + 1, 0);
        }
        let index = self.per_thread[thread];
        self.per_thread[thread] += 1;
        self.events.push(TraceEvent {
            seq: self.events.len() as u32,
            thread,
            index,
            kind,
            step: None,
            obj: None,
            obj2: None,
            read: None,
            write: None,
            guard: None,
            assert: None,
            check: None,
            element: None,
            choice: None,
            fact: None,
            sync: Vec::new(),
            child: None,
            input: None,
            location,
            blind: false,
        });
        self.events.last_mut().expect("just pushed")
    }

    fn step(&mut self, step: u32, ev: &Event, note: Option<&StepNote>) {
        let kind = self.step_kind(ev);
        let reads = &self.e.sym.reads;
        let out = self.push(ev.thread, kind, Some(location(ev.location)));
        out.step = Some(step);
        out.obj = ev.obj;
        out.obj2 = ev.obj2;
        out.blind = ev.blind;
        let Some(note) = note else { return };
        out.read = note.read.map(|var| {
            let (ty, bits) = reads[var as usize];
            ReadRecord {
                var,
                ty,
                value: ty.to_i128(bits),
            }
        });
        out.write = note.write.map(|(expr, ty, bits)| WriteRecord {
            expr,
            ty,
            value: ty.to_i128(bits),
        });
        out.guard = note.guard;
        let annotated = matches!(
            ev.kind,
            OpKind::AnnotatedAcquire
                | OpKind::AnnotatedRelease
                | OpKind::AnnotatedAcquireShared
                | OpKind::AnnotatedReleaseShared
        );
        out.sync = note
            .sync
            .iter()
            .map(|&(op, obj)| sync_record(op, obj, annotated))
            .collect();
    }

    fn step_kind(&self, ev: &Event) -> EventKind {
        let shared = ev
            .obj
            .is_some_and(|o| self.e.objects.get(o).kind == ObjKind::Shared);
        match ev.kind {
            OpKind::Load if shared => EventKind::SharedRead,
            OpKind::Store if shared => EventKind::SharedWrite,
            kind => event_kind(kind),
        }
    }

    fn local(&mut self, note: &LocalNote) {
        let (kind, thread) = (local_kind(&note.local), note.thread);
        // A pin by formatting has no caller location: it happened after its thread's
        // previous event, so that one's location says where.
        let mut loc = note.location.map(location);
        if loc.is_none() && kind == EventKind::Pin {
            let previous = self.events.iter().rev().find(|e| e.thread == thread);
            loc = previous.and_then(|e| e.location.clone());
        }
        let out = self.push(thread, kind, loc);
        match note.local {
            Local::Input { input } => out.input = Some(input),
            Local::Branch { guard } | Local::Pin { guard } => out.guard = Some(guard),
            Local::Assume { guard, ref fact } => {
                out.guard = Some(guard);
                out.fact = fact.clone();
            }
            Local::Choice {
                guard,
                ref alternatives,
                ref outcome,
            } => {
                out.guard = Some(guard);
                out.choice = Some(ChoiceRecord {
                    outcome: outcome.clone(),
                    alternatives: alternatives.clone(),
                });
            }
            Local::Assert { cond, holds, text } => {
                out.assert = Some(AssertRecord {
                    cond,
                    holds,
                    text: text.to_string(),
                })
            }
            Local::Check { cond, holds, op } => out.check = Some(CheckRecord { op, cond, holds }),
            Local::Element {
                guard,
                index,
                value,
                len,
            } => {
                out.guard = Some(guard);
                out.element = Some(ElementRecord {
                    index,
                    value: value as u64,
                    len: len as u64,
                });
            }
            Local::Spawn { child } | Local::Join { child } => out.child = Some(child),
            Local::Exit | Local::AtomicBegin | Local::AtomicEnd => {}
            Local::CellAccess { obj, .. } | Local::AcquireCall { obj } => out.obj = Some(obj),
            Local::Annotated { op, obj } => out.sync = vec![sync_record(op, obj, true)],
        }
    }

    /// Thread table with the spawn and join edges found among the events.
    fn threads(&self) -> Vec<ThreadInfo> {
        let mut out: Vec<ThreadInfo> = (0..self.e.threads.len())
            .map(|id| ThreadInfo {
                id,
                name: self.e.threads[id].name.clone(),
                spawned_at: None,
                joined_at: Vec::new(),
            })
            .collect();
        for ev in &self.events {
            match (ev.kind, ev.child) {
                (EventKind::Spawn, Some(c)) if c < out.len() => out[c].spawned_at = Some(ev.seq),
                (EventKind::Join, Some(c)) if c < out.len() => out[c].joined_at.push(ev.seq),
                _ => {}
            }
        }
        out
    }
}

fn local_kind(l: &Local) -> EventKind {
    match l {
        Local::Input { .. } => EventKind::Input,
        Local::Branch { .. } => EventKind::Branch,
        Local::Assume { .. } => EventKind::Assume,
        Local::Assert { .. } => EventKind::Assert,
        Local::Pin { .. } => EventKind::Pin,
        Local::Check { .. } => EventKind::Check,
        Local::Element { .. } => EventKind::Element,
        Local::Choice { .. } => EventKind::Choice,
        Local::Spawn { .. } => EventKind::Spawn,
        Local::Join { .. } => EventKind::Join,
        Local::Exit => EventKind::Exit,
        Local::AtomicBegin => EventKind::AtomicBegin,
        Local::AtomicEnd => EventKind::AtomicEnd,
        Local::CellAccess { write: false, .. } => EventKind::CellRead,
        Local::CellAccess { write: true, .. } => EventKind::CellWrite,
        Local::AcquireCall { .. } => EventKind::AcquireCall,
        Local::Annotated { op, .. } => match op {
            SyncOp::Acquire { .. } => EventKind::Acquire,
            SyncOp::Release { .. } | SyncOp::TryAcquireFailed => EventKind::Release,
            SyncOp::BarrierArrive => EventKind::BarrierArrive,
            SyncOp::BarrierDepart => EventKind::BarrierDepart,
        },
    }
}

fn sync_record(op: SyncOp, obj: u32, annotated: bool) -> SyncRecord {
    let (op, shared) = match op {
        SyncOp::Acquire { shared } => (SyncKind::Acquire, shared),
        SyncOp::Release { shared } => (SyncKind::Release, shared),
        SyncOp::TryAcquireFailed => (SyncKind::TryAcquireFailed, false),
        SyncOp::BarrierArrive => (SyncKind::BarrierArrive, false),
        SyncOp::BarrierDepart => (SyncKind::BarrierDepart, false),
    };
    SyncRecord {
        op,
        obj,
        shared,
        annotated,
    }
}

fn location(l: &'static std::panic::Location<'static>) -> Location {
    Location {
        file: Cow::Borrowed(l.file()),
        line: l.line(),
        column: l.column(),
    }
}

fn objects(e: &Execution) -> Vec<ObjectInfo> {
    (0..e.objects.len() as u32)
        .map(|id| {
            let s = e.objects.get(id);
            ObjectInfo {
                id,
                kind: Cow::Borrowed(s.kind.trace_name()),
                type_name: Cow::Borrowed(s.type_name),
                initial: s.initial.map(|(ty, bits)| InitialValue {
                    ty,
                    value: ty.to_i128(bits),
                }),
                created: s.created.map(location),
                taken: s.taken,
            }
        })
        .collect()
}

fn verdict(e: &Execution) -> Verdict {
    match &e.failure {
        Some(f) => Verdict::Fail {
            kind: f.kind.name().to_string(),
            message: f.message.clone(),
        },
        None if e.sym.discarded => Verdict::Discarded,
        None => Verdict::Pass,
    }
}

/// How traces name a visible operation on anything but a `Shared` (whose loads and stores are
/// `shared_read` and `shared_write`).
pub(crate) fn event_kind(kind: OpKind) -> EventKind {
    match kind {
        OpKind::Load => EventKind::Load,
        OpKind::Store => EventKind::Store,
        OpKind::Rmw => EventKind::Rmw,
        OpKind::CompareExchange => EventKind::CompareExchange,
        OpKind::Lock => EventKind::Lock,
        OpKind::ReadLock => EventKind::ReadLock,
        OpKind::TryLock => EventKind::TryLock,
        OpKind::Unlock => EventKind::Unlock,
        OpKind::ReadUnlock => EventKind::ReadUnlock,
        OpKind::CondvarWait => EventKind::CondvarWait,
        OpKind::NotifyOne => EventKind::NotifyOne,
        OpKind::NotifyAll => EventKind::NotifyAll,
        OpKind::BarrierWait => EventKind::BarrierWait,
        OpKind::Send => EventKind::Send,
        OpKind::Recv => EventKind::Recv,
        OpKind::Park => EventKind::Park,
        OpKind::Unpark => EventKind::Unpark,
        OpKind::Yield | OpKind::Checkpoint => EventKind::Yield,
        OpKind::QueueWait => EventKind::QueueWait,
        OpKind::QueueNotify => EventKind::QueueNotify,
        OpKind::QueueNotifyAll => EventKind::QueueNotifyAll,
        OpKind::Once => EventKind::Once,
        OpKind::SpuriousWake => EventKind::SpuriousWake,
        OpKind::SendersGone | OpKind::ReceiverGone => EventKind::Disconnect,
        OpKind::AnnotatedAcquire | OpKind::AnnotatedAcquireShared => EventKind::Acquire,
        OpKind::AnnotatedRelease | OpKind::AnnotatedReleaseShared => EventKind::Release,
        OpKind::EpochMarker => EventKind::EpochMarker,
    }
}
