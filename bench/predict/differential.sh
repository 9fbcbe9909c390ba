#!/usr/bin/env bash
# The predictive engine against brute force, at scale: random small programs (up to 3 worker
# threads, up to 12 events, atomic regions in half the workers), one observed schedule each;
# the violations predicted from each trace (assertions, races, atomicity) must equal those
# found by enumerating every interleaving of the trace, and every prediction must replay.
# CI runs 1,000 cases (`cargo test --workspace`); this runs more, in release mode.
#
#   bench/predict/differential.sh [CASES]     # default 10000
set -euo pipefail
cd "$(dirname "$0")/../.."
cases="${1:-10000}"
start=$(date +%s)
SYMX_DIFF_CASES="$cases" cargo test --release -p cargo-symx differential -- --nocapture 2>&1 |
    grep -E "Tally|test result|panicked|left|right"
echo "cases per test: $cases, seconds: $(( $(date +%s) - start ))"
