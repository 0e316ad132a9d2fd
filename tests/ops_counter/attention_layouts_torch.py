#!/usr/bin/python3
"""Attention and LayerNorm as ordinary PyTorch code writes them, exported by Debian's torch and counted by
`ecosim count --onnx`; each form must count as its plain equivalent:
- multi-query attention whose one K/V head MatMul broadcasts over the query heads (k.unsqueeze(1)) has one K/V
  head, as the same block with an explicit expand has;
- heads merged into the batch einops-style ((b h) n d, a Reshape keeping the head width last) are the heads of the
  same block with 4-D scores (a swap to SRA sizes its reduction by heads·head_dim);
- single-head attention over a conv feature map (SAGAN: q = conv(x).view(B, C', HW).permute) has one head, and its
  SRA swap counts what `--layer attention` of that shape counts;
- nn.LayerNorm over its last two dims, opset 13 (ReduceMean over two axes) counts what opset 17's
  LayerNormalization node does: 2 ops an element (affine).
Exits 77 (skipped) without torch.

usage: attention_layouts_torch.py ECOSIM WORKDIR
"""
import json
import subprocess
import sys
from pathlib import Path

try:
    import torch
    from torch import nn
except ImportError as missing:
    print(f"SKIPPED: {missing}")
    sys.exit(77)

BATCH, TOKENS, WIDTH, HEADS = 2, 24, 64, 4
HEAD = WIDTH // HEADS


class MultiQuery(nn.Module):
    """One K/V head read by every query head: broadcast by MatMul, or expanded first."""

    def __init__(self, expand):
        super().__init__()
        self.expand = expand
        self.q, self.k, self.v, self.o = (nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, HEAD), nn.Linear(WIDTH, HEAD),
                                          nn.Linear(WIDTH, WIDTH))

    def forward(self, x):
        q = self.q(x).reshape(BATCH, TOKENS, HEADS, HEAD).transpose(1, 2)
        k, v = self.k(x).unsqueeze(1), self.v(x).unsqueeze(1)
        if self.expand:
            k, v = k.expand(BATCH, HEADS, TOKENS, HEAD), v.expand(BATCH, HEADS, TOKENS, HEAD)
        p = ((q @ k.transpose(-2, -1)) * HEAD**-0.5).softmax(-1)
        return self.o((p @ v).transpose(1, 2).reshape(BATCH, TOKENS, WIDTH))


class Heads(nn.Module):
    """Multi-head self-attention with 4-D scores, or with the heads merged into the batch before a bmm."""

    def __init__(self, merged):
        super().__init__()
        self.merged = merged
        self.qkv, self.o = nn.Linear(WIDTH, 3 * WIDTH), nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        q, k, v = self.qkv(x).reshape(BATCH, TOKENS, 3, HEADS, HEAD).permute(2, 0, 3, 1, 4)
        if self.merged:
            q, k, v = (t.reshape(BATCH * HEADS, TOKENS, HEAD) for t in (q, k, v))
            p = torch.bmm(q, k.transpose(1, 2)).div(HEAD**0.5).softmax(-1)
            o = torch.bmm(p, v)
        else:
            o = ((q @ k.transpose(-2, -1)) * HEAD**-0.5).softmax(-1) @ v
        return self.o(o.reshape(BATCH, HEADS, TOKENS, HEAD).transpose(1, 2).reshape(BATCH, TOKENS, WIDTH))


