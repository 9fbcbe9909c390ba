//! Optimal dynamic partial-order reduction: exactly one execution per Mazurkiewicz trace under
//! sequential consistency.
//!
//! The algorithm is Optimal-DPOR with wakeup trees (Abdulla, Aronis, Jonsson, Sagonas, POPL
//! 2014 / JACM 2017, Algorithm 2), run statelessly: the current execution is a stack of
//! [`Node`]s, one per step, each holding its sleep set and the wakeup tree of sequences still
//! to explore from there. After every execution, each race `e ⋖ e'` is reversed by inserting
//! `v = notdep(e, E).e'` into the wakeup tree before `e`, unless a sleeping thread is a weak
//! initial of `v`.
//!
//! Departures from the paper, each keeping soundness:
//! - Locks: a blocking acquisition races with the previous acquisition of the same lock; the
//!   release in between is an ordering (not a race) edge of happens-before, since the
//!   acquisition could not move before it alone, also where the release's step, or any step
//!   inside the critical section, conflicts with the acquisition's on another object (an `Arc`
//!   dropped inside it or right after the release, whose count the acquisition's code reads;
//!   `races::inside_critical_sections`): the race reversed is the one with the acquisition
//!   before it. A read-unlock races with a later
//!   read-lock (readers may overlap, and the order decides happens-before). A `try_lock` never
//!   blocks, so it races with every operation on its lock.
//! - Blocking and waking: an event enabled by another (spawn, wake-up, join) is ordered after
//!   it; such edges are never reversed. So is an operation left unfinished when the execution
//!   ended (blocked for good, or cut off by a failure), which races as an event after the last
//!   step: it comes after what its thread's next step would (the step that spawned or woke
//!   its thread, `Chooser::unfinished`'s `after`; session 22). Without it, a child blocked
//!   before its first step by a lock that a thread waiting for good held raced with that
//!   lock as if it existed from the start: the reversal without the spawning step was
//!   abandoned at the root, the child's lock slept there and covered the right reversal of a
//!   later execution (`Family::Awaiting` seed 9,006,950, 1 of 1,000 fresh programs; shrunk:
//!   `tests/dpor_vs_dfs/moved.rs`,
//!   `a_child_blocked_on_a_lock_held_by_a_thread_that_waits_for_good`).
//! - Dependence refined by what an operation did (`events::Access::refined`): a receive that
//!   took message n of an unbounded channel conflicts only with the send of message n, the
//!   last sender's and the receiver's going away commute with each other and with receives
//!   that took a message, a `Once` found complete and a notify that woke nobody only look.
//!   Before an event runs it is taken to do anything its kind allows, and so is the racing
//!   event of a reversal, which is moved to where it may do something else; except a barrier
//!   arrival, which carries how many arrivals its generation still needs, a count that
//!   depends only on the arrivals before it, so that it is known wherever the event is
//!   moved to (`reversals::reversal`, `events::last_but_one`).
//! - The code a thread runs after an operation, up to its next one, belongs to the
//!   operation's step, and what it changes (`Touch`: an `Arc`'s count, a channel's senders, a
//!   `Once`) to the step's event, as it was where the step ran. An operation that a reversal
//!   moves may return something else there (a `try_lock` may succeed where it failed, a load
//!   read another value, a lock another section's data), and its thread's code may branch on
//!   it before its next operation: its event in the wakeup sequence is taken to change
//!   anything such code can (`events::Access::Touches`), besides what it changed where it
//!   ran, until its step runs there (`Dpor::new_node`); every operation but those whose
//!   result is fixed (a store, a release, a notify...; `reversals`' `result_may_differ`), and
//!   a barrier arrival whose count the reversal knows. And a wakeup tree's leaf does not cover
//!   a longer sequence that reaches it: the rest is kept below the leaf ([`wakeup`]'s module
//!   doc: below the leaf, threads asleep there took the races that would lead to it as
//!   explored). With a `try_lock` alone taken so, 3 of 2,000 fresh `Family::Woken` programs
//!   missed a trace (seeds 7,000,405, 7,001,544, 7,001,762 at 5,000 interleavings;
//!   `tests/dpor_vs_dfs/moved.rs`, `a_woken_read_before_a_failed_try_lock`,
//!   `a_moved_try_lock_that_fails_ends_its_thread`,
//!   `a_moved_try_lock_that_succeeds_runs_its_section`). The random programs then branched
//!   only on a `try_lock`'s result; `Family::Branching` branches on loads, swaps,
//!   `fetch_add`s, compare-exchanges and a lock's data: with a `try_lock` alone taken so and
//!   covering leaves, 11 of its 4,000 fresh programs (seeds 9,000,000 to 9,003,999 at 5,000
//!   interleavings) missed a trace (`a_lock_moved_before_a_section_runs_other_code`,
//!   `a_longer_reversal_kept_below_a_leaf`), 320,109 executions, 624 programs running a trace
//!   twice; with every such operation taken so but covering leaves, 5 missed, 4 of them new
//!   and without a branch (as the CI program of
//!   `a_leaf_that_covers_a_reversal_below_a_sleeper_that_blocks_its_races` showed before);
//!   with both rules 1 (seed 9,000,702, which missed the same way without them), 327,120
//!   executions, 738 twice; since a sleeping step that would wake a thread waiting after a
//!   step taken while it sleeps carries that thread's change (below, `woken::asleep_after`):
//!   none, 327,145 executions, 738 twice. Seeds 9,004,000 to 9,005,999: none missed before or
//!   after, 147,044 -> 147,058 executions, 344 twice.
//!   `Family::Woken`, seeds 7,000,000 to 7,003,999: none missed before or after, 140,311 ->
//!   144,794 executions, 488 -> 610 programs running a trace twice.
//!   Such code changes an `Arc`'s count, a channel or a `Once` only (`rt::switch::touch`), so
//!   `Touches` conflicts with no access to a condvar, a park token or a barrier
//!   (`events::Access::Signal`, argued per object in `Access::touchable`; session 22). With
//!   a condvar's waits and notifies touchable, 60 of the 6,250 larger programs
//!   (`dpor_agrees_with_dfs_on_many_random_programs`) ran a trace twice (51 of them, all with
//!   a condvar, only since more than a `try_lock` carries `Touches`); since, 6 (those that did
//!   before session 20's rules), 750,149 -> 749,793 executions, none missed
//!   (`tests/dpor_vs_dfs/moved.rs`, `a_moved_operation_touches_no_condvar`).
//!   Fresh seeds 9,006,000 to 9,006,999 of the four families with a condvar at 5,000
//!   interleavings: 20 -> 2 programs disagree, 187,591 -> 187,550 executions; one missed a
//!   trace before and after (an unfinished operation's enablers, below).
//! - Nondeterministic choices inside a step (which waiter a `notify_one` wakes) are explored
//!   exhaustively per step, like a DFS nested in the DPOR tree.
//! - Object names are canonicalised across executions ([`events::Names`]), and threads are
//!   named by their spawn path, so both mean the same thing in every execution.
//! - Preemption bounds and spurious wake-ups are explored by the bounded partial-order
//!   reduction instead (`explore::bounded`, chosen in `explore::make`).
//! - Yields. The scheduler's fairness rule hides a thread that yielded (`yield_now`, a spin
//!   loop's hint) until another thread's step changes something, or until every runnable thread
//!   has yielded (a new round). So the schedules it allows are not closed under swapping steps
//!   that commute in memory: a yield and another thread's change commute in memory, yet their
//!   order decides whether the yielding thread may run next. The rule is modelled as an object
//!   of its own ([`events::FAIRNESS`]; an event's access to it is [`events::Ev::fair`], apart
//!   from its other accesses): a yield writes it, a step that changed something reads it (two
//!   changes commute; a load, a failed compare-exchange or `try_lock` touch nothing), the step
//!   that let a yielding thread go writes it and is an enabler of that thread's next step
//!   (`Event::let_go`, taken from the scheduler). An event not run yet, and the moved event of
//!   a reversal, are taken as possible let-go steps once a yield was seen (`Dpor::yields`);
//!   once a step ran, its node's event is made what it turned out to be before the next node's
//!   sleep set is made (a quiet step whose thread can run on lets no thread go, `new_node`).
//!   A yield's race with the change that let its thread go plants nothing where only the
//!   yielding thread runs after that change ([`reversals`]'s `yield_then_solo`).
//!   Three rules keep the model from hiding what it adds to: a conflict on the object alone
//!   does not hide a race on a real object (a yield inside a critical section would order the
//!   next acquisition after the first, and their race would never be reversed,
//!   `races::HappensBefore::add`); a yield inside the critical section an acquisition waits for
//!   is no race of it; and a wakeup tree's leaf does not stand for a sequence that gives way
//!   (now for no longer sequence at all, see [`wakeup`]): the rule takes away the free choice
//!   of the continuation below the leaf, on which the paper's argument rests. A yield-free
//!   program has only reads of the object: its exploration is unchanged, and the reads stay
//!   out of happens-before until a thread yielded (without a write they order nothing).
//!   Checked by the `Yielding` family of `tests/dpor_vs_dfs/` (atomics, a mutex, yields and
//!   spins): every final state and every trace of the steps other than yields; some traces
//!   run twice (the model's races are coarser than the traces need). A wakeup sequence whose
//!   next thread is still hidden where it is followed is abandoned: the execution continues
//!   with the first runnable thread.
//! - Code a woken thread runs before its next operation belongs to no step (it runs right
//!   after the step that woke it; `Execution::step_now`). What it changes is recorded on the
//!   waking step apart (`Event::woke`): it races as that step does, with earlier events that
//!   happen before neither the step nor the woken thread's past, and with later events that
//!   neither the step nor that past happens before, as either of them ([`woken`]'s
//!   `woken_races`); the nodes' events and the reversals' carry it for the sleep sets (the
//!   waking step's); happens-before is left without it (it would order the step after the
//!   woken thread's past). Without it, main's drop of a sender after a join that waited,
//!   finding the receiver gone, raced with nothing: 3 of 1,028 channel programs missed an
//!   outcome (`tests/bounded_channels.rs`); without the later races, main's `Arc` count read
//!   right after a join that waited never saw another thread's reference gone before it
//!   (`tests/dpor_vs_dfs/`, `Family::Woken`, 42 of 150 programs missed something). Such a
//!   change runs right after the later of the waking step and the woken thread's past, so it
//!   is glued to the waking step wherever the past stays before it: `notdep` leaves out a
//!   waking step whose change happens after the race's first event
//!   (`woken::after_with_changes`), and what happens after the race's second event (the race
//!   is no edge of happens-before: kept, a `lock` stood before the `unlock` it waits for, and
//!   the abandoned sequence was planted again after every execution, which never ended; seed
//!   7001432 of the family); and a past step is no weak initial of a sequence that holds the
//!   waking step where taking it first moves the change past an event it conflicts with
//!   (`woken::moves_a_change`). Where that `notdep` differs from happens-before's,
//!   happens-before's reversal is planted too (what the longer sequence reaches first, the
//!   shorter one left to races that a sleeper took as covered). A sleeping event whose thread
//!   waited after it until a step woke it (the change's past) sleeps on after that step with
//!   the change as its own (`woken::record_waits`): taken later, its step makes the change.
//!   And the other way round: a sleeping step that would wake a thread that waits after a step
//!   taken while it sleeps (the change's waking step, asleep when its past is taken) sleeps on
//!   with the change as its own (`woken::asleep_after`): taken later, it wakes that thread,
//!   and the change comes in its step. In both, the change comes right after the later of the
//!   two, as in the branch the sleeper stands for. Without the second, a child's load, asleep
//!   as it ran at the root (waking nobody), slept through its parent's step after which the
//!   parent waited for it, then through a step whose woken code read what the parent's change
//!   changes, and a race with that change was dropped against it: 2 of 17 traces of
//!   `a_drop_after_a_join_that_main_reads_before` (seed 9,000,702 of `Family::Branching`)
//!   missed.
//!   The changes a step's own code makes after a join that found the joined thread gone
//!   (`Event::joined`) are such changes too, of the step's thread, after the joined thread's
//!   past. Every outcome on the 150 programs of that family in CI and on the 1,000 larger ones
//!   (the ignored `dpor_on_many_programs_with_woken_changes`). A sleeping event is compared
//!   with a reversal as it ran too (`wakeup`'s `weak_initial`): the reversal's copy of its
//!   event is as it ran in the reversal's execution, where it may have done less (a `try_lock`
//!   that failed there and succeeds where the reversal puts it reads what the reversal changed
//!   first). Known gaps: some traces run twice (17 of the 150): a wakeup sequence's event
//!   carries the changes of the execution it came from, which make some sleepers wake. Fresh
//!   seeds 7,000,000 to 7,003,999 (5,000 interleavings, `seed_range`): none misses a trace,
//!   223 + 265 run one twice (488 -> 610 with the rules of `Family::Branching` above, none
//!   missed). Since the second rule for sleepers: seeds 7,000,000 to 7,001,999, none missed,
//!   64,495 -> 64,499 executions, 298 twice; no count pinned in CI moved.
//!
//! Traces run twice (session 23). On main cc16400, fresh `Family::Branching` seeds 9,006,000 to
//! 9,007,999 ran a trace twice in 314 of 2,000 programs (102,284 executions) and
//! `Family::Woken` 7,002,000 to 7,003,999 in 287 (54,769), none missed. 39 of them shrunk
//! (every 16th Branching one, every 15th Woken one) and traced, each pair of executions of one
//! trace by what took back the thread that the earlier one ran where they part, which sleeps
//! there in the later one:
//! - 24: its sleeper was woken by a step whose `Arc` drop is compared with the sleeper's across
//!   executions, where two drops are dependent (`events::count_sensitive`: after the other,
//!   either may free a value whose destructor the model sees; these programs' `Arc<i64>` has
//!   none). Behind most of them a second cause wakes it too: with `count_sensitive` off (an
//!   experiment, unsound in general) 291 and 274 programs ran a trace twice;
//! - 6: a wakeup sequence ran it while it slept, and the execution repeated a trace (4 of them the
//!   very schedule): the sequence had been planted before the thread's branch ran, not covered
//!   by it since the moved operation carries `Access::Touches`, or below the race's node where
//!   `insert` does not look at sleepers. Fixed: [`node`]'s `next_sequence` drops such a
//!   sequence;
//! - 4: every thread left asleep (sleep-set blocked): a reversal `other, lock + Touches` planted
//!   beside `lock`, both lockers asleep after `other`;
//! - 3: a woken change carried by an event from the execution it came from (main's count reads
//!   after a join, glued to the joined thread's last step there, not where the event is moved);
//! - 1: two reads of an `Arc`'s count conflict (a read is recorded as a change, `Touch::Changed`);
//! - 1: the names of two `Arc`s joined, the arms of a branch touching each in one slot of one
//!   event key (`events::Names`; the kind helper lockkey's event key addresses, as failed
//!   `try_lock`s shift later keys).
//!
//! With `next_sequence` (commands: `SYMX_DIFF_FIRST=9006000 SYMX_DIFF_COUNT=2000
//! SYMX_DIFF_FAMILY=Branching cargo test --release -p symx-rt --test dpor_vs_dfs -- --ignored
//! --exact seed_range --nocapture`, and the same with 7002000 and `Woken`): 314 -> 276
//! programs, 102,284 -> 99,822 executions; 287 -> 261, 54,769 -> 53,377; none missed. The
//! other seven families, seeds 9,008,000 to 9,008,999: the same programs disagree as before
//! (running a trace twice or more executions than the DFS: 2 `NoFail`, 1 `Deadlocky`, 1
//! `Awaiting`, 2 `Yielding`, 4 `Untouched`), none missed; executions unchanged but `Yielding`
//! 39,573 -> 39,191 and `Untouched` 25,740 -> 25,737. The larger differential
//! (`dpor_agrees_with_dfs_on_many_random_programs`): the same 5 programs twice, none missed,
//! 749,791 -> 749,783 executions. In CI: `dpor_on_programs_that_branch` 21 -> 20 programs
//! twice, 7,780 -> 7,671 executions; `dpor_on_programs_with_woken_changes` 17 -> 16, 4,709 ->
//! 4,657; three pinned programs 29 -> 27, 20 -> 18, 129 -> 107 executions (every trace still
//! run). Measured, not built: with `next_sequence`, refreshing a wakeup tree's event by its step
//! as it ran here (its own execution's woken changes dropped) took the Branching run to 267
//! programs twice (99,720 executions), and `count_sensitive` off besides to 177 (98,443), none
//! missed.
//!
//! Both built (session 24); the first withdrawn the same day:
//! - Drops of an `Arc` whose value's type has no drop glue are `Access::ReleasedNoGlue`, which
//!   `events::count_sensitive` left independent of each other across executions: whichever
//!   of them frees the value runs no code, so each looked such a drop in every order. With it
//!   (and the refresh below), the lead's fresh search found a trace missed (`Branching` seed
//!   9,016,202, 15 of 16 traces; `changes::a_fresh_program_missed_with_drops_commuting_across_
//!   executions`), not understood by the session's end, so `count_sensitive` treats the two
//!   kinds alike again; the measurements below are of both as built.
//! - Once the first event of a wakeup sequence (a node's event taken in `advance`) has run here,
//!   its node's event keeps its operation's accesses and gets what the step changed here
//!   (`point.touched()`: its code's changes and the woken threads'), as a pending event does
//!   (`Dpor::new_node`, `Ev::keep_operation`). Only the node that moved (`Dpor::moved`): the nodes
//!   above it replay their steps with their events as they ran, and a node re-created below one of
//!   them (`reopen`) leaves it so (refreshed there, a first version failed `end_execution`'s debug
//!   check on `bounded_por`'s `programs_that_yield`). The event serves there once: the next node's
//!   sleep set keeps the sleepers independent of it, and the paper's rule compares them with the
//!   step as it ran from this state; after the execution the node holds the trace's event
//!   (`end_execution`). Its operation is the one that ran where it was planted (its thread's
//!   earlier steps all come before the node), refined by its outcome here as before; what its step
//!   and the threads it woke changed where it ran may not happen here (main's count reads glued to
//!   the step whose end woke main there, a path its code took there), and, compared, only woke
//!   sleepers whose branch already covers the execution: a trace run twice. Its exact
//!   accesses (of the execution it came from) stay for its operation where it changed nothing
//!   here, and go where it did, since this execution's changes have no names there; kept with
//!   changes, they left those out of comparisons with events of that execution. Without them,
//!   the comparisons go by canonical names, where two `Released` drops are dependent: with the
//!   refresh alone (the narrowing withdrawn), `primitive_counts`'
//!   `arrivals_are_compared_where_they_ran` runs 8 executions for its 6 traces (6 with both).
//!
//! Release, `nice -n 19`, base main 2d68e6f, on the same seeds (`SYMX_DIFF_FIRST=9014000
//! SYMX_DIFF_COUNT=2000 SYMX_DIFF_FAMILY=Branching cargo test --release -p symx-rt --test
//! dpor_vs_dfs -- --ignored --exact seed_range --nocapture`, and `Woken` from 7006000), programs
//! running a trace twice and executions, none missed in any run:
//!
//! | change | `Branching` | `Woken` |
//! |---|---|---|
//! | neither | 306, 99,052 | 238, 49,395 |
//! | the narrowing | 271, 98,099 | 209, 49,067 |
//! | the refresh | 291, 98,691 | 226, 49,359 |
//! | both | 190, 97,245 | 141, 48,650 |
//!
//! Each of the other seven families at seeds 9,015,000 to 9,015,999, and the larger
//! differential (`dpor_agrees_with_dfs_on_many_random_programs`, 749,770 executions, the same
//! 3 programs disagreeing by a trace run twice), unchanged with either and both. A first
//! refresh dropped the exact accesses always: with the narrowing, `Deadlocky` and `Untouched`
//! then ran one more program twice each (37,475 -> 37,476 and 22,542 -> 22,553 executions),
//! and the larger differential 31 more executions (749,801). With both, on larger programs
//! (`SYMX_DIFF_MAX=5000`): `Branching` 9,016,000 to 9,017,999, 206 programs twice (144,119
//! executions), `Woken` 7,008,000 to 7,009,999, 179 (69,157), none missed; the ignored
//! `dpor_on_many_programs_with_woken_changes` 139 -> 88 programs twice, 37,306 -> 36,502
//! executions, none missed. Pinned:
//! `tests/dpor_vs_dfs/changes.rs`, `drops_of_an_arc_without_drop_glue_commute_across_executions`
//! (5 in 5; 6 with either change reverted) and
//! `a_wakeup_sequences_step_has_the_changes_it_made_where_it_ran` (4 in 4; 5 without the
//! refresh).

