//! A schedule in the sense of input-covering schedules: the happens-before graph of the
//! synchronization operations of one execution, and how it is read off a trace.
//!
//! Bergan (dissertation, ch. 3, §3.2) labels each node with (program counter, thread id,
//! dynamic counter) and draws program order plus synchronization order; ordinary memory
//! accesses are not nodes, the program being data-race free. Here a node is every visible
//! operation of a thread except reads and writes of `symx::Shared` and yields, plus the
//! thread-local events that synchronize (spawn, join, exit, the annotations of user-built
//! primitives); its site is its source location, its object the object's creation site and
//! its rank among the objects created there (so the same object has the same name in every
//! execution, and `&a` and `&b` chosen by an input are different schedules). Operations on
//! one object are totally ordered as they ran; a node's predecessors are the previous
//! operation on each of its objects by another thread, the spawn that started its thread,
//! and the exit a join waited for.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::trace::format::{EventKind, Location, TraceEvent, Verdict};
use crate::trace::Trace;

/// One synchronization operation of a schedule.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HbNode {
    /// Position among its thread's nodes (the dynamic counter).
    pub seq: u32,
    /// Where it happens, `file:line:column` (the program counter).
    pub site: String,
    /// The operation, as traces name event kinds.
    pub op: EventKind,
    /// The objects it acts on (`file:line:column#rank` of their creation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objs: Vec<String>,
    /// Nodes of other threads `(thread, seq)` that must have happened before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preds: Vec<(usize, u32)>,
}

impl HbNode {
    /// A scheduling step (the runtime can hold it back), not a thread-local event.
    pub fn is_step(&self) -> bool {
        !synchronizes_locally(self.op)
    }
}

/// How a schedule ends.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum End {
    /// Every thread exited.
    Exit,
    /// No thread could go on while some had not exited.
    Deadlock,
    /// The execution failed otherwise.
    Failed {
        /// As reports name it: `panic`, `data-race`, ...
        kind: String,
    },
    /// An epoch boundary (a run cut into bounded epochs): every thread was at an epoch
    /// marker, blocked or finished, as `contexts` says (by thread id: `marker <site>`,
    /// `blocked <site>`, `exit`).
    Epoch {
        /// Where each thread was.
        contexts: Vec<(usize, String)>,
    },
}

/// The happens-before graph of one execution's synchronization, thread by thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HbSchedule {
    /// Each thread's nodes in program order, by thread id (spawn order).
    #[serde(with = "thread_keys")]
    pub threads: BTreeMap<usize, Vec<HbNode>>,
    /// How the execution ended.
    pub end: End,
}

impl HbSchedule {
    /// The schedule `trace` followed; `None` for an execution an assumption discarded.
    pub fn of(trace: &Trace) -> Option<HbSchedule> {
        HbSchedule::of_epoch(trace, epochs_run(trace) - 1)
    }

    /// The schedule of epoch `k` of `trace` (0: from the start to the first boundary); the
    /// last epoch ends as the run did. `None` for an execution an assumption discarded, or
    /// an epoch the run did not reach.
    pub fn of_epoch(trace: &Trace, k: usize) -> Option<HbSchedule> {
        if k >= epochs_run(trace) {
            return None;
        }
        let from = match k {
            0 => 0,
            _ => trace.epochs[k - 1].seq,
        };
        let (to, end) = match trace.epochs.get(k) {
            Some(b) => (
                b.seq,
                End::Epoch {
                    contexts: b.contexts.clone(),
                },
            ),
            None => {
                let end = match &trace.verdict {
                    Verdict::Pass => End::Exit,
                    Verdict::Discarded => return None,
                    Verdict::Fail { kind, .. } if kind == "deadlock" => End::Deadlock,
                    Verdict::Fail { kind, .. } => End::Failed { kind: kind.clone() },
                };
                (u32::MAX, end)
            }
        };
        let mut reader = Reader {
            names: object_names(trace),
            ..Reader::default()
        };
        for e in trace.events.iter().filter(|e| e.seq >= from && e.seq < to) {
            reader.event(e);
        }
        let mut threads = reader.threads;
        unordered_joins(&mut threads);
        Some(HbSchedule { threads, end })
    }

    /// The schedules of every epoch of `trace`, in order.
    pub fn of_epochs(trace: &Trace) -> Option<Vec<HbSchedule>> {
        (0..epochs_run(trace))
            .map(|k| HbSchedule::of_epoch(trace, k))
            .collect()
    }

