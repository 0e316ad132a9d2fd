#!/usr/bin/python3
"""Plots of `ecosim sweep` results: latency vs energy and energy vs area, one panel per workload, one colour per
attention variant, each panel's Pareto front (no other point of the panel is at least as good on both axes and
better on one) drawn as a line through its points.

usage: plot_sweep.py sweep.json latency_energy.png energy_area.png
Plain positional paths; each PNG is written atomically (plot_compare.save_atomically)."""
import json
import os
import sys

if "plot_compare" not in sys.modules:  # run from the source tree (ecosim sweep provides it as a module)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_compare import plt, save_atomically  # noqa: E402  (matplotlib set up there, Agg backend)


def pareto(points):
    """The points no other point dominates (both coordinates minimised), sorted by x."""
    front, best_y = [], float("inf")
    for x, y in sorted(points):
        if y < best_y:
            front.append((x, y))
            best_y = y
    return front


def draw(rows, x_key, y_key, x_label, y_label, dst):
    workloads = sorted({r["workload"] for r in rows})
    variants = sorted({r["variant"] for r in rows})
    colours = {v: plt.cm.tab10(i % 10) for i, v in enumerate(variants)}
    fig, axes = plt.subplots(1, len(workloads), figsize=(6 * len(workloads), 4.8), squeeze=False)
    for ax, workload in zip(axes[0], workloads):
        mine = [r for r in rows if r["workload"] == workload]
        for v in variants:
            pts = [(r[x_key], r[y_key]) for r in mine if r["variant"] == v]
            if pts:
                ax.scatter(*zip(*pts), s=12, alpha=0.6, color=colours[v], label=v)
        front = pareto([(r[x_key], r[y_key]) for r in mine])
        ax.plot(*zip(*front), color="black", linewidth=1, marker="o", markerfacecolor="none", label="Pareto front")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        ax.set_title(workload)
        ax.legend(fontsize=8)
    fig.tight_layout()
    save_atomically(fig, dst)


def main() -> int:
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        rows = [r for r in json.load(f)["rows"] if "error" not in r]
    if not rows:
        sys.exit("plot_sweep.py: error: no point ran without an error")
    draw(rows, "latency_ms", "energy_pj", "latency (ms)", "energy (pJ)", sys.argv[2])
    draw(rows, "area_mm2", "energy_pj", "area (mm²)", "energy (pJ)", sys.argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
