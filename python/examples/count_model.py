#!/usr/bin/python3
"""Counting a model from Python: a zoo model as `ecosim count` counts it, then a live PyTorch model (a small ViT)
through an in-memory ONNX export, with its own attention and with every block swapped for EcoFormer.

    PYTHONPATH=build/python python/examples/count_model.py
"""
import torch
import torch.nn as nn

import ecosim
import ecosim.torch

report = ecosim.count(model="pvt_v2_b0", attention="ecoformer")
print(f"PVTv2-B0 with EcoFormer: {report['muls'] / 1e9:.3f} G muls, {report['energy_pj'] / 1e9:.2f} mJ")


class TinyViT(nn.Module):
    def __init__(self, dim=64, heads=4, depth=2, tokens=64):
        super().__init__()
        self.embed = nn.Linear(16, dim)
        self.blocks = nn.ModuleList(nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True,
                                                               norm_first=True) for _ in range(depth))
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean(dim=1))


model, x = TinyViT(), torch.randn(1, 64, 16)
native = ecosim.torch.count(model, x)
swapped = ecosim.torch.count(model, x, attention="ecoformer", bits=8, support=16)
print(f"TinyViT: {len(native['attention_blocks'])} attention blocks found; {native['muls']:,} muls as exported, "
      f"{swapped['muls']:,} with EcoFormer (8 bits, 16 anchors)")
if native["unknown_ops"]:
    print(f"  op types counted as zero: {native['unknown_ops']}")
