//! The changes of a step that race apart from its operation ([`Apart`]): what the step's code
//! changed after joining a finished thread, and what the code of a thread it woke changed,
//! each after the past of that thread, which the operation itself need not come after.

use smallvec::SmallVec;

use crate::explore::dpor::events::{self, Access, Ev};
use crate::rt::op::Event;

/// Changes of step `step` that race apart from its operation, since they come after events
/// `after` that the operation need not come after: what the step's code changed after joining
/// a finished thread (after that thread's past), or what the code of a thread it woke changed
/// before that thread's next operation (after the woken thread's past).
#[derive(Clone, PartialEq)]
pub(super) struct Apart {
    pub step: usize,
    pub part: Part,
    pub after: SmallVec<[usize; 2]>,
}

/// Which changes an [`Apart`] is.
#[derive(Clone, PartialEq)]
pub(super) enum Part {
    /// The accesses `exact[from..from + len]` of the step's event: its code's changes after a
    /// join of a finished thread ([`Event::joined`]).
    Joined { from: usize, len: usize },
    /// Changes made by the code of a thread the step woke ([`Event::woke`]), in no step's
    /// event: the step's event stays what its own thread did, so that what happens before
    /// it is not made to include the woken thread's past.
    Woken(SmallVec<[Access; 3]>),
}

impl Apart {
    /// The changes of `trace`'s steps that race apart from their operations, in step order
    /// (a step's join before its woken threads'). A join's are its step's changes from the
    /// first join in its code on, which come after the threads that join joined (a later join
    /// in the same step is not counted, which only leaves more races).
    pub fn of_trace(trace: &[Event]) -> Vec<Apart> {
        let mut out = Vec::new();
        // Most steps joined and woke nothing: such a step is passed over with two looks (the
        // two searches below cost ~40 instructions a step even on empty lists).
        let parts = |(_, e): &(usize, &Event)| !e.joined.is_empty() || !e.woke.is_empty();
        for (step, e) in trace.iter().enumerate().filter(parts) {
            if let Some(first) = e.joined.iter().map(|j| j.0).min() {
                let len = e.touched.len() - first as usize;
                if len > 0 {
                    // `events::of_trace_into` lists the operation's accesses, then the touched
                    // objects.
                    let from = usize::from(e.obj.is_some()) + usize::from(e.obj2.is_some());
                    out.push(Apart {
                        step,
                        part: Part::Joined {
                            from: from + first as usize,
                            len,
                        },
                        after: (e.joined.iter())
                            .filter(|j| j.0 == first)
                            .map(|j| j.1 as usize)
                            .collect(),
                    });
                }
            }
            // One part per change: a woken thread rarely changes more than one object.
            out.extend(e.woke.iter().map(|change| Apart {
                step,
                part: Part::Woken(smallvec::smallvec![events::touched_access(
                    change.obj, change.how
                )]),
                after: change.past.iter().map(|&p| p as usize).collect(),
            }));
        }
        out
    }

    /// The step's event without this part: its operation with what it changed before any
    /// join. A woken part is in no step's event ([`Part::Woken`]), so `ev` is that already.
    pub(super) fn without(&self, ev: &Ev) -> Ev {
        let mut out = ev.clone();
        if let Part::Joined { from, len } = self.part {
            out.exact = (ev.exact.iter().enumerate())
                .filter(|(n, _)| !(from..from + len).contains(n))
                .map(|(_, &a)| a)
                .collect();
        }
        out
    }

    /// The step's event as this part alone.
    pub(super) fn alone(&self, ev: &Ev) -> Ev {
        let mut out = ev.clone();
        out.exact = match &self.part {
            &Part::Joined { from, len } => ev.exact[from..from + len].iter().copied().collect(),
            Part::Woken(exact) => exact.clone(),
        };
        out
    }
}
