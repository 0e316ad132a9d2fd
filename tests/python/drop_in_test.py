#!/usr/bin/python3
"""The drop-in modules of ecosim.torch (issue 23): Few-Bit's GELU/SiLU/ReLU/Sigmoid/Tanh and Mesa's Softmax/GELU/
LayerNorm compute the same forward as torch's modules (Mesa: the op itself, identical; Few-Bit: f(x) evaluated in
double and rounded, where torch's vectorised fp32 functions are off by a few ulps: within 4 ulps of
max(|f(x)|, 1)) and a backward close to torch's: Few-Bit's gradient is f′ replaced by its b-bit piecewise-constant
quantiser (ReLU's 1-bit one is exact: identical gradients; the smooth ones at 4 bits within 10 % overall), Mesa's
is computed from 8-bit codes (within 5 % overall). And the element types: fp16 and bf16 tensors reach the kernels as
their 16-bit words, fp64 through fp32, and come back in their own dtype, within the 8-bit error (2 %) of each
scheme's packer. Beyond the values:
- a Few-Bit output (fp32, bf16) is a tensor of its own, which may be modified in place as torch's output may;
- the codes hold no second derivative: differentiating a gradient through FewBitTanh for what comes before it raises
  (directly, and in a gradient penalty differentiated for the first or middle layer's weight alone); for the last
  layer alone, which needs f′ only, the penalty's gradient equals plain torch's with f′ replaced by the codebook's
  levels; the gradient computed with create_graph=True is the kernel's (fp32, bf16); ReLU's exact mask gives a
  gradient penalty's gradient equal to torch's;
- under compressed_activations("fewbit") the swapped functions honour what they are given, as torch's: out=,
  inplace=True (the input modified, its gradient torch's), integer tensors (exact), float64 (torch's values),
  GELU's tanh form (torch's own op).
Exits 77 without torch.

usage: drop_in_test.py
"""
import sys

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as missing:
    print(f"SKIPPED: {missing}")
    sys.exit(77)

import ecosim.torch as et


def forward_backward(module, x, upstream):
    leaf = x.clone().requires_grad_(True)
    y = module(leaf * 1.0)  # an activation, not a leaf: a leaf that requires grad is kept as a parameter
    y.backward(upstream)
    return y.detach(), leaf.grad


def check(name, case):
    """1 (a failure) unless case() returns True; an exception is a failure, printed."""
    try:
        ok = bool(case())
    except Exception as failure:  # a case that raises where it should not
        ok, name = False, f"{name} ({type(failure).__name__}: {str(failure)[:120]})"
    print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if ok else 1


def raises_second_derivative(compute):
    try:
        compute()
    except RuntimeError as e:
        return "second derivative" in str(e)
    return False


def inplace_on_output(dtype):
    """y = FewBitGELU(x); y.add_(1): accepted, and the gradient is the one without the in-place add."""
    x, upstream = torch.randn(8, 300).to(dtype), torch.randn(8, 300).to(dtype)
    grads = []
    for modify in (False, True):
        leaf = x.clone().requires_grad_(True)
        y = et.FewBitGELU(4)(leaf * 1)
        if modify:
            y.add_(1)
        y.backward(upstream)
        grads.append(leaf.grad)
    return torch.equal(grads[0], grads[1])


def penalty_model(activation):
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(16, 64), activation, nn.Linear(64, 64), activation, nn.Linear(64, 1))


def penalty_gradient(model, x, inputs):
    """The gradient for `inputs` of the gradient penalty ‖∂ sum(model(x)) / ∂x‖² (zeros where the penalty does not
    depend on one: torch spells a zero second derivative of ReLU as zeros, the mask as no dependence)."""
    g, = torch.autograd.grad(model(x).sum(), x, create_graph=True)
    grads = torch.autograd.grad(g.pow(2).sum(), inputs, allow_unused=True)
    return [torch.zeros_like(p) if d is None else d for p, d in zip(inputs, grads)]


def exact_relu_penalty():
    """ReLU's mask is its exact derivative, its second derivative zero: the penalty's gradient is torch's."""
    model, x = penalty_model(nn.ReLU()), torch.randn(32, 16, requires_grad=True)
    reference = penalty_gradient(model, x, list(model.parameters()))
    with et.compressed_activations("fewbit", model=model):
        mine = penalty_gradient(model, x, list(model.parameters()))
    return all(torch.allclose(a, b, rtol=1e-5, atol=1e-7) for a, b in zip(mine, reference))


