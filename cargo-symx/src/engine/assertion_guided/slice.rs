//! Static slicing, made sound by the runtime's records (the paper's §6.1: what no assertion
//! depends on is not a branch of the search).
//!
//! `#[symx::instrument]` marks an atomic operation *blind* when the program drops its result:
//! every store, and a read-modify-write whose value a statement discards (the runtime's
//! `sync::blind`). An object every access of which is blind is one whose value nothing the
//! program does depends on: no assertion, no branch, no address, no other write. Taking its
//! accesses in another order changes only that value, so as far as any assertion goes they
//! commute with everything: the search gives them no dependence (they race with nothing and
//! wake no sleeping thread), and the schedules that differ only in their order are one. A
//! statistics counter every thread bumps is the typical case.
//!
//! Syntax alone cannot say which objects those are (a counter bumped blindly here may be
//! read elsewhere, through another name). The slice is therefore a set of *creation sites*,
//! guessed from the search's first execution (the sites whose objects, integer atomics all,
//! it used only blindly and never took out of the model), and every later execution checks
//! it: an object created at a sliced site that is used otherwise (a step without the mark, an
//! unsynchronised read, a value taken out by `get_mut`) *breaks* the slice, and the search
//! starts again without that site. A search that ends with its slice unbroken is sound:
//! until an execution breaks it, nothing the program does sees the sliced objects' values,
//! so the search explores the program whose sliced accesses are no-ops, exactly, and an
//! execution that would break the slice is an event of that program, reached as a failure
//! is (a summary covers only states proved unable to reach one below, and the search stops at
//! the first it runs into).
//!
//! Only assertions gain: a deadlock or a data race is not searched for by pruning either.

use std::borrow::Cow;
use std::collections::HashSet;

use symx::trace::format::{Location, TraceEvent};
use symx::trace::Trace;

/// The creation sites whose objects the search treats as irrelevant to every assertion.
#[derive(Clone, Debug, Default)]
pub struct Slice {
    sites: HashSet<Location>,
}

impl Slice {
    /// The sites of integer atomics that `trace` used, and only blindly.
    pub fn of_first(trace: &Trace) -> Slice {
        let mut sites = HashSet::new();
        let mut not = HashSet::new();
        let blind = blind_only(trace);
        let mut used = vec![false; trace.objects.len()];
        for o in trace.events.iter().filter_map(|ev| ev.obj) {
            used[o as usize] = true;
        }
        for o in &trace.objects {
            let Some(site) = &o.created else { continue };
            let id = o.id as usize;
            if o.kind == "atomic" && !o.taken && used[id] && blind[id] {
                sites.insert(site.clone());
            } else {
                not.insert(site.clone());
            }
        }
        sites.retain(|s| !not.contains(s));
        Slice { sites }
    }

    /// Per object of `trace` (by id), whether it was created at a sliced site.
    pub fn objects(&self, trace: &Trace) -> Vec<bool> {
        (trace.objects.iter())
            .map(|o| (o.created.as_ref()).is_some_and(|s| self.sites.contains(s)))
            .collect()
    }

    /// The sliced sites `trace` used otherwise than blindly.
    pub fn broken(&self, trace: &Trace) -> HashSet<Location> {
        if self.sites.is_empty() {
            return HashSet::new();
        }
        let (sliced, blind) = (self.objects(trace), blind_only(trace));
        (trace.objects.iter())
            .filter(|o| sliced[o.id as usize] && (o.taken || !blind[o.id as usize]))
            .filter_map(|o| o.created.clone())
            .collect()
    }

    /// `trace` as the search reads it: a blind step on a sliced object keeps no guard (the
    /// pin `read == value` of a plain read-modify-write, whose value the program dropped), so
    /// that neither keys nor summaries tell apart states that differ only in sliced values.
    pub fn view<'t>(&self, trace: &'t Trace) -> Cow<'t, Trace> {
        let sliced = self.objects(trace);
        let hidden = |ev: &TraceEvent| {
            ev.blind && ev.guard.is_some() && ev.obj.is_some_and(|o| sliced[o as usize])
        };
        if !trace.events.iter().any(hidden) {
            return Cow::Borrowed(trace);
        }
        let mut out = trace.clone();
        for ev in out.events.iter_mut().filter(|ev| hidden(ev)) {
            ev.guard = None;
        }
        Cow::Owned(out)
    }

    /// The slice without `sites`.
    pub fn without(&self, sites: &HashSet<Location>) -> Slice {
        let mut out = self.clone();
        out.sites.retain(|s| !sites.contains(s));
        out
    }

    /// The sites, as `file:line:column`, sorted.
    pub fn sites(&self) -> Vec<String> {
        let mut out: Vec<String> = self.sites.iter().map(site).collect();
        out.sort();
        out
    }
}

/// `file:line:column`.
pub fn site(l: &Location) -> String {
    format!("{}:{}:{}", l.file, l.line, l.column)
}

/// Per object of `trace`, whether every event on it is a blind step.
fn blind_only(trace: &Trace) -> Vec<bool> {
    let mut out = vec![true; trace.objects.len()];
    for ev in &trace.events {
        for o in [ev.obj, ev.obj2].into_iter().flatten() {
            if !(ev.blind && ev.step.is_some() && ev.obj == Some(o)) {
                if let Some(b) = out.get_mut(o as usize) {
                    *b = false;
                }
            }
        }
    }
    out
}
