//! Shrinking: the smallest variant of a program that still shows a disagreement ([`shrink`]).

use super::*;

/// The smallest program reachable from `p` by removing threads and operations, unwrapping
/// critical sections and inlining nested threads, for which `fails` still holds. Greedy:
/// takes the first smaller variant that fails, until none does.
pub fn shrink(p: &Program, mut fails: impl FnMut(&Program) -> bool) -> Program {
    let mut best = p.clone();
    'outer: loop {
        for candidate in program_variants(&best) {
            if fails(&candidate) {
                best = candidate;
                continue 'outer;
            }
        }
        return best;
    }
}

pub(super) fn program_variants(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    if p.threads.len() > 1 {
        for t in 0..p.threads.len() {
            let mut q = p.clone();
            q.threads.remove(t);
            out.push(q);
        }
    }
    for t in 0..p.threads.len() {
        for ops in variants(&p.threads[t]) {
            let mut q = p.clone();
            q.threads[t] = ops;
            out.push(q);
        }
    }
    out
}

/// Every list one simplification away from `ops`.
pub(super) fn variants(ops: &[Op]) -> Vec<Vec<Op>> {
    let mut out = Vec::new();
    let splice = |i: usize, with: Vec<Op>| {
        let mut v = ops[..i].to_vec();
        v.extend(with);
        v.extend_from_slice(&ops[i + 1..]);
        v
    };
    for (i, op) in ops.iter().enumerate() {
        out.push(splice(i, Vec::new()));
        match op {
            Op::Locked { body, .. } | Op::TryLocked { body, .. } => {
                out.push(splice(i, body.clone()));
                for b in variants(body) {
                    let mut smaller = op.clone();
                    if let Op::Locked { body, .. } | Op::TryLocked { body, .. } = &mut smaller {
                        *body = b;
                    }
                    out.push(splice(i, vec![smaller]));
                }
            }
            Op::Branch {
                read,
                value,
                then,
                otherwise,
            } => {
                // The read alone, without the branch.
                out.push(splice(i, vec![unbranched(*read)]));
                let branch = |then: Vec<Op>, otherwise: Vec<Op>| Op::Branch {
                    read: *read,
                    value: *value,
                    then,
                    otherwise,
                };
                for t in variants(then) {
                    out.push(splice(i, vec![branch(t, otherwise.clone())]));
                }
                for o in variants(otherwise) {
                    out.push(splice(i, vec![branch(then.clone(), o)]));
                }
            }
            Op::SpawnJoin { child, between } => {
                let mut inline = child.clone();
                inline.extend(between.iter().cloned());
                out.push(splice(i, inline));
                for c in variants(child) {
                    let between = between.clone();
                    out.push(splice(i, vec![Op::SpawnJoin { child: c, between }]));
                }
                for b in variants(between) {
                    let child = child.clone();
                    out.push(splice(i, vec![Op::SpawnJoin { child, between: b }]));
                }
            }
            _ => {}
        }
    }
    out
}

/// The operation a branch reads with, without the branch.
pub(super) fn unbranched(read: Read) -> Op {
    match read {
        Read::Atomic(a) => Op::Atomic(a),
        Read::Guard { mutex, add } => Op::Locked {
            mutex,
            add,
            body: Vec::new(),
        },
    }
}
