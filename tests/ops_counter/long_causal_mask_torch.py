#!/usr/bin/python3
"""Causal masks built inside forward() over sequences too long to fold (more than 2^16 mask elements), exported by
Debian's torch: torch.triu(torch.full(-inf), 1), nn.Transformer.generate_square_subsequent_mask (the
nn.TransformerDecoder idiom), masked_fill(tril(ones) == 0) and masked_fill(triu(ones, 1) == 1) are each found causal
by `ecosim count --onnx`, and count exactly what the same block with its mask stored as a constant buffer counts;
a mask that is not causal (a band shifted by one more key, or a plain uniform constant) is not taken for one. The
same blocks in bf16 (exported so) and fp16 (the fp32 export's floats converted) are found causal too, and count
the same (their 16-bit constants were not read: a swap counted full attention).
Exits 77 (skipped) without torch.

usage: long_causal_mask_torch.py ECOSIM WORKDIR
"""
import json
import math
import subprocess
import sys
from pathlib import Path

try:
    import onnx
    import torch
    import torch.nn.functional as F
    from onnx import numpy_helper
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
HALF = {  # masks made in the scores' own type
    "buffered": None,
    "triu_full_typed": lambda t, s: s + torch.triu(torch.full((t, t), float("-inf"), dtype=s.dtype), 1),
}


def to_fp16(path):
    """The ONNX file at `path` with its fp32 constants, casts and value types made fp16, written beside it."""
    model = onnx.load(str(path))
    graph = model.graph

    def convert(tensor):
        if tensor.data_type == onnx.TensorProto.FLOAT:
            tensor.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(tensor).astype("float16"), tensor.name))

    for tensor in graph.initializer:
        convert(tensor)
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.TENSOR:
                convert(attribute.t)
            if node.op_type == "Cast" and attribute.name == "to" and attribute.i == onnx.TensorProto.FLOAT:
                attribute.i = onnx.TensorProto.FLOAT16
    for value in [*graph.input, *graph.output, *graph.value_info]:
        if value.type.tensor_type.elem_type == onnx.TensorProto.FLOAT:
            value.type.tensor_type.elem_type = onnx.TensorProto.FLOAT16
    half = path.with_name(path.stem + "_fp16.onnx")
    onnx.save(model, str(half))
    return half


def count(exe, workdir, name, model, dtype=torch.float32, fp16=False):
    path = Path(workdir) / f"{name}.onnx"
    torch.onnx.export(model.eval().to(dtype), torch.randn(1, TOKENS, WIDTH, dtype=dtype), str(path), opset_version=14)
    if fp16:
        path = to_fp16(path)
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
    for name, mask in HALF.items():
        for dtype, fp16 in ((torch.bfloat16, False), (torch.float32, True)):
            label = f"{name}_{'fp16' if fp16 else 'bf16'}"
            report, causal = count(exe, workdir, label, Buffered() if mask is None else Attention(mask), dtype, fp16)
            if not causal:
                failures.append(f"{label}: not found causal")
            if report["muls"] != reference["muls"]:
                failures.append(f"{label}: muls {report['muls']} != {reference['muls']} (fp32, stored mask)")
    for name, mask in NOT_CAUSAL.items():
        if count(exe, workdir, name, Attention(mask))[1]:
            failures.append(f"{name}: taken for causal")
    if failures:
        sys.exit("\n".join(failures))
    print(f"{len(CAUSAL)} masks built in forward() over {TOKENS} tokens found causal, counted as the stored mask; "
          f"{len(NOT_CAUSAL)} others not; {len(HALF)} in bf16 and fp16 found causal")


if __name__ == "__main__":
    main()
