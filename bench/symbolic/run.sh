#!/usr/bin/env bash
# The measurements of BENCHMARKS.md's "Symbolic exploration": builds cargo-symx and this bench
# in release mode (untimed), prints the machine's load, then every table (medians of RUNS).
# Usage: bench/symbolic/run.sh [RUNS] [MEASUREMENT]   (RUNS: 5; MEASUREMENT: all, engine,
# sample, enumerate, rate, e2e or context). Uses $CARGO_TARGET_DIR when set, like cargo.
set -euo pipefail
cd "$(dirname "$0")"
runs=${1:-5}
what=${2:-all}
root_target=${CARGO_TARGET_DIR:-../../target}
bench_target=${CARGO_TARGET_DIR:-target}
cargo build --release -q --manifest-path ../../Cargo.toml -p cargo-symx
cargo build --release -q
# The fixture binary that `rate` and `e2e` run, built once so that no timing includes it.
cargo test --release -q --no-run 2>/dev/null
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), load:$(uptime | sed 's/.*load average://'), $(nproc) CPUs" >&2
"$bench_target/release/symx-symbolic-bench" "$what" --runs "$runs" \
  --symx "$root_target/release/cargo-symx"
echo "done: $(date -u '+%H:%M UTC'), load:$(uptime | sed 's/.*load average://')" >&2
