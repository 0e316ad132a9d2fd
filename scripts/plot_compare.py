#!/usr/bin/python3
"""Bar chart of `ecosim compare` results: accelerator latency, accelerator energy and GPU latency per attention
variant, each relative to MSA (log scale), with the published accelerator ratios beside ours when the
workload is the one they were published for.

usage: plot_compare.py compare.json compare.png
Both are plain positional paths (a leading '-' is part of a name, not an option). The PNG is written
atomically: an exclusively created temporary with an unpredictable name beside it, then a rename."""
import json
import os
import sys
import tempfile

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
    ]
    # Published ratios exist only for the workload they were published for (compare.json says null otherwise).
    if any(v.get("published_latency_ratio_msa") is not None for v in variants):
        series += [
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
    save_atomically(fig, dst)
    return 0


def save_atomically(fig, dst: str) -> None:
    """PNG to a mkstemp temporary beside dst (mode 0666 less the umask, like a plain create), then renamed."""
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(dst) + ".", suffix=".tmp",
                               dir=os.path.dirname(os.path.abspath(dst)))
    try:
        with os.fdopen(fd, "wb") as f:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(f.fileno(), 0o666 & ~umask)
            fig.savefig(f, format="png", dpi=120)
        os.replace(tmp, dst)
    except BaseException:
        os.unlink(tmp)
        raise


if __name__ == "__main__":
    sys.exit(main())
