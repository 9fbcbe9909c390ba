//! Constrained execution: a chooser that holds every thread to a schedule's happens-before
//! order (Bergan, dissertation §3.6.2: "at each synchronization statement, the runtime looks
//! at the calling thread's current HB node, waits until all incoming HB dependencies are
//! satisfied, and then advances to the next node").
//!
//! Here the waiting is the scheduler's: a thread whose next operation is a node whose
//! predecessors have not all happened is simply not picked. A thread about to do something
//! the schedule does not have next (another site, another operation) has *diverged*, which
//! under the paper's assumptions only a data race or synchronization the runtime cannot see
//! causes; the first divergence is reported and the run goes on with the first thread that
//! can. Memory accesses (`Shared`) and yields are not nodes and run freely.

use std::collections::{BTreeMap, HashSet};

use super::schedule::{describe, HbNode, HbSchedule};
use crate::rt::chooser::{Candidate, Chooser, SchedulingPoint};
use crate::rt::op::{OpKind, ThreadId};

pub(crate) struct Follow<'s> {
    /// The schedule of each epoch, in order (one for a run not cut into epochs).
    schedules: &'s [HbSchedule],
    /// Past the last schedule the run goes on freely (the thread that ran last while it
    /// can, else the lowest), not diverging.
    free_past: bool,
    /// The epoch being followed.
    epoch: usize,
    schedule: &'s HbSchedule,
    /// Each thread's position in its node list.
    cursor: BTreeMap<usize, usize>,
    /// Steps of the schedule that have run.
    done: HashSet<(usize, u32)>,
    last: Option<ThreadId>,
    started: bool,
    divergence: Option<String>,
}

/// What the schedule says about one candidate.
enum Admit {
    /// Not a node (a memory access, a yield): it may run.
    Free,
    /// Its next node, whose predecessors have all happened.
    Ready,
    /// Its next node, waiting for a predecessor.
    Waiting((usize, u32)),
    /// Not what the schedule has next for it.
    Diverged(String),
}

impl<'s> Follow<'s> {
    pub fn new(schedules: &'s [HbSchedule], free_past: bool) -> Self {
        Follow {
            schedules,
            free_past,
            epoch: 0,
            schedule: &schedules[0],
            cursor: BTreeMap::new(),
            done: HashSet::new(),
            last: None,
            started: false,
            divergence: None,
        }
    }

    /// Where the run first left the schedule.
    pub fn divergence(&self) -> Option<String> {
        self.divergence.clone()
    }

    /// Thread `t`'s next step node, passing over its thread-local nodes (spawn, join, exit,
    /// annotations), which the runtime orders by itself.
    fn next_step(&mut self, t: usize) -> Option<&'s HbNode> {
        let nodes = self.schedule.threads.get(&t)?;
        let at = self.cursor.entry(t).or_default();
        while nodes.get(*at).is_some_and(|n| !n.is_step()) {
            *at += 1;
        }
        nodes.get(*at)
    }

    /// A boundary passed: the next epoch's schedule holds from here, from its start.
    fn enter_epoch(&mut self, epoch: usize) {
        if epoch == self.epoch {
            return;
        }
        self.epoch = epoch;
        self.cursor.clear();
        self.done.clear();
        match self.schedules.get(epoch) {
            Some(s) => self.schedule = s,
            None if self.divergence.is_none() && !self.free_past => {
                self.divergence = Some(format!(
                    "the run went on into epoch {epoch}, past the {} the schedules cover",
                    self.schedules.len()
                ))
            }
            None => {}
        }
    }

    fn admit(&mut self, c: &Candidate) -> Admit {
        let past = self.free_past && self.epoch >= self.schedules.len();
        if past
            || c.shared
            || matches!(
                c.op.kind,
                OpKind::Yield | OpKind::Checkpoint | OpKind::EpochMarker
            )
        {
            return Admit::Free;
        }
        let site = format!(
            "{}:{}:{}",
            c.op.location.file(),
            c.op.location.line(),
            c.op.location.column()
        );
        let kind = crate::trace::build::event_kind(c.op.kind);
        let Some(node) = self.next_step(c.thread) else {
            return Admit::Diverged(format!(
                "thread {} does {} at {site}, after the last step the schedule has for it",
                c.thread,
                super::schedule::kind_name(kind)
            ));
        };
        if node.op != kind || node.site != site {
            return Admit::Diverged(format!(
                "thread {} does {} at {site} where the schedule has {}",
                c.thread,
                super::schedule::kind_name(kind),
                describe(Some(node))
            ));
        }
        let waiting = node.preds.iter().find(|&&(u, s)| {
            let pred_is_step = (self.schedule.threads.get(&u))
                .and_then(|ns| ns.get(s as usize))
                .is_some_and(HbNode::is_step);
            pred_is_step && !self.done.contains(&(u, s))
        });
        match waiting {
            Some(&p) => Admit::Waiting(p),
            None => Admit::Ready,
        }
    }
}