pub(crate) mod events;
pub(crate) mod exchange;
mod node;
mod peers;
pub(crate) mod races;
mod reversals;
pub(crate) use reversals::result_may_differ;
mod split;
pub(crate) mod steps;
mod wakeup;
mod woken;

use events::{Ev, Names};
use node::Node;
use peers::Peers;
use races::HappensBefore;
use steps::Threads;
use wakeup::Tree;

use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::{Event, ThreadId};

/// Everything but the current execution's counters is the exploration's state, which a
/// checkpoint saves between two executions (`explore::checkpoint`).
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Dpor {
    nodes: Vec<Node>,
    names: Names,
    started: bool,
    /// Steps taken in the current execution, and value choices made in the current step.
    #[serde(skip)]
    step: usize,
    #[serde(skip)]
    value_calls: usize,
    /// Threads named stably across executions, with their event counts in this one.
    threads: Threads,
    /// The wakeup subtree to follow below the last node taken from a tree.
    pending: Tree,
    /// Executions ended so far (numbers the events' executions, from 1).
    executions: u64,
    /// How much of their room the nodes finished so far filled (for the estimate).
    #[serde(default)]
    growth: crate::explore::estimate::Growth,
    /// This explorer's end of an exploration split among several (`--shards`, see [`split`]).
    #[serde(skip)]
    peers: Option<Peers>,
    /// The last execution's events and happens-before: buffers reused by every execution.
    #[serde(skip)]
    evs: Vec<Ev>,
    #[serde(skip)]
    hb: HappensBefore,
    /// How many steps at the start of the current execution repeat the last execution's (the
    /// nodes above the one that moved to its next choice): their events, and what was computed
    /// from them, are kept rather than computed again. Once the execution's events are known,
    /// how many of them are the last execution's unchanged (see `events::of_trace_into`).
    #[serde(skip)]
    shared: usize,
    /// The node that moved to its next choice for the current execution (the path's last when
    /// it started): the nodes above it replay their steps, with their events as they ran; its
    /// own event may be a wakeup sequence's, which `new_node` gives what its step changed here.
    #[serde(skip)]
    moved: usize,
    /// The objects of the last execution's events, for naming the shared steps' again.
    #[serde(skip)]
    first_uses: events::FirstUses,
    /// A thread yielded in some execution: from then on, a step not known yet may be the one
    /// that lets a thread that yielded run again (see `events::let_go_by`).
    #[serde(default)]
    yields: bool,
    /// `yields` when `evs` were made: their exact accesses hold the fairness object's only if
    /// it was true (see `events_of`).
    #[serde(skip)]
    evs_yields: bool,
    /// The operations threads were left waiting to do when the execution ended (blocked for
    /// good, or cut off by a failure): never steps, but they race with the steps they would
    /// have come after.
    #[serde(skip)]
    unfinished: Vec<Ev>,
    /// What each of them comes after besides its thread's last step (the step that spawned
    /// its thread, or woke it), as trace positions. Without them, a child blocked for good
    /// before its first step raced with the holder of its lock as if it existed from the start:
    /// the reversal, without the step that spawned it, was abandoned where the child was not
    /// there yet, and the child slept there, covering the right reversal of a later execution
    /// (`a_child_blocked_on_a_lock_held_by_a_thread_that_waits_for_good`).
    #[serde(skip)]
    unfinished_after: Vec<crate::rt::op::Enablers>,
    /// What the code of a thread that waited after an event changed once a step woke it, in
    /// any execution so far: a sleeping such event sleeps on after that step with those
    /// changes as its own (`woken::record_waits`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    waits: woken::Waits,
    /// The storage of finished nodes' sleep sets, for new nodes' (a new node's sleep set was
    /// one allocation per step of every execution).
    #[serde(skip)]
    spare_sleep: Vec<Vec<Ev>>,
}

