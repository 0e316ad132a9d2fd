#!/usr/bin/python3
"""ecosim.torch.count against `ecosim count --onnx` (issue 23): a torchvision-style ResNet (basic blocks, 3×32×32)
and a ViT exported by ecosim.torch.count and counted in this process give the same report as the ecosim binary
counting the same export — muls, adds, energy, bytes, the workload's attention blocks and shapes, the per-layer
rows — with the export's own attention, with every block swapped for EcoFormer, under fvcore's rules and over the
attention blocks alone; keywords the command refuses raise ecosim.Error naming them; the ViT's attention blocks
are all found with their shapes, and nn.MultiheadAttention's; every submodule's training mode is restored after
the export; an export torch refuses raises ecosim.Error. Counting inside compressed_activations (actnn, fewbit)
gives the count outside it (the swapped activations export as torch's ops) and leaves the hooks' statistics
empty; a BatchNorm after a conv is counted, not folded into it: count(Conv, BN) − count(Conv) is one multiply and
one add per element (exact convention), as `ecosim count` counts a BatchNormalization; onnx= and model= are
refused with ecosim.Error.
Exits 77 (skipped) without torch or without ONNX support.

usage: torch_count_test.py ECOSIM WORKDIR
"""
import json
import subprocess
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
from ecosim import _ecosim

FIELDS = ("muls", "adds", "energy_pj", "bytes_read", "bytes_written")