impl Chooser for Follow<'_> {
    fn next_execution(&mut self) -> bool {
        !std::mem::replace(&mut self.started, true)
    }

    fn sees_every_step(&self) -> bool {
        true
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        self.enter_epoch(point.epoch);
        let verdicts: Vec<(ThreadId, Admit)> = (point.candidates.iter())
            .map(|c| (c.thread, self.admit(c)))
            .collect();
        let can_go = |t: &ThreadId| {
            verdicts
                .iter()
                .any(|(u, a)| u == t && matches!(a, Admit::Free | Admit::Ready))
        };
        let chosen = self
            .last
            .filter(can_go)
            .or_else(|| verdicts.iter().map(|(t, _)| *t).find(can_go));
        let chosen = match chosen {
            Some(t) => t,
            None => {
                self.diverge(&verdicts);
                point.first()
            }
        };
        if let Some((_, Admit::Ready)) = verdicts.iter().find(|(t, _)| *t == chosen) {
            let node = self
                .next_step(chosen)
                .expect("a ready thread has a next step");
            self.done.insert((chosen, node.seq));
            *self.cursor.entry(chosen).or_default() += 1;
        }
        self.last = Some(chosen);
        chosen
    }

    fn choose_value(&mut self, _n: usize) -> usize {
        0
    }
}

impl Follow<'_> {
    /// No thread may take a step: says why, once.
    fn diverge(&mut self, verdicts: &[(ThreadId, Admit)]) {
        if self.divergence.is_some() {
            return;
        }
        let why: Vec<String> = (verdicts.iter())
            .map(|(t, a)| match a {
                Admit::Diverged(d) => d.clone(),
                Admit::Waiting((u, s)) => {
                    format!("thread {t} waits for thread {u}'s node {s}, which cannot run")
                }
                Admit::Free | Admit::Ready => String::new(),
            })
            .collect();
        self.divergence = Some(why.join("; "));
    }
}

/// Whether a run that followed `expected`, one schedule per epoch, kept to it: where it first
/// left it, epoch by epoch.
pub fn conformance_epochs(expected: &[HbSchedule], trace: &crate::trace::Trace) -> Option<String> {
    let ran = HbSchedule::of_epochs(trace)?;
    if ran.len() > expected.len() {
        return Some(format!(
            "the run went on into epoch {}, past the {} the schedules cover",
            expected.len(),
            expected.len()
        ));
    }
    compare_epochs(expected, &ran)
}

/// [`conformance_epochs`] for a run that was let go on past `expected`: only the epochs
/// with a schedule are judged.
pub(crate) fn conformance_first(
    expected: &[HbSchedule],
    trace: &crate::trace::Trace,
) -> Option<String> {
    let reached = expected.len().min(super::schedule::epochs_run(trace));
    let ran: Option<Vec<HbSchedule>> = (0..reached)
        .map(|k| HbSchedule::of_epoch(trace, k))
        .collect();
    compare_epochs(expected, &ran?)
}

/// Where the schedules `ran`, epoch by epoch, first left `expected`.
fn compare_epochs(expected: &[HbSchedule], ran: &[HbSchedule]) -> Option<String> {
    for (k, (want, got)) in expected.iter().zip(ran).enumerate() {
        if let Some(d) = conformance(want, got) {
            return Some(if expected.len() > 1 {
                format!("epoch {k}: {d}")
            } else {
                d
            });
        }
    }
    None
}

/// Whether a run that followed `expected` kept to it: `None` when its own schedule is
/// `expected`, or a failing prefix of it (the run stopped early where the program failed,
/// §3.4.1.1); otherwise where it left it.
pub fn conformance(expected: &HbSchedule, ran: &HbSchedule) -> Option<String> {
    if ran.is_prefix_of(expected) {
        return None;
    }
    expected.difference(ran)
}