impl Dpor {
    /// Executions ended so far.
    pub fn executions(&self) -> u64 {
        self.executions
    }

    /// The number that tells execution `n`'s events apart from every other execution's (see
    /// `events::dependent`, which compares events of one execution by their exact objects):
    /// each explorer of a split exploration numbers its own executions from 1, and events
    /// travel between explorers in gifts and forwarded reversals.
    fn execution_id(&self, n: u64) -> u64 {
        let explorer = self
            .peers
            .as_ref()
            .map_or(0, |p| u64::from(p.exchange.index()));
        explorer << 40 | n
    }

    /// The runtime id of the enabled thread this strategy calls `t`, if it is enabled.
    fn runtime_id(&mut self, point: &SchedulingPoint<'_>, t: ThreadId) -> Option<ThreadId> {
        point
            .candidates
            .iter()
            .find(|c| self.threads.of(c.key) == t)
            .map(|c| c.thread)
    }

    /// The events of the finished execution, with everything only known after it ran, into
    /// `self.evs`.
    fn events_of(&mut self, trace: &[Event]) {
        let execution = self.execution_id(self.executions);
        self.yields |= trace.iter().any(|e| e.kind == crate::rt::op::OpKind::Yield);
        // The last execution's events were made before the first yield, without the fairness
        // object in their exact accesses: none of them stays.
        let shared = if self.evs_yields == self.yields {
            self.shared
        } else {
            0
        };
        self.evs_yields = self.yields;
        let threads = &mut self.threads;
        // From here on, the steps whose events are the last execution's unchanged.
        self.shared = events::of_trace_into(
            trace,
            &mut self.names,
            &mut |k| threads.of(k),
            execution,
            Some(self.yields),
            &mut self.evs,
            Some((shared, &mut self.first_uses)),
        );
        // The operations left unfinished: known only now whether a thread yielded in this
        // execution, and so whether the exact accesses hold the fairness object's.
        if self.yields {
            for ev in &mut self.unfinished {
                events::let_go_by(ev, true);
            }
        }
        let evs = &self.evs;
        for (ev, after) in self.unfinished.iter_mut().zip(&self.unfinished_after) {
            let steps = after.iter().filter_map(|&i| evs.get(i as usize));
            ev.enablers.extend(steps.map(|e| (e.thread, e.index)));
        }
        self.unfinished_after.clear();
    }

