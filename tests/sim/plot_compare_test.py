#!/usr/bin/python3
"""scripts/plot_compare.py, the chart of `ecosim compare`, on small reports: the figure's title names the workload
(the report's workload_description); each panel (accelerator latency, accelerator energy, GPU latency) draws one
bar per variant and series whose length is its ratio to MSA computed here from the report (published ratios as
given), each bar labelled with that value (three significant digits) just past its end and inside the panel;
the axes are logarithmic and the smallest bar spans at least a fifth of its panel's axis, whether the ratios span
one decade or six; a variant without a published figure gets no published bar. The script, run as ecosim runs it,
writes a PNG. Exits 77 (skipped) without Debian's matplotlib.

usage: plot_compare_test.py scripts/plot_compare.py WORKDIR"""
import importlib.util
import json
import math
import os
import subprocess
import sys

SCRIPT, WORKDIR = sys.argv[1], sys.argv[2]
try:
    spec = importlib.util.spec_from_file_location("plot_compare", SCRIPT)
    plot_compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot_compare)
except SystemExit as missing:  # the script exits when matplotlib is missing
    print(f"SKIPPED: {missing}")
    sys.exit(77)
from matplotlib.patches import Rectangle  # noqa: E402  (after the skip)

DESCRIPTION = "one attention layer, batch 2, 64 tokens, 1 head, head width 16, on bitfusion-45nm"


def report(ratios, published=None):
    """A compare.json-like report: ratios by variant (msa first, 1.0) scaled into absolute figures; published
    latency/energy ratios by variant (None: that variant has none)."""
    variants = []
    for name, r in ratios.items():
        row = {"name": name, "accel_latency_ms": 3.0 * r, "accel_energy_pj": 5e6 * r, "gpu_latency_ms": 0.2 * r ** 0.5,
               "gpu_latency_kind": "estimated", "published_latency_ratio_msa": None,
               "published_energy_ratio_msa": None}
        if published and published.get(name) is not None:
            row["published_latency_ratio_msa"], row["published_energy_ratio_msa"] = published[name]
        variants.append(row)
    return {"workload_description": DESCRIPTION, "published_source": "a paper" if published else None,
            "variants": variants}


def expected_bars(rep):
    """Per panel, the (variant index, value) of each bar, computed from the report."""
    v = rep["variants"]
    msa = v[0]
    ours = {key: [(i, x[key] / msa[key]) for i, x in enumerate(v)]
            for key in ("accel_latency_ms", "accel_energy_pj", "gpu_latency_ms")}
    pub = {key: [(i, x[key]) for i, x in enumerate(v) if x[key] is not None]
           for key in ("published_latency_ratio_msa", "published_energy_ratio_msa")}
    return [ours["accel_latency_ms"] + pub["published_latency_ratio_msa"],
            ours["accel_energy_pj"] + pub["published_energy_ratio_msa"], ours["gpu_latency_ms"]]


def check(rep):
    fig = plot_compare.figure(rep)
    assert DESCRIPTION in fig._suptitle.get_text(), fig._suptitle.get_text()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axes = fig.axes
    assert len(axes) == 3, len(axes)
    for ax, expected in zip(axes, expected_bars(rep)):
        assert ax.get_xscale() == "log"
        lo, hi = ax.get_xlim()
        bars = [p for p in ax.patches if isinstance(p, Rectangle)]
        values = sorted(b.get_x() + b.get_width() for b in bars)
        want = sorted(x for _, x in expected)
        assert len(values) == len(want) and all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(values, want)), \
            (ax.get_title(), values, want)
        box = ax.get_window_extent(renderer)
        for bar in bars:
            end = bar.get_x() + bar.get_width()
            share = (math.log10(end) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
            assert share >= 0.2, (ax.get_title(), end, lo, hi, share)
            middle = bar.get_y() + bar.get_height() / 2
            labels = [t for t in ax.texts if math.isclose(t.get_position()[1], middle) and t.get_position()[0] >= end]
            texts = [t.get_text() for t in labels]
            assert texts == [f"{end:#.3g}"], (ax.get_title(), end, texts)
            extent = labels[0].get_window_extent(renderer)
            assert box.x0 <= extent.x0 and extent.x1 <= box.x1, (ax.get_title(), labels[0].get_text())
        assert len(ax.texts) == len(bars)
    plot_compare.plt.close(fig)


def main() -> int:
    published = {"msa": (1.0, 1.0), "performer": (0.528, 0.48), "ecoformer": (0.278, 0.292), "sra": None}
    check(report({"msa": 1.0, "performer": 0.148, "ecoformer": 0.0163, "sra": 0.07}, published))
    check(report({"msa": 1.0, "tiny": 1e-6, "small": 3e-3}, {"msa": (1.0, 1.0), "tiny": (0.5, 0.5)}))
    check(report({"msa": 1.0, "twin": 0.9}))
    check(report({"msa": 1.0}))

    # run as ecosim runs it: a PNG appears
    src = os.path.join(WORKDIR, "compare.json")
    dst = os.path.join(WORKDIR, "compare.png")
    with open(src, "w", encoding="utf-8") as f:
        json.dump(report({"msa": 1.0, "ecoformer": 0.0163}, {"msa": (1.0, 1.0), "ecoformer": (0.278, 0.292)}), f)
    if os.path.exists(dst):
        os.remove(dst)
    subprocess.run(["/usr/bin/python3", SCRIPT, src, dst], check=True)
    with open(dst, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    return 0


if __name__ == "__main__":
    sys.exit(main())
