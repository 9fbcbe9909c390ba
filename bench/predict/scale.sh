#!/usr/bin/env bash
# Predictive checks at scale (shapes like Table 1 of Wang et al., docs/papers.md): indexer-like and banking-like programs
# recorded with one serial schedule at ~1,000, ~10,000 and ~100,000 events; per row the trace
# length, the sliced size (events with an order variable), the encode time, the solve time
# per assertion query (median, max, total), how many queries came out SAT with a witness
# that replays, and the time exhaustive DPOR (symx::Builder's default) takes on the same
# program, capped. The rows and the cap are environment variables of the test
# (cargo-symx/src/engine/predict/tests/scale.rs): SYMX_SCALE_CASES, SYMX_SCALE_DPOR_SECS.
#
#   bench/predict/scale.sh [DPOR_CAP_SECS]     # default 30
set -euo pipefail
cd "$(dirname "$0")/../.."
SYMX_SCALE_DPOR_SECS="${1:-30}" cargo test --release -p cargo-symx --lib \
    scale_bench -- --ignored --nocapture 2>&1 | grep -E '^\||test result|panicked'