    /// The event thread `t`'s pending operation `op` will be, as far as it is known before
    /// it runs, with its fairness access (a change, unless it is a load or a yield).
    fn pending(&mut self, t: ThreadId, index: u32, op: &crate::rt::op::Op) -> Ev {
        let mut ev = self.names.pending(t, index, self.threads.occurrences(), op);
        ev.fair = events::fairness(op.kind, None);
        if op.kind == crate::rt::op::OpKind::Yield {
            self.yields = true;
        }
        // Once a thread yielded, any step may be the one that lets it go.
        if self.yields {
            events::let_go_by(&mut ev, false);
        }
        ev
    }
}

impl Chooser for Dpor {
    fn sees_every_step(&self) -> bool {
        true
    }

    fn unfinished(
        &mut self,
        pending: &[crate::rt::chooser::Candidate],
        after: &[crate::rt::op::Enablers],
    ) {
        // Numbered as the events of the execution that is ending (see `end_execution`).
        let execution = self.execution_id(self.executions + 1);
        // Their enablers are steps of this execution, named once its events are (`events_of`).
        self.unfinished_after.clear();
        self.unfinished_after.extend_from_slice(after);
        for c in pending {
            let t = self.threads.of(c.key);
            let index = self.threads.next_index(t);
            let mut ev = self.pending(t, index, &c.op);
            // Its fairness access joins the exact ones at the end of the execution, if a
            // thread yielded (`events_of`).
            ev.exact = events::exact_of(&c.op);
            ev.execution = execution;
            self.unfinished.push(ev);
        }
    }

