#!/usr/bin/python3
"""ecosim train's GPU estimate against training steps measured in PyTorch on lent GPUs
(accel_model/data/gpu_training_steps.json, through scripts/validate_gpu_model --training): over the points that
tuned no constant, the modelled step time is within 15 % of the measured one at the median and 30 % at worst;
the modelled peak memory is never above the measured one (it leaves out the libraries' workspaces and the
allocator's rounding) and within 25 % of it.

usage: train_gpu_measured.py ECOSIM
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "validate_gpu_model"), "--ecosim",
                          sys.argv[1], "--training", "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAILED: validate_gpu_model --training exited {run.returncode}: {run.stderr.strip()}")
    rows = json.loads(run.stdout)
    held = [abs(r["error"]) for r in rows if r["role"] == "held out"]
    failures = []
    if len(held) < 4:
        failures.append(f"only {len(held)} held-out steps")
    elif statistics.median(held) > 0.15 or max(held) > 0.30:
        failures.append(f"held-out step time |error|: median {statistics.median(held):.3f}, worst {max(held):.3f}")
    for r in rows:
        if not -0.25 <= r["peak_error"] <= 0:
            failures.append(f"{r['id']}: peak {r['modelled_peak_mib']:.0f} MiB against {r['measured_peak_mib']:.0f}")
    for r in rows:
        print(f"{r['id']}: step {r['error'] * 100:+.1f} %, peak {r['peak_error'] * 100:+.1f} % ({r['role']})")
    if failures:
        sys.exit("FAILED: " + "; ".join(failures))


if __name__ == "__main__":
    main()
