#!/usr/bin/python3
"""Causal masks built inside forward() over sequences too long to fold (more than 2^16 mask elements), exported by
Debian's torch: torch.triu(torch.full(-inf), 1), nn.Transformer.generate_square_subsequent_mask (the
nn.TransformerDecoder idiom), masked_fill(tril(ones) == 0) and masked_fill(triu(ones, 1) == 1) are each found causal
by `ecosim count --onnx`, and count exactly what the same block with its mask stored as a constant buffer counts;
a mask that is not causal (a band shifted by one more key, or a plain uniform constant) is not taken for one.
Exits 77 (skipped) without torch.

usage: long_causal_mask_torch.py ECOSIM WORKDIR
"""
import json
import math
import subprocess
import sys
from pathlib import Path

try:
    import torch
    import torch.nn.functional as F
except ImportError as missing:
    print(f"SKIPPED: {missing}")
    sys.exit(77)

TOKENS, WIDTH, HEADS = 300, 32, 2  # 300² = 90,000 mask elements


class Attention(torch.nn.Module):
    """One causal self-attention block; `mask(tokens, scores)` applies the mask under test to the scores."""

    def __init__(self, mask):
        super().__init__()
        self.qkv, self.out, self.mask = torch.nn.Linear(WIDTH, 3 * WIDTH), torch.nn.Linear(WIDTH, WIDTH), mask

    def forward(self, x):
        batch, tokens, width = x.shape
        q, k, v = self.qkv(x).view(batch, tokens, 3, HEADS, width // HEADS).permute(2, 0, 3, 1, 4)
        scores = self.mask(tokens, q @ k.transpose(-1, -2) / math.sqrt(width // HEADS))
        return self.out((F.softmax(scores, -1) @ v).transpose(1, 2).reshape(batch, tokens, width))


class Buffered(Attention):
    """The same block with its causal mask registered as a buffer (stored in the export as a constant)."""

    def __init__(self):
        super().__init__(lambda tokens, scores: scores + self.causal[:tokens, :tokens])
        self.register_buffer("causal", torch.triu(torch.full((TOKENS, TOKENS), float("-inf")), 1))


CAUSAL = {
    "triu_full": lambda t, s: s + torch.triu(torch.full((t, t), float("-inf")), 1),
    "square_subsequent": lambda t, s: s + torch.nn.Transformer.generate_square_subsequent_mask(t),
    "tril_ones_eq0": lambda t, s: s.masked_fill(torch.tril(torch.ones(t, t)) == 0, float("-inf")),
    "triu_ones_eq1": lambda t, s: s.masked_fill(torch.triu(torch.ones(t, t), 1) == 1, float("-inf")),
}
NOT_CAUSAL = {
    "triu_full_2": lambda t, s: s + torch.triu(torch.full((t, t), float("-inf")), 2),
    "uniform": lambda t, s: s + torch.full((t, t), -1.0),
}


def count(exe, workdir, name, model):
    path = Path(workdir) / f"{name}.onnx"
    torch.onnx.export(model.eval(), torch.randn(1, TOKENS, WIDTH), str(path), opset_version=14)
    run = subprocess.run([exe, "count", "--onnx", str(path), "--attention", "msa", "--scope", "attention",
                          "--convention", "exact", "--format", "json"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ecosim count --onnx {path} failed: {run.stderr}")
    report = json.loads(run.stdout)
    shapes = report["workload"]["attention_shapes"]
    if len(shapes) != 1:
        sys.exit(f"{name}: {len(shapes)} attention blocks found, expected 1")
    return report, shapes[0]["causal"]


def main():
    exe, workdir = sys.argv[1], sys.argv[2]
    reference, causal = count(exe, workdir, "buffered", Buffered())
    if not causal:
        sys.exit("buffered: the stored causal mask is not found causal")
    failures = []
    for name, mask in CAUSAL.items():
        report, causal = count(exe, workdir, name, Attention(mask))
        if not causal:
            failures.append(f"{name}: not found causal")
        for field in ("muls", "adds", "energy_pj"):
            if not math.isclose(report[field], reference[field], rel_tol=1e-12):
                failures.append(f"{name}: {field} {report[field]} != {reference[field]} (stored mask)")
    for name, mask in NOT_CAUSAL.items():
        if count(exe, workdir, name, Attention(mask))[1]:
            failures.append(f"{name}: taken for causal")
    if failures:
        sys.exit("\n".join(failures))
    print(f"{len(CAUSAL)} masks built in forward() over {TOKENS} tokens found causal, counted as the stored mask; "
          f"{len(NOT_CAUSAL)} others not")


if __name__ == "__main__":
    main()
