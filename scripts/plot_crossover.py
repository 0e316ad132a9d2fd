#!/usr/bin/python3
"""Plot of `ecosim crossover` results: op energy per token against the context (both axes logarithmic), one line
per attention variant, each variant's crossing below MSA marked where it falls between the contexts listed.

usage: plot_crossover.py crossover.json crossover.png
Plain positional paths; the PNG is written atomically (plot_compare.plot_report)."""
import os
import sys

if "plot_compare" not in sys.modules:  # run from the source tree (ecosim crossover provides it as a module)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_compare import matplotlib, plot_report, plt  # noqa: E402  (matplotlib set up there, Agg backend)


def crossing_energy(msa, context):
    """MSA's op energy per token at `context`, interpolated linearly between the contexts listed around it (as
    ecosim interpolates the crossing), so the marker lies where the two lines meet."""
    points = [(p["context"], p["op_energy_pj_per_token"]) for p in msa["points"]]
    for (c0, e0), (c1, e1) in zip(points, points[1:]):
        if c0 <= context <= c1:
            return e0 + (e1 - e0) * (context - c0) / (c1 - c0)
    return None


def linear_between(xs, ys, samples=32):
    """The points joined as ecosim interpolates them, linearly in the context: each segment sampled so that on the
    logarithmic axis the line is the interpolation the crossings are found on, not a straight chord."""
    out_x, out_y = [xs[0]], [ys[0]]
    for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        for i in range(1, samples + 1):
            x = x0 * (x1 / x0) ** (i / samples)  # evenly spaced on the log axis
            out_x.append(x)
            out_y.append(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    return out_x, out_y


def tokens_text(x, _=None):
    return f"{x / 1024:g}k" if x >= 1024 else f"{x:g}"


def figure(report):
    fig, ax = plt.subplots(figsize=(8, 5))
    msa = next(v for v in report["variants"] if v["variant"] == "msa")
    for i, v in enumerate(report["variants"]):
        colour = plt.cm.tab10(i % 10)
        contexts = [p["context"] for p in v["points"]]
        energies_mj = [p["op_energy_pj_per_token"] * 1e-9 for p in v["points"]]
        ax.plot(*linear_between(contexts, energies_mj), color=colour, label=v["variant"])
        ax.plot(contexts, energies_mj, marker=".", color=colour, linestyle="none")
        cross = v.get("crossover_vs_msa", {}).get("op_energy", {})
        if cross.get("kind") == "crosses":
            energy = crossing_energy(msa, cross["context"])
            if energy is not None:
                ax.plot([cross["context"]], [energy * 1e-9], marker="o", markersize=9, markerfacecolor="none",
                        markeredgecolor=colour, linestyle="none")
                ax.annotate(tokens_text(round(cross["context"])), (cross["context"], energy * 1e-9),
                            textcoords="offset points", xytext=(6, -12), fontsize=8, color=colour)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(tokens_text))
    ax.set_yscale("log")
    ax.set_xlabel("context (tokens, log scale)")
    ax.set_ylabel("op energy per token (mJ, log scale)")
    ax.set_title(f"{report['model']}, {report['phase']}: op energy per token ({report['tech_table']}); "
                 "circles: where a variant falls below MSA", fontsize=9)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


def main() -> int:
    return plot_report(figure, __doc__)


if __name__ == "__main__":
    sys.exit(main())
