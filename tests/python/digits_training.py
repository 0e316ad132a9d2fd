"""Seeded training of the digits networks (digits_models.py) on the CPU, optionally under ecosim's
compressed_activations hooks: the loop the training and benchmark tests share."""
import contextlib
import time

import torch
import torch.nn.functional as F

import digits_models

BATCH = 32
TAIL = 100  # the training loss reported: the mean over the last TAIL steps (one step's loss is one batch's)


def optimizer(model):
    """SGD with momentum for the ResNet, AdamW for the ViT (which SGD at this budget barely moves)."""
    if isinstance(model, digits_models.ViT):
        return torch.optim.AdamW(model.parameters(), lr=3e-4)
    return torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)


def train(model_class, steps, scheme=None, bits=None, seed=0, window=TAIL):
    """Trains a fresh model_class() for `steps` steps of BATCH digits (the same batches and initial weights for
    every scheme); returns (model, the mean training loss of the last `window` steps, seconds per step, the
    hooks' summary of the last step or None)."""
    import ecosim.torch
    images, labels = digits_models.digits()
    torch.manual_seed(seed)
    model = model_class()
    opt = optimizer(model)
    hooks = ecosim.torch.compressed_activations(scheme, bits=bits, seed=seed, model=model) if scheme else None
    losses = []
    start = time.perf_counter()
    with hooks if hooks else contextlib.nullcontext():
        for step in range(steps):
            i = (step * BATCH) % (len(labels) - BATCH)
            loss = F.cross_entropy(model(images[i:i + BATCH]), labels[i:i + BATCH])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    seconds = (time.perf_counter() - start) / steps
    return model, sum(losses[-window:]) / len(losses[-window:]), seconds, hooks.summary() if hooks else None