    /// The same schedule with thread `t` called `rename(t)` (a permutation): how a
    /// schedule of an epoch named by its contexts' multiset (symbolic thread ids) is held
    /// to a run whose threads reached the epoch in other places.
    pub fn renumbered(&self, rename: impl Fn(usize) -> usize) -> HbSchedule {
        let threads = (self.threads.iter())
            .map(|(&t, nodes)| {
                let nodes = (nodes.iter())
                    .map(|n| HbNode {
                        preds: n.preds.iter().map(|&(u, s)| (rename(u), s)).collect(),
                        ..n.clone()
                    })
                    .collect();
                (rename(t), nodes)
            })
            .collect();
        let mut threads = threads;
        unordered_joins(&mut threads);
        let end = match &self.end {
            End::Epoch { contexts } => {
                let mut contexts: Vec<(usize, String)> = contexts
                    .iter()
                    .map(|(t, c)| (rename(*t), c.clone()))
                    .collect();
                contexts.sort();
                End::Epoch { contexts }
            }
            other => other.clone(),
        };
        HbSchedule { threads, end }
    }

    /// Every node, in no particular order across threads.
    pub fn nodes(&self) -> impl Iterator<Item = (usize, &HbNode)> {
        (self.threads.iter()).flat_map(|(&t, ns)| ns.iter().map(move |n| (t, n)))
    }

    /// Threads that did not exit: blocked for good in a deadlocking schedule.
    pub fn unfinished(&self) -> Vec<usize> {
        (self.threads.iter())
            .filter(|(_, ns)| ns.last().is_none_or(|n| n.op != EventKind::Exit))
            .map(|(&t, _)| t)
            .collect()
    }

    /// Whether this schedule, which failed, is a *prefix* of `longer` (Bergan §3.4.1.1):
    /// every thread did an initial part of what it does in `longer`, so following `longer`
    /// and stopping where the failure happens runs it. The failing thread's exit is not
    /// compared: unwinding is not a synchronization of the program's.
    pub fn is_prefix_of(&self, longer: &HbSchedule) -> bool {
        matches!(self.end, End::Failed { .. })
            && self.threads.iter().all(|(t, nodes)| {
                let nodes = match nodes.split_last() {
                    Some((last, rest)) if last.op == EventKind::Exit => match longer.threads.get(t)
                    {
                        Some(l) if l.len() >= nodes.len() && l[nodes.len() - 1] == *last => nodes,
                        _ => rest,
                    },
                    _ => nodes,
                };
                longer.threads.get(t).is_some_and(|l| l.starts_with(nodes))
            })
    }

    /// Where `other` first differs from this schedule, in words; `None` when they are equal.
    pub fn difference(&self, other: &HbSchedule) -> Option<String> {
        let threads = self.threads.keys().chain(other.threads.keys());
        for &t in threads {
            let (mine, theirs) = (self.threads.get(&t), other.threads.get(&t));
            let (mine, theirs) = (mine.map_or(&[][..], |v| v), theirs.map_or(&[][..], |v| v));
            let at = mine.iter().zip(theirs).position(|(a, b)| a != b);
            let at = at.or((mine.len() != theirs.len()).then(|| mine.len().min(theirs.len())));
            if let Some(i) = at {
                return Some(format!(
                    "thread {t}'s node {i}: the schedule has {}, the run {}",
                    describe(mine.get(i)),
                    describe(theirs.get(i))
                ));
            }
        }
        (self.end != other.end).then(|| {
            format!(
                "the schedule ends with {:?}, the run with {:?}",
                self.end, other.end
            )
        })
    }
}

/// Puts each run of consecutive joins at one site (a scope's joins of its threads) in one
/// order, by the exits they wait for: those joins are not ordered among themselves (a
/// thread that finished is joined at once, whichever it is), so two runs that join the
/// same threads in another order follow the same schedule. No node names a join as its
/// predecessor (a join acts on no object), so their counters are just renumbered.
fn unordered_joins(threads: &mut BTreeMap<usize, Vec<HbNode>>) {
    for nodes in threads.values_mut() {
        let mut from = 0;
        while from < nodes.len() {
            let same = |n: &HbNode| {
                n.op == EventKind::Join && n.objs.is_empty() && n.site == nodes[from].site
            };
            let to = from + nodes[from..].iter().take_while(|n| same(n)).count().max(1);
            nodes[from..to].sort_by(|a, b| a.preds.cmp(&b.preds));
            for (i, n) in nodes.iter_mut().enumerate().take(to).skip(from) {
                n.seq = i as u32;
            }
            from = to;
        }
    }
}

/// The epochs `trace` ran (at least one): one more than its boundaries, unless it ended at
/// the last.
pub fn epochs_run(trace: &Trace) -> usize {
    match trace.epochs.last() {
        Some(b) if b.ends_run => trace.epochs.len(),
        _ => trace.epochs.len() + 1,
    }
}

/// A node in words, for divergence reports.
pub fn describe(node: Option<&HbNode>) -> String {
    match node {
        None => "nothing".into(),
        Some(n) => {
            let on = if n.objs.is_empty() {
                String::new()
            } else {
                format!(" on {}", n.objs.join(", "))
            };
            format!("{}{on} at {}", kind_name(n.op), n.site)
        }
    }
}

