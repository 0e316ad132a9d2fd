#!/usr/bin/python3
"""The bytes the compression hooks see autograd save, and hold compressed, against `ecosim train`'s prediction
(issue 23): the digits ResNet and ViT (digits_models.py, each also an `ecosim train --model-file` entry) run one
forward pass at batch 32.
- Under compressed_activations("actnn"), the distinct storages the hooks were handed before backward (what
  autograd would hold uncompressed, parameters and buffers left out) equal `ecosim train`'s activation_bytes of
  scheme none within 1 %.
- Under "gact:4" and "gact:2" (fixed bits on every floating tensor, GACT's "Fix B bit"), the bytes the hooks hold
  equal train's gact:B prediction within 1 %, once the hooks' own 1-bit ReLU masks are taken out: the hooks keep
  ReLU's exact mask beside the quantized output the next layer saves (gradients stay exact), where GACT and train
  keep that one quantized tensor.
The other schemes apply their own roles in train and every-tensor compression in the hooks: printed, not checked.
Exits 77 (skipped) without torch.

usage: saved_bytes_test.py WORKDIR
"""
import json
import sys
from pathlib import Path

try:
    import torch
except ImportError as missing:
    print(f"SKIPPED: {missing}")
    sys.exit(77)

import digits_models
import ecosim
import ecosim.torch

TOLERANCE, BATCH = 0.01, 32


def main():
    workdir = Path(sys.argv[1])
    workdir.mkdir(parents=True, exist_ok=True)
    zoo = workdir / "digits_zoo.json"
    zoo.write_text(json.dumps(digits_models.zoo_entries()))
    torch.manual_seed(0)
    failures = 0
    for model_class, name in ((digits_models.ResNet, "digits_resnet"), (digits_models.ViT, "digits_vit")):
        model = model_class()
        model.train()
        x = torch.rand(BATCH, 1, digits_models.IMAGE, digits_models.IMAGE)
        predicted = ecosim.train(model=name, batch=BATCH, model_file=zoo)["schemes"][0]["activation_bytes"]
        # fewbit's drop-ins take the place of the activations' saves: what autograd would keep without them (a
        # GELU's input, a ReLU's output) is still in saved_storage_bytes
        with ecosim.torch.compressed_activations("fewbit", model=model) as hooks:
            out = model(x)
            uncompressed = hooks.summary()["saved_storage_bytes"]
        del out
        gap = predicted / uncompressed - 1
        ok = abs(gap) <= TOLERANCE
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: under fewbit's drop-ins autograd would keep {uncompressed} B, "
              f"ecosim train predicts {predicted} B ({gap:+.3%})")
        with ecosim.torch.compressed_activations("actnn", model=model) as hooks:
            out = model(x)
            summary = hooks.summary()
        del out
        held = summary["saved_storage_bytes"]
        gap = predicted / held - 1
        ok = abs(gap) <= TOLERANCE
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: the hooks were handed {held} B, ecosim train predicts "
              f"{predicted} B ({gap:+.3%}); actnn at {summary['bits']} bits holds {summary['bytes_after']} B of "
              f"{held} B ({summary['ratio']:.1f}×)")
        for scheme in ("gact:4", "gact:2"):
            with ecosim.torch.compressed_activations(scheme, model=model) as hooks:
                out = model(x)
                summary, stats = hooks.summary(), list(hooks.stats)
            del out
            masks = sum(s["bytes_after"] for s in stats if s.get("activation") and not s["state"])
            predicted = ecosim.train(model=name, batch=BATCH, model_file=zoo, scheme=scheme)["schemes"][0]
            compressed = summary["bytes_after"] - masks
            gap = predicted["activation_bytes"] / compressed - 1
            ok = abs(gap) <= TOLERANCE
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name} {scheme}: the hooks hold {summary['bytes_after']} B, "
                  f"{compressed} B without their ReLU masks; ecosim train predicts "
                  f"{predicted['activation_bytes']} B ({gap:+.3%})")
    # bits a scheme has no codes for are refused, not quietly capped (ActNN's average budget is 1..8; GACT's 32 is raw)
    for scheme, bits in (("actnn", 16), ("actnn", 0), ("gact", 16)):
        try:
            ecosim.torch.compressed_activations(scheme, bits=bits)
            ok = False
        except ecosim.Error as e:
            ok = f"got {bits}" in str(e)
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {scheme} at {bits} bits is refused")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
