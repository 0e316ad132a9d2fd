"""Few-Bit Backward as drop-in activations: the forward computes f(x) and keeps only each element's b-bit code
(the project's kernels), the backward multiplies the incoming gradient by the code's level. FewBitGELU & co.
are nn.Modules; patched() swaps torch's functional activations for them while compressed_activations is active
(F.gelu with approximate="none", F.silu, F.relu, torch.sigmoid, torch.tanh: what nn.GELU, nn.SiLU, nn.ReLU,
nn.Sigmoid and nn.Tanh call; a tensor method such as x.relu() is not swapped): all of them under "fewbit", ReLU
alone under the other schemes. ReLU's derivative takes two values: its 1-bit code is exact (ActNN's ReLU keeps
the same 1-bit mask), and it always takes 1 bit."""
import torch
import torch.nn.functional as F

from .. import _ecosim
from .tensors import from_raw, kernel_input

PIECEWISE_CONSTANT = {"relu"}
ACTIVATIONS = ["gelu", "silu", "relu", "sigmoid", "tanh"]
codebooks = {}


def codebook(activation, bits):
    """The solved quantiser of the activation's derivative (solved once per activation and width)."""
    bits = 1 if activation in PIECEWISE_CONSTANT else bits
    key = (activation, bits)
    if key not in codebooks:
        codebooks[key] = _ecosim.fewbit_codebook(activation, bits)
    return codebooks[key]


class FewBitFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, book):
        array, dtype, device = kernel_input(x)
        out, codes = _ecosim.fewbit_forward(book, array, dtype, device)
        ctx.book, ctx.codes, ctx.device = book, codes, device
        return from_raw(out, x.shape, x.dtype, x.device)

    @staticmethod
    def backward(ctx, grad):
        array, dtype, device = kernel_input(grad)
        out = _ecosim.fewbit_backward(ctx.book, ctx.codes, array, dtype, device)
        return from_raw(out, grad.shape, grad.dtype, grad.device), None


def fewbit(x, activation, bits=2, record=None):
    """f(x) whose backward reads b-bit codes instead of x; record(x, code_bytes, bits, activation), when given, is
    told of each call that keeps codes for backward."""
    book = codebook(activation, bits)
    y = FewBitFunction.apply(x, book)
    if record is not None and y.requires_grad:
        record(x, (x.numel() * book.bits + 7) // 8, book.bits, activation)
    return y


class FewBitActivation(torch.nn.Module):
    activation = None

    def __init__(self, bits=2):
        super().__init__()
        self.bits = bits

    def forward(self, x):
        return fewbit(x, self.activation, self.bits)

    def extra_repr(self):
        return f"bits={self.bits}"


class FewBitGELU(FewBitActivation):
    activation = "gelu"


class FewBitSiLU(FewBitActivation):
    activation = "silu"


class FewBitReLU(FewBitActivation):
    activation = "relu"


class FewBitSigmoid(FewBitActivation):
    activation = "sigmoid"


class FewBitTanh(FewBitActivation):
    activation = "tanh"


class patched:
    """Context manager: torch's functional activations named in `which` (gelu, silu, relu, sigmoid, tanh)
    replaced by Few-Bit ones at `bits` — in torch's namespaces, and where one of `modules` holds one as an
    attribute (nn.TransformerEncoderLayer keeps F.gelu or F.relu as its `activation` when built)."""

    def __init__(self, which, bits, record, modules=()):
        self.which, self.bits, self.record, self.modules, self.saved = set(which), bits, record, modules, []

    def __enter__(self):
        originals = {(F, "gelu"): F.gelu, (F, "silu"): F.silu, (F, "relu"): F.relu,
                     (torch, "sigmoid"): torch.sigmoid, (torch, "tanh"): torch.tanh}
        swapped = {
            (F, "gelu"): lambda x, approximate="none": (fewbit(x, "gelu", self.bits, self.record)
                                                         if approximate == "none"
                                                         else originals[(F, "gelu")](x, approximate=approximate)),
            (F, "silu"): lambda x, inplace=False: fewbit(x, "silu", self.bits, self.record),
            (F, "relu"): lambda x, inplace=False: fewbit(x, "relu", self.bits, self.record),
            (torch, "sigmoid"): lambda x, *, out=None: fewbit(x, "sigmoid", self.bits, self.record),
            (torch, "tanh"): lambda x, *, out=None: fewbit(x, "tanh", self.bits, self.record),
        }
        chosen = {key: function for key, function in swapped.items() if key[1] in self.which}
        held = [(module, attribute, key) for module in self.modules for attribute, value in vars(module).items()
                for key in chosen if value is originals[key]]
        for (owner, name), function in chosen.items():
            self.saved.append((owner, name, originals[(owner, name)]))
            setattr(owner, name, function)
        for module, attribute, key in held:
            self.saved.append((module, attribute, originals[key]))
            setattr(module, attribute, chosen[key])
        return self

    def __exit__(self, *exc):
        for owner, name, original in self.saved:
            setattr(owner, name, original)
        self.saved = []
