#!/usr/bin/python3
"""Plot of `ecosim train --out`: left, the memory curve of one training step, one line per activation scheme
(memory in GiB against the step's points, forward then backward), each scheme's peak marked and labelled, the
forward/backward boundary drawn; right, each scheme's peak as a stacked bar — parameters, gradients, optimizer
state, buffers, saved activations and the rest at the peak (the gradients and copies alive then). The title names
the workload (train.json's model or ONNX file, batch and optimizer).

usage: plot_train.py train.json memory_curve.csv train.png
Plain positional paths; the PNG is written atomically (plot_compare.save_atomically)."""
import csv
import json
import os
import sys

if "plot_compare" not in sys.modules:  # run from the source tree (ecosim train provides it as a module)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_compare import plt, save_atomically  # noqa: E402  (matplotlib set up there, Agg backend)

GIB = float(1 << 30)


def curves(path):
    """{scheme: [(point, phase, bytes), ...]} in the file's order."""
    out = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            out.setdefault(row["scheme"], []).append((int(row["point"]), row["phase"], int(row["bytes"])))
    return out


def title(workload):
    what = workload.get("model") or os.path.basename(workload.get("onnx", "?"))
    batch = f", batch {workload['batch']}" if "batch" in workload else ""
    return f"one training step of {what}{batch}, {workload.get('optimizer', '?')}"


def stacked_bars(ax, report):
    """One bar per scheme: its peak_bytes split into the step's fixed parts and the scheme's activations."""
    fixed = [("parameters", report.get("parameter_bytes", 0)), ("gradients", report.get("gradient_bytes", 0)),
             ("optimizer state", report.get("optimizer_state_bytes", 0)), ("buffers", report.get("buffer_bytes", 0))]
    schemes = report.get("schemes", [])
    for i, scheme in enumerate(schemes):
        parts = fixed + [("saved activations", scheme["activation_bytes"])]
        parts.append(("rest at the peak", max(0, scheme["peak_bytes"] - sum(b for _, b in parts))))
        bottom = 0.0
        for j, (label, size) in enumerate(parts):
            ax.bar(i, size / GIB, bottom=bottom, color=plt.cm.Set2(j % 8), label=label if i == 0 else None)
            bottom += size / GIB
        ax.annotate(f"{bottom:.3g}", (i, bottom), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=8)
    ax.set_xticks(range(len(schemes)))
    ax.set_xticklabels([s["scheme"] for s in schemes], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("peak memory (GiB)")
    ax.legend(fontsize=7)


def figure(report, series):
    fig, (ax, bars) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [3, 2]})
    for i, (scheme, points) in enumerate(series.items()):
        colour = plt.cm.tab10(i % 10)
        xs = [p for p, _, _ in points]
        ys = [b / GIB for _, _, b in points]
        ax.plot(xs, ys, color=colour, label=scheme)
        peak = max(range(len(ys)), key=ys.__getitem__)
        ax.plot([xs[peak]], [ys[peak]], marker="o", color=colour, linestyle="none")
        ax.annotate(f"{ys[peak]:.3g} GiB", (xs[peak], ys[peak]), textcoords="offset points", xytext=(4, 4),
                    fontsize=8, color=colour)
    first = next(iter(series.values()), [])
    boundary = next((p for p, phase, _ in first if phase != "forward"), None)
    if boundary is not None:
        ax.axvline(boundary, color="grey", linestyle=":", linewidth=1)
        ax.annotate("backward", (boundary, 0), textcoords="offset points", xytext=(4, 4), fontsize=8, color="grey")
    ax.set_xlabel("point of the step (one per layer's forward, backward, then the update)")
    ax.set_ylabel("memory (GiB)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    stacked_bars(bars, report)
    fig.suptitle(title(report.get("workload", {})), fontsize=10)
    fig.tight_layout()
    return fig


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-2])
    with open(sys.argv[1], encoding="utf-8") as f:
        report = json.load(f)
    series = curves(sys.argv[2])
    if not series:
        sys.exit(f"plot_train.py: {sys.argv[2]} has no points")
    save_atomically(figure(report, series), sys.argv[3])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