def cli_count(exe, path, *args):
    run = subprocess.run([exe, "count", "--onnx", str(path), "--format", "json", "--per-layer", *args],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ecosim count --onnx {path} {' '.join(args)} failed: {run.stderr}")
    return json.loads(run.stdout)


class MultiheadModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mha, self.fc = torch.nn.MultiheadAttention(32, 4, batch_first=True), torch.nn.Linear(32, 7)

    def forward(self, x):
        return self.fc(self.mha(x, x, x, need_weights=False)[0])


class Unexportable(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.svd(x)[0]


def main():
    if not _ecosim.onnx_supported():
        print("SKIPPED: ecosim built without ONNX import")
        sys.exit(77)
    exe, workdir = sys.argv[1], Path(sys.argv[2])
    workdir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    resnet = digits_models.ResNet(widths=[16, 32, 64, 128], in_chans=3)
    vit = digits_models.ViT(dim=64, heads=4, depth=3, patch=2, in_chans=1)
    cases = [("resnet", resnet, torch.randn(1, 3, 32, 32), {}, []),
             ("vit", vit, torch.randn(2, 1, 8, 8), {}, []),
             ("vit_ecoformer", vit, torch.randn(2, 1, 8, 8), {"attention": "ecoformer", "bits": 8, "support": 8},
              ["--attention", "ecoformer", "--bits", "8", "--support", "8"]),
             ("vit_fvcore", vit, torch.randn(2, 1, 8, 8), {"rules": "fvcore"}, ["--rules", "fvcore"]),
             ("vit_attention_scope", vit, torch.randn(2, 1, 8, 8), {"scope": "attention"}, ["--scope", "attention"])]
    failures = 0
    for name, model, x, options, args in cases:
        path = workdir / f"{name}.onnx"
        mine = ecosim.torch.count(model, x, per_layer=True, save_onnx=path, **options)
        theirs = cli_count(exe, path, *args)
        same = all(mine[f] == theirs[f] for f in FIELDS) and \
            {k: v for k, v in mine["workload"].items() if k != "onnx"} == \
            {k: v for k, v in theirs["workload"].items() if k != "onnx"}
        rows = [(r["name"], r["muls"], r["adds"]) for r in mine["layers"]] == \
               [(r["name"], r["muls"], r["adds"]) for r in theirs["layers"]]
        ok = same and rows
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {mine['muls']} muls, {mine['adds']} adds, "
              f"{mine['energy_pj']:.6g} pJ, {mine['workload']['attention_blocks']} attention blocks (command line: "
              f"{theirs['muls']} muls, {theirs['adds']} adds, {theirs['energy_pj']:.6g} pJ; rows agree: {rows})")
    blocks = ecosim.torch.count(vit, torch.randn(2, 1, 8, 8))["workload"]["attention_shapes"]
    ok = len(blocks) == 3 and all((b["heads"], b["queries"], b["keys"], b["head_dim"]) == (4, 17, 17, 16)
                                  for b in blocks)
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} the ViT's 3 blocks found, 4 heads × 17 tokens × 16: {blocks}")
    try:
        ecosim.torch.count(vit, torch.randn(2, 1, 8, 8), attention="ecoformer", features=8)
        ok = False
    except ecosim.Error as e:
        ok = "features" in str(e)
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} a parameter the variant does not read raises ecosim.Error")
    # a keyword that is no option nor parameter, or a parameter that is not an integer: ecosim.Error naming it
    for keywords, named in (({"batch": 4}, "batch"), ({"attention": "performer", "features": True}, "features"),
                            ({"rules": "flops"}, "rules")):
        try:
            ecosim.torch.count(vit, torch.randn(2, 1, 8, 8), **keywords)
            ok = False
        except ecosim.Error as e:
            ok = named in str(e)
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} count(..., {keywords}) raises ecosim.Error naming '{named}'")
    # nn.MultiheadAttention exports (gradients on: its inference fast path has no ONNX form) and its block is found,
    # 4 heads of 8 over 11 tokens: scores and context B·H·N²·d multiplications each, softmax one a score (the scale
    # is applied to q before the block)
    mha = MultiheadModel()
    counted = ecosim.torch.count(mha, torch.randn(2, 11, 32), convention="exact", per_layer=True)
    blocks = counted["workload"]["attention_shapes"]
    core = [r for r in counted["layers"] if blocks and r["name"] == f"{blocks[0]['nodes'][0]}..{blocks[0]['nodes'][-1]}"]
    ok = (len(blocks) == 1 and (blocks[0]["heads"], blocks[0]["queries"], blocks[0]["head_dim"]) == (4, 11, 8)
          and len(core) == 1 and core[0]["muls"] == 2 * (2 * 4 * 11 * 11 * 8) + 2 * 4 * 11 * 11)
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} nn.MultiheadAttention: {blocks}, core {core[:1]}")
    # each submodule's mode as the user set it, after the export's eval mode: a frozen BatchNorm and a dropout in
    # eval stay so in a model training
    frozen = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                 torch.nn.Dropout(0.5))
    frozen.train()
    frozen[1].eval()
    frozen[3].eval()
    modes = [m.training for m in frozen.modules()]
    ecosim.torch.count(frozen, torch.randn(1, 3, 8, 8))
    ok = [m.training for m in frozen.modules()] == modes
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} every submodule's training mode restored after the export: {modes}")
    try:  # an operator torch cannot export: ecosim.Error naming the model, not torch's own exception
        ecosim.torch.count(Unexportable(), torch.randn(4, 4))
        ok = False
    except ecosim.Error as e:
        ok = "Unexportable" in str(e) and "torch.onnx.export failed" in str(e)
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} an export torch refuses raises ecosim.Error")
    # inside the hooks: the export records torch's own activations (the Few-Bit ones compute through numpy, which
    # a trace would record as constants) and the hooks record nothing
    mlp = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.GELU(),
                              torch.nn.Linear(256, 10))
    x = torch.randn(8, 64)
    outside = ecosim.torch.count(mlp, x, convention="exact")
    for scheme in ("actnn", "fewbit"):
        with ecosim.torch.compressed_activations(scheme, model=mlp) as hooks:
            inside = ecosim.torch.count(mlp, x, convention="exact")
        ok = all(inside[f] == outside[f] for f in FIELDS) and not hooks.stats
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} count inside compressed_activations('{scheme}'): {inside['muls']} muls, "
              f"{inside['adds']} adds (outside: {outside['muls']}, {outside['adds']}); {len(hooks.stats)} tensors "
              f"recorded")
    # a BatchNorm in its eval form after a conv: y = a·x + b per element, not folded into the conv
    conv, x = torch.nn.Conv2d(3, 16, 3, padding=1), torch.randn(2, 3, 32, 32)
    alone = ecosim.torch.count(conv, x, convention="exact")
    with_bn = ecosim.torch.count(torch.nn.Sequential(conv, torch.nn.BatchNorm2d(16)), x, convention="exact")
    elements = 2 * 16 * 32 * 32
    ok = (with_bn["muls"] - alone["muls"], with_bn["adds"] - alone["adds"]) == (elements, elements)
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} Conv+BatchNorm2d − Conv: {with_bn['muls'] - alone['muls']} muls, "
          f"{with_bn['adds'] - alone['adds']} adds (BN's {elements} elements)")
    for keyword in ("onnx", "model"):
        try:
            ecosim.torch.count(conv, x, **{keyword: "x"})
            ok = False
        except ecosim.Error as e:
            ok = f"{keyword}=" in str(e)
        except Exception:  # noqa: BLE001  (anything else is the failure checked)
            ok = False
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} count(..., {keyword}=...) raises ecosim.Error")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