    fn next_execution(&mut self) -> bool {
        self.step = 0;
        self.value_calls = 0;
        self.threads.new_execution();
        self.names.new_execution();
        self.shared = 0;
        if !self.started {
            self.started = true;
            // Explorer 0 of a split exploration starts it; the others wait for work.
            if self.peers.as_ref().is_none_or(|p| p.exchange.index() == 0) {
                return true;
            }
        } else {
            self.meet_peers();
        }
        loop {
            if self.advance() {
                self.moved = self.nodes.len() - 1;
                // A split exploration's path may have come from another explorer.
                if self.peers.is_none() {
                    self.shared = self.nodes.len() - 1;
                }
                return true;
            }
            if !self.take_work() {
                return false;
            }
        }
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        let step = self.step;
        self.step += 1;
        self.value_calls = 0;
        let thread = if step < self.nodes.len() {
            let want = self.nodes[step].chosen.thread;
            match self.runtime_id(point, want) {
                Some(id) => id,
                None => {
                    // The wakeup sequence cannot be followed here (see the module doc): its
                    // thread sleeps at this node, so the same reversal is not planted again.
                    let mut node = self.nodes.pop().expect("node at step");
                    let place = (node.key.clone(), Tree::default());
                    node.fall_asleep(node.chosen.clone(), place, self.peers.is_some());
                    self.pending = Tree::default();
                    self.reopen(node, point)
                }
            }
        } else {
            self.new_node(point, 0, None)
        };
        let mine = self.nodes[step].chosen.thread;
        let ran = point.candidates.iter().find(|c| c.thread == thread);
        self.threads.stepped(mine, &ran.expect("a candidate").op);
        thread
    }

