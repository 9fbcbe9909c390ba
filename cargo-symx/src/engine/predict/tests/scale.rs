//! Scale (shapes like the paper's Table 1): indexer-like and banking-like programs whose recorded
//! traces grow to 100,000 events, predicted from one serial run. The two small tests
//! (`indexer_collisions_*`, `banking_passes_*`) run in CI (they assert the predicted /
//! not-predicted outcome and that the witness replays); `scale_bench` is the measurement behind
//! BENCHMARKS.md ("Predictive checks at scale"): encode and solve time per query against exhaustive
//! DPOR on the same program.
//!
//! `SYMX_SCALE_CASES` picks rows (`indexer:N:L`, `banking:N:K:P:L[:a]`: threads,
//! transfers, accounts per thread, local steps, comma-separated);
//! `SYMX_SCALE_DPOR_SECS` caps each DPOR run (default 120; 0: no DPOR).

use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;
use std::time::{Duration, Instant};

use symx::sync::atomic::AtomicI64;
use symx::sync::Mutex;
use symx::trace::Trace;
use symx::{Builder, Guide, Shared};

use crate::engine::predict::encode::Encoding;
use crate::engine::predict::{confirm, encode_options, properties, query, Model, Options};
use crate::solver::ctp::Ctp;
use crate::solver::replayed::Replayed;

/// Table size of the indexer ([FG05]: 128 entries).
const SLOTS: i64 = 128;
/// Messages each indexer thread inserts ([FG05]: 4).
const MESSAGES: i64 = 4;

/// Indexer-like: `n` threads insert `MESSAGES` keys each into a 128-slot table, key `w = (m + 1) *
/// 11 + t` at slot `(w * 7) % 128` ([FG05]'s hash): two threads share a slot only when their ids
/// differ by 11, so collisions need `n >= 12`. Slots are atomics (the original uses CAS); each
/// insertion is followed by the property "no collision on this entry" (the slot still holds my
/// record). Before each message a thread does `local` steps of thread-local work on its own buffer
/// (what slicing must remove; the paper's "vars" beyond "shared").
pub fn indexer(n: usize, local: usize) -> impl Fn() + Clone {
    move || {
        let table: Arc<Vec<AtomicI64>> = Arc::new((0..SLOTS).map(|_| AtomicI64::new(0)).collect());
        in_threads(n, move |t| {
            let t = t as i64;
            for m in 0..MESSAGES {
                thread_local_work(local);
                let w = (m + 1) * 11 + t;
                let slot = &table[((w * 7) % SLOTS) as usize];
                // The record names its writer: equal keys of two threads differ.
                let record = w * 64 + t;
                slot.store_sym(record, SeqCst);
                symx::assert!(
                    slot.load_sym(SeqCst) == record,
                    "no collision on this entry"
                );
            }
        });
    }
}

/// The shape of a banking-like program.
#[derive(Clone, Copy, Debug)]
pub struct Bank {
    /// Threads, each with its own `accounts` accounts.
    pub threads: usize,
    /// Transfers per thread.
    pub transfers: usize,
    /// Accounts per thread: transfer `i` of thread `t` moves 1 from its account
    /// `i % accounts` to the same account of thread `t + 1`. Many accounts (the paper's
    /// banking: ~100 shared variables) give short lock chains per account; one account per
    /// thread makes every account a hot spot of `2 * transfers` critical sections.
    pub accounts: usize,
    /// Steps of thread-local bookkeeping before each transfer.
    pub local: usize,
    /// The "a" variants: thread 0 makes its last deposit without the lock (a lost update).
    pub buggy: bool,
}

/// Banking-like: every account (initial balance 100) behind its own lock; each transfer is
/// a locked withdrawal then a locked deposit. Main joins everyone and checks that every
/// account is consistent (each receives as much as it gives: back at 100). One assertion per
/// account: a single assertion on the sum of all balances is much harder for the solver
/// (BENCHMARKS.md).
pub fn banking(b: Bank) -> impl Fn() + Clone {
    move || {
        let total = b.threads * b.accounts;
        let accounts: Arc<Vec<(Mutex<()>, AtomicI64)>> = Arc::new(
            (0..total)
                .map(|_| (Mutex::new(()), AtomicI64::new(100)))
                .collect(),
        );
        let shared = accounts.clone();
        in_threads(b.threads, move |t| {
            for i in 0..b.transfers {
                thread_local_work(b.local);
                let from = t * b.accounts + i % b.accounts;
                let (from, to) = (&shared[from], &shared[(from + b.accounts) % total]);
                {
                    let _g = from.0.lock().unwrap();
                    from.1.store_sym(from.1.load_sym(SeqCst) - 1, SeqCst);
                }
                let unlocked = b.buggy && t == 0 && i == b.transfers - 1;
                let _g = (!unlocked).then(|| to.0.lock().unwrap());
                to.1.store_sym(to.1.load_sym(SeqCst) + 1, SeqCst);
            }
        });
        for a in accounts.iter() {
            symx::assert!(a.1.load_sym(SeqCst) == 100, "the account is balanced");
        }
    }
}