/// An event kind as traces spell it (`shared_read` for `SharedRead`).
pub fn kind_name(kind: EventKind) -> String {
    let mut out = String::new();
    for (i, c) in format!("{kind:?}").chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// `file:line:column`, the form sites take in schedules.
pub fn site(location: Option<&Location>) -> String {
    match location {
        Some(l) => format!("{}:{}:{}", l.file, l.line, l.column),
        None => "?".into(),
    }
}

/// What reading a trace keeps between events.
#[derive(Default)]
struct Reader {
    names: Vec<String>,
    threads: BTreeMap<usize, Vec<HbNode>>,
    /// The last node that acted on each object.
    last_on: HashMap<u32, (usize, u32)>,
    /// The spawn node that started each thread, until its first node.
    spawned_by: HashMap<usize, (usize, u32)>,
}

impl Reader {
    fn event(&mut self, e: &TraceEvent) {
        if !is_node(e) {
            return;
        }
        let t = e.thread;
        let seq = self.threads.get(&t).map_or(0, |ns| ns.len() as u32);
        let objs = objects_of(e);
        let mut preds: Vec<(usize, u32)> = Vec::new();
        for &o in &objs {
            if let Some(&(u, s)) = self.last_on.get(&o) {
                if u != t {
                    preds.push((u, s));
                }
            }
            self.last_on.insert(o, (t, seq));
        }
        if seq == 0 {
            preds.extend(self.spawned_by.remove(&t));
        }
        match e.kind {
            EventKind::Spawn => {
                if let Some(child) = e.child {
                    self.spawned_by.insert(child, (t, seq));
                }
            }
            EventKind::Join => {
                let exit = e.child.and_then(|c| {
                    let ns = self.threads.get(&c)?;
                    let last = ns.last().filter(|n| n.op == EventKind::Exit)?;
                    Some((c, last.seq))
                });
                preds.extend(exit);
            }
            _ => {}
        }
        preds.sort_unstable();
        preds.dedup();
        let node = HbNode {
            seq,
            site: site(e.location.as_ref()),
            op: e.kind,
            objs: objs.iter().map(|&o| self.name(o)).collect(),
            preds,
        };
        self.threads.entry(t).or_default().push(node);
    }

    fn name(&self, o: u32) -> String {
        self.names
            .get(o as usize)
            .cloned()
            .unwrap_or_else(|| format!("#{o}"))
    }
}

/// Whether a trace event is a node of the schedule.
fn is_node(e: &TraceEvent) -> bool {
    match e.kind {
        EventKind::SharedRead
        | EventKind::SharedWrite
        | EventKind::Yield
        | EventKind::EpochMarker => false,
        kind => synchronizes_locally(kind) || e.step.is_some(),
    }
}

/// The thread-local events that are nodes: spawn, join, exit and the barrier annotations of
/// user-built primitives (not scheduling steps: the runtime orders them by itself; annotated
/// acquisitions and releases are steps of their own).
fn synchronizes_locally(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::Spawn
            | EventKind::Join
            | EventKind::Exit
            | EventKind::BarrierArrive
            | EventKind::BarrierDepart
    )
}

/// The objects an event acts on: its object (and a condvar wait's mutex), or what an
/// annotation names.
fn objects_of(e: &TraceEvent) -> Vec<u32> {
    let mut objs: Vec<u32> = e.obj.into_iter().chain(e.obj2).collect();
    objs.extend(e.sync.iter().map(|s| s.obj));
    objs.dedup();
    objs
}

/// Each object's name across executions: its creation site and its rank among the objects
/// created there, in order of first use (or its kind and rank when its creation is unknown).
fn object_names(trace: &Trace) -> Vec<String> {
    let mut seen: HashMap<String, u32> = HashMap::new();
    (trace.objects.iter())
        .map(|o| {
            let base = match &o.created {
                Some(l) => site(Some(l)),
                None => o.kind.to_string(),
            };
            let rank = seen.entry(base.clone()).or_default();
            let name = format!("{base}#{rank}");
            *rank += 1;
            name
        })
        .collect()
}

/// Thread ids as JSON object keys (strings), read back through any deserializer, the
/// buffering ones of tagged enums included (which cannot turn a string key into a number).
mod thread_keys {
    use std::collections::BTreeMap;

    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::HbNode;

    pub fn serialize<S: Serializer>(
        threads: &BTreeMap<usize, Vec<HbNode>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let keyed: BTreeMap<String, &Vec<HbNode>> =
            threads.iter().map(|(t, n)| (t.to_string(), n)).collect();
        keyed.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<usize, Vec<HbNode>>, D::Error> {
        let keyed = BTreeMap::<String, Vec<HbNode>>::deserialize(d)?;
        (keyed.into_iter())
            .map(|(t, n)| Ok((t.parse().map_err(D::Error::custom)?, n)))
            .collect()
    }
}