    fn choose_value(&mut self, n: usize) -> usize {
        let Some(node) = self.step.checked_sub(1).and_then(|s| self.nodes.get_mut(s)) else {
            return 0;
        };
        self.value_calls += 1;
        node.values.choose(self.value_calls - 1, n)
    }

    fn end_execution(&mut self, trace: &[Event]) {
        self.executions += 1;
        self.events_of(trace);
        // Steps past the end of the trace (a failure ended it early) have no node.
        self.nodes.truncate(self.evs.len());
        // The shared steps' nodes were made from the same events (nothing changes a node's
        // event before the one that moved): only the execution they come from is new.
        let shared = self.shared.min(self.nodes.len());
        // A node's event also has what the threads its step woke changed (`Event::woke`),
        // which sleep sets compare as the step's (`woken::woken_races`).
        let steps = self.nodes.iter_mut().zip(&self.evs).zip(trace);
        for ((node, ev), step) in steps.take(shared) {
            debug_assert!(node.chosen.same_as(ev) || !step.woke.is_empty());
            node.chosen.execution = ev.execution;
        }
        let steps = self.nodes.iter_mut().zip(&self.evs).zip(trace);
        for ((node, ev), step) in steps.skip(shared) {
            node.chosen.update_from(ev);
            events::add_woken(&mut node.chosen, step, true, &mut self.names);
        }
        // The prefix of a recorded context ran under a fixed schedule: nothing moves into it.
        let fixed = trace.iter().take_while(|e| e.fixed).count();
        self.plant_reversals(fixed, trace);
    }

    fn estimate(&self) -> Option<f64> {
        let branches = (self.nodes.iter())
            .map(|n| (self.growth).planned(n.done, n.wut.children.len() as u32, n.room));
        Some(crate::explore::estimate::total(self.executions, branches))
    }

    fn save(&self) -> Option<crate::json::Json> {
        crate::explore::checkpoint::state_of(self)
    }

    fn restore(&mut self, state: crate::json::Json) -> Result<(), String> {
        if state.get("dpor").is_some() {
            // Its state stands before an execution that may be a pass's, not the DPOR's.
            return Err(
                "it was taken with the default's shallow passes beside the DPOR, which \
                        an execution bound turns off: resume it without one"
                    .into(),
            );
        }
        *self = crate::explore::checkpoint::from_state(state)?;
        Ok(())
    }
}
