//! The schedule file (`cargo symx schedules --output FILE`, documented in
//! `docs/input-covering.md`) and the Table 3.1-style summary of an enumeration.

use serde_json::{json, Value};

use super::{DeadlockVerdict, Enumeration, Verdicts};

/// The value of the file's `format` field.
pub const FILE_FORMAT: &str = "symx-schedules";
/// The file's version: a change of meaning or shape bumps it.
pub const FILE_VERSION: u32 = 1;

/// Bergan's Table 3.1 columns for one test.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub epochs: usize,
    pub min: usize,
    pub max: usize,
    pub avg: f64,
    pub total: usize,
    pub deadlocking_confirmed: usize,
    pub deadlocking_unconfirmed: usize,
    /// Deadlocking schedules flagged possibly infeasible (none can be in the first epoch).
    pub infeasible: usize,
    /// Schedules the rely-guarantee discharge proved infeasible.
    pub proved_infeasible: usize,
    pub seconds: f64,
}

impl Summary {
    pub fn of(e: &Enumeration, v: &Verdicts) -> Summary {
        let per_epoch: Vec<usize> = e.epochs.iter().map(|x| x.schedules).collect();
        let total: usize = per_epoch.iter().sum();
        Summary {
            epochs: per_epoch.len(),
            min: per_epoch.iter().copied().min().unwrap_or(0),
            max: per_epoch.iter().copied().max().unwrap_or(0),
            avg: total as f64 / per_epoch.len().max(1) as f64,
            total,
            deadlocking_confirmed: v.confirmed(),
            deadlocking_unconfirmed: v.unconfirmed(),
            infeasible: v.possibly_infeasible(),
            proved_infeasible: v.proved_infeasible.len(),
            seconds: e.seconds,
        }
    }

    /// The table's header and row, aligned.
    pub fn table(&self, test: &str) -> String {
        format!(
            "{:<40} {:>6} {:>14} {:>7} {:>22} {:>25} {:>8}\n{:<40} {:>6} {:>14} {:>7} {:>22} {:>25} {:>8}",
            "test",
            "epochs",
            "Σ_E min/max/avg",
            "Σ total",
            "deadlocking conf/unconf",
            "infeasible flagged/proved",
            "time",
            test,
            self.epochs,
            format!("{}/{}/{:.1}", self.min, self.max, self.avg),
            self.total,
            format!(
                "{}/{}",
                self.deadlocking_confirmed, self.deadlocking_unconfirmed
            ),
            format!("{}/{}", self.infeasible, self.proved_infeasible),
            format!("{:.2}s", self.seconds),
        )
    }
}

/// The schedule file of `test`.
pub fn schedule_file(test: &str, e: &Enumeration, v: &Verdicts) -> Value {
    let s = Summary::of(e, v);
    let epochs: Vec<Value> = (e.epochs.iter().enumerate())
        .map(|(k, epoch)| {
            let schedules: Vec<Value> = (e.pairs.iter().enumerate())
                .filter(|(_, p)| p.epoch == k)
                .map(|(i, _)| schedule_json(e, v, i))
                .collect();
            json!({
                "id": epoch.id,
                "contexts": epoch.contexts,
                "depth": epoch.depth,
                "schedules": schedules,
            })
        })
        .collect();
    let (with, without) = e.marker_counts();
    let markers: Vec<Value> = (e.loops.values())
        .map(|l| json!({"site": l.site, "function": l.function, "marker": l.marker, "reason": l.reason}))
        .collect();
    json!({
        "format": FILE_FORMAT,
        "version": FILE_VERSION,
        "test": test,
        "inputs": e.inputs.iter().map(|(n, ty)| json!({"name": n, "ty": ty})).collect::<Vec<_>>(),
        "complete": e.complete,
        "incomplete": e.incomplete,
        "markers": markers,
        "epochs": epochs,
        "summary": {
            "epochs": s.epochs,
            "schedules_min": s.min,
            "schedules_max": s.max,
            "schedules_avg": s.avg,
            "schedules_total": s.total,
            "deadlocking_confirmed": s.deadlocking_confirmed,
            "deadlocking_unconfirmed": s.deadlocking_unconfirmed,
            "flagged_infeasible": s.infeasible,
            "proved_infeasible": s.proved_infeasible,
            "markers": with,
            "markers_without_optimizations": without,
            "paths": e.paths,
            "prefix_paths_merged": e.prefixes,
            "seconds": s.seconds,
        },
    })
}

/// Pair `i` of `e`, the `j`-th schedule of epoch `epoch`.
fn schedule_json(e: &Enumeration, v: &Verdicts, i: usize) -> Value {
    let p = &e.pairs[i];
    let verdict = v.deadlocks.iter().find(|(k, _, _)| *k == i);
    json!({
        "id": e.pair_id(i),
        "constraint": { "smt2": p.constraint_text, "paths": p.paths },
        "model": p.model,
        "threads": p.schedule.threads,
        "end": p.schedule.end,
        "next_epoch": p.next_epoch.map(|n| e.epochs[n].id.clone()),
        "flags": {
            "deadlock": p.deadlocks(),
            "deadlock_verdict": verdict.map(|(_, _, d)| verdict_json(d)),
            "possibly_infeasible": matches!(
                verdict,
                Some((_, _, DeadlockVerdict::PossiblyInfeasible { .. }))
            ),
            "prefixes": p.prefixes,
            "proved_infeasible": v.infeasible(i),
        },
    })
}

fn verdict_json(d: &DeadlockVerdict) -> Value {
    match d {
        DeadlockVerdict::Confirmed { token, message } => {
            json!({"verdict": "confirmed", "token": token, "message": message})
        }
        DeadlockVerdict::Unconfirmed(why) => json!({"verdict": "unconfirmed", "why": why}),
        DeadlockVerdict::PossiblyInfeasible { havocked, why } => json!({
            "verdict": "possibly-infeasible",
            "havocked": havocked,
            "why": why,
        }),
    }
}
