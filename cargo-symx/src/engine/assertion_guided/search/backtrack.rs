//! Backtracking: the races an execution showed (or a pruned subtree would have shown),
//! planted as new choices in the backtrack sets of the nodes on the stack, with Flanagan
//! and Godefroid's fallback where a race's initials are not enabled.

use symx::trace::format::EventKind;
use symx::trace::Trace;

use super::Search;
use crate::engine::assertion_guided::names::{Names, Objects};
use crate::engine::assertion_guided::races::{self, Class, Hb, Step};
use crate::engine::assertion_guided::tree::Kind;

impl Search<'_> {
    /// A failed assumption ended the execution: every other thread's remaining events were
    /// cut off, and the order of the discarding thread's last step and any other thread's
    /// next one decides whether those run at all. No access shows that race, so every
    /// enabled thread joins the backtrack set before that step (Flanagan and Godefroid's
    /// fallback).
    pub(super) fn before_discard(&mut self, trace: &Trace, steps: &[Step]) {
        let Some(d) = trace.events.last().map(|e| e.thread) else {
            return;
        };
        let Some(last) = steps.iter().rfind(|s| s.thread == d) else {
            return;
        };
        let Some(n) = self.stack.iter_mut().find(|n| n.pos == last.pos) else {
            return;
        };
        if let Kind::Schedule {
            enabled, backtrack, ..
        } = &mut n.kind
        {
            for &t in enabled.iter() {
                if !backtrack.contains(&t) {
                    backtrack.push(t);
                }
            }
        }
    }

    /// Plants the reversal of a race whose first step is at `pos`: one of `initials` joins
    /// the backtrack set there, unless one is already explored, planned or asleep.
    pub(super) fn reverse(&mut self, pos: usize, initials: &[usize]) {
        let Some(n) = self.stack.iter_mut().find(|n| n.pos == pos) else {
            return;
        };
        let Kind::Schedule {
            enabled,
            backtrack,
            done,
            sleep,
            ..
        } = &mut n.kind
        else {
            return;
        };
        let covered = |t: &usize| {
            backtrack.contains(t) || done.contains(t) || sleep.iter().any(|s| s.thread == *t)
        };
        if initials.iter().any(covered) {
            return;
        }
        match initials.iter().find(|t| enabled.contains(t)) {
            Some(&t) => backtrack.push(t),
            // Not enabled there: every enabled thread (Flanagan and Godefroid's fallback).
            None => {
                for &t in enabled.iter() {
                    if !backtrack.contains(&t) {
                        backtrack.push(t);
                    }
                }
            }
        }
    }

    /// The races the pruned subtree would have shown (the paper's §5.2): every access below
    /// the summary's key is pretended to happen right after the pruned state, by its thread
    /// (or the nearest ancestor alive there), and races with the last conflicting step of the
    /// prefix that does not happen before it: not before its thread's last step, not a step of
    /// a thread it had joined, not before the last release of a lock it held. The race is
    /// reversed as any other: by one of its initials (the accessing thread itself only when
    /// nothing between the two comes before the access).
    pub(super) fn replay_accesses(
        &mut self,
        trace: &Trace,
        names: &Names,
        steps: &[Step],
        hb: &Hb,
        at: usize,
    ) {
        let Some(node) = self.stack.iter().find(|n| n.pos == at) else {
            return;
        };
        let rw = node.rw.clone();
        let objects = Objects::at(trace, names, at);
        for access in &rw {
            let Some(&o) = objects.id.get(&access.object) else {
                continue;
            };
            let Some(t) = alive(trace, names, at, &access.thread) else {
                continue;
            };
            let mine = steps.iter().rposition(|s| s.thread == t);
            // The last release of each lock the access was made holding: the access comes
            // after it (its lock was taken again after it, or is still held).
            let releases: Vec<usize> = (access.held.iter())
                .filter_map(|l| objects.id.get(l))
                .filter_map(|&l| {
                    (steps.iter()).rposition(|s| s.access.contains(&(l, Class::Release)))
                })
                .collect();
            let ordered = |k: usize| {
                mine.is_some_and(|l| l == k || hb.before[l][k])
                    || access.joined.contains(&names.thread[steps[k].thread])
                    || releases.iter().any(|&r| r == k || hb.before[r][k])
            };
            let racing = (0..steps.len()).rev().find(|&k| {
                steps[k].thread != t
                    && !ordered(k)
                    && (steps[k].access.iter()).any(|&a| races::conflict(a, (o, access.class)))
            });
            if let Some(k) = racing {
                let initials = pretended_initials(steps, hb, k, t, &ordered);
                self.reverse(steps[k].pos, &initials);
            }
        }
    }
}

/// Source-DPOR's initials for the race of step `k` with an access of thread `t` pretended
/// right after the last step (`ordered(w)`: step `w` happens before that access): the threads
/// whose first step among the steps after `k` not happening after it, then the access, has no
/// predecessor there, in order.
fn pretended_initials(
    steps: &[Step],
    hb: &Hb,
    k: usize,
    t: usize,
    ordered: &dyn Fn(usize) -> bool,
) -> Vec<usize> {
    let v: Vec<usize> = (k + 1..steps.len()).filter(|&w| !hb.before[w][k]).collect();
    let mut out = Vec::new();
    for (n, &u) in v.iter().enumerate() {
        let first = v[..n].iter().all(|&w| !hb.before[u][w]);
        if first && !out.contains(&steps[u].thread) {
            out.push(steps[u].thread);
        }
    }
    if !v.iter().any(|&w| ordered(w)) && !out.contains(&t) {
        out.push(t);
    }
    out
}

/// The trace id of the thread called `canonical`, or of its nearest ancestor, that is alive
/// (started and not finished) before `pos`.
fn alive(trace: &Trace, names: &Names, pos: usize, canonical: &str) -> Option<usize> {
    let mut name = canonical.to_string();
    loop {
        let id = names.thread.iter().position(|n| *n == name);
        if let Some(t) = id {
            let started = trace.threads[t]
                .spawned_at
                .is_none_or(|s| (s as usize) < pos);
            let exited = trace.events[..pos]
                .iter()
                .any(|e| e.thread == t && e.kind == EventKind::Exit);
            if started && !exited {
                return Some(t);
            }
        }
        let cut = name.rfind('.')?;
        name.truncate(cut);
    }
}
