#!/usr/bin/env bash
# Assertion-guided pruning against the unpruned search and brute force, at scale: random small
# programs with 1-2 symbolic inputs of 3-4 bits that panic at numbered sites (the symbolic
# differential's generator and brute force); the pruned and the unpruned search must report
# the same failing sites, every finding must replay from its token, and rounds of the pruned
# search must find exactly the sites the brute force sees fail. CI runs 500 programs
# (`cargo test --workspace`); this runs more, in release mode with overflow checks on (as in
# the debug build CI tests), since arithmetic sites can only fail then.
#
#   bench/guided/differential.sh [PROGRAMS] [FROM]     # default 10000 programs from seed 0
set -euo pipefail
cd "$(dirname "$0")/../.."
cases="${1:-10000}"
from="${2:-0}"
start=$(date +%s)
CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true SYMX_DIFF_CASES="$cases" SYMX_DIFF_FROM="$from" \
    cargo test --release -p cargo-symx --test guided_differential -- --nocapture 2>&1 |
    grep -E "assertion-guided differential|test result|panicked|left|right|case [0-9]"
echo "programs: $cases from seed $from, seconds: $(( $(date +%s) - start ))"
