#!/usr/bin/env bash
# The symbolic engine against brute force, at scale: random small programs with 1-2 symbolic
# inputs of 3-4 bits (panics at numbered sites, deadlocks or data races, by family), explored
# at every input value by a plain DFS and by the symbolic engine with DPOR; the failing sites
# or kinds and the final states must be the same, and every finding must replay from its
# token and fail at its inputs in the brute force too. CI runs 500 programs
# (`cargo test --workspace`); this runs more, in release mode, with overflow checks on (as in
# the debug build CI tests), since arithmetic sites can only fail then.
#
#   bench/symbolic/differential.sh [PROGRAMS]     # default 10000
set -euo pipefail
cd "$(dirname "$0")/../.."
cases="${1:-10000}"
start=$(date +%s)
CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true SYMX_DIFF_CASES="$cases" \
    cargo test --release -p cargo-symx --test symbolic_differential -- --nocapture 2>&1 |
    grep -E "symbolic differential|test result|panicked|left|right|case [0-9]"
echo "programs: $cases, seconds: $(( $(date +%s) - start ))"
