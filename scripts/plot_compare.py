#!/usr/bin/python3
"""Bar charts of `ecosim compare` results, titled with the workload: accelerator latency, accelerator energy and GPU
latency of each attention variant relative to MSA, one panel each, with the published accelerator ratios beside
ours when the workload is the one they were published for. Each bar is labelled with its value; each panel has
its own logarithmic axis, whose lower end leaves the smallest bar at least MIN_BAR_SHARE of the axis.

usage: plot_compare.py compare.json compare.png
Both are plain positional paths (a leading '-' is part of a name, not an option). The PNG is written as ecosim
writes its outputs (python/ecosim/files.py): a temporary beside it, then a rename."""
import importlib.util
import io
import json
import math
import os
import sys
import textwrap

try:
    import files  # python/ecosim/files.py, handed over by the command line's embedded runs
except ImportError:  # run from the source tree
    _spec = importlib.util.spec_from_file_location(
        "files", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "ecosim", "files.py"))
    files = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(files)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError:
    sys.exit("plot_compare.py: error: matplotlib is missing (apt install python3-matplotlib)")

# The smallest bar of a panel spans at least this share of its (logarithmic) axis.
MIN_BAR_SHARE = 0.25


def value_text(value: float) -> str:
    """A bar's label: three significant digits, trailing zeros kept (as the terminal table prints ratios)."""
    return f"{value:#.3g}"


def log_limits(values):
    """Axis limits (lo, hi) for bars of these positive values drawn from lo on a log axis: past the largest, room
    for its label (a quarter of the decades the values span, at least half a decade); below the smallest, enough
    decades (at least 0.3) that the smallest bar spans MIN_BAR_SHARE of the axis."""
    low, high = math.log10(min(values)), math.log10(max(values))
    above = max(0.5, (high - low) / 4)
    below = max(0.3, (high - low + above) * MIN_BAR_SHARE / (1 - MIN_BAR_SHARE))
    return 10 ** (low - below), 10 ** (high + above)


def panels(report):
    """[(title, [(series label, hatched, values by variant or None)])], ratios to the first MSA row (else the
    first row). Published ratios are ratios to MSA: shown only when the reference is MSA."""
    variants = report["variants"]
    ref = next((v for v in variants if v["name"] == "msa"), variants[0])

    def ours(key):
        return [v[key] / ref[key] if ref[key] > 0 else None for v in variants]

    def published(key):
        if ref["name"] != "msa" or all(v.get(key) is None for v in variants):
            return []
        return [("published (" + (report.get("published_source") or "paper") + ")", True,
                 [v.get(key) for v in variants])]

    kinds = sorted({v["gpu_latency_kind"] for v in variants})
    return ref["name"], [
        ("accelerator latency", [("this run", False, ours("accel_latency_ms"))] +
         published("published_latency_ratio_msa")),
        ("accelerator energy", [("this run", False, ours("accel_energy_pj"))] +
         published("published_energy_ratio_msa")),
        ("GPU latency (" + " / ".join(kinds) + ")", [("this run", False, ours("gpu_latency_ms"))]),
    ]


def figure(report):
    """The chart of a compare.json report, as a matplotlib figure."""
    names = [v["name"] for v in report["variants"]]
    ref, specs = panels(report)
    fig, axes = plt.subplots(1, len(specs), figsize=(5.2 * len(specs), 1.2 + 0.55 * len(names) * 2), squeeze=False)
    colours = {"this run": "tab:blue"}
    for ax, (title, series) in zip(axes[0], specs):
        height = 0.8 / len(series)
        shown = [x for _, _, values in series for x in values if x is not None and x > 0]
        lo, hi = log_limits(shown)
        for i, (label, hatched, values) in enumerate(series):
            ys = [y + (i - (len(series) - 1) / 2) * height for y in range(len(names))]
            kept = [(y, x) for y, x in zip(ys, values) if x is not None and x > 0]
            if not kept:
                continue
            bars = ax.barh([y for y, _ in kept], [x - lo for _, x in kept], height, left=lo, label=label,
                           color=colours.get(label, "tab:orange"), hatch="//" if hatched else None,
                           edgecolor="black", linewidth=0.5)
            for bar, (_, x) in zip(bars, kept):
                ax.text(x * 1.08, bar.get_y() + bar.get_height() / 2, value_text(x), va="center", fontsize=8)
        ax.set_xscale("log")
        ax.set_xlim(lo, hi)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))  # 0.01, not 10^-2
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_title(f"{title} / {ref}", fontsize=10)
        ax.set_xlabel(f"relative to {ref} (log scale)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=9)
    fig.suptitle("\n".join(textwrap.wrap(f"Cost relative to {ref}: " + report["workload_description"], 110)))
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def plot_report(draw, usage) -> int:
    """The main of a script drawing one JSON report (argv: REPORT.json OUT.png): draw(report) written atomically;
    `usage` printed on other arguments. plot_crossover.py uses it too."""
    if len(sys.argv) != 3:
        sys.exit(usage)
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        report = json.load(f)
    save_atomically(draw(report), dst)
    return 0


def main() -> int:
    return plot_report(figure, __doc__)


def save_atomically(fig, dst: str) -> None:
    """The figure as a PNG written as ecosim writes its outputs (files.write_atomically)."""
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=120)
    files.write_atomically(dst, png.getvalue())


if __name__ == "__main__":
    sys.exit(main())
