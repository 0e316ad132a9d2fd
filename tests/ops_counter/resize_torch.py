#!/usr/bin/python3
"""F.interpolate between two convolutions, exported by Debian's torch with fixed shapes (opsets 11, 13, 17): by a
size (written as Concat(Slice(Shape(x)), constant), which ONNX's shape inference leaves unknown) and by a scale
factor. `ecosim count --onnx` gives the upsampled tensor its shape (it refused the sized form: "no static shape"),
counts the two convolutions' multiplications by hand, and lists Resize as an op counted as zero. Exits 77
(skipped) without torch.

usage: resize_torch.py ECOSIM WORKDIR
"""
import json
import subprocess
import sys
from pathlib import Path

try:
    import torch
    import torch.nn.functional as F
except ImportError as missing:
    print(f"SKIPPED: {missing}")
    sys.exit(77)


class Upsampling(torch.nn.Module):
    """conv 3→8 (3×3, padded) on 8×8, upsampled to 16×16, conv 8→8 (3×3, padded)."""

    def __init__(self, **interpolate):
        super().__init__()
        self.c1, self.c2 = torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.Conv2d(8, 8, 3, padding=1)
        self.interpolate = interpolate

    def forward(self, x):
        return self.c2(F.interpolate(self.c1(x), **self.interpolate))


# each output element of a 3×3 convolution: in_channels × 9 products
EXPECTED_MULS = 8 * 8 * 8 * 3 * 9 + 8 * 16 * 16 * 8 * 9


def main():
    exe, workdir = sys.argv[1], Path(sys.argv[2])
    workdir.mkdir(parents=True, exist_ok=True)
    failures = []
    for form, interpolate in (("size", {"size": (16, 16)}), ("scale", {"scale_factor": 2.0})):
        for opset in (11, 13, 17):
            path = workdir / f"{form}_{opset}.onnx"
            torch.onnx.export(Upsampling(**interpolate).eval(), torch.randn(1, 3, 8, 8), str(path),
                              opset_version=opset)
            run = subprocess.run([exe, "count", "--onnx", str(path), "--convention", "exact", "--format", "json"],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                failures.append(f"{form}, opset {opset}: ecosim count failed: {run.stderr.strip()}")
                continue
            report = json.loads(run.stdout)
            if report["muls"] != EXPECTED_MULS:
                failures.append(f"{form}, opset {opset}: {report['muls']} muls, expected {EXPECTED_MULS}")
            if "Resize" not in report["workload"]["unknown_ops"]:
                failures.append(f"{form}, opset {opset}: Resize not listed as counted zero")
    if failures:
        sys.exit("\n".join(failures))
    print(f"interpolate by size and by scale at opsets 11, 13, 17: {EXPECTED_MULS} muls each")


if __name__ == "__main__":
    main()