def tanh_penalty_refused(layer):
    """The gradient penalty differentiated for the weight of a layer before a tanh alone, whose path into the
    gradient runs through tanh's f″: refused, not computed without it."""
    model, x = penalty_model(nn.Tanh()), torch.randn(32, 16, requires_grad=True)
    with et.compressed_activations("fewbit", model=model):
        return raises_second_derivative(lambda: penalty_gradient(model, x, [model[layer].weight]))


class QuantisedTanh(nn.Module):
    """Plain torch's tanh with Few-Bit's forward values and its derivative replaced by the codebook's level of each
    element taken as a constant (f″ zero): levels[number of borders ≤ |x|], as the kernels code an even f′."""

    def __init__(self, bits):
        super().__init__()
        book = et.fewbit.codebook("tanh", bits)
        self.bits, self.borders, self.levels = bits, torch.tensor(book.borders), torch.tensor(book.levels)

    def forward(self, x):
        with torch.enable_grad():
            value = et.FewBitTanh(self.bits)(x.detach().requires_grad_(True)).detach()
        level = self.levels[torch.bucketize(x.detach().abs(), self.borders, right=True)]
        return value + (x - x.detach()) * level


def tanh_penalty_last_layer():
    """The gradient penalty differentiated for the last layer alone, after both tanh: its path runs through the
    gradients' incoming gradients only, which Few-Bit's codes give (f′ quantised, no f″). Equal to plain torch's
    through QuantisedTanh, whose first-order gradient (checked too) is Few-Bit's."""
    x = torch.randn(32, 16, requires_grad=True)
    results = []
    for activation, hooks in ((nn.Tanh(), et.compressed_activations("fewbit", bits=4)), (QuantisedTanh(4), None)):
        model = penalty_model(activation)
        last = [model[4].weight, model[4].bias]
        with hooks if hooks else torch.enable_grad():
            first, = torch.autograd.grad(model(x).sum(), x)
            results.append((first, penalty_gradient(model, x, last)))
    (first, mine), (first_reference, reference) = results
    return torch.equal(first, first_reference) and mine[0].norm() > 0 and \
        all(torch.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(mine, reference))


def create_graph_values(dtype):
    """FewBitTanh's gradient computed with create_graph=True (torch's ops) equals the kernel's, bit for bit."""
    x, upstream = torch.randn(8, 300).to(dtype), torch.randn(8, 300).to(dtype)
    grads = []
    for create_graph in (False, True):
        leaf = x.clone().requires_grad_(True)
        grad, = torch.autograd.grad(et.FewBitTanh(4)(leaf * 1), leaf, upstream, create_graph=create_graph)
        grads.append(grad)
    return grads[1].requires_grad and torch.equal(grads[0], grads[1].detach())


def create_graph_float64():
    """ReLU's float64 gradient with create_graph=True keeps float64 (a 1e-12 part of it was rounded to fp32), and is
    linear in the incoming gradient as torch.autograd.gradcheck finds it."""
    from ecosim.torch.fewbit import fewbit
    x = torch.randn(5, dtype=torch.float64)
    upstream = torch.full((5,), 1 + 1e-12, dtype=torch.float64, requires_grad=True)

    def gradient(g):
        leaf = x.clone().requires_grad_(True)
        return torch.autograd.grad(fewbit(leaf, "relu"), leaf, g, create_graph=True)[0]

    return torch.equal(gradient(upstream).detach(), upstream.detach() * (x > 0)) and \
        torch.autograd.gradcheck(gradient, (upstream,))


def drop_in_second_derivative_refused():
    x = torch.randn(1000, requires_grad=True)
    g, = torch.autograd.grad(et.FewBitTanh(4)(x).sum(), x, create_graph=True)
    return raises_second_derivative(lambda: torch.autograd.grad(g.sum(), x))


def out_honoured(name):
    """torch.<name>(x, out=o), swapped, looked up inside the context."""
    x, out = torch.randn(10, requires_grad=True), torch.empty(10)
    with torch.no_grad(), et.compressed_activations("fewbit"):
        returned = getattr(torch, name)(x, out=out)
    return returned is out and torch.equal(out, getattr(torch, name)(x.detach()))


def inplace_honoured(module_class):
    """module_class(inplace=True) on a Linear's output: that output modified to torch's values and returned, and the
    gradient is torch's (exact for ReLU, within Few-Bit's quantised derivative, 10 %, for SiLU)."""
    torch.manual_seed(2)
    layer, x, upstream = nn.Linear(32, 300), torch.randn(16, 32), torch.randn(16, 300)
    reference_output = module_class()(layer(x)).detach()
    layer.zero_grad()
    module_class(inplace=True)(layer(x)).backward(upstream)
    reference = layer.weight.grad.clone()
    layer.zero_grad()
    with et.compressed_activations("fewbit", bits=4):
        h = layer(x)
        y = module_class(inplace=True)(h)
        y.backward(upstream)
    error = ((layer.weight.grad - reference).norm() / reference.norm()).item()
    exact = module_class is nn.ReLU
    close = torch.equal(y, reference_output) if exact else torch.allclose(y, reference_output, rtol=1e-6, atol=1e-6)
    return y is h and close and (error == 0 if exact else error <= 0.10)


