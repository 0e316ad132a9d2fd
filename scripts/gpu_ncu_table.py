#!/usr/bin/env python3
"""The ten kernels with the most summed time in an `ncu --csv --page raw` listing, as a Markdown table on
stdout (launches, total time, and the first launch's throughput metrics and registers; where the listing has
the ComputeWorkloadAnalysis and WarpStateStats sections, its three busiest pipes and three largest stall reasons,
which say why a kernel is slow: a conversion-bound kernel tops the xu pipe, a latency-bound one long_scoreboard).

usage: gpu_ncu_table.py NCU_CSV
"""
import csv
import re
import sys

# The first launch's columns shown as they are (the sections add many more, summarised by top() below).
THROUGHPUTS = ["dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
               "sm__inst_issued.avg.pct_of_peak_sustained_elapsed", "launch__registers_per_thread"]
# Pipe utilisation (% of peak while the SM is active) and stall reasons (cycles per issued instruction).
PIPE = re.compile(r"^sm__(?:inst_executed_pipe|pipe)_(\w+?)(?:_cycles_active)?\.avg\.pct_of_peak_sustained_active$")
STALL = re.compile(r"^smsp__average_warps?_(?:latency_)?issue_stalled_(\w+?)_per_issue_active\.ratio$")


def number(row, col):
    try:
        return float(row[col].replace(",", ""))
    except (ValueError, IndexError):
        return None


def top(row, cols, pattern, unit):
    """The three largest values of the columns matching pattern, as 'name value' (n/a when none match)."""
    found = {}  # a pipe named by two metric families counts once, at its larger value
    for i, col in enumerate(cols):
        m = pattern.match(col)
        v = number(row, i) if m else None
        if v is not None:
            found[m.group(1)] = max(v, found.get(m.group(1), v))
    best = sorted(((v, name) for name, v in found.items()), reverse=True)[:3]
    return ", ".join("%s %.1f%s" % (name, v, unit) for v, name in best) if best else "n/a"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    with open(sys.argv[1], errors="replace", encoding="utf-8") as f:
        rows = [r for r in csv.reader(f) if len(r) > 3]
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is None:
        sys.exit("gpu_ncu_table: no 'Kernel Name' column in " + sys.argv[1])
    cols = rows[head]
    name, duration = cols.index("Kernel Name"), cols.index("gpu__time_duration.sum")
    unit = rows[head + 1][duration] if head + 1 < len(rows) else ""
    kernels = {}
    for row in rows[head + 2:]:
        t = number(row, duration)
        if t is None:
            continue
        k = kernels.setdefault(row[name][:80], {"t": 0.0, "n": 0, "row": row})
        k["t"] += t
        k["n"] += 1
    extra = [c for c in THROUGHPUTS if c in cols]
    print("| kernel | launches | total time (%s) | %s (first launch) | busiest pipes | top stalls (cycles/issue) |"
          % (unit, " | ".join(extra)))
    print("|---|---|---|%s---|---|" % ("---|" * len(extra)))
    for kname, k in sorted(kernels.items(), key=lambda kv: -kv[1]["t"])[:10]:
        print("| `%s` | %d | %.1f | %s | %s | %s |" % (
            kname, k["n"], k["t"], " | ".join(k["row"][cols.index(c)] for c in extra),
            top(k["row"], cols, PIPE, " %"), top(k["row"], cols, STALL, "")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
