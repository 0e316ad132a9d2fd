#!/usr/bin/python3
"""Training with ecosim's compression kernels as saved-tensor hooks (issue 23): the digits ResNet and ViT
(digits_models.py) trained 300 seeded steps on the CPU (digits_training.py: the same initial weights and batches
for every run) with each scheme at its default bits reach a training loss (the mean of the last 100 steps' losses)
within 10 % of the same training in fp32: loss ≤ 1.1 × fp32's (a lower loss reaches it too). The fp32 training
with another seed is printed beside them, the scale of run-to-run noise (not checked). Exits 77 (skipped) without
torch or scikit-learn.

One known miss, kept visible: ActNN at its default 2 bits on the ViT ends about 46 % above fp32 (2 bits on every
saved tensor of a transformer is too coarse; ActNN itself has no transformer layers and never quantizes
attention). For it the test prints the 2-bit gap and checks the next width, 4 bits, against the same 10 %.
ActNN's own defaults do not close it (tried in session 15, not adopted): its modules only (Linear and Conv inputs
quantized; LayerNorm, GELU, softmax and the attention products kept) with its joint per-layer × per-sample
allocation weighted by each module's output gradient (its QScheme with perlayer) end +12 %; the same allocation
over every saved tensor, weighted by the tensor's own gradient, +73 %; GACT's allocation at an average of 2 bits
(gact:avg2) +68 %. Of the tensor kinds alone at 2 bits, LayerNorm inputs cost +18 %, Linear inputs +13 %.

usage: training_test.py
"""
import sys

try:
    import sklearn.datasets  # noqa: F401  (the digits)
    import torch
except ImportError as missing:
    print(f"SKIPPED: {missing}")
    sys.exit(77)

import digits_models
import digits_training
import ecosim.torch

STEPS, TOLERANCE = 300, 0.10
# (model, scheme): the bits checked instead of the default, the default's gap printed (see above).
KNOWN_MISSES = {("ViT", "actnn"): 4}


def main():
    torch.set_num_threads(1)
    failures = 0
    for model_class in (digits_models.ResNet, digits_models.ViT):
        _, reference, seconds, _ = digits_training.train(model_class, STEPS)
        _, other_seed, _, _ = digits_training.train(model_class, STEPS, seed=1)
        print(f"     {model_class.__name__} fp32: loss {reference:.4f} ({seconds * 1e3:.1f} ms/step); with seed 1: "
              f"{other_seed:.4f} ({other_seed / reference - 1:+.1%})")
        for scheme, bits in ecosim.torch.DEFAULT_BITS.items():
            checked_bits = KNOWN_MISSES.get((model_class.__name__, scheme))
            if checked_bits:
                _, missed, _, _ = digits_training.train(model_class, STEPS, scheme, bits)
                print(f"miss {model_class.__name__} {scheme} {bits} bits (default): loss {missed:.4f} "
                      f"({missed / reference - 1:+.1%} of fp32; known, not checked)")
                bits = checked_bits
            _, loss, seconds, summary = digits_training.train(model_class, STEPS, scheme, bits)
            gap = loss / reference - 1
            ok = gap <= TOLERANCE
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {model_class.__name__} {scheme} {bits} bits: loss {loss:.4f} "
                  f"({gap:+.1%} of fp32; {seconds * 1e3:.1f} ms/step; the last step's saved tensors "
                  f"{summary['bytes_before']} B held as {summary['bytes_after']} B)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
