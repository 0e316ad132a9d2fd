#!/usr/bin/python3
"""Bar chart of `ecosim compare` results: accelerator latency, accelerator energy and GPU latency per attention
variant, each relative to MSA (log scale), with the published accelerator ratios beside ours.

usage: plot_compare.py compare.json compare.png   (writes the PNG atomically: temp file + rename)"""
import json
import os
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_compare.py: error: matplotlib is missing (apt install python3-matplotlib)")


def main() -> int:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        variants = json.load(f)["variants"]
    names = [v["name"] for v in variants]
    msa = next((v for v in variants if v["name"] == "msa"), variants[0])
    series = [
        ("accelerator latency", [v["accel_latency_ms"] / msa["accel_latency_ms"] for v in variants]),
        ("accelerator energy", [v["accel_energy_pj"] / msa["accel_energy_pj"] for v in variants]),
        ("GPU latency (" + variants[0]["gpu_latency_kind"] + ")",
         [v["gpu_latency_ms"] / msa["gpu_latency_ms"] for v in variants]),
        ("published accel. latency", [v.get("published_latency_ratio_msa") or 0 for v in variants]),
        ("published accel. energy", [v.get("published_energy_ratio_msa") or 0 for v in variants]),
    ]
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(10, 5))
    for i, (label, values) in enumerate(series):
        xs = [x + (i - len(series) / 2 + 0.5) * width for x in range(len(names))]
        ax.bar(xs, values, width, label=label, hatch="//" if label.startswith("published") else None)
    ax.set_xticks(range(len(names)), names)
    ax.set_yscale("log")
    ax.set_ylabel(f"relative to {msa['name']} (log scale)")
    ax.set_title("Attention variants: accelerator and GPU cost relative to MSA")
    ax.legend(fontsize=8)
    fig.tight_layout()
    tmp = dst + ".tmp.png"
    fig.savefig(tmp, dpi=120)
    os.replace(tmp, dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
