#!/usr/bin/env bash
# Runs loom 0.7.2's own packaged test suite (its `tests/` directory on crates.io, unmodified)
# twice: against symx's loom API (`loom = { path = "symx-loom" }`) and against loom itself,
# each test on its own, and prints a Markdown table of outcome and time per test.
#
#   bench/loom-suite/run.sh [--only symx|loom] [--filter WORD] > table.md
#
# The test files are compiled where cargo unpacked them (`cargo fetch` of loom 0.7.2), as
# `[[test]]` targets of two generated packages that differ only in what `loom` is. Ignored
# tests are run too (`--include-ignored`): loom ignores the ones it cannot run, and the
# table says which. Timing: one run per test, release build, wall time of the test binary
# running that one test; both tools are measured in the same invocation (compare them as
# ratios on the same machine). Needs network once, to fetch loom and its dependencies.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="${LOOM_SUITE_DIR:-${CARGO_TARGET_DIR:-$repo/target}/loom-suite}"
only=""
filter=""
while [ $# -gt 0 ]; do
    case "$1" in
        --only) only="$2"; shift 2 ;;
        --filter) filter="$2"; shift 2 ;;
        *) echo "usage: $0 [--only symx|loom] [--filter WORD]" >&2; exit 2 ;;
    esac
done

mkdir -p "$work"
# Where cargo unpacked loom 0.7.2: fetch it through a throwaway package.
mkdir -p "$work/fetch/src"
cat > "$work/fetch/Cargo.toml" <<TOML
[package]
name = "loom-suite-fetch"
version = "0.0.0"
edition = "2021"
[workspace]
[dependencies]
loom = { version = "=0.7.2", features = ["futures"] }
TOML
: > "$work/fetch/src/lib.rs"
cargo fetch --quiet --manifest-path "$work/fetch/Cargo.toml"
loom_src="$(cargo metadata --quiet --format-version 1 --manifest-path "$work/fetch/Cargo.toml" \
    | python3 -c 'import json,sys; m=json.load(sys.stdin); print(next(p["manifest_path"] for p in m["packages"] if p["name"]=="loom").rsplit("/",1)[0])')"
tests=$(cd "$loom_src/tests" && ls *.rs | sed 's/\.rs$//')

# One package per tool; only the `loom` dependency differs.
make_package() { # name, loom dependency, futures feature
    local dir="$work/$1"
    mkdir -p "$dir/src"
    : > "$dir/src/lib.rs"
    {
        echo "[package]"
        echo "name = \"loom-suite-$1\""
        echo 'version = "0.0.0"'
        echo 'edition = "2021"'
        echo "[workspace]"
        echo "[features]"
        echo "futures = [$3]"
        echo "[dev-dependencies]"
        echo "loom = $2"
        echo 'futures-util = "0.3"'
        echo "[profile.release]"
        echo "debug = false"
        for t in $tests; do
            printf '[[test]]\nname = "%s"\npath = "%s/tests/%s.rs"\n' "$t" "$loom_src" "$t"
        done
    } > "$dir/Cargo.toml"
}
make_package symx "{ path = \"$repo/symx-loom\" }" ""
make_package loom '{ version = "=0.7.2" }' '"loom/futures"'

# Builds every test binary of a tool; prints "test-name binary" lines.
build() {
    cargo test --release --features futures --no-run --message-format json --target-dir "$work/$1/target" \
        --manifest-path "$work/$1/Cargo.toml" 2>"$work/$1.build.log" \
        | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        print(m["target"]["name"], m["executable"])
'
}

# Runs one test of one binary; prints "outcome seconds reason".
run_one() { # binary, test path
    local start end status out
    start=$(date +%s.%N)
    set +e
    out=$(timeout 300 "$1" --exact "$2" --include-ignored --test-threads 1 2>&1)
    status=$?
    set -e
    end=$(date +%s.%N)
    local secs
    secs=$(python3 -c "print(f'{$end - $start:.2f}')")
    if [ $status -eq 0 ]; then
        echo "pass $secs"
    elif [ $status -eq 124 ]; then
        echo "fail $secs timeout after 300 s"
    else
        local why
        why=$(printf '%s\n' "$out" | grep -m1 -E "panicked at|note: test did not panic|symx found|error:|signal" | cut -c1-140 || true)
        echo "fail $secs ${why:-exit $status}"
    fi
}

for tool in symx loom; do
    [ -n "$only" ] && [ "$only" != "$tool" ] && continue
    results="$work/results-$tool.tsv"
    : > "$results"
    echo "building the suite against $tool" >&2
    build "$tool" > "$work/$tool.bins" || true
    if ! [ -s "$work/$tool.bins" ]; then
        echo "  build failed: see $work/$tool.build.log" >&2
    fi
    while read -r target bin; do
        for name in $("$bin" --list --include-ignored 2>/dev/null | sed -n 's/: test$//p'); do
            case "$target::$name" in *"$filter"*) ;; *) continue ;; esac
            ignored=no
            "$bin" --list --ignored 2>/dev/null | grep -qx "$name: test" && ignored=yes
            echo "  $tool $target::$name" >&2
            printf '%s\t%s\t%s\t%s\n' "$tool" "$target::$name" "$ignored" "$(run_one "$bin" "$name")" >> "$results"
        done
    done < "$work/$tool.bins"
done

# The table from both tools' latest results (`--only` reruns one and keeps the other's).
python3 "$here/table.py" "$work"/results-*.tsv
