#!/usr/bin/env bash
# Times `cargo symx test` against plain `cargo test` and --jobs / --shards, alternating the
# variants run by run so that drifting load hits them alike; prints the median of RUNS.
# Usage: bench/driver/run.sh [RUNS]   (cargo-symx on PATH, or CARGO_SYMX=path/to/cargo-symx)
set -euo pipefail
cd "$(dirname "$0")"
runs=${1:-7}
symx=${CARGO_SYMX:-cargo-symx}
examples=(-p getting-started -p annotated-primitives)
variants=(
  "examples: cargo test|cargo test --manifest-path ../../Cargo.toml ${examples[*]}"
  "examples: cargo symx test --jobs 1|$symx symx test --manifest-path ../../Cargo.toml ${examples[*]} --jobs 1"
  "examples: cargo symx test --jobs 2|$symx symx test --manifest-path ../../Cargo.toml ${examples[*]} --jobs 2"
  "fixed cost: cargo symx test (no test selected)|$symx symx test --release no_such_test"
  "dfs_4x3: cargo test|cargo test --release --test big dfs_4x3 -- --exact"
  "dfs_4x3: cargo symx test|$symx symx test --release dfs_4x3"
  "dfs_4x3: cargo symx test --shards 2|$symx symx test --release dfs_4x3 --shards 2"
  "random_4x2: cargo test|cargo test --release --test big random_4x2 -- --exact"
  "random_4x2: cargo symx test|$symx symx test --release random_4x2"
  "random_4x2: cargo symx test --shards 2|$symx symx test --release random_4x2 --shards 2"
  "all three: cargo test|cargo test --release --test big"
  "all three: cargo symx test --jobs 1|$symx symx test --release --jobs 1"
  "all three: cargo symx test --jobs 2|$symx symx test --release --jobs 2"
)
# Build everything once, untimed.
cargo test --release --no-run -q >/dev/null 2>&1
cargo test --manifest-path ../../Cargo.toml "${examples[@]}" --no-run -q >/dev/null 2>&1
declare -A times
for ((r = 0; r < runs; r++)); do
  for v in "${variants[@]}"; do
    cmd=${v#*|}
    s=$(date +%s.%N); $cmd >/dev/null 2>&1 || true; e=$(date +%s.%N)
    times[$v]+="$(echo "$e - $s" | bc) "
  done
done
for v in "${variants[@]}"; do
  printf '%-48s' "${v%%|*}"
  tr ' ' '\n' <<<"${times[$v]}" | grep . | sort -n | awk '{a[NR]=$1} END {printf "median %.2f s  (min %.2f, max %.2f, %d runs)\n", a[int((NR+1)/2)], a[1], a[NR], NR}'
done
