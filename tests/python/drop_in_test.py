#!/usr/bin/python3
"""The drop-in modules of ecosim.torch (issue 23): Few-Bit's GELU/SiLU/ReLU/Sigmoid/Tanh and Mesa's Softmax/GELU/
LayerNorm compute the same forward as torch's modules (Mesa: the op itself, identical; Few-Bit: f(x) evaluated in
double and rounded, where torch's vectorised fp32 functions are off by a few ulps: within 4 ulps of
max(|f(x)|, 1)) and a backward close to torch's: Few-Bit's gradient is f′ replaced by its b-bit piecewise-constant
quantiser (ReLU's 1-bit one is exact: identical gradients; the smooth ones at 4 bits within 10 % overall), Mesa's
is computed from 8-bit codes (within 5 % overall). And the element types: fp16 and bf16 tensors reach the kernels as
their 16-bit words, fp64 through fp32, and come back in their own dtype, within the 8-bit error (2 %) of each
scheme's packer. Exits 77 without torch.

usage: drop_in_test.py
"""
import sys

try:
    import torch
    import torch.nn as nn
except ImportError as missing:
    print(f"SKIPPED: {missing}")
    sys.exit(77)

import ecosim.torch as et


def forward_backward(module, x, upstream):
    leaf = x.clone().requires_grad_(True)
    y = module(leaf * 1.0)  # an activation, not a leaf: a leaf that requires grad is kept as a parameter
    y.backward(upstream)
    return y.detach(), leaf.grad


def main():
    torch.manual_seed(0)
    x, upstream = torch.randn(8, 4, 16, 16) * 2, torch.randn(8, 4, 16, 16)
    cases = [(et.FewBitReLU(), nn.ReLU(), 0.0), (et.FewBitGELU(4), nn.GELU(), 0.10),
             (et.FewBitSiLU(4), nn.SiLU(), 0.10), (et.FewBitSigmoid(4), nn.Sigmoid(), 0.10),
             (et.FewBitTanh(4), nn.Tanh(), 0.10), (et.MesaSoftmax(dim=-1), nn.Softmax(dim=-1), 0.05),
             (et.MesaGELU(), nn.GELU(), 0.05)]
    norm = et.MesaLayerNorm(16)
    reference_norm = nn.LayerNorm(16)
    reference_norm.load_state_dict(norm.norm.state_dict())
    cases.append((norm, reference_norm, 0.05))
    failures = 0
    for module, reference, tolerance in cases:
        y, g = forward_backward(module, x, upstream)
        y_ref, g_ref = forward_backward(reference, x, upstream)
        ulps = 0 if isinstance(module, et.mesa.MesaModule) else 4
        same_forward = bool(torch.all((y - y_ref).abs() <= ulps * torch.finfo(torch.float32).eps *
                                      y_ref.abs().clamp(min=1.0)))
        error = ((g - g_ref).norm() / g_ref.norm()).item()
        ok = same_forward and error <= tolerance
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {type(module).__name__}: forward as {type(reference).__name__}'s "
              f"({same_forward}), gradient error {error:.3%} (tolerance {tolerance:.0%})")
    x = torch.randn(4, 1000)
    for dtype in (torch.float16, torch.bfloat16, torch.float64):
        for name in ("actnn", "gact", "mesa"):
            scheme = et.schemes.make_scheme(name, 8)
            back = scheme.unpack(scheme.pack(x.to(dtype), 0, 1))
            error = ((back.double() - x.to(dtype).double()).norm() / x.norm()).item()
            ok = back.dtype == dtype and error <= 0.02
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name} on {dtype}: back as {back.dtype}, error {error:.3%}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