/// Runs `body(t)` in `n` spawned threads and joins them all.
fn in_threads(n: usize, body: impl Fn(usize) + Send + Sync + 'static) {
    let body = Arc::new(body);
    let workers: Vec<_> = (0..n)
        .map(|t| {
            let body = body.clone();
            symx::thread::spawn(move || body(t))
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
}

/// `steps` increments of a buffer only this thread sees: the bookkeeping slicing removes.
fn thread_local_work(steps: usize) {
    let buffer = Shared::new(0i64);
    for _ in 0..steps {
        buffer.set(buffer.get() + 1);
    }
}

/// The trace of the serial run (each thread to completion, in id order), which passes.
pub fn record(body: &dyn Fn()) -> Trace {
    let run = Builder::new()
        .max_steps(STEP_LIMIT)
        .run_guided(&Guide::default(), body);
    if let Some(f) = run.report.failure() {
        panic!("the observed run must pass: {f}");
    }
    run.trace
}

fn assertions_only() -> Options {
    Options {
        model: Model::Ctp,
        races: false,
        deadlocks: false,
        ..Options::default()
    }
}

/// Steps a recorded or replayed run may take (the traces go to 100,000 events).
const STEP_LIMIT: u64 = 10_000_000;

/// What predicting from one trace took, query by query.
pub struct Measured {
    pub events: usize,
    /// Events that got an order variable of their own (the sliced trace).
    pub sliced: usize,
    pub encode: Duration,
    /// Per assertion query: its solve time, and whether a prediction came out and replayed.
    pub queries: Vec<(Duration, Option<bool>)>,
}

/// Encodes the trace once, asks every assertion query, replays each witness.
pub fn measure(trace: &Trace, body: &dyn Fn(), timeout: Duration) -> Measured {
    let opts = Options {
        query_timeout: Some(timeout),
        ..assertions_only()
    };
    let start = Instant::now();
    let ctp = Ctp::new(trace);
    let enc = Encoding::new(&ctp, &encode_options(&opts, opts.initial.clone()));
    let encode = start.elapsed();
    let mut queries = Vec::new();
    for p in properties::candidates(&ctp, &opts) {
        let (prediction, stats) = query(&enc, &p);
        let replayed = prediction.map(|pr| {
            let run = Builder::new()
                .max_steps(STEP_LIMIT)
                .run_guided(&pr.witness.guide, body);
            confirm::check(&ctp, &p, &Replayed::from(run)).is_ok()
        });
        let replayed = if stats.inconclusive { None } else { replayed };
        queries.push((stats.time, replayed));
    }
    Measured {
        events: trace.events.len(),
        sliced: enc.sliced_events(),
        encode,
        queries,
    }
}

/// Assertion events whose query came out SAT and replayed, by their text.
fn predicted(trace: &Trace, body: &dyn Fn()) -> (usize, usize) {
    let m = measure(trace, body, Duration::from_secs(30));
    assert!(
        m.queries.iter().all(|q| q.1 != Some(false)),
        "a prediction did not replay"
    );
    let found = m.queries.iter().filter(|q| q.1 == Some(true)).count();
    (found, m.queries.len())
}

#[test]
fn indexer_collisions_appear_from_twelve_threads() {
    let body = indexer(10, 2);
    let (found, asked) = predicted(&record(&body), &body);
    assert_eq!((found, asked), (0, 40), "10 threads: no two share a slot");
    let body = indexer(12, 2);
    let (found, asked) = predicted(&record(&body), &body);
    // Threads 0 and 11 share the slots of keys 22, 33 and 44: two assertions each.
    assert_eq!(
        (found, asked),
        (6, 48),
        "12 threads: threads 0 and 11 collide"
    );
}

#[test]
fn banking_passes_without_the_bug_and_loses_money_with_it() {
    for accounts in [1, 4] {
        let bank = Bank {
            threads: 2,
            transfers: 4,
            accounts,
            local: 2,
            buggy: false,
        };
        let all = 2 * accounts;
        let body = banking(bank);
        let got = predicted(&record(&body), &body);
        assert_eq!(got, (0, all), "banking-2 {bank:?}");
        // Thread 0's unlocked deposit goes to an account of thread 1: that one can lose it.
        let body = banking(Bank {
            buggy: true,
            ..bank
        });
        let got = predicted(&record(&body), &body);
        assert_eq!(got, (1, all), "banking-2a {bank:?}");
    }
}

/// Exhaustive DPOR on the program: time to the first failure (or to the cap).
fn dpor(body: &dyn Fn(), cap: Duration) -> (Duration, u64, &'static str) {
    let start = Instant::now();
    let report = (Builder::new().max_steps(STEP_LIMIT))
        .time_budget(Some(cap))
        .explore(body);
    let verdict = match (report.failure(), report.complete()) {
        (Some(_), _) => "bug",
        (None, true) => "no bug (complete)",
        (None, false) => "cap",
    };
    (start.elapsed(), report.executions(), verdict)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

type Case = (String, Box<dyn Fn()>);

fn case(spec: &str) -> Case {
    let f: Vec<&str> = spec.split(':').collect();
    let num = |i: usize| f[i].parse::<usize>().expect("a number");
    let body: Box<dyn Fn()> = match f[0] {
        "indexer" => Box::new(indexer(num(1), num(2))),
        "banking" => Box::new(banking(Bank {
            threads: num(1),
            transfers: num(2),
            accounts: num(3),
            local: num(4),
            buggy: f.get(5) == Some(&"a"),
        })),
        other => panic!("unknown program {other}"),
    };
    (spec.to_string(), body)
}

const DEFAULT_CASES: &str = "indexer:10:12,indexer:10:125,indexer:10:1250,\
indexer:25:3,indexer:25:48,indexer:25:498,\
banking:2:48:48:0,banking:2:48:48:0:a,banking:2:48:48:48,banking:2:48:48:48:a,\
banking:2:48:48:520,banking:2:48:48:520:a,\
banking:10:10:10:0,banking:10:10:10:0:a,banking:10:10:10:40,banking:10:10:10:40:a,\
banking:10:10:10:450,banking:10:10:10:450:a";

#[test]
#[ignore = "measurement; run with --release --ignored --nocapture (see BENCHMARKS.md)"]
fn scale_bench() {
    // Exhaustive DPOR on a 100,000-step execution recurses deeper than a test thread's stack.
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(bench_rows)
        .expect("a thread")
        .join()
        .expect("the bench");
}

fn bench_rows() {
    let specs = std::env::var("SYMX_SCALE_CASES").unwrap_or(DEFAULT_CASES.into());
    let cap = std::env::var("SYMX_SCALE_DPOR_SECS")
        .map(|s| s.parse().expect("seconds"))
        .unwrap_or(120);
    println!(
        "| program | events | sliced | queries | SAT+replayed | encode | solve median | solve max | \
         solve total | DPOR | DPOR executions | DPOR verdict |"
    );
    for spec in specs.split(',') {
        let (name, body) = case(spec);
        let trace = record(&*body);
        let m = measure(&trace, &*body, Duration::from_secs(60));
        let times: Vec<Duration> = m.queries.iter().map(|q| q.0).collect();
        let found = m.queries.iter().filter(|q| q.1 == Some(true)).count();
        let bad = m.queries.iter().filter(|q| q.1 == Some(false)).count();
        let (d, execs, verdict) = if cap == 0 {
            (Duration::ZERO, 0, "not run")
        } else {
            dpor(&*body, Duration::from_secs(cap))
        };
        println!(
            "| {name} | {} | {} | {} | {found}{} | {:.3} | {:.4} | {:.3} | {:.3} | {:.2} | {execs} | {verdict} |",
            m.events,
            m.sliced,
            m.queries.len(),
            if bad > 0 { format!(" ({bad} NOT replayed)") } else { String::new() },
            m.encode.as_secs_f64(),
            median(times.clone()).as_secs_f64(),
            times.iter().max().copied().unwrap_or_default().as_secs_f64(),
            times.iter().sum::<Duration>().as_secs_f64(),
            d.as_secs_f64(),
        );
    }
}