class FeatureMapAttention(nn.Module):
    """SAGAN's self-attention: one head of C/8 channels over the H·W positions of a feature map."""

    def __init__(self, channels):
        super().__init__()
        self.q, self.k, self.v = (nn.Conv2d(channels, channels // 8, 1) for _ in range(3))
        self.o = nn.Conv2d(channels // 8, channels, 1)

    def forward(self, x):
        b, _, h, w = x.shape
        q = self.q(x).view(b, -1, h * w).permute(0, 2, 1)
        p = torch.softmax(torch.bmm(q, self.k(x).view(b, -1, h * w)), -1)
        o = torch.bmm(p, self.v(x).view(b, -1, h * w).permute(0, 2, 1))
        return x + self.o(o.permute(0, 2, 1).reshape(b, -1, h, w))


def export(module, example, path, opset=17):
    torch.onnx.export(module.eval(), example, str(path), opset_version=opset, do_constant_folding=True)
    return path


def count(ecosim, *args):
    done = subprocess.run([ecosim, "count", *map(str, args), "--format", "json"], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"ecosim count {' '.join(map(str, args))} failed: {done.stderr}")
    return json.loads(done.stdout)


def check(failures, what, got, expected):
    status = "ok" if got == expected else "FAIL"
    print(f"{status}: {what}: {got} (expected {expected})")
    if got != expected:
        failures.append(what)


def main():
    ecosim, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    failures = []
    core = ("--convention", "exact", "--scope", "attention")

    x = torch.randn(BATCH, TOKENS, WIDTH)
    forms = {f: export(MultiQuery(f == "expand"), (x,), work / f"mqa_{f}.onnx") for f in ("broadcast", "expand")}
    found = {f: count(ecosim, "--onnx", p)["workload"]["attention_shapes"] for f, p in forms.items()}
    check(failures, "multi-query broadcast: K/V heads", [s["kv_heads"] for s in found["broadcast"]], [1])
    swapped = {f: count(ecosim, "--onnx", p, "--attention", "performer", *core) for f, p in forms.items()}
    check(failures, "multi-query broadcast: Performer swap muls, adds (as expanded)",
          (swapped["broadcast"]["muls"], swapped["broadcast"]["adds"]),
          (swapped["expand"]["muls"], swapped["expand"]["adds"]))

    forms = {f: export(Heads(f == "merged"), (x,), work / f"heads_{f}.onnx") for f in ("merged", "split")}
    shapes = {f: count(ecosim, "--onnx", p)["workload"]["attention_shapes"] for f, p in forms.items()}
    check(failures, "merged heads: batch, heads", [(s["batch"], s["heads"]) for s in shapes["merged"]],
          [(BATCH, HEADS)])
    sra = {f: count(ecosim, "--onnx", p, "--attention", "sra", "--sr-ratio", 2, *core) for f, p in forms.items()}
    check(failures, "merged heads: SRA swap muls, adds (as 4-D scores)", (sra["merged"]["muls"], sra["merged"]["adds"]),
          (sra["split"]["muls"], sra["split"]["adds"]))

    channels, side, batch = 64, 16, 8
    path = export(FeatureMapAttention(channels), (torch.randn(batch, channels, side, side),), work / "sagan.onnx")
    shapes = count(ecosim, "--onnx", path)["workload"]["attention_shapes"]
    check(failures, "feature-map attention: batch, heads, head width",
          [(s["batch"], s["heads"], s["head_dim"]) for s in shapes], [(batch, 1, channels // 8)])
    onnx_sra = count(ecosim, "--onnx", path, "--attention", "sra", "--sr-ratio", 2, *core)
    layer_sra = count(ecosim, "--layer", "attention", "--attention", "sra", "--sr-ratio", 2, "--batch", batch,
                      "--heads", 1, "--seq", side * side, "--dim", channels // 8, "--no-proj", "--convention", "exact")
    check(failures, "feature-map attention: SRA swap muls (as --layer attention)", onnx_sra["muls"], layer_sra["muls"])

    norm, shape = nn.LayerNorm([6, 8]), (2, 5, 6, 8)
    counted = {o: count(ecosim, "--onnx", export(norm, (torch.randn(*shape),), work / f"ln_o{o}.onnx", o))
               for o in (13, 17)}
    elements = 2 * 5 * 6 * 8
    for o, c in counted.items():
        check(failures, f"LayerNorm over two dims, opset {o}: muls, adds", (c["muls"], c["adds"]),
              (2 * elements, 2 * elements))
    if failures:
        sys.exit(f"{len(failures)} failed: {failures}")


if __name__ == "__main__":
    main()
