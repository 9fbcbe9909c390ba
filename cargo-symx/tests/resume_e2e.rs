//! End-to-end: `cargo symx test --resume` continues an exploration that stopped before it was
//! complete from its checkpoint, and refuses a checkpoint explored with other settings. (A file
//! of its own: other tests run this fixture test too, and would replace its checkpoint.)

mod common;

use common::*;
use serde_json::Value;

/// `dfs_counter_is_exact` of the clean fixture, run with `args`: its JSON record.
fn dfs_counter(args: &[&str]) -> Value {
    let mut all = vec!["dfs_counter"];
    all.extend_from_slice(args);
    let (out, report) = json_report("fixture-clean", &all);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    test(&report, "dfs_counter_is_exact").clone()
}

#[test]
fn an_exploration_stopped_by_its_bound_resumes_where_it_stopped() {
    let whole = dfs_counter(&[]);
    assert_eq!(whole["complete"], true);
    let total = whole["executions"].as_u64().unwrap();
    assert!(whole.get("resumed").is_none(), "{whole:#}");

    let first = dfs_counter(&["--max-executions", "5"]);
    assert_eq!(
        (first["executions"].as_u64(), first["complete"].as_bool()),
        (Some(5), Some(false))
    );
    // Other settings than the checkpoint's: refused, saying why.
    let out = symx(
        "test",
        &[
            "-p",
            "fixture-clean",
            "dfs_counter",
            "--resume",
            "--preemption-bound",
            "1",
        ],
    );
    assert_ne!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("cannot resume from the checkpoint")
            && text(&out).contains("other settings"),
        "{}",
        text(&out)
    );
    // Resumed: the rest runs, and the totals are the whole exploration's.
    let rest = dfs_counter(&["--resume"]);
    assert_eq!(rest["complete"], true, "{rest:#}");
    assert_eq!(rest["executions"].as_u64(), Some(total));
    assert_eq!(rest["resumed"], 5);
    // A complete exploration leaves no checkpoint: resuming again starts afresh.
    let again = dfs_counter(&["--resume"]);
    assert_eq!(again["executions"].as_u64(), Some(total));
    assert!(again.get("resumed").is_none(), "{again:#}");
}
