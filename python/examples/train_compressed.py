#!/usr/bin/python3
"""Training with compressed activations: a small CNN learns scikit-learn's digits (shipped offline) while every
tensor autograd saves is compressed by ecosim's ActNN kernels at 2 bits, the hooks' statistics printed after the
last step, and ecosim train's fp32 prediction for a ResNet-18 step beside it.

    PYTHONPATH=build/python python/examples/train_compressed.py [actnn|gact|mesa|fewbit]
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits

import ecosim
import ecosim.torch

scheme = sys.argv[1] if len(sys.argv) > 1 else "actnn"
digits = load_digits()
images = torch.tensor(digits.images / 16.0, dtype=torch.float32).unsqueeze(1)
labels = torch.tensor(digits.target)

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1),
                      nn.BatchNorm2d(32), nn.GELU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(128, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
with ecosim.torch.compressed_activations(scheme, model=model) as hooks:
    for step in range(200):
        i = (step * 64) % (len(labels) - 64)
        loss = F.cross_entropy(model(images[i:i + 64]), labels[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step}: loss {loss.item():.3f}")
s = hooks.summary()
print(f"{scheme} at {s['bits']} bits: the last step saved {s['tensors']} tensors, {s['saved_storage_bytes']:,} B "
      f"held as {s['bytes_after']:,} B ({s['ratio']:.1f}×)")
for t in [t for t in hooks.stats if not t["state"]][:6]:  # parameters and buffers are not compressed
    print(f"  {t['shape']} {t['dtype']}: {t['bytes_before']:,} B -> {t['bytes_after']:,} B at {t['bits']:g} bits")
resnet = ecosim.train(model="resnet18", batch=64)["schemes"][0]
print(f"ecosim train: a ResNet-18 step at batch 64 keeps {resnet['activation_bytes'] / 2**30:.2f} GiB of activations")
