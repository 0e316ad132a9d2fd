#!/usr/bin/python3
"""Overhead of ecosim's compression hooks per training step on the CPU (issue 23): the digits ResNet and ViT
(tests/python/digits_models.py) trained at --batch for --steps steps, uncompressed and under
compressed_activations(scheme) at each scheme's default bits, each configuration in a fresh process so that its
peak resident memory (ru_maxrss) is its own; the table gives the median step time, its ratio to the uncompressed
step measured in the same run, the peak RSS above the process's RSS before the first step (torch and the data
already loaded; freed memory that malloc keeps counts too), and the activation bytes the hooks hold against those
autograd would hold. Needs the package importable (PYTHONPATH=build/python, or installed) and Debian's torch and
scikit-learn; Debian's torch has no CUDA, so there is no GPU column.

usage: scripts/bench_hooks.py [--steps N] [--batch B] [--threads T]
"""
import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "python"))


def resident_mib():
    """The process's resident memory now (/proc/self/statm), MiB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 2**20


def child(model_name, scheme, steps, batch, threads):
    """One configuration: prints {median_ms, peak_rss_mib, held, saved} as JSON."""
    import torch
    import torch.nn.functional as F

    import digits_models
    import digits_training
    import ecosim.torch
    torch.set_num_threads(threads)
    images, labels = digits_models.digits()
    torch.manual_seed(0)
    model = getattr(digits_models, model_name)()
    opt = digits_training.optimizer(model)
    hooks = ecosim.torch.compressed_activations(scheme, model=model) if scheme != "none" else None
    times, rss_before = [], resident_mib()
    if hooks:
        hooks.__enter__()
    for step in range(steps):
        i = (step * batch) % (len(labels) - batch)
        start = time.perf_counter()
        loss = F.cross_entropy(model(images[i:i + batch]), labels[i:i + batch])
        opt.zero_grad()
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - start)
    summary = hooks.summary() if hooks else {}
    if hooks:
        hooks.__exit__(None, None, None)
    print(json.dumps({"median_ms": statistics.median(times[2:]) * 1e3,
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - rss_before,
                      "held": summary.get("bytes_after"), "saved": summary.get("bytes_before")}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child, args.steps, args.batch, args.threads)
    import ecosim.torch
    print(f"CPU, batch {args.batch}, {args.steps} steps (median after 2), {args.threads} thread(s)")
    print(f"{'model':<8} {'scheme':<7} {'bits':>4} {'ms/step':>9} {'× none':>7} {'peak +RSS MiB':>13} "
          f"{'held B':>10} {'of B':>10}")
    for model_name in ("ResNet", "ViT"):
        base = None
        for scheme in ("none", *ecosim.torch.DEFAULT_BITS):
            run = subprocess.run([sys.executable, __file__, "--child", model_name, scheme, "--steps",
                                  str(args.steps), "--batch", str(args.batch), "--threads", str(args.threads)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(run.stdout)
            base = base or r["median_ms"]
            bits = ecosim.torch.DEFAULT_BITS.get(scheme, 32)
            print(f"{model_name:<8} {scheme:<7} {bits:>4} {r['median_ms']:>9.2f} {r['median_ms'] / base:>7.2f} "
                  f"{r['peak_rss_mib']:>13.1f} {r['held'] or '':>10} {r['saved'] or '':>10}")


if __name__ == "__main__":
    main()
