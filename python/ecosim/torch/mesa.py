"""Mesa's drop-in modules: MesaSoftmax, MesaGELU and MesaLayerNorm compute exactly what torch's modules compute and
keep what their backward reads (the softmax output, the GELU and LayerNorm inputs) as Mesa's 8-bit codes with a
running (α, β) per head or channel, one running state per module and saved tensor, as Mesa's converted modules do
(the project's Mesa kernels through ecosim.torch.schemes.Mesa). Only tensors of the activation's shape are
compressed: LayerNorm's per-row mean and 1/std and the parameters are kept."""
import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F

from .schemes import Mesa, Packed

MIN_ELEMENTS = 256


class MesaModule(nn.Module):
    """Runs an op with its saved floating tensors Mesa-compressed, the running state kept in this module."""

    def __init__(self):
        super().__init__()
        self.mesa, self.calls = Mesa(8), 0

    def compressed(self, op, x, **kwargs):
        if torch.jit.is_tracing():  # an ONNX export or torch.jit.trace: no backward, the running state untouched
            return op(x, **kwargs)
        positions = itertools.count()
        self.calls += 1
        own = {p.storage().data_ptr() for p in self.parameters()}  # the module's weights are kept as they are

        def pack(t):
            if (t.shape != x.shape or not t.is_floating_point() or t.storage().data_ptr() in own
                    or t.numel() < MIN_ELEMENTS):
                return t
            position = next(positions)
            return self.mesa.pack(t, position, self.calls * 1_000_003 + position)

        def unpack(packed):
            return packed.scheme.unpack(packed) if isinstance(packed, Packed) else packed

        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            return op(x, **kwargs)


class MesaSoftmax(MesaModule):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return self.compressed(F.softmax, x, dim=self.dim)


class MesaGELU(MesaModule):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return self.compressed(F.gelu, x, approximate=self.approximate)


class MesaLayerNorm(MesaModule):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True):
        super().__init__()
        self.norm = nn.LayerNorm(normalized_shape, eps, elementwise_affine)

    def forward(self, x):
        return self.compressed(self.norm, x)
