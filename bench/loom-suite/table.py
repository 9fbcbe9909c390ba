"""Turns bench/loom-suite/run.sh's result files (tool, test, ignored, "outcome secs reason") into the
Markdown table of docs/coming-from-loom.md: one row per test, symx's outcome and time beside
loom's, and the totals."""
import re
import sys
from collections import defaultdict

rows = defaultdict(dict)
ignored = {}
lines = [line for path in sys.argv[1:] for line in open(path)]
for line in lines:
    tool, test, ign, result = line.rstrip("\n").split("\t")
    outcome, secs, *why = result.split(" ", 2)
    rows[test][tool] = (outcome, float(secs), why[0] if why else "")
    ignored[test] = ign == "yes"

# Why a test fails on symx, when it is for a reason the test's own output does not say.
WHY = {
    "atomic_relaxed::check_ordering_invalid_1": "expects a weak-memory outcome (a relaxed load sees a stale value); symx's interleavings are sequentially consistent",
    "atomic_relaxed::check_ordering_invalid_2": "expects a weak-memory outcome (a relaxed load sees a stale value); symx's interleavings are sequentially consistent",
    "litmus::store_buffering": "expects the store-buffering outcome (0, 0), impossible under sequential consistency",
    "litmus::load_buffering": "expects the load-buffering outcome, impossible under sequential consistency (loom cannot produce it either)",
    "spec::acq_rel": "expects z == 0 with AcqRel, a weak-memory outcome impossible under sequential consistency",
    "spec::relaxed": "expects a relaxed out-of-thin-air-like outcome, impossible under sequential consistency (loom cannot produce it either)",
    "atomic::compare_and_swap_reads_old_values": "expects both compare_and_swaps to read old values, impossible under sequential consistency (loom cannot produce it either)",
}


def short(why):
    """The failure line without the machine's registry path."""
    return re.sub(r"/\S*/loom-0\.7\.2/", "", why)


def cell(test, r):
    if r is None:
        return "—", ""
    outcome, secs, why = r
    if outcome == "pass":
        text = "pass"
    else:
        text = f"**fail**: {WHY.get(test) or short(why)}"
    return text, f"{secs:.2f}"

print("| test | loom ignores it | symx | symx s | loom | loom s |")
print("|---|---|---|---|---|---|")
totals = defaultdict(lambda: [0, 0, 0.0])
for test in sorted(rows):
    s, l = rows[test].get("symx"), rows[test].get("loom")
    st, ss = cell(test, s)
    lt, ls = cell(None, l)
    print(f"| `{test}` | {'yes' if ignored[test] else ''} | {st} | {ss} | {lt} | {ls} |")
    for tool, r in (("symx", s), ("loom", l)):
        if r and not ignored[test]:
            t = totals[tool]
            t[0] += r[0] == "pass"
            t[1] += 1
            t[2] += r[1]
print()
for tool, (passed, n, secs) in totals.items():
    print(f"- {tool}: {passed} of {n} tests that loom does not ignore pass, {secs:.1f} s in all")