def integer_relu():
    x = torch.tensor([-3, 5, 2**30 + 1])
    with et.compressed_activations("actnn"):
        return torch.equal(F.relu(x), torch.tensor([0, 5, 2**30 + 1]))


def float64_forward(owner, name):
    """owner.<name> (looked up inside the context): torch's own float64 values (the kernels compute in fp32), the
    gradient in float64."""
    x = (torch.randn(1000, dtype=torch.float64) * 4).requires_grad_(True)
    with et.compressed_activations("fewbit", bits=4):
        y = getattr(owner, name)(x * 1)
        y.sum().backward()
    return torch.equal(y.detach(), getattr(owner, name)(x.detach())) and x.grad.dtype == torch.float64


def gelu_tanh_form():
    """F.gelu(approximate="tanh") has no codebook: torch's own op, its exact gradient."""
    x = torch.randn(1000, requires_grad=True)
    reference, = torch.autograd.grad(F.gelu(x * 1, approximate="tanh").sum(), x)
    with et.compressed_activations("fewbit"):
        mine, = torch.autograd.grad(F.gelu(x * 1, approximate="tanh").sum(), x)
    return torch.equal(mine, reference)


def keyword_input(scheme, owner, name):
    """owner.<name>(input=x), torch's own keyword, under `scheme`: the activation's values (it raised TypeError)."""
    x = torch.randn(64)
    reference = getattr(owner, name)(input=x)
    with et.compressed_activations(scheme):
        return torch.allclose(getattr(owner, name)(input=x * 1), reference, rtol=1e-6, atol=1e-6)


def fewbit_behaviours():
    """The failures among the Few-Bit behaviours beyond the values (the module's documentation)."""
    cases = [(f"a Few-Bit output ({dtype}) modified in place, as torch's may be",
              lambda dtype=dtype: inplace_on_output(dtype)) for dtype in (torch.float32, torch.bfloat16)]
    cases += [(f"FewBitTanh's gradient with create_graph=True ({dtype}) is the kernel's",
               lambda dtype=dtype: create_graph_values(dtype)) for dtype in (torch.float32, torch.bfloat16)]
    cases += [("ReLU's float64 gradient with create_graph=True keeps float64", create_graph_float64),
              ("FewBitTanh's second derivative raises", drop_in_second_derivative_refused),
              ("a gradient penalty through Few-Bit tanh, for the first weight alone, raises",
               lambda: tanh_penalty_refused(0)),
              ("a gradient penalty through Few-Bit tanh, for the middle weight alone, raises",
               lambda: tanh_penalty_refused(2)),
              ("a gradient penalty through Few-Bit tanh, for the last layer alone, equals torch's with the quantised "
               "derivative", tanh_penalty_last_layer),
              ("a gradient penalty through ReLU's exact mask equals torch's", exact_relu_penalty),
              ("torch.sigmoid(x, out=o) writes o", lambda: out_honoured("sigmoid")),
              ("torch.tanh(x, out=o) writes o", lambda: out_honoured("tanh")),
              ("nn.ReLU(inplace=True) modifies its input, torch's gradient", lambda: inplace_honoured(nn.ReLU)),
              ("nn.SiLU(inplace=True) modifies its input, gradient within 10 %", lambda: inplace_honoured(nn.SiLU)),
              ("F.relu of an int64 tensor is exact", integer_relu),
              ("F.gelu(approximate='tanh') is torch's", gelu_tanh_form)]
    keyword_cases = (("actnn", F, "relu"), ("fewbit", F, "relu"), ("fewbit", F, "gelu"), ("fewbit", F, "silu"),
                     ("fewbit", torch, "sigmoid"), ("fewbit", torch, "tanh"))
    cases += [(f"{owner.__name__}.{name}(input=x) under {scheme}",
               lambda s=scheme, o=owner, n=name: keyword_input(s, o, n)) for scheme, owner, name in keyword_cases]
    cases += [(f"{owner.__name__}.{name} of a float64 tensor: torch's values",
               lambda owner=owner, name=name: float64_forward(owner, name))
              for owner, name in ((F, "gelu"), (F, "silu"), (torch, "sigmoid"), (torch, "tanh"))]
    return sum(check(name, case) for name, case in cases)


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
    failures += fewbit_behaviours()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
