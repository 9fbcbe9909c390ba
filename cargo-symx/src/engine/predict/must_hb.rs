//! Must-happen-before (the paper's `hb-pavs` filter, §9.2): the order every feasible
//! interleaving keeps, from program order, spawn and join alone. Cheap static facts that let
//! property candidates go before any solver runs.

use symx::trace::format::EventKind;

use crate::solver::ctp::{Ctp, Ev};

/// Must-happen-before over program order, spawn and join (the paper's `hb-pavs` filter):
/// vector clocks over the observed order, which every feasible order extends.
pub struct MustHb {
    /// Per event, per thread: how many of that thread's events must come before it (the
    /// event itself included, for its own thread).
    clock: Vec<Vec<u32>>,
    /// Per event, its thread.
    thread: Vec<usize>,
}

impl MustHb {
    pub fn new(ctp: &Ctp) -> Self {
        let threads = ctp.threads.len();
        let mut clock: Vec<Vec<u32>> = Vec::with_capacity(ctp.trace.events.len());
        for (e, ev) in ctp.trace.events.iter().enumerate() {
            let mut vc = match ctp.pred[e] {
                Some(p) => clock[p].clone(),
                None => ctp.spawned_at[ev.thread].map_or(vec![0; threads], |s| clock[s].clone()),
            };
            // A join comes after the child's last event, which the observed order put first.
            if let Some(last) = (ev.kind == EventKind::Join)
                .then(|| ev.child.and_then(|c| ctp.last_of(c)))
                .flatten()
                .filter(|&l| l < e)
            {
                for (a, b) in vc.iter_mut().zip(&clock[last]) {
                    *a = (*a).max(*b);
                }
            }
            vc[ev.thread] = ev.index + 1;
            clock.push(vc);
        }
        let thread = ctp.trace.events.iter().map(|ev| ev.thread).collect();
        MustHb { clock, thread }
    }

    /// `a` happens before `b` in every feasible order.
    pub fn before(&self, a: Ev, b: Ev) -> bool {
        let t = self.thread[a];
        a != b && self.clock[b][t] >= self.clock[a][t]
    }
}
