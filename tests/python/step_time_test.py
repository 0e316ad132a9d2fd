#!/usr/bin/python3
"""ecosim/torch/step_time.py (issue 20: a training step measured beside `ecosim train`'s model of it) on the CPU:
the bytes autograd saves in the zoo network it builds equal ecosim train's activation bytes for the same model
(within 1 %), every scheme's step is timed, ecosim's figures ride along labelled an estimate, and what it cannot
measure — amp without a GPU, ActNN's levels, a zoo family without a PyTorch network, Few-Bit on a network whose
activations it does not take — is a clean error. Exits 77
(skipped) without torch.

usage: step_time_test.py ECOSIM
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import torch  # noqa: F401
except ImportError as missing:
    print(f"SKIPPED: {missing}")
    sys.exit(77)

SCRIPT = Path(__file__).resolve().parents[2] / "python" / "ecosim" / "torch" / "step_time.py"
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + str(detail) if detail and not ok else ''}")


def step_time(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=os.environ)


def main():
    ecosim = sys.argv[1]
    # the report written as ecosim writes its outputs (files.py, loaded from the source tree by the script)
    report_file = Path(tempfile.mkdtemp(prefix="step_time_test.")) / "step.json"
    run = step_time("--model", "resnet18", "--batch", "2", "--resolution", "64", "--device", "cpu", "--warmup", "1",
                    "--repeats", "2", "--schemes", "none,gact:4", "--ecosim", ecosim, "--json-out", str(report_file))
    check("resnet18 measured on the CPU, its report written", run.returncode == 0 and report_file.is_file(),
          run.stderr)
    if run.returncode != 0:
        sys.exit(1)
    report = json.loads(report_file.read_text())
    shutil.rmtree(report_file.parent)
    none, gact = report["schemes"]
    predicted = none["ecosim"]["activation_bytes"]
    gap = predicted / report["saved_activation_bytes"] - 1
    check(f"autograd saves ecosim train's activation bytes ({gap:+.3%})", abs(gap) <= 0.01)
    check("every scheme timed", all(s["step_ms"] > 0 and s["step_ms_range"][0] <= s["step_ms"] for s in (none, gact)))
    check("no peak memory without a GPU", none["peak_bytes"] is None)
    check("ecosim's GPU figure is labelled an estimate", none["ecosim"]["gpu_ms_kind"].startswith("estimate"))
    check("gact:4 keeps fewer activation bytes in ecosim's model", gact["ecosim"]["activation_bytes"] < predicted)
    for what, args, message in (
            ("amp without a GPU", ["--schemes", "amp", "--device", "cpu"], "amp is measured on a GPU"),
            ("ActNN's levels", ["--schemes", "actnn:L3", "--device", "cpu"], "not its levels"),
            ("a family without a PyTorch network", ["--model", "pvt_v2_b0"], "no PyTorch network"),
            # the zoo's ViT computes GELU's tanh form, which Few-Bit's codebooks do not take: nothing compressed
            ("fewbit on a network it compresses nothing of", ["--model", "deit_tiny", "--schemes", "fewbit:2",
                                                             "--device", "cpu"],
             "compressed none of the tensors")):
        argv = ["--model", "resnet18", "--batch", "1", "--warmup", "0", "--repeats", "1", *args]
        run = step_time(*argv)
        check(f"{what}: a clean error", run.returncode != 0 and message in run.stderr and "Traceback" not in
              run.stderr, run.stderr[-300:])
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
