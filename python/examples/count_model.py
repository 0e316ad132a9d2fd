#!/usr/bin/python3
"""Counting a model from Python: a zoo model as `ecosim count` counts it, then a live PyTorch model (a small ViT)
through its ONNX export counted by `ecosim count --onnx`, with its own attention and with every block swapped for EcoFormer.

    PYTHONPATH=build/python python/examples/count_model.py
"""
import torch
import torch.nn as nn

import ecosim
import ecosim.torch

report = ecosim.count(model="pvt_v2_b0", attention="ecoformer")
print(f"PVTv2-B0 with EcoFormer: {report['muls'] / 1e9:.3f} G muls, {report['energy_pj'] / 1e9:.2f} mJ")


class Block(nn.Module):
    """A pre-norm transformer block with its attention written out (q·kᵀ, softmax, ·v), as timm writes it."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5  # a constant, as timm keeps it
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(self.norm1(x)).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        attn = ((q @ k.transpose(-2, -1)) * self.scale).softmax(dim=-1)
        x = x + self.proj((attn @ v).transpose(1, 2).reshape(B, N, C))
        return x + self.mlp(self.norm2(x))


class TinyViT(nn.Module):
    def __init__(self, dim=64, heads=4, depth=2):
        super().__init__()
        self.embed = nn.Linear(16, dim)
        self.blocks = nn.Sequential(*(Block(dim, heads) for _ in range(depth)))
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        return self.head(self.blocks(self.embed(x)).mean(dim=1))


model, x = TinyViT(), torch.randn(1, 64, 16)
native = ecosim.torch.count(model, x)
swapped = ecosim.torch.count(model, x, attention="ecoformer", bits=8, support=16)
print(f"TinyViT: {native['workload']['attention_blocks']} attention blocks found; {native['muls']:,} muls as exported, "
      f"{swapped['muls']:,} with EcoFormer (8 bits, 16 anchors)")
if native["workload"]["unknown_ops"]:
    print(f"  op types counted as zero: {native['workload']['unknown_ops']}")
