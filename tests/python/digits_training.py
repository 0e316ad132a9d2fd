"""Seeded training of the digits networks (digits_models.py) on the CPU, optionally under ecosim's
compressed_activations hooks: the loop the training and benchmark tests share."""
import contextlib
import time

import torch
import torch.nn.functional as F

import digits_models

BATCH = 32


def optimizer(model):
    """SGD with momentum for the ResNet, AdamW for the ViT (which SGD at this budget barely moves)."""
    if isinstance(model, digits_models.ViT):
        return torch.optim.AdamW(model.parameters(), lr=3e-3)
    return torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def train(model_class, steps, scheme=None, bits=None, seed=0):
    """Trains a fresh model_class() for `steps` steps of BATCH digits (the same batches and initial weights for
    every scheme); returns (model, mean loss over the training images after training, seconds per step, the
    hooks' summary of the last step or None)."""
    import ecosim.torch
    images, labels = digits_models.digits()
    torch.manual_seed(seed)
    model = model_class()
    opt = optimizer(model)
    hooks = ecosim.torch.compressed_activations(scheme, bits=bits, seed=seed, model=model) if scheme else None
    start = time.perf_counter()
    with hooks if hooks else contextlib.nullcontext():
        for step in range(steps):
            i = (step * BATCH) % (len(labels) - BATCH)
            loss = F.cross_entropy(model(images[i:i + BATCH]), labels[i:i + BATCH])
            opt.zero_grad()
            loss.backward()
            opt.step()
    seconds = (time.perf_counter() - start) / steps
    model.eval()
    with torch.no_grad():
        final = F.cross_entropy(model(images), labels).item()
    return model, final, seconds, hooks.summary() if hooks else None
